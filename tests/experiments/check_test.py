#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""Experiment files are checked before any run (tools/experiments/check.py; ctest label
`experiments`). Every bad file below must give exit 2 and exactly one line on standard error,
`FILE:LINE: KEY: message`, and start no run (a stand-in fgsim records every call: only
`params`, `list` and `--version` may appear; the runs directory must not be created), through
each way in:

  tools/experiment.sh --check FILE
  tools/experiment.sh smoke --config file=FILE ...     (its check before snakemake)
  snakemake -s tools/experiments/Snakefile ...          (the Snakefile's own check)

and experiment.load (no fgsim) must refuse the ones it can see with the same line. A valid
file passes with one summary line; every experiments/*.yaml passes; the checker's reading of
values agrees with fgsim's (value_error against `fgsim run` on tricky values).

    check_test.py ROOT FGSIM

The snakemake ways are skipped (said so) where snakemake is not installed."""
import os
import re
import shutil
import subprocess
import sys
import tempfile

root, fgsim = os.path.abspath(sys.argv[1]), os.path.abspath(sys.argv[2])
sys.path.insert(0, os.path.join(root, "tools", "experiments"))
import check as C  # noqa: E402
import experiment as X  # noqa: E402

tmp = tempfile.mkdtemp(prefix="fg_check_")
calls = os.path.join(tmp, "fgsim-calls")
standin = os.path.join(tmp, "fgsim")
with open(standin, "w") as f:
    f.write(f'#!/bin/sh\nprintf "%s\\n" "$*" >> "{calls}"\nexec "{fgsim}" "$@"\n')
os.chmod(standin, 0o755)
have_snakemake = shutil.which("snakemake") is not None

STUDY = """studies:
  - name: a
    workload: vecadd
    preset: orr2014
"""
NO_WORKLOAD = STUDY.replace("    workload: vecadd\n", "")
TWO_CASES = "    cases: {x: {mem.magic: true}, y: {mem.magic: false}}\n"
# name, file, line, key, message pattern, whether experiment.load (no fgsim) sees it too
CASES = [
    ("unknown top-level key", "title: t\ntitel: x\n" + STUDY + "    metrics: {t: sim.time_ns}\n",
     2, "titel", r"unknown top-level key; did you mean 'title'\?", True),
    ("misspelt study key", STUDY + "    metric: {t: sim.time_ns}\n",
     5, "metric", r"unknown study key; did you mean 'metrics'\?", True),
    ("unknown parameter in grid", STUDY + "    grid:\n      gpu.cu: [1, 2]\n    metrics: {t: sim.time_ns}\n",
     6, "gpu.cu", r"unknown parameter \(grid of study 'a'\); did you mean 'gpu.cus'\?", False),
    ("out-of-range value", STUDY + "    grid:\n      gpu.cus:\n        - 4\n        - 99999\n"
     "    metrics: {t: sim.time_ns}\n",
     8, "gpu.cus", r"value 99999 for 'gpu.cus' is out of range \[1, \d+\]", False),
    ("out-of-range value, a large bound in full", STUDY + "    fixed: {vecadd.n: 0}\n    metrics: {t: sim.time_ns}\n",
     5, "vecadd.n", r"value 0 for 'vecadd.n' is out of range \[1, 268435456\]", False),
    ("a seed in the settings", STUDY + "    fixed: {sim.seed: 5}\n    metrics: {t: sim.time_ns}\n",
     5, "sim.seed", r"a point's seed is the study's `seeds` \(each point is run with --seed\) \(fixed of study 'a'\)",
     True),
    ("an integer of 5,000 digits", STUDY + "    fixed: {gpu.cus: '" + "9" * 5000 + "'}\n    metrics: {t: sim.time_ns}\n",
     5, "gpu.cus", r"value 9{64}\.\.\. \(5000 bytes\) for 'gpu.cus' is out of range \[1, \d+\]", False),
    ("an integer of 5,000 digits unquoted", STUDY + "    fixed: {gpu.cus: " + "9" * 5000 + "}\n    metrics: {t: sim.time_ns}\n",
     5, "gpu.cus", r"value 9{64}\.\.\. \(5000 bytes\) for 'gpu.cus' is out of range \[1, \d+\]", False),
    ("out-of-range value (flow list)", STUDY + "    grid: {gpu.cus: [0, 99999]}\n    metrics: {t: sim.time_ns}\n",
     5, "gpu.cus", r"value 0 for 'gpu.cus' is out of range", False),
    ("wrong type", STUDY + "    fixed: {vecadd.n: 4096}\n    cases:\n      magic: {mem.magic: maybe}\n"
     "    metrics: {t: sim.time_ns}\n",
     7, "mem.magic", r"expected true or false for 'mem.magic', got 'maybe' \(case 'magic' of study 'a'\)", False),
    ("wrong type (a list)", STUDY + "    fixed: {vecadd.n: [4096]}\n    metrics: {t: sim.time_ns}\n",
     5, "vecadd.n", r"expected one value \(fixed of study 'a'\), got a list", True),
    ("unknown workload", STUDY.replace("vecadd", "vecad") + "    metrics: {t: sim.time_ns}\n",
     3, "workload", r"unknown workload 'vecad' \(study 'a'\); did you mean 'vecadd'\?", False),
    ("unknown workload in a grid", STUDY.replace("    workload: vecadd\n", "") +
     "    grid: {workload: [vecadd, reduce, histogramm]}\n    metrics: {t: sim.time_ns}\n",
     4, "workload", r"unknown workload 'histogramm'", False),
    ("unknown metric root", STUDY + "    metrics:\n      t: sim.time_ns\n      u: simm.time_ns / 1000\n",
     7, "u", r"metric 'simm.time_ns / 1000': unknown root 'simm'; did you mean 'sim'\?", True),
    ("unknown parameter in a config. metric", STUDY + "    metrics: {t: config.gpu.cuss}\n",
     5, "t", r"unknown parameter 'gpu.cuss'", False),
    ("unknown preset", STUDY.replace("orr2014", "orr2041") + "    metrics: {t: sim.time_ns}\n",
     4, "preset", r"unknown preset 'orr2041'", False),
    ("YAML syntax error", STUDY + "    metrics: {t: sim.time_ns\n    plot: {x: gpu.cus, y: t}\n",
     6, "yaml", r"expected ',' or '}'", True),
    ("aliases expanding past the bound", "title: t\nintro: [&a [x, x, x, x, x, x, x, x, x, x], " +
     ", ".join(f"&b{i} [{', '.join([f'*{p}'] * 10)}]" for i, p in enumerate(["a"] + [f"b{k}" for k in range(1, 7)], 1))
     + "]\n" + STUDY.replace("title: t\n", "") + "    metrics: {t: sim.time_ns}\n",
     2, "yaml", r"its aliases expand to more than 100,000 nodes", True),
    ("an alias inside its own anchor", "title: t\nstudies: &s\n  - name: a\n    x: *s\n",
     2, "yaml", r"an alias refers to the node that holds it", True),
    ("key given twice", STUDY + "    metrics: {t: sim.time_ns}\n    metrics: {u: sim.time_ps}\n",
     6, "metrics", r"given twice \(first at line 5\)", True),
    ("plot of a column that is not there", STUDY + "    metrics: {t: sim.time_ns}\n    plot: {x: gpu.cus, y: t}\n",
     6, "x", r"'gpu.cus' is not a column of the study", True),
    ("case name read as a boolean", STUDY + "    cases:\n      on: {mem.magic: true}\n    metrics: {t: sim.time_ns}\n",
     6, "on", r"a case's name must be a string \(quote it\)", True),
    ("relative to a case that is not there", STUDY + "    cases: {x: {gpu.cus: 1}, y: {gpu.cus: 2}}\n"
     "    relative: {of: t, to: [z], name: speedup}\n    metrics: {t: sim.time_ns}\n",
     6, "to", r"'z' is not a case of the study", True),
    ("negative seed", STUDY + "    seeds: [1, -1]\n    metrics: {t: sim.time_ns}\n",
     5, "seeds", r"non-negative integer", True),
    ("missing workload", STUDY.replace("    workload: vecadd\n", "") + "    metrics: {t: sim.time_ns}\n",
     2, "workload", r"missing 'workload'", True),
    # {workload} in a setting's name: every name it gives, for every workload that reaches it.
    ("{workload} naming a parameter one workload lacks", NO_WORKLOAD + "    grid: {workload: [histogram, vecadd]}\n"
     "    cases:\n      few: {\"{workload}.bins\": 4}\n      many: {histogram.bins: 4096}\n"
     "    metrics: {t: sim.time_ns}\n",
     6, "vecadd.bins", r"unknown parameter \(case 'few' of study 'a'; '\{workload\}.bins' for workload 'vecadd'\)",
     False),
    ("{workload} with a value out of range for one workload", NO_WORKLOAD +
     "    grid: {workload: [vecadd, saxpy]}\n    fixed: {\"{workload}.n\": 100000000}\n    metrics: {t: sim.time_ns}\n",
     5, "saxpy.n", r"value 100000000 for 'saxpy.n' is out of range .*'\{workload\}.n' for workload 'saxpy'", False),
    ("{workload} of a case's own workload", NO_WORKLOAD + "    cases:\n      v: {workload: vecadd, \"{workload}.n\": 64}\n"
     "      h: {workload: histogram, \"{workload}.bins\": 64}\n      r: {workload: reduce, \"{workload}.bins\": 1}\n"
     "    metrics: {t: sim.time_ns}\n",
     7, "reduce.bins", r"unknown parameter \(case 'r' of study 'a'; '\{workload\}.bins' for workload 'reduce'\)", False),
    ("a placeholder other than {workload}", STUDY + "    fixed: {\"{wl}.n\": 4096}\n    metrics: {t: sim.time_ns}\n",
     5, "{wl}.n", r"unknown placeholder '\{wl\}' in a parameter name \(fixed of study 'a'\): only \{workload\}", True),
    ("{preset} in a grid key", STUDY + "    grid:\n      \"{preset}.x\": [1]\n    metrics: {t: sim.time_ns}\n",
     6, "{preset}.x", r"unknown placeholder '\{preset\}'", True),
    ("{workload} in area defaults", STUDY + "    area: {of: hwwl, lanes: 16, defaults: {\"{workload}.n\": 1}}\n"
     "    metrics: {t: sim.time_ns}\n",
     5, "{workload}.n", r"replaced in the names of fixed, grid and cases only", True),
    ("{workload} giving a name set beside it", STUDY + "    fixed:\n      vecadd.n: 4096\n      \"{workload}.n\": 8192\n"
     "    metrics: {t: sim.time_ns}\n",
     7, "{workload}.n", r"'\{workload\}.n' and 'vecadd.n' \(line 6\) both set 'vecadd.n' for workload 'vecadd'", True),
    ("{workload} in the grid overriding fixed", STUDY + "    fixed: {vecadd.n: 4096}\n    grid:\n"
     "      \"{workload}.n\": [1, 2]\n    metrics: {t: sim.time_ns}\n",
     7, "{workload}.n", r"is 'vecadd.n' for workload 'vecadd', also set in fixed \(line 5\): the grid's values", True),
    # A grid key of bundles (name -> settings).
    ("a bundle's unknown parameter", NO_WORKLOAD + "    grid:\n      pair:\n        v: {workload: vecadd, vecadd.m: 1}\n"
     "    metrics: {t: sim.time_ns}\n", 6, "vecadd.m", r"unknown parameter \(bundle 'v' of grid key 'pair' of study 'a'\)",
     False),
    ("a bundle that is not a mapping", NO_WORKLOAD + "    grid:\n      pair:\n        v: [1, 2]\n"
     "    metrics: {t: sim.time_ns}\n", 6, "v", r"expected the bundle's settings \(a mapping\)", True),
    ("a bundle's setting also in fixed", STUDY + "    fixed: {vecadd.n: 4}\n    grid:\n      pair:\n"
     "        v: {vecadd.n: 8}\n    metrics: {t: sim.time_ns}\n",
     8, "vecadd.n", r"in a grid bundle and in fixed \(line 5\): the bundle's value would override it", True),
    ("a bundle's setting also in a case", STUDY + "    grid:\n      pair:\n        v: {vecadd.n: 8}\n"
     "    cases:\n      c: {vecadd.n: 4}\n    metrics: {t: sim.time_ns}\n",
     9, "vecadd.n", r"set by case 'c' and by grid bundle 'v' \(line 7\)", True),
    ("a bundle's workload beside the study's", STUDY + "    grid:\n      pair:\n        v: {workload: saxpy}\n"
     "    metrics: {t: sim.time_ns}\n", 7, "workload", r"set by grid bundle 'v' and in the study", True),
    ("a bundle's {workload} name its workload lacks", NO_WORKLOAD + "    grid:\n      pair:\n"
     "        v: {workload: vecadd, \"{workload}.bins\": 4}\n    metrics: {t: sim.time_ns}\n",
     6, "vecadd.bins", r"unknown parameter .*'\{workload\}.bins' for workload 'vecadd'", False),
    ("a bundle's setting that a case's {workload} name also gives", NO_WORKLOAD + "    grid:\n      pair:\n"
     "        v: {workload: vecadd, vecadd.n: 64}\n    cases:\n      c: {\"{workload}.n\": 8}\n"
     "    metrics: {t: sim.time_ns}\n", 6, "vecadd.n", r"is 'vecadd.n' for workload 'vecadd', also set in case 'c' "
     r"\(line 8\): bundle 'v' would override it", True),
    # relative: invert and by.
    ("table not a boolean", STUDY + "    table: no-thanks\n    metrics: {t: sim.time_ns}\n",
     5, "table", r"expected true or false \(study 'a'\), got 'no-thanks'", True),
    ("table false without a summary", STUDY + "    table: false\n    metrics: {t: sim.time_ns}\n",
     5, "table", r"a study without its table needs a summary", True),
    ("relative invert not a boolean", STUDY + TWO_CASES + "    relative: {of: t, to: [x], name: s, invert: 1}\n"
     "    metrics: {t: sim.time_ns}\n", 6, "invert", r"expected true or false \(study 'a'\), got '1'", True),
    ("relative by a column that is not a grid key", STUDY + "    grid: {gpu.cus: [1, 2]}\n" + TWO_CASES +
     "    relative:\n      of: t\n      to: [x]\n      name: s\n      by: [seed, gpu.cu]\n    metrics: {t: sim.time_ns}\n",
     11, "by", r"'gpu.cu' is not a grid key or seed; did you mean 'gpu.cus'\?", True),
    ("relative by the case", STUDY + TWO_CASES + "    relative: {of: t, to: [x], name: s, by: [case]}\n"
     "    metrics: {t: sim.time_ns}\n", 6, "by", r"'case' is not a grid key or seed", True),
    # summary, and plots of it.
    ("summary of a column that is not a metric", STUDY + "    metrics: {t: sim.time_ns}\n    summary:\n"
     "      of: [t, u]\n      stats: [mean]\n", 7, "of", r"'u' is not a metric or relative column", True),
    ("a suggestion from the file is shown escaped (a metric named with U+202E)", STUDY +
     "    metrics: {\"kernel_us\u202e\": sim.time_ns}\n    summary:\n      of: [kernel_us]\n      stats: [mean]\n",
     7, "of", r"'kernel_us' is not a metric or relative column; did you mean 'kernel_us\\u202e'\?", True),
    ("summary's unknown statistic", STUDY + "    metrics: {t: sim.time_ns}\n    summary:\n      of: [t]\n"
     "      stats: [mean, average]\n", 8, "stats", r"'average' is not a statistic \(known: mean, geomean", True),
    ("summary by a column that is not a parameter", STUDY + "    grid: {gpu.cus: [1, 2]}\n"
     "    metrics: {t: sim.time_ns}\n    summary: {by: [t], of: [t], stats: [max]}\n",
     7, "by", r"'t' is not a parameter column \(case, a grid key, seed\)", True),
    ("summary without stats", STUDY + "    metrics: {t: sim.time_ns}\n    summary: {of: [t]}\n",
     6, "stats", r"summary needs 'stats'", True),
    ("summary's argmax with nothing to name", STUDY + "    grid: {gpu.cus: [1, 2]}\n    metrics: {t: sim.time_ns}\n"
     "    summary: {by: [gpu.cus, seed], of: [t], stats: [argmax]}\n", 7, "stats", r"argmax names a row", True),
    ("summary's column taken by a metric", STUDY + "    metrics: {t: sim.time_ns, t_max: sim.time_ps}\n"
     "    summary: {of: [t], stats: [max]}\n", 6, "of", r"the summary's column 't_max' is taken", True),
    # A summary's relative: of one of its own columns, to cases, grouped by case.
    ("summary's relative without case in by", STUDY + TWO_CASES + "    metrics: {t: sim.time_ns}\n"
     "    summary:\n      of: [t]\n      stats: [median]\n      relative: {of: t_median, to: [x], name: g}\n",
     10, "relative", r"the summary's relative compares cases: its `by` needs case", True),
    ("summary's relative of a column not in it", STUDY + TWO_CASES + "    metrics: {t: sim.time_ns}\n"
     "    summary:\n      by: [case]\n      of: [t]\n      stats: [median]\n"
     "      relative: {of: t_max, to: [x], name: g}\n",
     11, "of", r"'t_max' is not a column of the summary \(columns: t_median; not argmax's\)", True),
    ("summary's relative to a case that is not there", STUDY + TWO_CASES + "    metrics: {t: sim.time_ns}\n"
     "    summary:\n      by: [case]\n      of: [t]\n      stats: [median]\n"
     "      relative:\n        of: t_median\n        to: [z]\n        name: g\n",
     13, "to", r"'z' is not a case of the study", True),
    ("summary's relative named as a column", STUDY + TWO_CASES + "    metrics: {t: sim.time_ns}\n"
     "    summary:\n      by: [case]\n      of: [t]\n      stats: [median]\n"
     "      relative: {of: t_median, to: [x], name: t}\n",
     11, "name", r"the column 't' is taken", True),
    ("summary's relative with an unknown key", STUDY + TWO_CASES + "    metrics: {t: sim.time_ns}\n"
     "    summary:\n      by: [case]\n      of: [t]\n      stats: [median]\n"
     "      relative:\n        of: t_median\n        to: [x]\n        name: g\n        by: [case]\n",
     15, "by", r"unknown relative key", True),
    ("plot from the summary of a column not in it", STUDY + "    grid: {gpu.cus: [1, 2]}\n"
     "    metrics: {t: sim.time_ns}\n    summary: {by: [gpu.cus], of: [t], stats: [max]}\n"
     "    plot: {from: summary, x: gpu.cus, y: t}\n",
     8, "y", r"'t' is not a column of the study's summary \(columns: gpu.cus, t_max\)", True),
    ("plot from something else", STUDY + "    metrics: {t: sim.time_ns}\n    plot: {from: rows, x: seed, y: t}\n",
     6, "from", r"expected summary", True),
    ("plot of a case the study does not have", STUDY + TWO_CASES + "    metrics: {t: sim.time_ns}\n"
     "    plot: {x: seed, y: t, cases: [x, z]}\n", 7, "cases", r"'z' is not a case of the study", True),
    ("plot of cases in a study without", STUDY + "    metrics: {t: sim.time_ns}\n"
     "    plot: {x: seed, y: t, cases: [x]}\n", 6, "cases", r"the plot draws cases: the study has none", True),
    ("plot's cases not a list", STUDY + TWO_CASES + "    metrics: {t: sim.time_ns}\n"
     "    plot: {x: seed, y: t, cases: x}\n", 7, "cases", r"expected a non-empty list of names", True),
    ("plot's case twice", STUDY + TWO_CASES + "    metrics: {t: sim.time_ns}\n"
     "    plot: {x: seed, y: t, cases: [x, x]}\n", 7, "cases", r"'x' given twice", True),
    ("plot's cases over a summary without them", STUDY + TWO_CASES + "    grid: {gpu.cus: [1, 2]}\n"
     "    metrics: {t: sim.time_ns}\n    summary: {by: [gpu.cus], of: [t], stats: [max]}\n"
     "    plot: {from: summary, x: gpu.cus, y: t_max, cases: [x]}\n", 9, "cases",
     r"the summary's rows have no case", True),
    ("a Pareto plot not over the area", STUDY + "    metrics: {t: sim.time_ns}\n    plot: {x: t, y: t, pareto: true}\n",
     6, "pareto", r"a Pareto plot has x: area_mm2", True),
    ("pareto not a boolean", STUDY + "    metrics: {t: sim.time_ns}\n    plot: {x: t, y: t, pareto: 2}\n",
     6, "pareto", r"expected true or false", True),
    ("plot from a summary the study does not have", STUDY + "    metrics: {t: sim.time_ns}\n"
     "    plot: {from: summary, x: seed, y: t}\n", 6, "from", r"the study has no summary", True),
    ("plot of the summary's argmax", STUDY + "    grid: {gpu.cus: [1, 2]}\n    metrics: {t: sim.time_ns}\n"
     "    summary: {of: [t], stats: [argmax]}\n    plot: {from: summary, x: t_argmax, y: t_argmax}\n",
     8, "y", r"'t_argmax' names rows, it is not a value", True),
    # an integer past a double's range: refused, not an OverflowError (found by experiment_fuzz.py)
    ("samples per past a double", STUDY + "    metrics: {t: sim.time_ns}\n"
     "    samples: {x: kc, per: 1" + "0" * 400 + ", y: {act: gpu.w.active}}\n",
     6, "per", r"expected a positive number", True),
]
VALID = STUDY + "    fixed: {vecadd.n: 4096, gpu.mem.size: 64MiB, mem.magic: yes}\n    grid: {gpu.cus: [1, 2]}\n" \
    "    seeds: [1, 18446744073709551615]\n    metrics: {t: sim.time_ns / 1000, u: stats.gpu.cu*.lane_ops}\n" \
    "    plot: {x: gpu.cus, y: t}\n"
# {workload} in cases and the grid, relative inverted per workload and seed, a summary and its plot.
VALID_FEATURES = NO_WORKLOAD + """    grid: {workload: [vecadd, saxpy], "{workload}.n": [1024, 4096]}
    cases:
      plain: {}
      magic: {mem.magic: true}
    seeds: [1, 2]
    metrics: {t: sim.time_ns}
    relative: {of: t, to: [plain], name: slowdown, invert: true, by: [workload, seed]}
    summary: {by: [case], of: [slowdown, t], stats: [mean, geomean, median, min, max, argmax]}
    plot: {from: summary, x: case, y: slowdown_median}
    paper: {source: "x", values: [{case: magic, slowdown_median: 0.5}]}
"""

failures = []


def runs_started():
    if not os.path.exists(calls):
        return []
    return [c for c in open(calls).read().splitlines() if c.split(" ")[0] not in ("params", "list", "--version")]


def expect_refused(how, cmd, path, line, key, pattern, runs):
    if os.path.exists(calls):
        os.remove(calls)
    r = subprocess.run(cmd, capture_output=True, text=True, cwd=tmp, env={**os.environ, "FG_JOBS": "1"})
    err = [x for x in r.stderr.split("\n") if x]
    head = f"{re.escape(path)}:{line}: {re.escape(key)}: "
    problems = []
    if r.returncode != 2:
        problems.append(f"exit {r.returncode}, expected 2")
    if len(err) != 1:
        problems.append(f"{len(err)} lines on standard error, expected 1")
    elif not re.match(head, err[0]) or not re.search(pattern, err[0]):
        problems.append(f"the line does not match /{head}/ and /{pattern}/")
    if "Traceback" in r.stdout + r.stderr or r.stdout.strip():
        problems.append("output on standard output (a traceback?)")
    if runs_started():
        problems.append(f"fgsim was run: {runs_started()}")
    if os.path.exists(runs):
        problems.append("the runs directory was created")
    if problems:
        failures.append(f"{how}: " + "; ".join(problems) +
                        f"\n    stdout: {r.stdout[:400]!r}\n    stderr: {r.stderr[:400]!r}")


experiment_sh = os.path.join(root, "tools", "experiment.sh")
for i, (name, text, line, key, pattern, structural) in enumerate(CASES):
    path = os.path.join(tmp, f"case{i}.yaml")
    with open(path, "w") as f:
        f.write(text)
    runs, page = os.path.join(tmp, f"runs{i}"), os.path.join(tmp, f"page{i}.md")
    expect_refused(f"{name} (experiment.sh --check)", [experiment_sh, "--check", path, "--config", f"fgsim={standin}"],
                   path, line, key, pattern, runs)
    if have_snakemake:
        config = [f"file={path}", f"fgsim={standin}", f"runs={runs}", f"page={page}"]
        expect_refused(f"{name} (experiment.sh)", [experiment_sh, "smoke", "--config", *config],
                       path, line, key, pattern, runs)
        expect_refused(f"{name} (Snakefile)", ["snakemake", "-s", os.path.join(root, "tools/experiments/Snakefile"),
                                               "-d", tmp, "--cores", "1", "--config", "experiment=smoke", *config],
                       path, line, key, pattern, runs)
    # experiment.load (the table, plot and page jobs; no fgsim) refuses what it can see, with the same line.
    try:
        X.load(path)
        if structural:
            failures.append(f"{name}: experiment.load accepted it")
    except SystemExit as e:
        if not structural or not re.match(f"{re.escape(path)}:{line}: {re.escape(key)}: ", str(e)) \
                or not re.search(pattern, str(e)):
            failures.append(f"{name}: experiment.load said '{e}'")
    except Exception as e:  # noqa: BLE001 (a traceback, not a refusal)
        failures.append(f"{name}: experiment.load raised {type(e).__name__}: {str(e)[:200]}")
if not have_snakemake:
    print("note: snakemake is not installed: the experiment.sh and Snakefile ways were not tried")

# A valid file: one summary line, exit 0, nothing run.
valid = os.path.join(tmp, "valid.yaml")
with open(valid, "w") as f:
    f.write(VALID)
if os.path.exists(calls):
    os.remove(calls)
r = subprocess.run([experiment_sh, "--check", valid, "--config", f"fgsim={standin}"], capture_output=True, text=True)
if r.returncode or r.stderr or r.stdout != f"{valid}: ok, 1 study, 4 points\n" or runs_started():
    failures.append(f"valid file: exit {r.returncode}, stdout {r.stdout!r}, stderr {r.stderr!r}, runs {runs_started()}")
with open(valid, "w") as f:
    f.write(VALID_FEATURES)
r = subprocess.run([experiment_sh, "--check", valid, "--config", f"fgsim={standin}"], capture_output=True, text=True)
if r.returncode or r.stderr or r.stdout != f"{valid}: ok, 1 study, 16 points\n" or runs_started():
    failures.append(f"valid file ({{workload}}, relative invert/by, summary): exit {r.returncode}, stdout {r.stdout!r}, "
                    f"stderr {r.stderr!r}")
# Its points: {workload} replaced by each run's workload in the --set names; the grid's column
# keeps the name as written.
pts = [(p, seed, " ".join(a)) for p, seed, a in X.points(X.load(valid)["studies"][0])]
want = ({"case": "magic", "workload": "saxpy", "{workload}.n": 4096}, 2,
        "run saxpy --preset orr2014 --seed 2 --set mem.magic=true --set saxpy.n=4096")
if len(pts) != 16 or pts[-1] != want or any(f"{p['workload']}.n={p['{workload}.n']}" not in a for p, _, a in pts):
    failures.append(f"points of {{workload}} settings: {pts}")
# Bundles: a grid key sweeping named settings (the column gets the name), with {workload}
# replaced by the bundle's workload, relative per bundle.
valid_b = os.path.join(tmp, "valid_bundles.yaml")
VALID_BUNDLES = NO_WORKLOAD + """    grid:
      pair:
        v-two: {workload: vecadd, gpu.cus: 2}
        h-many: {workload: histogram, histogram.bins: 4096}
    cases:
      plain: {}
      big: {"{workload}.n": 8192}
    metrics: {t: sim.time_ns}
    relative: {of: t, to: [plain], name: slowdown, invert: true}
"""
with open(valid_b, "w") as f:
    f.write(VALID_BUNDLES)
r = subprocess.run([experiment_sh, "--check", valid_b, "--config", f"fgsim={standin}"], capture_output=True, text=True)
if r.returncode or r.stderr or r.stdout != f"{valid_b}: ok, 1 study, 4 points\n" or runs_started():
    failures.append(f"valid file (bundles): exit {r.returncode}, stdout {r.stdout!r}, stderr {r.stderr!r}")
else:
    pts = [(p, " ".join(a)) for p, _, a in X.points(X.load(valid_b)["studies"][0])]
    want = [({"case": "plain", "pair": "v-two"}, "run vecadd --preset orr2014 --seed 1 --set gpu.cus=2"),
            ({"case": "plain", "pair": "h-many"}, "run histogram --preset orr2014 --seed 1 --set histogram.bins=4096"),
            ({"case": "big", "pair": "v-two"},
             "run vecadd --preset orr2014 --seed 1 --set vecadd.n=8192 --set gpu.cus=2"),
            ({"case": "big", "pair": "h-many"},
             "run histogram --preset orr2014 --seed 1 --set histogram.n=8192 --set histogram.bins=4096")]
    if pts != want:
        failures.append(f"points of bundles: {pts}")

# Every experiment in the repository passes.
files = sorted(os.path.join(root, "experiments", f) for f in os.listdir(os.path.join(root, "experiments"))
               if f.endswith(".yaml"))
r = subprocess.run([experiment_sh, "--check", *files, "--config", f"fgsim={fgsim}"], capture_output=True, text=True)
if r.returncode or r.stderr or len(r.stdout.splitlines()) != len(files):
    failures.append(f"experiments/*.yaml: exit {r.returncode}, {r.stdout!r} {r.stderr!r}")

# No fgsim: one line, exit 2.
r = subprocess.run([experiment_sh, "--check", valid, "--config", f"fgsim={tmp}/nosuch"], capture_output=True, text=True)
if r.returncode != 2 or len(r.stderr.splitlines()) != 1 or "fgsim not found" not in r.stderr:
    failures.append(f"no fgsim: exit {r.returncode}, {r.stderr!r}")

# The checker reads values as fgsim does: the same verdict and message on tricky values.
# fgsim reads every --set before the run, then refuses trace.end before trace.start; a value it
# refuses for another reason (a key that does not apply to vecadd) is left out.
cat = C.catalog(fgsim)
kinds = {}
for p in cat.params.values():
    if not p["name"].startswith("trace.") and not p["name"].endswith(".input"):
        kinds.setdefault((p["type"], p.get("unit") == "B", "min" in p, "max" in p), p)
texts = ["0", "-1", "+5", "0x1B", "0x", "16K", "16KiB", "1Mi", "16iB", " 7 ", "1e3", "1.5", ".5", "1e", "inf", "1e400",
         "1e-320", "0x1p3", "yes", "OFF", "maybe", "", "18446744073709551615", "18446744073709551616",
         "9223372036854775808", "-9223372036854775809", "-18446744073709551616", "0x10000000000000000",
         "99999999999999999999K", "16777216T", "9" * 5000, "1_0", "99999", "lsorting"]
compared = 0
for p in kinds.values():
    for t in texts + list(p.get("choices", [])):
        mine = C.value_error(p, t)
        r = subprocess.run([fgsim, "run", "vecadd", "--set", f"{p['name']}={t}", "--set", "trace.start=10", "--set",
                            "trace.end=5"], capture_output=True, text=True)
        name = re.escape(p["name"])
        if re.search(rf"(expected [^\n]*|integer too large[^\n]*) for '{name}', got|value .* for '{name}' is out of "
                     r"range", r.stderr):
            refused = True
        elif "trace.end" in r.stderr:
            refused = False
        else:
            continue
        compared += 1
        if bool(mine) != refused or (mine and mine not in r.stderr):
            failures.append(f"value {p['name']}={t!r}: check.py says {mine!r}, fgsim says {r.stderr.strip()!r}")
if compared < 100:
    failures.append(f"only {compared} values could be compared with fgsim's reading")

shutil.rmtree(tmp)
if failures:
    sys.exit("FAIL:\n  " + "\n  ".join(failures))
print(f"check: ok ({len(CASES)} bad files, each refused in one line before any run; "
      f"{len(files)} experiments pass; {compared} values read as fgsim reads them)")
