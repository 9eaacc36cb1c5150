#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""Where Fig. 10's long cilksort batches run: cilksort of 10^5 keys at one cutoff (gh200, the page's settings:
156 KiB L1, termination by the root), one queue and EPAQ's three, at each quantum given. A batch is a trace span
`run N` (a worker iteration's N tasks) on the track `warp G` of workgroup G (one warp each), which the dispatcher
hands to SM G mod gpu.cus (round robin; the grid fills every SM). For the batches longer than --min-us the table
gives the warp, its SM and the batch's time, and which SMs ran more than one of them (docs/validation/forkjoin.md,
Fig. 10's cilksort at cutoff 1,024: two such batches on one SM share its L1 and take about 3.2x as long). The trace
is read a line at a time and holds 3-7 GB on disk while a run lasts (about 1-2 minutes per run). With --seed,
each CU's clock starts where the seed puts it (`--set gpu.cu.clock_start=seeded --seed S`, a run per seed: GTaP's
clock victim varied as on a GPU, the page's fig10-cilksort-clock-seeds); --set K=V goes last. The last column
names the CU with the most L1 misses.
Usage: tools/forkjoin_sort_batches.py [build/fgsim] [--cutoff=1024] [--quanta=0.505,20] [--min-us=200]
       [--queues=1,3] [--seed=S,...] [--set=K=V]"""
import collections

import fgtool  # tools/fgtool.py, beside this script


ap = fgtool.parser(__doc__)
ap.add_argument("--cutoff", type=fgtool.positive, default=1024, help="sort.cutoff_sort and _merge (default 1024)")
ap.add_argument("--quanta", type=fgtool.number_list, default=["0.505", "20"],
                help="sim.quantum values in ns (default 0.505,20)")
ap.add_argument("--min-us", type=fgtool.positive_number, default="200", help="a long batch's least time (default 200)")
ap.add_argument("--queues", type=fgtool.choice_list("1", "3"), default=["1", "3"],
                help="forkjoin.queues values, in order (default 1,3: one queue, EPAQ)")
ap.add_argument("--seed", type=fgtool.seed_list, default=None, metavar="S[,S...]",
                help="seeded CU clocks with these seeds, a run each (default: every clock starts at 0)")
ap.add_argument("--set", action="append", default=[], metavar="K=V", help="more fgsim settings, given last")
opts = fgtool.parse(ap)
cus = 16  # gh200's gpu.cus

print(f"| cilksort 10^5, cutoff {opts.cutoff} (gh200) | seed | quantum ns | kernel us | batches | batches over "
      f"{opts.min_us} us: warp (SM) us | SMs with more than one | most L1 misses: SM (misses of all) |")
print("|---|---|---|---|---|---|---|---|")
for queues in opts.queues:
    for seed in opts.seed if opts.seed is not None else [None]:
        for q in opts.quanta:
            sets = ["sort.mechanism=forkjoin", "sort.n=100000", "forkjoin.terminate=first", "gpu.l1.size=159744",
                    "gpu.l1.ways=52", "gpu.cu.lds=102400", f"sort.cutoff_sort={opts.cutoff}",
                    f"sort.cutoff_merge={opts.cutoff}", f"forkjoin.queues={queues}", f"sim.quantum={q}"]
            clock = ["--set", "gpu.cu.clock_start=seeded", "--seed", str(seed)] if seed is not None else []
            st, events = fgtool.traced([opts.fgsim, "run", "sort", "--preset", "gh200",
                                        *[x for kv in sets for x in ("--set", kv)], *clock,
                                        *[x for kv in opts.set for x in ("--set", kv)]],
                                       keep=('"name":"run ', '"name":"warp '))
            warp = {(e["pid"], e["tid"]): int(e["args"]["name"].split()[1]) for e in events
                    if e["ph"] == "M" and e["name"] == "thread_name"}
            runs = [e for e in events if e["ph"] == "X" and e["name"].startswith("run ")]
            long = sorted((warp[e["pid"], e["tid"]] % cus, warp[e["pid"], e["tid"]], e["dur"]) for e in runs
                          if e["dur"] > float(opts.min_us))
            per_sm = collections.Counter(sm for sm, _, _ in long)
            shared = ", ".join(str(sm) for sm, n in sorted(per_sm.items()) if n > 1) or "none"
            cells = ", ".join(f"{w} ({sm}) {d:,.0f}" for sm, w, d in long)
            misses = [st["stats"][f"gpu.cu{c}.l1.misses"] for c in range(cus)]
            top = max(range(cus), key=lambda c: misses[c])
            print(f"| {'EPAQ (3 queues)' if queues != '1' else 'one queue'} | {'-' if seed is None else seed} | {q} "
                  f"| {fgtool.kernel_us(st):,.1f} | {len(runs)} | {cells} | {shared} "
                  f"| {top} ({misses[top]:,} of {sum(misses):,}) |", flush=True)
