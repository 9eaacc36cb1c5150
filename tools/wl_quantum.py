#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""The hardware worklist's quantum dependence (the table in docs/worklists.md,
"The loose-timing bridge"): bfs and sssp with the hardware worklist on kim2014
(4 CUs, 700 MHz: one cycle is 1.4286 ns), scale-9 R-MAT graphs of three seeds,
worklist.depth=1024, at a one-cycle quantum and at 5, 20 (default), 50 and
100 ns: kernel time and pulls returning WAIT, and the largest deviation of
the kernel time from the one-cycle run.
--depth=N sets worklist.depth instead (32, the paper's: the virtualization unit
spills and refills; its refill scheme: --refill=interval|on_demand).
--buffer=single runs the single-buffered kernels (<w>.hwwl.buffer=single).
--reference=NS takes another reference quantum than one cycle (1.4286 ns; e.g.
1.0: a sub-cycle quantum, whose synchronisation points do not fall on cycle
edges).
Usage: tools/wl_quantum.py [build/fgsim] [--schemes=lsorting,none] [--depth=N] [--refill=R] [--buffer=B] [--reference=NS] [--set=K=V ...]
--set=K=V passes a further --set to every run (e.g. --set=mem.magic=true).
--software sweeps the kernels without the hardware worklist instead (bfs swwl,
sssp swwl and sssp topo, scale 9, kim2014; worklist options do not apply):
their reads of a neighbour before the atomic on it (`<w>.check_first`) are
synchronisation through memory too. --check-first=false turns those reads off."""

import fgtool  # tools/fgtool.py, beside this script

# Values go to fgsim as given (it names a bad one); the choices here are
# checked first so that a typo does not start a sweep.
ap = fgtool.parser(__doc__)
ap.add_argument("--schemes", type=fgtool.choice_list("none", "threshold", "lsorting", "gsorting", "magic",
                                                     "ideal_fifo", "ideal_sorted"),
                default=["lsorting"], metavar="S,...")
ap.add_argument("--depth", type=fgtool.positive, default=1024, metavar="N")
ap.add_argument("--refill", choices=("interval", "on_demand"), default="interval")
ap.add_argument("--buffer", choices=("double", "single"), default="double")
ap.add_argument("--reference", type=fgtool.positive_number, default="1.4286", metavar="NS")
ap.add_argument("--set", action="append", default=[], metavar="K=V")
ap.add_argument("--software", action="store_true")
ap.add_argument("--check-first", choices=("true", "false"))
opts = fgtool.parse(ap)
fgsim, schemes, depth, refill, buffer = opts.fgsim, opts.schemes, str(opts.depth), opts.refill, opts.buffer
one_cycle, software, check_first = opts.reference, opts.software, opts.check_first
extra = [x for kv in opts.set for x in ("--set", kv)]
quanta = ("5", "20", "50", "100")
seeds = (1, 2, 3)


def run(w, scheme, seed, q):
    """Kernel ns, pulls returning WAIT and spills of one run; with --software
    `scheme` is the kernel variant and the worklist's two columns are "-"."""
    if software:
        kernel = ["--set", f"{w}.variant={scheme}"]
    else:
        kernel = ["--set", f"{w}.variant=hwwl", "--set", f"worklist.depth={depth}", "--set",
                  f"worklist.scheme={scheme}", "--set", f"worklist.refill={refill}", "--set",
                  f"{w}.hwwl.buffer={buffer}"]
    cf = ["--set", f"{w}.check_first={check_first}"] if check_first else []
    j = fgtool.stats([fgsim, "run", w, "--preset", "kim2014", "--set", f"{w}.scale=9", *kernel, *cf, *extra,
                      "--seed", str(seed), "--set", f"sim.quantum={q}"])
    if software:
        return j["workload"]["results"]["kernel_ns"], "-", "-"
    return j["workload"]["results"]["kernel_ns"], j["stats"]["gpu.worklist.pull_waits"], \
        j["stats"]["gpu.worklist.hvu.spills"]


print(f"| workload | {'variant' if software else 'scheme'} | seed | spills | {one_cycle} ns quantum: kernel ns (WAITs) | "
      + " | ".join(f"{q} ns" for q in quanta) + " |")
print("|---|---|---|---|---" + "|---" * len(quanta) + "|")
worst = 0.0
for w in ("bfs", "sssp"):
    for scheme in ((["swwl", "topo"] if w == "sssp" else ["swwl"]) if software else schemes):
        for seed in seeds:
            ref, ref_waits, spills = run(w, scheme, seed, one_cycle)
            cells = []
            for q in quanta:
                ns, waits, _ = run(w, scheme, seed, q)
                dev = 100.0 * (ns / ref - 1.0)
                worst = max(worst, abs(dev))
                cells.append(f"{dev:+.2f}% ({waits})")
            print(f"| {w} | {scheme} | {seed} | {spills} | {ref:,.1f} ({ref_waits}) | " + " | ".join(cells) + " |")
print(f"\nLargest deviation of the kernel time from the {one_cycle} ns quantum: {worst:.2f}%")
