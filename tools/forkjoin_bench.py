#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""The fork-join benchmark of docs/performance.md (issue 36, item 10): host time of fib 24 and
of cilksort of 10^6 keys on the fork-join runtime, on 8 CUs of each preset (orr2014, kim2014,
gh200 with gpu.cus=8), one run at a time, with peak resident memory, simulated kernel time and
simulated ns per host second. Target: each under 60 s on a 2-core machine.
Usage: tools/forkjoin_bench.py [build/fgsim] [--presets=orr2014,kim2014,gh200]"""
import json
import os
import shlex
import subprocess
import sys
import tempfile
import time

import fgtool  # tools/fgtool.py, beside this script

ap = fgtool.parser(__doc__)
ap.add_argument("--presets", type=fgtool.choice_list("orr2014", "kim2014", "gh200"),
                default=["orr2014", "kim2014", "gh200"])
opts = fgtool.parse(ap)
RUNS = [("fib 24", ["fib", "--set", "fib.mechanism=forkjoin", "--set", "fib.n=24"]),
        ("cilksort 10^6", ["sort", "--set", "sort.mechanism=forkjoin", "--set", "sort.n=1000000"])]


def timed(args):
    with tempfile.TemporaryDirectory() as d:
        path = os.path.join(d, "s.json")
        t0 = time.monotonic()
        cmd = [opts.fgsim, "run", *args, "--quiet", "--stats", path]
        p = subprocess.Popen(cmd, stdout=subprocess.DEVNULL)  # fgsim's messages reach stderr
        _, status, usage = os.wait4(p.pid, 0)
        dt = time.monotonic() - t0
        rc = os.waitstatus_to_exitcode(status)
        if rc != 0:  # as fgtool.run: one line naming the command, fgsim's exit code
            sys.stderr.write(f"forkjoin_bench.py: fgsim exited {rc}: {shlex.join(cmd)}\n")
            sys.exit(rc if 0 < rc < 126 else 1)
        j = json.load(open(path))
    return dt, usage.ru_maxrss / 1024, j["workload"]["results"]["kernel_ns"], j["sim"]["time_ns"], \
        j["workload"]["results"]["workers"]


print("| run | preset (8 CUs) | workers | host time (s) | peak RSS (MB) | kernel (us) | simulated ns / host s |")
print("|---|---|---|---|---|---|---|")
for preset in opts.presets:
    for name, args in RUNS:
        dt, rss, kernel, sim, workers = timed([*args, "--preset", preset, "--set", "gpu.cus=8"])
        print(f"| {name} | {preset} | {workers} | {dt:.1f} | {rss:.0f} | {kernel / 1000:,.1f} | {sim / dt:,.0f} |")
