#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""tools/fgstats.py against a real stats file: every selected value and unit
as in the JSON, the kernels' IPC present, wide format one row per file, a
non-stats file rejected with exit 2."""
import csv
import io
import json
import os
import subprocess
import sys
import tempfile

root, fgsim = sys.argv[1], sys.argv[2]
tool = os.path.join(root, "tools", "fgstats.py")
tmp = tempfile.mkdtemp(prefix="fg_fgstats_")
stats = os.path.join(tmp, "s.json")
subprocess.run([fgsim, "run", "vecadd", "--preset", "orr2014", "--set", "gpu.cus=2", "--set", "vecadd.n=2048",
                "--quiet", "--stats", stats], check=True)
doc = json.load(open(stats))
failures = []


def run(*args):
    r = subprocess.run([sys.executable, tool, *args], capture_output=True, text=True)
    return r.returncode, r.stdout, r.stderr


rc, out, err = run(stats, "--match", "gpu.cu*.l1.hits", "--match", "gpu.dram.queue_delay", "--match", "kernel.*")
rows = list(csv.DictReader(io.StringIO(out)))
if rc:
    failures.append(f"exit {rc}: {err}")
hits = {r["stat"]: float(r["value"]) for r in rows if r["stat"].endswith(".l1.hits")}
if hits != {k: float(v) for k, v in doc["stats"].items() if k.startswith("gpu.cu") and k.endswith(".l1.hits")}:
    failures.append(f"l1 hits differ: {hits}")
dq = {r["field"]: (float(r["value"]), r["unit"]) for r in rows if r["stat"] == "gpu.dram.queue_delay"}
if dq.get("mean") != (doc["stats"]["gpu.dram.queue_delay"]["mean"], "ns") or dq.get("count", (0,))[0] != \
        doc["stats"]["gpu.dram.queue_delay"]["count"]:
    failures.append(f"queue_delay rows {dq}")
if doc["units"]["gpu.dram.queue_delay"] != "ns":
    failures.append("stats JSON lacks the unit field")
ipc = [r for r in rows if r["stat"].endswith(".ipc")]
if len(ipc) != 1 or not 0 < float(ipc[0]["value"]) < 100:
    failures.append(f"kernel IPC rows {ipc}")
if any(r["stat"] == "sim.time_ns" for r in rows):
    failures.append("--match should leave sim.time_ns out")

rc, out, _ = run(stats, stats, "--wide", "--match", "gpu.dram.reads")
lines = out.strip().splitlines()
if rc or len(lines) != 3 or lines[0] != "file,gpu.dram.reads":
    failures.append(f"wide output {lines}")

# A time series: its count, interval, mean and maximum (a made-up document).
series = os.path.join(tmp, "series.json")
json.dump({**doc, "stats": {"gpu.worklist.active_threads": {"interval": 10, "samples": [0, 4, 8]}},
           "units": {"gpu.worklist.active_threads": "threads"}}, open(series, "w"))
rc, out, _ = run(series, "--match", "gpu.worklist.*")
got = {r["field"]: (float(r["value"]), r["unit"]) for r in csv.DictReader(io.StringIO(out))}
if rc or got != {"samples": (3.0, ""), "interval": (10.0, ""), "mean": (4.0, "threads"), "max": (8.0, "threads")}:
    failures.append(f"series rows {got}")

bad = os.path.join(tmp, "bad.json")
open(bad, "w").write("{}")
rc, _, err = run(bad)
if rc != 2 or "not an fgsim stats file" not in err:
    failures.append(f"bad file: exit {rc}, {err}")

if failures:
    sys.exit("FAIL: " + "; ".join(failures))
import shutil
shutil.rmtree(tmp)
print("fgstats: ok")
