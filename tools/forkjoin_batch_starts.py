#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""When the fork-join workers' batches start: Fig. 10's N-Queens at a cutoff (gh200), one queue against EPAQ's two
(docs/forkjoin.md, open differences). A batch is a trace span `run N` (a worker iteration's N tasks). With one
queue a batch can mix tasks that spawn (rows up to the cutoff) with serial searches; the spawning tasks' children
are published when the batch ends, after its searches, so their searches start late. The table gives the kernel
time, the batches, their start times (median, 90th percentile, last) and the batches and tasks that started after
a quarter of the run.
Usage: tools/forkjoin_batch_starts.py [build/fgsim] [--n=12] [--cutoff=3] [--set=K=V ...]"""
import statistics
import sys

import fgtool  # tools/fgtool.py, beside this script

ap = fgtool.parser(__doc__)
ap.add_argument("--n", type=fgtool.positive, default=12, help="queens.n (default 12, the validation page's)")
ap.add_argument("--cutoff", type=fgtool.positive, default=3, help="queens.cutoff (default 3)")
ap.add_argument("--set", action="append", default=[], metavar="K=V")
opts = fgtool.parse(ap)
extra = [x for kv in opts.set for x in ("--set", kv)]

print(f"| {opts.n}-queens, cutoff {opts.cutoff} (gh200) | kernel us | batches | batch starts: median us | 90% us "
      "| last us | batches started after a quarter of the run | their tasks |")
print("|---|---|---|---|---|---|---|---|")
for queues in (1, 2):
    st, events = fgtool.traced([opts.fgsim, "run", "queens", "--preset", "gh200", "--set",
                                "queens.mechanism=forkjoin", "--set", f"queens.n={opts.n}", "--set",
                                f"queens.cutoff={opts.cutoff}", "--set", f"forkjoin.queues={queues}", *extra])
    k = st["kernels"][0]
    t0 = k["submitted_ns"] / 1000  # us, the trace's unit
    kernel_us = (k["end_ns"] - k["submitted_ns"]) / 1000
    runs = sorted((e["ts"] - t0, int(e["name"].split()[1])) for e in events
                  if e["ph"] == "X" and e["name"].startswith("run "))
    starts = [s for s, _ in runs]
    late = [(s, n) for s, n in runs if s > kernel_us / 4]

    def q(p):
        return starts[min(len(starts) - 1, int(p * len(starts)))] if starts else 0.0
    median = statistics.median(starts) if starts else 0.0
    print(f"| {'EPAQ (2 queues)' if queues > 1 else 'one queue'} | {kernel_us:.1f} | {len(runs)} | {median:.1f} | "
          f"{q(0.9):.1f} | {starts[-1] if starts else 0.0:.1f} | {len(late)} | {sum(n for _, n in late)} |")
sys.stdout.flush()
