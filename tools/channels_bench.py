#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""The channel benchmark of docs/performance.md (issue 13, item 10): host time
of each of Orr et al.'s Table-3 inputs on 8 CUs (orr2014, every parameter at
its default, which is Table 3's input), one line per workload with the host
wall time, peak resident memory, simulated time, wavefronts and yields.
Workloads not built yet are reported as such. Target: each under 60 s.
Usage: tools/channels_bench.py [build/fgsim] [--repeat=N]  (N runs each, the best kept)"""
import json
import os
import subprocess
import sys
import tempfile
import time

import fgtool  # tools/fgtool.py, beside this script

ap = fgtool.parser(__doc__)
ap.add_argument("--repeat", type=fgtool.positive, default=1, metavar="N", help="runs per workload; the best is kept")
opts = fgtool.parse(ap)
fgsim, repeat = opts.fgsim, opts.repeat

TABLE3 = [("fib", "fib(24)"), ("queens", "13x13"), ("sort", "1,000,000 keys"), ("strassen", "512x512")]
listed = fgtool.run([fgsim, "list"], stdout=subprocess.PIPE).stdout.split()
print("| workload | input | host time (s) | peak RSS (MB) | simulated (us) | wavefronts | yields | lane ops | "
      "lane ops / host s |")
print("|---|---|---|---|---|---|---|---|---|")
for w, inp in TABLE3:
    if w not in listed:
        print(f"| {w} | {inp} | not built yet | | | | | | |")
        continue
    best = None
    for _ in range(repeat):
        with tempfile.TemporaryDirectory() as d:
            path = os.path.join(d, "s.json")
            t0 = time.monotonic()
            p = subprocess.Popen([fgsim, "run", w, "--preset", "orr2014", "--set", "gpu.cus=8", "--quiet",
                                  "--stats", path], stdout=subprocess.DEVNULL, stderr=open(os.path.join(d, "err"), "w"))
            _, status, usage = os.wait4(p.pid, 0)
            dt = time.monotonic() - t0
            rc = os.waitstatus_to_exitcode(status)
            if rc != 0:
                sys.exit(f"{w}: exit {rc}: {open(os.path.join(d, 'err')).read().strip()}")
            s = json.load(open(path))["stats"]
            best = dt if best is None else min(best, dt)
            rss = usage.ru_maxrss / 1024  # this run's peak (kB on Linux)
    lane_ops = sum(v for k, v in s.items() if k.startswith("gpu.cu") and k.endswith(".lane_ops"))
    print(f"| {w} | {inp} | {best:.2f} | {rss:.0f} | {s['aggregator.run_ns'] / 1000:.1f} | "
          f"{s['aggregator.wavefronts']:.0f} | {s['yield.yields']:.0f} | {lane_ops / 1e6:.0f} M | "
          f"{lane_ops / best / 1e6:.1f} M |")
