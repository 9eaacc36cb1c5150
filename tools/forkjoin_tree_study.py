#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""The measurements behind docs/forkjoin.md's account of Figs. 7-8 and the mechanisms page's cilksort traffic.
Parts (--parts, default all):
  ablation  Fig. 7a's runs (gh200, 125 groups of 64, feb2026): thread workers with the compiled code and with
            tree.unroll=none (one load in flight), block workers; kernel us and block over thread;
  stalls    Fig. 8a at D 18: thread and block workers with gpu.cu.static_stalls on and off; kernel us, block over
            thread, the CUs' cycles issuing / waiting for memory / waiting for a dependency;
  profile   the full tree at D 12 on thread workers: a worker loop's task functions (trace spans `run N`) with the
            compiled code and the ablation, mean and 10th-90th percentile of the loops over 20 us, and the rest;
  l2        orr2014 fork-join cilksort of 65,536 keys on 4 CUs (the mechanisms page's `sort` study) with its L2
            as configured, with 64 ways, with 2 MiB, and with hashed bank selection (mem.interleave=xor) on 2,
            4 and 8 CUs;
  sectors   gpu.sector=0 (gh200's whole lines) against 32 (the H100's sectors; docs/forkjoin.md "Sectors"):
            Fig. 7a's D 16 with thread and block workers (kernel us, L2 requests, their mean wait for a bank's
            port, the ports' busy share when every request holds one a line's 2 cycles), then kernel us of fib 20
            on 512 warps, Fig. 10's fib 32 at cutoff 10 (one queue, EPAQ), queens 10, cilksort of 20,000 and the
            full tree of D 10 on block workers;
  seeds     Fig. 7a's D 12 at the page's one-cycle quantum over seeds 1-4 of the victim stream
            (forkjoin.victim=stream): thread workers with the preset's fences and without them
            (gpu.cu.fence_invalidates_l1=false), block workers with them; kernel us per seed and the mean
            (docs/forkjoin.md, "Fig. 7a's crossing a level early"); then block over thread at D 10, 11 and
            12 over the same seeds (where the crossing lies).
Usage: tools/forkjoin_tree_study.py [build/fgsim] [--parts=ablation,stalls,profile,l2,sectors,seeds]"""
import functools
import statistics
import sys

import fgtool  # tools/fgtool.py, beside this script

ap = fgtool.parser(__doc__)
PARTS = ("ablation", "stalls", "profile", "l2", "sectors", "seeds")
ap.add_argument("--parts", type=fgtool.choice_list(*PARTS), default=list(PARTS))
opts = fgtool.parse(ap)

# The fixed settings of the validation page's Figs. 7-8 (experiments/forkjoin.yaml).
page = ["--preset", "gh200", "--set", "forkjoin.groups=125", "--set", "forkjoin.group_size=64", "--set",
        "tree.input_log2=19", "--set", "forkjoin.runtime=feb2026"]


def tree(*settings):
    return [opts.fgsim, "run", "tree", *page, *[x for kv in settings for x in ("--set", kv)]]


def cycle_shares(st):
    cycles = {k[len("gpu.cu.cycles_"):]: v for k, v in st["totals"].items() if k.startswith("gpu.cu.cycles_")}
    total = max(sum(cycles.values()), 1)
    return " / ".join(f"{100 * cycles.get(k, 0) / total:.0f}%" for k in ("issuing", "memory", "dependency"))


if "ablation" in opts.parts:
    print("| D | thread, compiled (us) | thread, tree.unroll=none (us) | block (us) | block over thread: compiled "
          "| none |")
    print("|---|---|---|---|---|---|")
    for d in (7, 10, 13, 16):
        t = fgtool.kernel_us(fgtool.stats(tree(f"tree.depth={d}", "forkjoin.workers=thread")))
        n = fgtool.kernel_us(fgtool.stats(tree(f"tree.depth={d}", "forkjoin.workers=thread", "tree.unroll=none")))
        b = fgtool.kernel_us(fgtool.stats(tree(f"tree.depth={d}", "forkjoin.workers=block")))
        print(f"| {d} | {t:,.1f} | {n:,.1f} | {b:,.1f} | {b / t:.2f} | {b / n:.2f} |")
    sys.stdout.flush()

if "stalls" in opts.parts:
    print("\n| pruned tree D 18 | gpu.cu.static_stalls | kernel us | CU cycles: issuing / memory / dependency |")
    print("|---|---|---|---|")
    us = {}
    for workers in ("thread", "block"):
        for on in ("true", "false"):
            st = fgtool.stats(tree("tree.shape=pruned", "tree.depth=18", f"forkjoin.workers={workers}",
                                   f"gpu.cu.static_stalls={on}"))
            us[workers, on] = fgtool.kernel_us(st)
            print(f"| {workers} | {on} | {us[workers, on]:,.1f} | {cycle_shares(st)} |")
    print(f"\nblock over thread: {us['block', 'true'] / us['thread', 'true']:.2f} with the static schedule, "
          f"{us['block', 'false'] / us['thread', 'false']:.2f} without")
    sys.stdout.flush()

if "profile" in opts.parts:
    print("\n| full tree D 12, thread workers | loops | over 20 us: mean us | 10th-90th percentile us "
          "| the others: mean us |")
    print("|---|---|---|---|---|")
    for unroll in ("compiled", "none"):
        _, events = fgtool.traced(tree("tree.depth=12", "forkjoin.workers=thread", f"tree.unroll={unroll}"))
        runs = sorted(e["dur"] for e in events if e["ph"] == "X" and e["name"].startswith("run "))
        big = [r for r in runs if r > 20]
        small = [r for r in runs if r <= 20]
        pct = f"{big[len(big) // 10]:.0f}-{big[9 * len(big) // 10]:.0f}" if big else "-"
        print(f"| {unroll} | {len(runs)} | {statistics.mean(big) if big else 0:.1f} | {pct} | "
              f"{statistics.mean(small) if small else 0:.1f} |")
    sys.stdout.flush()

if "l2" in opts.parts:
    print("\n| orr2014 cilksort 65,536 keys | CUs | kernel us | DRAM MB |")
    print("|---|---|---|---|")
    for name, cus, extra in (("as configured", 4, []), ("64 ways", 4, ["gpu.l2.ways=64"]),
                             ("2 MiB", 4, ["gpu.l2.size=2097152"]), ("mem.interleave=xor", 2, ["mem.interleave=xor"]),
                             ("mem.interleave=xor", 4, ["mem.interleave=xor"]),
                             ("mem.interleave=xor", 8, ["mem.interleave=xor"])):
        st = fgtool.stats([opts.fgsim, "run", "sort", "--preset", "orr2014", "--set", "sort.n=65536", "--set",
                           "sort.algorithm=cilksort", "--set", "sort.mechanism=forkjoin", "--set", f"gpu.cus={cus}",
                           *[x for kv in extra for x in ("--set", kv)]])
        print(f"| {name} | {cus} | {fgtool.kernel_us(st):,.1f} | {st['stats']['gpu.dram.bytes'] / 1e6:.1f} |")

if "sectors" in opts.parts:
    def l2_requests(st):
        """The L2 banks' requests and their mean wait for the bank's port (ns)."""
        waits = [v for k, v in st["stats"].items() if k.startswith("gpu.l2.bank") and k.endswith(".queue_delay")]
        n = sum(w["count"] for w in waits)
        return n, sum(w["mean"] * w["count"] for w in waits) / max(n, 1)

    print("\n| Fig. 7a, D 16 | gpu.sector | kernel us | L2 requests (M) | mean port wait ns "
          "| ports busy at 2 cycles a request |")
    print("|---|---|---|---|---|---|")
    for workers in ("thread", "block"):
        for sector in (0, 32):
            st = fgtool.stats(tree("tree.depth=16", f"forkjoin.workers={workers}", f"gpu.sector={sector}"))
            n, wait = l2_requests(st)
            cfg = st["config"]
            busy = n * 2e3 / cfg["gpu.l2.clock"] / (cfg["gpu.l2.banks"] * st["workload"]["results"]["kernel_ns"])
            print(f"| {workers} | {sector} | {fgtool.kernel_us(st):,.1f} | {n / 1e6:.1f} | {wait:.1f} | "
                  f"{f'{100 * busy:.0f}%' if sector == 0 else '-'} |")
    sys.stdout.flush()
    fib10 = ["fib.mechanism=forkjoin", "fib.n=32", "fib.cutoff=10", "forkjoin.terminate=first",
             "gpu.l1.size=159744", "gpu.l1.ways=52", "gpu.cu.lds=102400"]  # Fig. 10's (experiments/forkjoin.yaml)
    print("\n| run (gh200) | whole lines: kernel us | sectors: kernel us | change |")
    print("|---|---|---|---|")
    for name, w, sets in (("fib 20, ws, 512 warps", "fib", ["fib.mechanism=forkjoin", "fib.n=20"]),
                          ("Fig. 10 fib 32, cutoff 10, one queue", "fib", fib10),
                          ("Fig. 10 fib 32, cutoff 10, EPAQ", "fib", [*fib10, "forkjoin.queues=3"]),
                          ("queens 10, ws", "queens", ["queens.mechanism=forkjoin", "queens.n=10", "queens.cutoff=4"]),
                          ("cilksort of 20,000, ws", "sort", ["sort.mechanism=forkjoin", "sort.n=20000"]),
                          ("full tree D 10, block workers", "tree",
                           [*page[3::2], "tree.mem_ops=64", "tree.compute_iters=64", "tree.depth=10",
                            "forkjoin.workers=block"])):
        us = [fgtool.kernel_us(fgtool.stats([opts.fgsim, "run", w, "--preset", "gh200",
                                             *[x for kv in [*sets, f"gpu.sector={s}"] for x in ("--set", kv)]]))
              for s in (0, 32)]
        print(f"| {name} | {us[0]:,.1f} | {us[1]:,.1f} | {100 * (us[1] / us[0] - 1):+.1f}% |")

if "seeds" in opts.parts:
    @functools.cache
    def seed_us(depth, seed, *settings):  # D 12's runs serve both tables
        return fgtool.kernel_us(fgtool.stats([*tree("sim.quantum=0.505", f"tree.depth={depth}", "forkjoin.victim=stream",
                                                    *settings), "--seed", str(seed)]))

    print("\n| Fig. 7a D 12 (sim.quantum=0.505, forkjoin.victim=stream) | seed 1 | 2 | 3 | 4 | mean |")
    print("|---|---|---|---|---|---|")
    for name, settings in (("thread workers, fences", ["forkjoin.workers=thread"]),
                           ("thread workers, no fences", ["forkjoin.workers=thread",
                                                          "gpu.cu.fence_invalidates_l1=false"]),
                           ("block workers, fences", ["forkjoin.workers=block"])):
        us = [seed_us(12, seed, *settings) for seed in (1, 2, 3, 4)]
        print(f"| {name} | " + " | ".join(f"{u:,.1f}" for u in us) + f" | {statistics.mean(us):,.1f} |")
        sys.stdout.flush()
    print("\n| Fig. 7a, block over thread (sim.quantum=0.505, forkjoin.victim=stream) | seed 1 | 2 | 3 | 4 |")
    print("|---|---|---|---|---|")
    for d in (10, 11, 12):
        ratios = []
        for seed in (1, 2, 3, 4):
            t, b = (seed_us(d, seed, f"forkjoin.workers={w}") for w in ("thread", "block"))
            ratios.append(f"{b / t:.2f} ({t:,.1f} / {b:,.1f} us)")
        print(f"| D {d} | " + " | ".join(ratios) + " |")
        sys.stdout.flush()
