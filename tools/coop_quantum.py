#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""Cooperative kernels' quantum dependence (the table in docs/cooperative.md, "Quantum"):
their barriers, locks, pools and the scheduler's channel are synchronisation through memory,
whose functional effects happen in host order under temporal decoupling. Each configuration
runs at a one-cycle quantum (orr2014's 1 GHz: 1 ns) and at 5, 20 (the default) and 50 ns;
the table gives the kernel time at one cycle and each quantum's deviation from it, and for
the runs sharing the GPU the mean gather time (the validation page's, the paper's average) the same way.
Usage: tools/coop_quantum.py [build/fgsim] [--set=K=V ...]"""

import fgtool  # tools/fgtool.py, beside this script

ap = fgtool.parser(__doc__)
ap.add_argument("--set", action="append", default=[], metavar="K=V")
opts = fgtool.parse(ap)
extra = [x for kv in opts.set for x in ("--set", kv)]
quanta = ("5", "20", "50")
one_cycle = "1"

# (name, workload, settings): small inputs of the experiment's pairs (experiments/cooperative.yaml).
graphics = ["coop.graphics.scale=0.005"]
configs = [
    ("color grid, plain", "color", ["color.mechanism=persistent", "color.generator=grid", "color.scale=12"]),
    ("color grid, coop", "color", ["color.mechanism=coop", "color.generator=grid", "color.scale=12"]),
    ("bfs grid, coop", "bfs", ["bfs.mechanism=coop", "bfs.generator=grid", "bfs.scale=12"]),
    ("sssp grid, coop", "sssp", ["sssp.mechanism=coop", "sssp.generator=grid", "sssp.scale=11"]),
    ("octree, coop", "octree", ["octree.mechanism=coop", "octree.particles=10000"]),
    ("game, coop", "game", ["game.mechanism=coop", "game.depth=4"]),
    ("color grid, coop, light at N/4", "color",
     ["color.mechanism=coop", "color.generator=grid", "color.scale=12", "coop.graphics.load=light",
      "coop.graphics.share=quarter", *graphics]),
    ("sssp grid, coop, light at N/2", "sssp",
     ["sssp.mechanism=coop", "sssp.generator=grid", "sssp.scale=11", "coop.graphics.load=light",
      "coop.graphics.share=half", *graphics]),
    ("bfs grid, query barrier, heavy at N/2", "bfs",
     ["bfs.mechanism=coop", "bfs.generator=grid", "bfs.scale=12", "coop.barrier=query", "coop.graphics.load=heavy",
      "coop.graphics.share=half", *graphics]),
    # The work-stealing pairs of Table 2 at the experiment's sizes (both versions).
    ("octree 60,000 (Table 2), plain", "octree",
     ["octree.mechanism=persistent", "octree.groups=-1", "octree.particles=60000", "octree.pool_size=1024"]),
    ("octree 60,000 (Table 2), coop", "octree",
     ["octree.mechanism=coop", "coop.reserve_slot=true", "octree.particles=60000", "octree.pool_size=1024"]),
    ("game depth 6 (Table 2), plain", "game", ["game.mechanism=persistent", "game.groups=-1", "game.depth=6"]),
    ("game depth 6 (Table 2), coop", "game", ["game.mechanism=coop", "coop.reserve_slot=true", "game.depth=6"]),
    ("octree, coop, light at N/4", "octree",
     ["octree.mechanism=coop", "octree.particles=10000", "coop.graphics.load=light", "coop.graphics.share=quarter",
      *graphics]),
]


def run(w, sets, q):
    """Kernel ns and mean gather ns (None without a co-runner) of one run."""
    args = [x for kv in sets for x in ("--set", kv)]
    j = fgtool.stats([opts.fgsim, "run", w, "--preset", "orr2014", "--set", "gpu.cus=4", *args, *extra,
                      "--set", f"sim.quantum={q}"])
    r = j["workload"]["results"]
    return r["kernel_ns"], r.get("gather_mean_ns")


print(f"| configuration (orr2014, 4 CUs) | {one_cycle} ns quantum: kernel ns (gather ns) | "
      + " | ".join(f"{q} ns" for q in quanta) + " |")
print("|---|---" + "|---" * len(quanta) + "|")
worst = worst_gather = 0.0
for name, w, sets in configs:
    ref, ref_gather = run(w, sets, one_cycle)
    cells = []
    for q in quanta:
        ns, gather = run(w, sets, q)
        dev = 100.0 * (ns / ref - 1.0)
        worst = max(worst, abs(dev))
        cell = f"{dev:+.2f}%"
        if ref_gather:
            gdev = 100.0 * (gather / ref_gather - 1.0)
            worst_gather = max(worst_gather, abs(gdev))
            cell += f" ({gdev:+.1f}%)"
        cells.append(cell)
    first = f"{ref:,.1f}" + (f" ({ref_gather:,.1f})" if ref_gather else "")
    print(f"| {name} | {first} | " + " | ".join(cells) + " |")
print(f"\nLargest deviation from the {one_cycle} ns quantum: kernel time {worst:.2f}%, gather time {worst_gather:.1f}%")
