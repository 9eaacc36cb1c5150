#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""Fig. 3's global queue over the chip's size (docs/forkjoin.md, "The global queue over the chip's size").
The page runs gh200, an eighth of the H100 (16 SMs with an eighth of its L2 and DRAM), and compares the programs
per SM: the paper's input over its 132 SMs given to our 16, the paper's threads per SM. That is faithful for work
stealing, whose deques are per warp, but not for the global queue, one ring for the whole chip: on the paper's 132
SMs it serves 8.25x the warps and the claims our 16 SMs make. This script runs work stealing (ws) and the global
queue (gq) at the same input and warps per SM on gh200 grown to more SMs, every per-SM share kept (L2 slices and
size, DRAM channels and bandwidth: 6 slices and 3 channels per 8 SMs, as the preset's 12 and 6 per 16), so only
the number of SMs sharing the one queue changes.
Parts (--parts, default all):
  sort   cilksort of 150,000 keys per SM (the paper's 2x10^7 over its 132 SMs; the page's fig3-cilksort-2e6 on 16),
         at 8 and 32 warps per SM (the paper's 2^15 and 2^17 threads; its gq over ws there 6.42x and 20.1x). cilksort
         splits into quarters down to fewer than 64 keys, so its base sorts come in powers of 4: the table gives
         them per SM over the paper's (its 2x10^7 keys make 4^10 of 19 keys on 132 SMs);
  fib    fib at the paper's fib 35 task executions per SM, rounded (fib n has phi^n of them: n = 35 + log_phi(SMs /
         132), fib 31 on 16 SMs, 32 on 32, 33 on 48; the table gives the executions per SM over the paper's), at 8 and
         32 warps per SM (the paper's gq over ws 26.5x and 138x).
  atomic cilksort of 2.4x10^6 keys on 16 SMs at 512 warps (the page's fig3-cilksort-2e6 point) with the L2's
         interval between two atomics to one line (gpu.l2.atomic_latency, L2 cycles; gh200's 4 is the model's
         assumption, the nearest measurement, an RTX 4070's, 4.5-7: models/presets/gh200.yaml) at --intervals=4,7,16,64:
         ws and gq us, gq's executions and CAS retries per us.
  tree   block workers' gq on fig3-tree-compute's full tree (D 11, compute 1,024, 64 loads, blocks of 32) on 16 SMs at
         32 and 256 blocks (the paper's 32 and 256 blocks, where its gq is 1.79x and 10.9x ws) at --intervals: gq us,
         claims from the queue per us (GTaP's block gq claims one task per three executions here), CAS retries per
         claim (experiments/forkjoin.yaml, fig3-tree-compute's text).
  globals ws and gq on fib 27 (16 SMs, 512 warps) and gq on that tree at 32 and 256 blocks with the runtime's
         global words a line each and packed as ptxas lays out GTaP's (forkjoin.globals; docs/forkjoin.md, "The
         runtime's global words"): kernel us and CAS retries.
All at the page's Fig. 3 settings (20 ns quantum, seed 1, forkjoin.terminate=all). For each: kernel us of ws and
gq, gq over ws and the paper's (its Fig. 3 values in experiments/forkjoin.yaml), ws's task executions per us per SM,
and gq's executions, tasks claimed from the queue and CAS retries, each per us (the queue's rates: one queue serves
the chip), with the paper's gq executions per us on fib 35 at the same warps (fib 35's executions over its gq times;
geometric between its powers of two).
--cus=16,32,48 picks the SM counts (multiples of 8 up to 56), --warps=8,32 the warps per SM, --fib-below=K runs
fib K below that n (a phi^K-th of the paper's executions per SM, for host time), --set=K=V (repeatable) adds a
setting to every run (e.g. --set=sim.quantum=0.505, the one-cycle quantum). The docs' and the page's numbers of the
sort, fib, atomic and tree parts are the packed model's (forkjoin.globals=packed, the default since 2026-12-04; the
page's chip studies reran with it in the twenty-eighth session), but the atomic part's 64-cycle row and those the
docs mark as the lines model's (each global word in a line of its own, the default until then, which
--set=forkjoin.globals=lines reproduces); the one-cycle rows were checked on both; the globals part compares the two.
Host time on 48 SMs: cilksort's 7.2x10^6 keys 9-11 min a run at 8 warps an SM, about 26 min for ws and gq at 32; fib
29 (--fib-below=4) 12 min for its four runs; fib 33 (the default) has 6.9x its executions.
Usage: tools/forkjoin_chip_study.py [build/fgsim] [--parts=sort,fib,atomic,tree,globals] [--cus=16,32,48] [--warps=8,32]
       [--fib-below=K] [--intervals=4,7,16,64] [--set=K=V ...]"""
import math
import os
import sys

import yaml

import fgtool  # tools/fgtool.py, beside this script

ap = fgtool.parser(__doc__)
PARTS = ("sort", "fib", "atomic", "tree", "globals")
ap.add_argument("--parts", type=fgtool.choice_list(*PARTS), default=list(PARTS))
ap.add_argument("--cus", type=fgtool.int_list, default=[16, 32, 48])
ap.add_argument("--warps", type=fgtool.int_list, default=[8, 32])
ap.add_argument("--fib-below", type=int, default=0, choices=range(0, 10), metavar="K")
ap.add_argument("--set", action="append", default=[], metavar="K=V")
ap.add_argument("--intervals", type=fgtool.int_list, default=[4, 7, 16, 64])
opts = fgtool.parse(ap)
for c in opts.cus:
    if c % 8 or c > 56:
        ap.error(f"--cus: {c} is not a multiple of 8 up to 56 (the shares are 6 L2 slices and 3 DRAM channels per 8 "
                 "SMs; the model's limit is 63)")
for w in opts.warps:
    if w > 32:
        ap.error(f"--warps: {w} warps per SM is above 32 (forkjoin.groups is capped by the resident CTAs, 32 an SM)")


def chip(cus):
    """gh200 with `cus` SMs, every SM's share of the L2 and DRAM kept (the preset: 16 SMs, 12 slices of 640 KiB,
    6 channels, 502.5 GB/s)."""
    eighths = cus // 8
    return [f"gpu.cus={cus}", f"gpu.l2.banks={6 * eighths}", f"gpu.l2.size={6 * 640 * eighths}KiB",
            f"gpu.dram.channels={3 * eighths}", f"gpu.dram.bandwidth={502.5 * eighths / 2:g}",
            # the model's estimate counts every resident warp's pool at its worst; the runs use about 0.5 GB
            "sim.max_memory=20GiB"]


def run(workload, settings):
    cmd = [opts.fgsim, "run", workload, "--preset", "gh200"]
    for kv in (*settings, *opts.set):
        cmd += ["--set", kv]
    st = fgtool.stats(cmd)
    return fgtool.kernel_us(st), {k[len("forkjoin."):]: v for k, v in st["stats"].items() if k.startswith("forkjoin.")}


# The paper's Fig. 3 points, time over its best ws, by the page's worker count (fig3-fib and fig3-cilksort in
# experiments/forkjoin.yaml; a count there is an eighth of the paper's warps, since the page runs an eighth of the chip).
with open(os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "experiments", "forkjoin.yaml")) as f:
    _studies = {s["name"]: s for s in yaml.safe_load(f)["studies"]}
PAPER = {part: {(v["case"], v["forkjoin.groups"]): v["vs_best_ws"] for v in _studies[name]["paper"]["values"]}
         for part, name in (("fib", "fig3-fib"), ("sort", "fig3-cilksort"))}
FIB35_BEST_WS_MS = 7.87  # the paper's best ws on fib 35 (GTaP's result file; experiments/forkjoin.yaml, fig3-fib)
PHI = (1 + 5 ** 0.5) / 2


def paper_gq_over_ws(part, warps_per_sm):
    """The paper's gq over ws at `warps_per_sm` (the page's worker count on its 16 SMs), or None."""
    g = 16 * warps_per_sm
    return PAPER[part][("gq", g)] / PAPER[part][("ws", g)] if ("gq", g) in PAPER[part] else None


def paper_gq_rate(warps):
    """The paper's gq task executions per us on fib 35 at `warps` warps (geometric between its powers of two)."""
    def rate(w):  # the paper's warps w are the page's w / 8 workers
        return fib_executions(35) / (PAPER["fib"][("gq", w // 8)] * FIB35_BEST_WS_MS * 1000)
    lo = 1 << (warps.bit_length() - 1)
    if lo == warps:
        return rate(warps)
    return math.sqrt(rate(lo) * rate(2 * lo)) if ("gq", 2 * lo // 8) in PAPER["fib"] else None


def fib_n(cus):
    return round(35 + math.log(cus / 132, PHI)) - opts.fib_below


def base_sorts(n):
    """cilksort's base sorts of n keys (GTaP's cilksort: quarters until fewer than sort.cutoff_sort, 64, keys)."""
    leaves = 1
    while n >= 64:
        n /= 4
        leaves *= 4
    return leaves


def fib_executions(n):
    """Task executions of fib(n) without a cutoff, as the model counts them (`started`): a node of n >= 2 starts,
    spawns fib(n-1) and fib(n-2) and resumes once; a leaf starts once."""
    a, b = 1, 1  # executions of fib(0), fib(1)
    for _ in range(n - 1):
        a, b = b, a + b + 2
    return b if n else a


def table(part):
    what = ("cilksort, 150,000 keys an SM (base sorts per SM over the paper's)" if part == "sort"
            else "fib (task executions per SM over the paper's)")
    print(f"\n| {what} | SMs | warps (per SM) | ws us | gq us | gq over ws | the paper's | ws executions per us per SM | "
          "gq: executions per us | the paper's (fib 35) at these warps | tasks claimed per us | CAS retries per us |")
    print("|---|---|---|---|---|---|---|---|---|---|---|---|")
    for w in opts.warps:
        for cus in opts.cus:
            if part == "sort":
                n = 150000 * cus
                name = f"{n:,} keys ({base_sorts(n) / cus / (base_sorts(20000000) / 132):.2f})"
                wl, fixed = "sort", ["sort.mechanism=forkjoin", f"sort.n={n}"]
            else:
                n = fib_n(cus)
                name = f"fib {n} ({fib_executions(n) / cus / (fib_executions(35) / 132):.2f})"
                wl, fixed = "fib", ["fib.mechanism=forkjoin", f"fib.n={n}"]
            common = [*fixed, "forkjoin.terminate=all", f"forkjoin.groups={w * cus}", *chip(cus)]
            ws_us, ws = run(wl, [*common, "forkjoin.queue=ws"])
            gq_us, gq = run(wl, [*common, "forkjoin.queue=gq"])
            paper = paper_gq_over_ws(part, w)
            paper_rate = paper_gq_rate(w * cus) if part == "fib" else None
            print(f"| {name} | {cus} | {w * cus:,} ({w}) | {ws_us:,.1f} | {gq_us:,.1f} | {gq_us / ws_us:.2f} | "
                  f"{f'{paper:.2f}' if paper else '-'} | {ws['started'] / ws_us / cus:.1f} | "
                  f"{gq['started'] / gq_us:.1f} | {f'{paper_rate:.1f}' if paper_rate else '-'} | "
                  f"{gq['popped'] / gq_us:.1f} | {gq['cas_retries'] / gq_us:.2f} |")
            sys.stdout.flush()


def atomic():
    print("\n| cilksort 2.4x10^6 keys, 16 SMs, 512 warps | gpu.l2.atomic_latency (L2 cycles) | ws us | gq us | gq over ws | "
          "gq executions per us | gq CAS retries per us |")
    print("|---|---|---|---|---|---|---|")
    common = ["sort.mechanism=forkjoin", "sort.n=2400000", "forkjoin.terminate=all", "forkjoin.groups=512", *chip(16)]
    for interval in opts.intervals:
        at = f"gpu.l2.atomic_latency={interval}"
        ws_us, _ = run("sort", [*common, at, "forkjoin.queue=ws"])
        gq_us, gq = run("sort", [*common, at, "forkjoin.queue=gq"])
        print(f"| | {interval} | {ws_us:,.1f} | {gq_us:,.1f} | {gq_us / ws_us:.2f} | {gq['started'] / gq_us:.1f} | "
              f"{gq['cas_retries'] / gq_us:.1f} |")
        sys.stdout.flush()


def tree():
    print("\n| full tree D 11, compute-heavy, block workers, gq, 16 SMs | gpu.l2.atomic_latency (L2 cycles) | blocks | gq us | "
          "claims per us | CAS retries per claim |")
    print("|---|---|---|---|---|---|")
    common = ["tree.body=scaling", "tree.depth=11", "tree.mem_ops=64", "tree.compute_iters=1024", "tree.input_log2=19",
              "forkjoin.workers=block", "forkjoin.group_size=32", "forkjoin.terminate=all", "forkjoin.queue=gq", *chip(16)]
    for interval in opts.intervals:
        for blocks in (32, 256):
            us, gq = run("tree", [*common, f"gpu.l2.atomic_latency={interval}", f"forkjoin.groups={blocks}"])
            print(f"| | {interval} | {blocks} | {us:,.1f} | {gq['popped'] / us:.2f} | {gq['cas_retries'] / gq['popped']:.1f} |")
            sys.stdout.flush()


def globals_layout():
    print("\n| run (16 SMs, 20 ns unless --set) | forkjoin.globals | kernel us | CAS retries |")
    print("|---|---|---|---|")
    fib = ["fib.mechanism=forkjoin", "fib.n=27", "forkjoin.terminate=all", "forkjoin.groups=512", *chip(16)]
    tree = ["tree.body=scaling", "tree.depth=11", "tree.mem_ops=64", "tree.compute_iters=1024", "tree.input_log2=19",
            "forkjoin.workers=block", "forkjoin.group_size=32", "forkjoin.terminate=all", "forkjoin.queue=gq", *chip(16)]
    for label, wl, settings in (("fib 27, ws, 512 warps", "fib", [*fib, "forkjoin.queue=ws"]),
                                ("fib 27, gq, 512 warps", "fib", [*fib, "forkjoin.queue=gq"]),
                                ("tree D 11, block gq, 32 blocks", "tree", [*tree, "forkjoin.groups=32"]),
                                ("tree D 11, block gq, 256 blocks", "tree", [*tree, "forkjoin.groups=256"])):
        for layout in ("lines", "packed"):
            us, st = run(wl, [*settings, f"forkjoin.globals={layout}"])
            print(f"| {label} | {layout} | {us:,.1f} | {st['cas_retries']:,} |")
            sys.stdout.flush()


for part in opts.parts:
    if part == "globals":
        globals_layout()
    elif part == "atomic":
        atomic()
    elif part == "tree":
        tree()
    else:
        table(part)
