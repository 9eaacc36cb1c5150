#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""Fork-join worker loops as GTaP's Fig. 10 profile shows them (docs/forkjoin.md, open differences).
For Fig. 10's fib 32 at a cutoff (gh200, one queue and EPAQ's three): the time a worker loop spends in its task
functions (trace spans `run N`, from a batch's first task start to the barrier after it: GTaP's "task execution
time per loop"), mean and median, its share of a loop (the kernel time over the loops per worker), the CUs'
cycles waiting for memory / issuing / waiting for a dependency (gpu.cu.cycles_*), and a histogram in 1-us bins.
Usage: tools/forkjoin_loop_profile.py [build/fgsim] [--cutoff=10] [--set=K=V ...]"""
import statistics
import sys

import fgtool  # tools/fgtool.py, beside this script

ap = fgtool.parser(__doc__)
ap.add_argument("--cutoff", type=fgtool.positive, default=10, help="fib.cutoff (default 10, the paper's profile's)")
ap.add_argument("--set", action="append", default=[], metavar="K=V")
opts = fgtool.parse(ap)
extra = [x for kv in opts.set for x in ("--set", kv)]

print(f"| fib 32, cutoff {opts.cutoff} (gh200) | loops per warp | loop us | task functions: mean us | median us "
      "| share of a loop | CU cycles: memory / issuing / dependency | task-function times in 1-us bins: loops |")
print("|---|---|---|---|---|---|---|---|")
for queues in (1, 3):
    st, events = fgtool.traced([opts.fgsim, "run", "fib", "--preset", "gh200", "--set", "fib.mechanism=forkjoin",
                                "--set", "fib.n=32", "--set", "forkjoin.terminate=first", "--set",
                                f"fib.cutoff={opts.cutoff}", "--set", f"forkjoin.queues={queues}", *extra])
    workers = sum(1 for e in events if e["ph"] == "M" and e["name"] == "thread_name"
                  and e["args"]["name"].startswith("warp "))
    runs = [e["dur"] for e in events if e["ph"] == "X" and e["name"].startswith("run ")]  # us
    k = st["kernels"][0]
    loops = len(runs) / max(workers, 1)
    loop_us = (k["end_ns"] - k["submitted_ns"]) / 1000 / max(loops, 1e-9)
    mean = statistics.mean(runs) if runs else 0.0
    hist = {}
    for us in runs:
        hist[int(us)] = hist.get(int(us), 0) + 1
    bins = ", ".join(f"{b}: {n}" for b, n in sorted(hist.items()))
    cycles = {k[len("gpu.cu.cycles_"):]: v for k, v in st["totals"].items() if k.startswith("gpu.cu.cycles_")}
    share = {k: 100 * v / max(sum(cycles.values()), 1) for k, v in cycles.items()}
    split = f"{share.get('memory', 0):.0f}% / {share.get('issuing', 0):.0f}% / {share.get('dependency', 0):.0f}%"
    print(f"| {'EPAQ' if queues > 1 else 'one queue'} | {loops:.1f} | {loop_us:.2f} | {mean:.2f} | "
          f"{statistics.median(runs) if runs else 0.0:.2f} | {100 * mean / loop_us:.0f}% | {split} | {bins} |")
sys.stdout.flush()
