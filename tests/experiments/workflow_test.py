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

# A point whose stats are missing runs again, and its row is in the table, even when the CSV
# and page are newer than everything and Snakemake has no record of them (a fresh clone, a
# restored file): Snakemake takes a missing input of an up-to-date job for a deleted
# intermediate file, and once wrote a page without a new study's points that way.
csv_path = os.path.join(tmp, "smoke", "smoke.csv")
shutil.rmtree(os.path.join(tmp, ".snakemake"), ignore_errors=True)
gone = sorted(os.listdir(runs))
for f in gone:
    os.remove(os.path.join(runs, f))
for f in (csv_path, page):
    os.utime(f)
workflow(fgsim)
if len(os.listdir(runs)) != 2:
    failures.append(f"points with missing stats were not run again: {sorted(os.listdir(runs))}")
if [r["gpu.cus"] for r in csv.DictReader(open(csv_path))] != ["1", "2"]:
    failures.append("the table after rerunning the missing points lacks their rows")

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
for expr in ("sim.time_ns + 1",):
    try:
        X.metric({"sim": {"time_ns": 1.0}, "stats": {}}, expr)
        failures.append(f"metric '{expr}' accepted")
    except (ValueError, KeyError):
        pass
# A pattern no stat of a run matches (a task metric of a mechanism the run did not build) has
# no value in that run; a study in which no run has it is refused (a misspelt pattern).
if X.metric({"stats": {"tasks.worklist.run": 3}}, "stats.tasks.*.run") != 3:
    failures.append("stats.tasks.*.run does not sum the one matching stat")
if X.metric({"stats": {"gpu.cu0.x": 1}}, "stats.tasks.*.run") is not None:
    failures.append("a pattern no stat matches should have no value in that run")
try:
    X.rows({"name": "p", "metrics": {"r": "stats.tasks.*.rnu"}},
           [({}, 1, {"workload": {"results": {}}, "stats": {"tasks.worklist.run": 3}})])
    failures.append("a pattern no run of the study matches was accepted")
except KeyError:
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
# gsorting: the cores and network of scheme 3 plus the monolithic ranking of all 64 banks.
gsynth = {"results": synth["results"] + [
    {"block": "core", "params": {"Lanes": 16, "Depth": 32, "Scheme": 3, "Threshold": 5, "Interval": 10},
     "area_um2": 9.5e6},
    {"block": "wru", "params": {"Lanes": 16, "Scheme": 3, "Threshold": 5, "Interval": 10}, "area_um2": 6e5},
    {"block": "grank", "params": {"NumBanks": 64}, "area_um2": 2e6}]}
for spec, want in ((unit, 4 * 9.5 + 0.05 + 2.0), ({**unit, "part": "redistribution"}, 4 * 0.6 + 0.05 + 2.0)):
    got = X.hwwl_area({"bfs.mechanism": "hwwl", "worklist.scheme": "gsorting"}, spec, gsynth)
    if not isinstance(got, float) or abs(got - want) > 1e-9:
        failures.append(f"gsorting hwwl_area({spec['part']}) = {got}, want {want}")
# The Pareto front of (area, speed-up): no point beats a front point on both.
front = X.pareto_front([(0.0, 1.0), (0.0, 1.75), (17.5, 0.56), (17.5, 2.0), (128.1, 1.23), (0.0, 0.95), (5.0, 1.75)])
if front != [(0.0, 1.75), (17.5, 2.0)]:
    failures.append(f"pareto_front = {front}")
if abs(X.aggregator_area(root) - 3.1 * (180 / 28) ** 2) > 1e-9:
    failures.append(f"aggregator_area = {X.aggregator_area(root)}")
redist = {**unit, "part": "redistribution"}
for settings, spec, want in (
        ({"bfs.variant": "swwl"}, unit, 0.0),
        ({"bfs.variant": "hwwl"}, unit, 40.0),  # defaults: lsorting, 32 entries, 4 cores
        ({"mst.mechanism": "hwwl"}, unit, 40.0),  # the key's new name, as <w>.variant
        ({"mst.mechanism": "topo"}, unit, 0.0),
        ({"bfs.variant": "hwwl", "worklist.depth": 8}, unit, 40.0 - 4 * 16 * 0.3),
        ({"bfs.variant": "hwwl", "worklist.depth": 65536}, unit, "not synthesized"),
        ({"bfs.variant": "hwwl", "gpu.cus": 8}, unit, 8 * 9.0 + 0.3),  # no 8-core system: cores + network
        ({"bfs.variant": "hwwl", "gpu.cus": 8, "worklist.depth": 8}, unit, 8 * 9.0 + 0.3 - 8 * 16 * 0.3),
        ({"bfs.variant": "hwwl", "gpu.cus": 16}, unit, "not synthesized"),  # no 16-core network
        ({"bfs.variant": "hwwl", "worklist.scheme": "threshold"}, unit, "not synthesized"),
        ({"bfs.variant": "hwwl", "worklist.scheme": "gsorting"}, unit, "not synthesized"),  # no Scheme 3 here
        ({"bfs.variant": "hwwl", "worklist.scheme": "magic"}, unit, "model only"),
        ({"bfs.variant": "hwwl", "worklist.depth": 65536}, redist, 4 * 0.5 + 0.05),
        ({"bfs.variant": "hwwl", "worklist.scheme": "none"}, redist, 0.0),
        ({"bfs.mechanism": "channels"}, unit, 123.0),  # the aggregator's estimate
        ({"bfs.variant": "hwwl", "worklist.scheme": "gsorting"}, redist, "not synthesized")):
    got = X.hwwl_area(settings, spec, synth, aggregator=123.0)
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

# {workload} in a setting's name is the run's workload; a case's literal name overrides fixed's
# {workload} one for that workload, as any case setting overrides fixed; the grid's column keeps
# the name as written; a case's own workload is its runs' workload.
study = {"name": "w", "preset": "orr2014", "fixed": {"{workload}.groups": 0, "gpu.cus": 8},
         "grid": {"workload": ["color", "mis"], "{workload}.size": [1]},
         "cases": {"plain": {"{workload}.mechanism": "persistent", "{workload}.groups": -1},
                   "coop": {"{workload}.mechanism": "coop", "color.groups": 2}},
         "metrics": {"t": "result.t"}}
got = [(p, " ".join(a)) for p, _, a in X.points(study)]
want = [({"case": "plain", "workload": "color", "{workload}.size": 1}, "run color --preset orr2014 --seed 1 "
         "--set color.groups=-1 --set gpu.cus=8 --set color.mechanism=persistent --set color.size=1"),
        ({"case": "plain", "workload": "mis", "{workload}.size": 1}, "run mis --preset orr2014 --seed 1 "
         "--set mis.groups=-1 --set gpu.cus=8 --set mis.mechanism=persistent --set mis.size=1"),
        ({"case": "coop", "workload": "color", "{workload}.size": 1}, "run color --preset orr2014 --seed 1 "
         "--set color.groups=2 --set gpu.cus=8 --set color.mechanism=coop --set color.size=1"),
        ({"case": "coop", "workload": "mis", "{workload}.size": 1}, "run mis --preset orr2014 --seed 1 "
         "--set mis.groups=0 --set gpu.cus=8 --set mis.mechanism=coop --set color.groups=2 --set mis.size=1")]
if got != want:
    failures.append("{workload} points:\n    " + "\n    ".join(map(str, got)))
study = {"name": "w", "preset": "orr2014", "cases": {"v": {"workload": "vecadd", "{workload}.n": 64},
                                                    "h": {"workload": "histogram", "{workload}.bins": 4}}}
got = [" ".join(a) for _, _, a in X.points(study)]
if got != ["run vecadd --preset orr2014 --seed 1 --set vecadd.n=64",
           "run histogram --preset orr2014 --seed 1 --set histogram.bins=4"]:
    failures.append(f"{{workload}} of a case's own workload: {got}")

# One configuration reached in two orders (fixed, a case, a bundle) is one run; a name given
# twice keeps its order (the last wins), so swapping those two is another run.
head = ["run", "w", "--preset", "p", "--seed", "1"]
a = X.point_id(head + ["--set", "b=1", "--set", "a=2", "--set", "b=3"], "h")
if a != X.point_id(head + ["--set", "a=2", "--set", "b=1", "--set", "b=3"], "h") \
        or a == X.point_id(head + ["--set", "b=3", "--set", "a=2", "--set", "b=1"], "h") \
        or a == X.point_id(head[:-1] + ["2", "--set", "b=1", "--set", "a=2", "--set", "b=3"], "h"):
    failures.append("point_id: not the configuration's")

# A result that one version of a workload reports and another does not: no value there
# (an empty cell), and a metric that no run has is refused.
study = {"name": "m", "metrics": {"a": "result.active_mean", "t": "result.t"}}
got = X.rows(study, [({}, 1, {"workload": {"results": {"t": 1.0, "active_mean": 3.5}}, "stats": {}}),
                     ({}, 1, {"workload": {"results": {"t": 2.0}}, "stats": {}})])
if [(r["a"], r["t"]) for r in got] != [(3.5, 1.0), (None, 2.0)]:
    failures.append(f"a result only some runs have: {got}")
try:
    X.rows({"name": "m", "metrics": {"a": "result.actve_mean"}},
           [({}, 1, {"workload": {"results": {"t": 1.0}}, "stats": {}})])
    failures.append("a result that no run has was accepted")
except (SystemExit, KeyError) as e:
    if "actve_mean" not in str(e):
        failures.append(f"a result that no run has: '{e}'")

# relative with invert (this row over the best `to` row: a slowdown) and by (the columns
# that make the same point: here the workload only, across sizes and seeds).
study = {"name": "r", "preset": "orr2014", "grid": {"workload": ["a", "b"], "n": [1, 2]}, "seeds": [1, 2],
         "cases": {"plain": {}, "coop": {}}, "metrics": {"t": "result.t"},
         "relative": {"of": "t", "to": ["plain"], "name": "slowdown", "invert": True, "by": ["workload"]}}
times = {("plain", "a", 1): 4.0, ("plain", "a", 2): 2.0, ("plain", "b", 1): 10.0, ("plain", "b", 2): 20.0}
res = [(p, s_, {"workload": {"results": {"t": times.get((p["case"], p["workload"], p["n"]), 1.0) * s_}}})
       for p, s_, _ in X.points(study)]
got = {(r["case"], r["workload"], r["n"], r["seed"]): r["slowdown"] for r in X.rows(study, res)}
# best plain t: a 2.0 (n 2, seed 1), b 10.0 (n 1, seed 1)
want = {("plain", "a", 1, 1): 2.0, ("plain", "a", 2, 1): 1.0, ("plain", "a", 1, 2): 4.0, ("plain", "a", 2, 2): 2.0,
        ("plain", "b", 1, 1): 1.0, ("plain", "b", 2, 1): 2.0, ("plain", "b", 1, 2): 2.0, ("plain", "b", 2, 2): 4.0,
        ("coop", "a", 1, 1): 0.5, ("coop", "a", 2, 1): 0.5, ("coop", "a", 1, 2): 1.0, ("coop", "a", 2, 2): 1.0,
        ("coop", "b", 1, 1): 0.1, ("coop", "b", 2, 1): 0.1, ("coop", "b", 1, 2): 0.2, ("coop", "b", 2, 2): 0.2}
if got != want:
    failures.append(f"relative invert/by: {got} != {want}")
study["relative"]["by"] = []  # every row against the best `to` row of the whole study (plain, a, 2, seed 1: 2.0)
if any(r["slowdown"] != r["t"] / 2.0 for r in X.rows(study, res)):
    failures.append(f"relative by []: {[(r['t'], r['slowdown']) for r in X.rows(study, res)]}")
del study["relative"]["invert"], study["relative"]["by"]  # the default: best over this row, per grid point and seed
got = {(r["case"], r["workload"], r["n"], r["seed"]): r["slowdown"] for r in X.rows(study, res)}
if got[("coop", "a", 1, 2)] != 4.0 or got[("coop", "b", 2, 1)] != 20.0 or got[("plain", "a", 1, 1)] != 1.0:
    failures.append(f"relative (default): {got}")

# summary: per group of `by` values, each statistic of each column over the rows that have
# a value; argmax names the row by the first parameter column not in `by`.
study = {"name": "m", "preset": "orr2014", "grid": {"workload": ["a", "b", "c"]}, "cases": {"plain": {}, "coop": {}},
         "metrics": {"t": "stats.t", "u": "stats.u"},  # a run without the stat: no value
         "summary": {"by": ["case"], "of": ["t", "u"], "stats": ["mean", "geomean", "median", "min", "max", "argmax"]}}
vals = {("plain", "a"): (1.0, None), ("plain", "b"): (4.0, None), ("plain", "c"): (2.0, None),
        ("coop", "a"): (8.0, 3.0), ("coop", "b"): (1.0, None), ("coop", "c"): (8.0, 1.0)}
res = [(p, s_, {"stats": {k: v for k, v in zip("tu", vals[(p["case"], p["workload"])]) if v is not None}})
       for p, s_, _ in X.points(study)]
rows = X.rows(study, res)
want = [{"study": "m", "summary": 1, "case": "plain", "t_mean": 7 / 3, "t_geomean": 2.0, "t_median": 2.0, "t_min": 1.0,
         "t_max": 4.0, "t_argmax": "b", "u_mean": None, "u_geomean": None, "u_median": None, "u_min": None,
         "u_max": None, "u_argmax": None},
        {"study": "m", "summary": 1, "case": "coop", "t_mean": 17 / 3, "t_geomean": 4.0, "t_median": 8.0, "t_min": 1.0,
         "t_max": 8.0, "t_argmax": "a", "u_mean": 2.0, "u_geomean": 3 ** 0.5, "u_median": 2.0, "u_min": 1.0,
         "u_max": 3.0, "u_argmax": "a"}]


def close(a, b):
    return a.keys() == b.keys() and all(abs(a[k] - b[k]) < 1e-12 if isinstance(b[k], float) else a[k] == b[k]
                                        for k in b)


if len(rows) != 8 or not all(close(g, w) for g, w in zip(rows[6:], want)) or any("summary" in r for r in rows[:6]):
    failures.append("summary rows:\n    " + "\n    ".join(map(str, rows[6:])))
study["summary"] = {"of": ["t"], "stats": ["median", "argmax"]}  # no `by`: one group; argmax names the case
if [(r["t_median"], r["t_argmax"]) for r in X.rows(study, res)[6:]] != [(3.0, "coop")]:
    failures.append(f"summary of all rows: {X.rows(study, res)[6:]}")
study["summary"] = {"by": ["case"], "of": ["t"], "stats": ["max"]}
# Quartiles by nearest rank (the ceil(p n)-th smallest: GTaP's result files): of plain's 1, 2, 4
# the 1st and 3rd, of coop's u (3, 1) the 1st and 2nd; a summary's relative over its rows: the
# smallest of the `to` cases' row over this row's, per group of the other `by` columns.
study["summary"] = {"by": ["case"], "of": ["t", "u"], "stats": ["median", "q1", "q3"],
                    "relative": {"of": "t_median", "to": ["plain"], "name": "gain"}}
got = [(r["t_q1"], r["t_q3"], r["u_q1"], r["u_q3"], r["gain"]) for r in X.rows(study, res)[6:]]
if got != [(1.0, 4.0, None, None, 1.0), (1.0, 8.0, 1.0, 3.0, 0.25)]:
    failures.append(f"summary quartiles and relative: {got}")
four = [(v, None) for v in (4.0, 1.0, 3.0, 2.0)]  # the 1st and 3rd smallest (ranks ceil(1) and ceil(3))
if (X._stat("q1", four), X._stat("q3", four), X._stat("q1", four[:1])) != (1.0, 3.0, 4.0):
    failures.append(f"quartiles of 4, 1, 3, 2: {X._stat('q1', four)}, {X._stat('q3', four)}")
study["summary"]["relative"] = {"of": "u_q3", "to": ["plain"], "name": "gain", "invert": True}
if [r["gain"] for r in X.rows(study, res)[6:]] != [None, None]:  # plain has no u: no value
    failures.append(f"summary relative without a `to` value: {X.rows(study, res)[6:]}")
study2 = {**study, "grid": {"workload": ["a", "b", "c"]},
          "summary": {"by": ["case", "workload"], "of": ["t"], "stats": ["median"],
                      "relative": {"of": "t_median", "to": ["plain"], "name": "gain", "invert": True}}}
got = {(r["case"], r["workload"]): r["gain"] for r in X.rows(study2, res)[6:]}
if got != {("plain", "a"): 1.0, ("plain", "b"): 1.0, ("plain", "c"): 1.0, ("coop", "a"): 8.0, ("coop", "b"): 0.25,
           ("coop", "c"): 4.0}:
    failures.append(f"summary relative per workload: {got}")
csv_path, page5 = os.path.join(tmp, "q.csv"), os.path.join(tmp, "q.md")
X.write_csv(csv_path, X.rows(study2, res))
X.page({"studies": [study2]}, "q", csv_path, page5, tmp, root)
want = ("Summary (median of `t` over the rows of each `case`, `workload`; rows without a value left out; `gain` = "
        "this row's `t_median` over the smallest `t_median` of the cases `plain` with the same `workload`):")
if want not in open(page5).read():
    failures.append(f"page lacks '{want}':\n{open(page5).read()}")
study["summary"] = {"by": ["case"], "of": ["t"], "stats": ["max"]}

# The page: the relative sentence says what invert and by do; the summary table under the
# study's table (not in it), with the paper's summary values beside ours.
study["relative"] = {"of": "t", "to": ["plain"], "name": "slowdown", "invert": True, "by": ["workload"]}
study["summary"] = {"by": ["case"], "of": ["slowdown", "t"], "stats": ["median", "argmax"]}
study["paper"] = {"source": "Paper T1", "values": [{"case": "coop", "slowdown_median": 1.47, "other": 1}]}
csv_path, page4 = os.path.join(tmp, "m.csv"), os.path.join(tmp, "m.md")
X.write_csv(csv_path, X.rows(study, res))
X.page({"studies": [study]}, "m", csv_path, page4, tmp, root)
text = open(page4).read()
for want in ("`slowdown` = this row's `t` over the smallest `t` of the cases `plain` with the same `workload` "
             "(above 1: slower than the best).",
             "Summary (median, argmax of `slowdown`, `t` over the rows of each `case`; rows without a value left out; "
             "`_argmax`: the `workload` of the row with the largest value; `paper_`: Paper T1):\n\n"
             "| case | slowdown_median | paper_slowdown_median | slowdown_argmax | t_median | t_argmax |\n"
             "|---|---|---|---|---|---|\n| plain | 1 |  | a | 2 | b |\n| coop | 4 | 1.47 | a | 8 | a |\n"):
    if want not in text:
        failures.append(f"page lacks '{want}':\n{text}")
main_table = text.split("| case | workload | t | u | slowdown |")[-1].split("\n\n")[0].strip().splitlines()[1:]
if len(main_table) != 6:
    failures.append(f"the page's study table has {len(main_table)} rows, not 6:\n{text}")
# table: false leaves the study's table out and keeps its summary.
X.page({"studies": [{**study, "table": False}]}, "m", csv_path, page4, tmp, root)
text = open(page4).read()
if "| case | workload | t | u | slowdown |" in text or "Its 6 rows are in the CSV" not in text \
        or "| case | slowdown_median |" not in text:
    failures.append(f"table: false:\n{text}")

# The plot (Matplotlib, in the interpreter snakemake runs the plot job with): `from: summary`
# draws the summary rows; paper values with the series column are drawn per series, in its
# colour, over its bars; without it, as one black set.
interp = open(shutil.which("snakemake")).readline()[2:].split()
plot_check = r"""
import sys
sys.path.insert(0, sys.argv[1])
import experiment as X
from matplotlib.figure import Figure
study = {"name": "m", "grid": {"workload": ["a", "b"]}, "cases": {"plain": {}, "coop": {}},
         "metrics": {"t": "x"}, "summary": {"by": ["case", "workload"], "of": ["t"], "stats": ["max"]},
         "plot": {"from": "summary", "x": "case", "y": "t_max", "series": "workload"},
         "paper": {"source": "P", "values": [{"case": "coop", "workload": "b", "t_max": 7},
                                             {"case": "plain", "t_max": 9}]}}
rows = [{"study": "m", "case": c, "workload": w, "seed": "1", "t": "1", "summary": "", "t_max": ""}
        for c in ("plain", "coop") for w in "ab"]
rows += [{"study": "m", "case": c, "workload": w, "seed": "", "t": "", "summary": "1", "t_max": str(v)}
         for (c, w), v in {("plain", "a"): 2, ("plain", "b"): 3, ("coop", "a"): 4, ("coop", "b"): 5}.items()]
ax = Figure().subplots()
X.draw(study, rows, ax)
bars = {round(p.get_x() + p.get_width() / 2, 6): (p.get_height(), p.get_facecolor()) for p in ax.patches}
lines = {l.get_label(): (list(l.get_xdata()), list(l.get_ydata()), l.get_color()) for l in ax.lines}
print(sorted((x, h) for x, (h, _) in bars.items()))
b_coop = bars[1.2]  # workload b's bar over coop (the second category, offset +0.2)
print(lines["paper (b)"][:2] == ([1.2], [7]) and lines["paper (b)"][2] == b_coop[1])
print(lines["P"][:2] == ([0], [9]) and lines["P"][2] == "black")
# plot.cases: only those cases' rows, and only the paper's values of those cases (or of none).
study = {"name": "c", "grid": {"n": [1, 2]}, "cases": {"ws": {}, "gq": {}}, "metrics": {"t": "x"},
         "plot": {"x": "n", "y": "t", "series": "case", "cases": ["gq"]},
         "paper": {"values": [{"case": "gq", "n": 4, "t": 8}, {"case": "ws", "n": 4, "t": 1}]}}
rows = [{"study": "c", "case": c, "n": str(n), "seed": "1", "t": str(n * (3 if c == "gq" else 1)), "summary": ""}
        for c in ("ws", "gq") for n in (1, 2)]
ax = Figure().subplots()
X.draw(study, rows, ax)
print(sorted((l.get_label(), list(l.get_xdata()), list(l.get_ydata())) for l in ax.lines))
"""
r = subprocess.run([*interp, "-c", plot_check, os.path.join(root, "tools", "experiments")], capture_output=True,
                   text=True)
if r.returncode or r.stdout.splitlines() != ["[(-0.2, 2.0), (0.2, 3.0), (0.8, 4.0), (1.2, 5.0)]", "True", "True",
                                               "[('case=gq', [1.0, 2.0], [3.0, 6.0]), ('paper (gq)', [4.0], [8.0])]"]:
    failures.append(f"plot from summary, paper per series: exit {r.returncode}\n{r.stdout}{r.stderr[-1500:]}")

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
