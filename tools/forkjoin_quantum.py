#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""The fork-join runtime's quantum dependence (the table in docs/forkjoin.md, "Quantum"): its
deques, locks, task counts and termination flags are synchronisation through memory, whose
functional effects happen in host order under temporal decoupling. Each configuration runs at
a one-cycle quantum (gh200's 1980 MHz: 0.505 ns) and at 5, 20 (the default) and 50 ns; the table
gives the kernel time at one cycle and each quantum's deviation from it.
--only=TEXT runs only the configurations whose names contain TEXT, --skip=TEXT all but those; --jobs=N runs N of fgsim at a
time (default 1; the table is the same, in the same order); --quanta=LIST the quanta in ns beside the one-cycle
one (default 5,20,50, none a whole number of gh200's 505 ps cycles; 20.2 is 40 cycles).
Usage: tools/forkjoin_quantum.py [build/fgsim] [--set=K=V ...] [--only=TEXT] [--skip=TEXT] [--jobs=N] [--quanta=LIST]"""

from concurrent.futures import ThreadPoolExecutor

import fgtool  # tools/fgtool.py, beside this script

ap = fgtool.parser(__doc__)
ap.add_argument("--set", action="append", default=[], metavar="K=V")
ap.add_argument("--only", default="", metavar="TEXT")
ap.add_argument("--skip", default=None, metavar="TEXT")
ap.add_argument("--jobs", type=fgtool.positive, default=1, metavar="N")
ap.add_argument("--quanta", type=fgtool.number_list, default=["5", "20", "50"], metavar="LIST")
opts = fgtool.parse(ap)
extra = [x for kv in opts.set for x in ("--set", kv)]
quanta = tuple(opts.quanta)
one_cycle = "0.505"

# (name, workload, settings): small versions of the experiment's runs (experiments/forkjoin.yaml).
fib = ["fib.mechanism=forkjoin", "fib.n=20"]
fig10_l1 = ["gpu.l1.size=159744", "gpu.l1.ways=52", "gpu.cu.lds=102400"]  # the page's Fig. 10 carveout (fib, cilksort)
tree = ["forkjoin.groups=125", "forkjoin.group_size=64", "tree.input_log2=19", "tree.mem_ops=64",
        "tree.compute_iters=64", "forkjoin.runtime=feb2026"]  # the runtime of Figs. 7-9
configs = [
    ("fib 20, ws, 512 warps", "fib", fib),
    ("fib 20, ws, 16 warps", "fib", [*fib, "forkjoin.groups=16"]),
    ("fib 20, gq, 512 warps", "fib", [*fib, "forkjoin.queue=gq"]),
    ("fib 20, cl, 512 warps", "fib", [*fib, "forkjoin.queue=cl"]),
    ("fib 24 cutoff 8, EPAQ", "fib", ["fib.mechanism=forkjoin", "fib.n=24", "fib.cutoff=8", "forkjoin.queues=3"]),
    ("queens 10, ws", "queens", ["queens.mechanism=forkjoin", "queens.n=10", "queens.cutoff=4"]),
    ("queens 12 cutoff 3, 128 warps (Fig. 3's)", "queens",
     ["queens.mechanism=forkjoin", "queens.n=12", "queens.cutoff=3", "forkjoin.groups=128",
      "forkjoin.assume_no_taskwait=off", "forkjoin.terminate=all"]),
    *[(f"queens 13 cutoff 5, {q}, {warps} warps (Fig. 3's over input and warps)", "queens",
       ["queens.mechanism=forkjoin", "queens.n=13", "queens.cutoff=5", "forkjoin.assume_no_taskwait=off",
        "forkjoin.terminate=all", *([] if q == "gq" else ["forkjoin.victim=stream"]), f"forkjoin.queue={q}",
        "forkjoin.groups=512",
        *(["forkjoin.group_size=64"] if warps == 1024 else [])])
      for q, warps in (("ws", 512), ("cl", 512), ("gq", 512), ("ws", 1024), ("gq", 1024), ("cl", 1024))],
    *[(f"fib 22, {q}, {warps} warps (Fig. 3's over absolute warps)", "fib",
       ["fib.mechanism=forkjoin", "fib.n=22", "forkjoin.terminate=all", *([] if q == "gq" else ["forkjoin.victim=stream"]),
        f"forkjoin.queue={q}",
        f"forkjoin.groups={min(warps, 512)}", *(["forkjoin.group_size=64"] if warps == 1024 else [])])
      for q, warps in (("ws", 256), ("gq", 256), ("ws", 1024), ("gq", 1024))],
    ("fib 32 cutoff 12, EPAQ (Fig. 10's)", "fib",
     ["fib.mechanism=forkjoin", "fib.n=32", "fib.cutoff=12", "forkjoin.queues=3", "forkjoin.terminate=first"]),
    ("cilksort 20,000, ws", "sort", ["sort.mechanism=forkjoin", "sort.n=20000"]),
    *[(f"fib 32 cutoff 10, {name} (Fig. 10's)", "fib",
       ["fib.mechanism=forkjoin", "fib.n=32", "fib.cutoff=10", f"forkjoin.queues={queues}", "forkjoin.terminate=first",
        *fig10_l1]) for name, queues in (("one queue", 1), ("EPAQ", 3))],
    *[(f"queens 12 cutoff 3, {name} (Fig. 10's)", "queens",
       ["queens.mechanism=forkjoin", "queens.n=12", "queens.cutoff=3", f"forkjoin.queues={queues}"])
      for name, queues in (("one queue", 1), ("EPAQ", 2))],
    *[(f"cilksort 10^5 cutoff 64, {name} (Fig. 10's)", "sort",
       ["sort.mechanism=forkjoin", "sort.n=100000", "sort.cutoff_sort=64", "sort.cutoff_merge=64",
        f"forkjoin.queues={queues}", "forkjoin.terminate=first", *fig10_l1])
      for name, queues in (("one queue", 1), ("EPAQ", 3))],
    ("mergesort 20,000, ws", "sort", ["sort.mechanism=forkjoin", "sort.algorithm=mergesort", "sort.n=20000"]),
    ("full tree D 10, thread workers", "tree", [*tree, "tree.depth=10"]),
    ("full tree D 10, block workers", "tree", [*tree, "tree.depth=10", "forkjoin.workers=block"]),
    ("pruned tree D 14, thread workers", "tree", [*tree, "tree.shape=pruned", "tree.depth=14"]),
    ("pruned tree D 14, block workers", "tree", [*tree, "tree.shape=pruned", "tree.depth=14", "forkjoin.workers=block"]),
    ("full tree D 10, block workers, jan2026 (Fig. 3's locked deques)", "tree",
     [*tree[:-1], "tree.depth=10", "forkjoin.workers=block", "forkjoin.runtime=jan2026"]),
    *[(f"full tree D {d}, thread workers (Fig. 7a's)", "tree",
       ["forkjoin.groups=125", "forkjoin.group_size=64", "tree.input_log2=19", "forkjoin.runtime=feb2026",
        f"tree.depth={d}", "forkjoin.workers=thread"]) for d in (12, 13)],
    # The block workers' global queue commits in order, each block spinning on the queue's tail (spin_until).
    *[(f"Fig. 3's {kind} tree, block workers, gq, {g} blocks", "tree",
       ["forkjoin.queue=gq", "forkjoin.group_size=32", "forkjoin.terminate=all", "forkjoin.workers=block",
        "tree.body=scaling", f"tree.compute_iters={iters}", "tree.depth=11", "tree.input_log2=19",
        f"tree.mem_ops={ops}", f"forkjoin.groups={g}"])
      for kind, ops, iters in (("compute", 64, 1024), ("memory", 1024, 64)) for g in (64, 512)],
]

configs = [c for c in configs if opts.only in c[0] and (opts.skip is None or opts.skip not in c[0])]
if not configs:
    ap.error(f"--only/--skip: no configuration left (--only '{opts.only}', --skip '{opts.skip}')")


def run(w, sets, q):
    args = [x for kv in sets for x in ("--set", kv)]
    j = fgtool.stats([opts.fgsim, "run", w, "--preset", "gh200", *args, *extra, "--set", f"sim.quantum={q}"])
    return j["workload"]["results"]["kernel_ns"]


print(f"| configuration (gh200) | {one_cycle} ns quantum: kernel ns | " + " | ".join(f"{q} ns" for q in quanta) + " |")
print("|---|---" + "|---" * len(quanta) + "|", flush=True)
worst = 0.0
pool = ThreadPoolExecutor(max_workers=opts.jobs)
# The first run goes alone, so that a bad --set is one message; the rest are submitted up front and the rows printed
# in the configurations' order as they complete. A failed run ends the script (fgtool.run's exit) without starting
# the runs still queued.
first = run(configs[0][1], configs[0][2], one_cycle)
times = [[None if i == 0 and q == one_cycle else pool.submit(run, w, sets, q) for q in (one_cycle, *quanta)]
         for i, (_, w, sets) in enumerate(configs)]
try:
    for (name, _, _), row in zip(configs, times):
        ref = first if row[0] is None else row[0].result()
        cells = []
        for t in row[1:]:
            dev = 100.0 * (t.result() / ref - 1.0)
            worst = max(worst, abs(dev))
            cells.append(f"{dev:+.2f}%")
        print(f"| {name} | {ref:,.1f} | " + " | ".join(cells) + " |", flush=True)
finally:
    pool.shutdown(wait=True, cancel_futures=True)
print(f"\nLargest deviation from the {one_cycle} ns quantum: {worst:.2f}%")
