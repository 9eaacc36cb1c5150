#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""The experiment workflow end to end (ctest label `experiments`): the smoke
experiment through Snakemake into a scratch directory; its CSV must hold one
row per point with the values a direct fgsim run gives; a second invocation
must run nothing (cached by the hash of arguments and binary); changing the
binary must rerun, changing only its commit id must not. Exit 77 (skipped) without snakemake."""
import csv
import json
import re
import os
import shutil
import subprocess
import sys
import tempfile

root, fgsim = sys.argv[1], sys.argv[2]
if not shutil.which("snakemake"):
    print("skipped: snakemake is not installed (tools/bootstrap.sh installs it)")
    sys.exit(77)

tmp = tempfile.mkdtemp(prefix="fg_experiments_")
runs, page = os.path.join(tmp, "runs"), os.path.join(tmp, "smoke.md")


def workflow(binary, *extra, file=None):
    cmd = ["snakemake", "-s", os.path.join(root, "tools/experiments/Snakefile"), "-d", tmp, "--cores", "2",
           "--quiet", "all", *extra, "--config", "experiment=smoke", f"fgsim={binary}", f"runs={runs}",
           f"page={page}"] + ([f"file={file}"] if file else [])
    r = subprocess.run(cmd, capture_output=True, text=True)
    if r.returncode:
        sys.exit(f"workflow failed ({r.returncode}):\n{r.stdout}\n{r.stderr}")


failures = []
workflow(fgsim)
rows = list(csv.DictReader(open(os.path.join(tmp, "smoke", "smoke.csv"))))
if [r["gpu.cus"] for r in rows] != ["1", "2"]:
    failures.append(f"expected rows for gpu.cus 1 and 2, got {rows}")
for r in rows:
    out = os.path.join(tmp, f"direct{r['gpu.cus']}.json")
    subprocess.run([fgsim, "run", "vecadd", "--preset", "orr2014", "--seed", "1", "--set", "vecadd.n=4096", "--set",
                    f"gpu.cus={r['gpu.cus']}", "--quiet", "--stats", out], check=True)
    d = json.load(open(out))
    if abs(float(r["time_us"]) - d["sim"]["time_ns"] / 1000) > 1e-9:
        failures.append(f"time_us {r['time_us']} != direct run {d['sim']['time_ns'] / 1000}")
    if float(r["lane_ops"]) != d["stats"]["gpu.cu0.lane_ops"]:
        failures.append(f"lane_ops {r['lane_ops']} != direct run {d['stats']['gpu.cu0.lane_ops']}")
for f in ("vecadd-cus.png", "vecadd-cus.svg"):
    if not os.path.getsize(os.path.join(tmp, "smoke", f)):
        failures.append(f"empty plot {f}")
if "| gpu.cus | time_us | lane_ops |" not in open(page).read():
    failures.append("page lacks the study's table")

# Plots are reproducible: regenerated, byte for byte the same.
plots = {f: open(os.path.join(tmp, "smoke", f), "rb").read() for f in ("vecadd-cus.png", "vecadd-cus.svg")}
workflow(fgsim, "--forcerun", "plot")
for f, data in plots.items():
    if open(os.path.join(tmp, "smoke", f), "rb").read() != data:
        failures.append(f"{f} differs when regenerated")

# Cached: a second run starts no fgsim (the per-point files stay untouched).
before = {f: os.stat(os.path.join(runs, f)).st_mtime_ns for f in os.listdir(runs)}
workflow(fgsim)
after = {f: os.stat(os.path.join(runs, f)).st_mtime_ns for f in os.listdir(runs)}
if before != after or len(before) != 2:
    failures.append(f"second invocation reran points: {before} -> {after}")

# A different binary (a copy with one more byte) has another hash: every point reruns.
other = os.path.join(tmp, "fgsim-copy")
shutil.copy(fgsim, other)
with open(other, "ab") as f:
    f.write(b"\0")
workflow(other)
if len(os.listdir(runs)) != 4:
    failures.append(f"a changed binary should add 2 points, have {sorted(os.listdir(runs))}")

# The same binary built at another commit (only the id that `fgsim --version` prints differs,
# tools/cmake/git_version.cmake) reuses every point; the copy must run and name its own id.
ver = subprocess.run([fgsim, "--version"], capture_output=True, text=True, check=True).stdout
stamp = ver[ver.rindex("(") + 1:ver.rindex(")")].encode()
restamped = os.path.join(tmp, "fgsim-restamped")
data = open(fgsim, "rb").read()
new_stamp = bytes(b"0123456789abcdef"[(b + 1) % 16] if b != ord("-") else b for b in stamp)
if stamp not in data or new_stamp == stamp:
    failures.append(f"the version stamp {stamp!r} is not in the binary")
open(restamped, "wb").write(data.replace(stamp, new_stamp))
os.chmod(restamped, 0o755)
if new_stamp.decode() not in subprocess.run([restamped, "--version"], capture_output=True, text=True).stdout:
    failures.append("the restamped copy does not print its stamp")
workflow(restamped)
if len(os.listdir(runs)) != 4:
    failures.append(f"a binary differing only in its commit id should rerun nothing, have {sorted(os.listdir(runs))}")

# Editing the experiment file redoes the table, plots and page with the new text, without
# rerunning any point (the file is their input, and they read it when they run: snakemake
# 7.21 once wrote a page from the file as it was before an edit).
edited = os.path.join(tmp, "smoke-edited.yaml")
base_text = open(os.path.join(root, "experiments", "smoke.yaml")).read()
for marker in ("first-marker-text", "second-marker-text"):
    open(edited, "w").write(base_text + f"    text: {marker}\n")
    workflow(fgsim, file=edited)
    if marker not in open(page).read():
        failures.append(f"the page lacks the edited text '{marker}'")
if len(os.listdir(runs)) != 4:
    failures.append(f"editing the text reran points: {sorted(os.listdir(runs))}")

# Bad experiment files and metrics are refused with the file and the reason.
sys.path.insert(0, os.path.join(root, "tools", "experiments"))
import experiment as X  # noqa: E402

for text, want in (("title: x\n", "needs a 'studies' list"),
                   ("studies:\n  - {name: a, preset: p, metrics: {t: sim.time_ns}}\n", "missing 'workload'"),
                   ("studies:\n  - {name: a, workload: w, preset: p, metrics: {}}\n"
                    "  - {name: a, workload: w, preset: p, metrics: {}}\n", "used twice")):
    bad = os.path.join(tmp, "bad.yaml")
    open(bad, "w").write(text)
    try:
        X.load(bad)
        failures.append(f"accepted a bad experiment ({want})")
    except SystemExit as e:
        if want not in str(e) or bad not in str(e):
            failures.append(f"bad experiment: '{e}' lacks '{want}' or the file")
# A ratio of two paths, and '*' over averages pools them by their counts.
doc = {"stats": {"gpu.cu0.misses": 3, "gpu.cu1.misses": 1, "gpu.cu0.reads": 8, "gpu.cu1.reads": 2,
                 "gpu.cu0.rpl": {"mean": 2.0, "count": 1}, "gpu.cu1.rpl": {"mean": 5.0, "count": 3}}}
for expr, want in (("stats.gpu.cu*.misses / stats.gpu.cu*.reads", 0.4), ("stats.gpu.cu*.rpl", 4.25),
                   ("stats.gpu.cu0.misses / 2", 1.5), ("stats.gpu.cu1.rpl * 2", 10.0)):
    got = X.metric(doc, expr)
    if abs(got - want) > 1e-12:
        failures.append(f"metric '{expr}' = {got}, want {want}")
for expr in ("sim.time_ns + 1", "stats.gpu.nosuch*.x"):
    try:
        X.metric({"sim": {"time_ns": 1.0}, "stats": {}}, expr)
        failures.append(f"metric '{expr}' accepted")
    except (ValueError, KeyError):
        pass

# Cases cross the grid (column `case`, their settings as --set) and
# `relative` divides the best `to` case's metric by each row's.
study = {"name": "c", "workload": "bfs", "preset": "kim2014", "fixed": {"bfs.scale": 9},
         "grid": {"bfs.generator": ["rmat", "grid"]},
         "cases": {"topo": {"bfs.variant": "topo"}, "swwl": {"bfs.variant": "swwl"},
                   "hw": {"bfs.variant": "hwwl", "worklist.scheme": "none"}},
         "relative": {"of": "t", "to": ["topo", "swwl"], "name": "speedup"}, "metrics": {"t": "result.t"}}
pts = list(X.points(study))
if len(pts) != 6 or pts[4][0] != {"case": "hw", "bfs.generator": "rmat"} or \
        "worklist.scheme=none" not in pts[4][2] or "bfs.variant=hwwl" not in pts[4][2]:
    failures.append(f"cases x grid: {[p[0] for p in pts]}, {pts[4][2] if len(pts) > 4 else None}")
times = {("topo", "rmat"): 4.0, ("swwl", "rmat"): 2.0, ("hw", "rmat"): 1.0,
         ("topo", "grid"): 3.0, ("swwl", "grid"): 6.0, ("hw", "grid"): 6.0}
res = [(p, s, {"workload": {"results": {"t": times[(p["case"], p["bfs.generator"])]}}}) for p, s, _ in pts]
got = {(r["case"], r["bfs.generator"]): r["speedup"] for r in X.rows(study, res)}
want = {("topo", "rmat"): 0.5, ("swwl", "rmat"): 1.0, ("hw", "rmat"): 2.0,
        ("topo", "grid"): 1.0, ("swwl", "grid"): 0.5, ("hw", "grid"): 0.5}
if got != want:
    failures.append(f"relative: {got} != {want}")

# The area column: the synthesized unit of the case's configuration (a
# made-up synthesis report, so the arithmetic is checked, not the numbers).
synth = {"results": [
    {"block": "bank", "params": {"Depth": 8}, "area_um2": 1e5},
    {"block": "bank", "params": {"Depth": 32}, "area_um2": 4e5},
    {"block": "wru", "params": {"Lanes": 16, "Scheme": 2, "Threshold": 5, "Interval": 10}, "area_um2": 5e5},
    {"block": "icrn", "params": {"NumCores": 4}, "area_um2": 5e4},
    {"block": "icrn", "params": {"NumCores": 8}, "area_um2": 3e5},
    {"block": "core", "params": {"Lanes": 16, "Depth": 32, "Scheme": 2, "Threshold": 5, "Interval": 10},
     "area_um2": 9e6},
    {"block": "system", "params": {"NumCores": 4, "Lanes": 16, "Depth": 32, "Scheme": 2, "Threshold": 5,
                                   "Interval": 10}, "area_um2": 4e7}]}
unit = {"of": "hwwl", "part": "unit", "lanes": 16, "defaults": {"gpu.cus": 4}}
redist = {**unit, "part": "redistribution"}
for settings, spec, want in (
        ({"bfs.variant": "swwl"}, unit, 0.0),
        ({"bfs.variant": "hwwl"}, unit, 40.0),  # defaults: lsorting, 32 entries, 4 cores
        ({"bfs.variant": "hwwl", "worklist.depth": 8}, unit, 40.0 - 4 * 16 * 0.3),
        ({"bfs.variant": "hwwl", "worklist.depth": 65536}, unit, "not synthesized"),
        ({"bfs.variant": "hwwl", "gpu.cus": 8}, unit, 8 * 9.0 + 0.3),  # no 8-core system: cores + network
        ({"bfs.variant": "hwwl", "gpu.cus": 8, "worklist.depth": 8}, unit, 8 * 9.0 + 0.3 - 8 * 16 * 0.3),
        ({"bfs.variant": "hwwl", "gpu.cus": 16}, unit, "not synthesized"),  # no 16-core network
        ({"bfs.variant": "hwwl", "worklist.scheme": "threshold"}, unit, "not synthesized"),
        ({"bfs.variant": "hwwl", "worklist.scheme": "gsorting"}, unit, "model only"),
        ({"bfs.variant": "hwwl", "worklist.depth": 65536}, redist, 4 * 0.5 + 0.05),
        ({"bfs.variant": "hwwl", "worklist.scheme": "none"}, redist, 0.0)):
    got = X.hwwl_area(settings, spec, synth)
    if (got != want) if isinstance(want, str) else (not isinstance(got, float) or abs(got - want) > 1e-9):
        failures.append(f"hwwl_area({settings}, {spec['part']}) = {got}, want {want}")

# A sampled study: one summary row per run (metrics, mean and maximum of each
# sampled column) and one row per sample, as a percentage of another stat.
study = {"name": "s", "workload": "bfs", "preset": "kim2014", "cases": {"a": {}, "b": {}},
         "metrics": {"t": "result.t"},
         "samples": {"x": "kc", "per": 1000, "y": {"act": "gpu.w.active"}, "percent_of": "gpu.w.hw"}}
res = [({"case": "a"}, 1, {"workload": {"results": {"t": 1.0}},
                           "stats": {"gpu.w.hw": 200, "gpu.w.active": {"interval": 500, "samples": [0, 50, 100]}}}),
       ({"case": "b"}, 1, {"workload": {"results": {"t": 2.0}},
                           "stats": {"gpu.w.hw": 200, "gpu.w.active": {"interval": 500, "samples": [200]}}})]
got = X.rows(study, res)
want = [{"study": "s", "case": "a", "seed": 1, "t": 1.0, "act_mean": 25.0, "act_max": 50.0},
        {"study": "s", "case": "b", "seed": 1, "t": 2.0, "act_mean": 100.0, "act_max": 100.0},
        {"study": "s", "case": "a", "seed": 1, "sample": 0, "kc": 0.0, "act": 0.0},
        {"study": "s", "case": "a", "seed": 1, "sample": 1, "kc": 0.5, "act": 25.0},
        {"study": "s", "case": "a", "seed": 1, "sample": 2, "kc": 1.0, "act": 50.0},
        {"study": "s", "case": "b", "seed": 1, "sample": 0, "kc": 0.0, "act": 100.0}]
if got != want:
    failures.append(f"sampled rows: {got} != {want}")
try:
    X.rows(study, [({"case": "a"}, 1, {"workload": {"results": {"t": 1.0}}, "stats": {"gpu.w.hw": 1}})])
    failures.append("a sampled study without its series accepted")
except SystemExit as e:
    if "gpu.w.active" not in str(e):
        failures.append(f"missing series: '{e}' does not name the stat")

# The page's table shows a sampled study's summary rows only (means and
# maxima), not its samples.
csv_path, page3 = os.path.join(tmp, "s.csv"), os.path.join(tmp, "s.md")
X.write_csv(csv_path, got)
X.page({"studies": [study]}, "s", csv_path, page3, tmp, root)
text = open(page3).read()
table_rows = text.split("| case | t | act_mean | act_max |")[-1].split("\n\n")[0].strip().splitlines()[1:]
if table_rows != ["| a | 1 | 25 | 50 |", "| b | 2 | 100 | 100 |"]:
    failures.append(f"sampled study's page table:\n{text}")

# tools/experiment.sh passes the caller's --config values with the
# experiment's name (snakemake keeps only the last --config option).
page2 = os.path.join(tmp, "smoke2.md")
r = subprocess.run([os.path.join(root, "tools", "experiment.sh"), "smoke", "--config", f"fgsim={other}",
                    f"runs={runs}", f"page={page2}"], capture_output=True, text=True, env={**os.environ, "FG_JOBS": "2"})
if r.returncode or not os.path.exists(page2):
    failures.append(f"experiment.sh with --config: exit {r.returncode}, {r.stderr[-500:]}")

# While it runs, tools/experiment.sh shows progress (tools/experiments/progress.py): points
# to run, points done, the page written; none of Snakemake's scheduler chatter, from the
# main process or from the subprocesses of the table, plot and page jobs.
CHATTER = ("Select jobs to execute", "Building DAG of jobs", "Finished job", "steps (", "Job stats", "Using shell")


def experiment_sh(binary, runs_dir, page_path):
    return subprocess.run([os.path.join(root, "tools", "experiment.sh"), "smoke", "--config", f"fgsim={binary}",
                           f"runs={runs_dir}", f"page={page_path}"], capture_output=True, text=True,
                          env={**os.environ, "FG_JOBS": "1"})


# (a page directory of its own: the CSV beside an existing page would be reused)
r = experiment_sh(fgsim, os.path.join(tmp, "runs-progress"), os.path.join(tmp, "progress", "smoke.md"))
for want in ("experiment smoke: 2 of 2 points to run\n", "experiment smoke: 1/2 points done, ",
             "experiment smoke: 2/2 points done, ", "experiment smoke: wrote "):
    if r.returncode or want not in r.stderr:
        failures.append(f"progress: exit {r.returncode}, no '{want.strip()}' in:\n{r.stderr}")
for noise in CHATTER:
    if noise in r.stdout + r.stderr:
        failures.append(f"progress: Snakemake's '{noise}' shown:\n{r.stdout}{r.stderr}")
# A failing point is still shown: fgsim's own message, then the point's command.
failing = os.path.join(tmp, "fgsim-failing")
with open(failing, "w") as f:
    f.write(f'#!/bin/sh\ncase "$*" in run*gpu.cus=2*) echo "fgsim: error: stand-in failure" >&2; exit 2;; esac\n'
            f'exec "{fgsim}" "$@"\n')
os.chmod(failing, 0o755)
r = experiment_sh(failing, os.path.join(tmp, "runs-failing"), os.path.join(tmp, "failing", "smoke.md"))
err = r.stderr
if r.returncode == 0 or "fgsim: error: stand-in failure\n" not in err or \
        not re.search(r"experiment smoke: a point failed: \S*fgsim-failing run vecadd .*gpu.cus=2", err) or \
        err.index("stand-in failure") > err.index("a point failed") or any(n in r.stdout + err for n in CHATTER):
    failures.append(f"a failing point: exit {r.returncode}, stdout:\n{r.stdout}\nstderr:\n{err}")

shutil.rmtree(tmp)
if failures:
    sys.exit("FAIL: " + "; ".join(failures))
print("workflow: ok")
