#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""Compute-unit engine throughput: simulated lane operations and wavefront
instructions per host second, from fgsim runs (stats JSON: lane_ops and
wavefront_instructions over host wall time). Compute-bound: every lane runs an
alu loop (divergent.fraction=1). Memory-bound: vecadd over a large vector."""

import fgtool  # tools/fgtool.py, beside this script

fgsim = fgtool.parse(fgtool.parser(__doc__)).fgsim
runs = {
    "compute-bound (alu loop, 1 CU)": ["divergent", "--set", "gpu.cus=1", "--set", "divergent.fraction=1",
                                       "--set", "divergent.work=2000", "--set", "divergent.n=10240"],
    "compute-bound (alu loop, 8 CUs)": ["divergent", "--set", "gpu.cus=8", "--set", "divergent.fraction=1",
                                        "--set", "divergent.work=500", "--set", "divergent.n=81920"],
    "memory-bound (vecadd, 4 CUs)": ["vecadd", "--set", "gpu.cus=4", "--set", "vecadd.n=1048576"],
}
print("| kernel | lane ops | host s | lane ops / host s | wavefront instrs / host s |")
print("|---|---|---|---|---|")
for name, args in runs.items():
    best = None
    for _ in range(3):
        d = fgtool.stats([fgsim, "run", *args, "--preset", "orr2014"])
        s = d["stats"]
        lanes = sum(v for k, v in s.items() if k.endswith(".lane_ops"))
        instrs = sum(v for k, v in s.items() if k.endswith(".wavefront_instructions"))
        wall = d["host"]["wall_seconds"]
        if best is None or wall < best[2]:
            best = (lanes, instrs, wall)
    lanes, instrs, wall = best
    print(f"| {name} | {lanes:.3g} | {wall:.3f} | {lanes / wall / 1e6:.1f} M | {instrs / wall / 1e6:.2f} M |")
