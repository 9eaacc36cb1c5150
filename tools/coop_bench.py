#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""The cooperative-kernel benchmark of docs/performance.md (issue 35, item 9): host time of
each Table-2 run of experiments/cooperative.yaml (the 11 pairs, plain and cooperative) and
of its heaviest Table-3 run (heavy load at N/2 on every pair: the slowest is reported),
one run at a time, with peak resident memory, simulated kernel time and simulated ns per
host second. Target: the whole experiment regenerates in under 30 minutes on 2 cores.
Usage: tools/coop_bench.py [build/fgsim] [--table3]  (--table3: also every pair's heavy-half run)"""
import json
import os
import shlex
import subprocess
import sys
import tempfile
import time

import fgtool  # tools/fgtool.py, beside this script

here = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(here, "experiments"))
import experiment as X  # noqa: E402

ap = fgtool.parser(__doc__)
ap.add_argument("--table3", action="store_true")
opts = fgtool.parse(ap)
exp = X.load(os.path.join(here, "..", "experiments", "cooperative.yaml"))
studies = {s["name"]: s for s in exp["studies"]}


def timed(args):
    with tempfile.TemporaryDirectory() as d:
        path = os.path.join(d, "s.json")
        t0 = time.monotonic()
        cmd = [opts.fgsim, *args, "--quiet", "--stats", path]
        p = subprocess.Popen(cmd, stdout=subprocess.DEVNULL)  # fgsim's messages reach stderr
        _, status, usage = os.wait4(p.pid, 0)
        dt = time.monotonic() - t0
        rc = os.waitstatus_to_exitcode(status)
        if rc != 0:  # as fgtool.run: one line naming the command, fgsim's exit code
            sys.stderr.write(f"coop_bench.py: fgsim exited {rc}: {shlex.join(cmd)}\n")
            sys.exit(rc if 0 < rc < 126 else 1)
        j = json.load(open(path))
    return dt, usage.ru_maxrss / 1024, j["workload"]["results"]["kernel_ns"], j["sim"]["time_ns"]


print("| run | host time (s) | peak RSS (MB) | kernel (us) | simulated ns / host s |")
print("|---|---|---|---|---|")
total = 0.0
runs = [(p, a) for p, _, a in X.points(studies["table2"])]
if opts.table3:
    runs += [(p, a) for p, _, a in X.points(studies["table3"]) if p["case"] == "heavy-half"]
for params, args in runs:
    dt, rss, kernel_ns, sim_ns = timed(args)
    total += dt
    print(f"| {params['pair']}, {params['case']} | {dt:.2f} | {rss:.0f} | {kernel_ns / 1000:,.1f} | "
          f"{sim_ns / dt:,.0f} |")
print(f"\nTotal host time of these runs: {total:.1f} s")
