#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""Kernel times of the basic workloads vs the TLM quantum (the table in
docs/compute-unit.md): each workload on both presets, 4 CUs, at a one-cycle
quantum and at 5, 20 and 50 ns; prints the kernel time at one cycle and each
other quantum's deviation from it. Usage: tools/cu_quantum.py [build/fgsim]"""

import fgtool  # tools/fgtool.py, beside this script

fgsim = fgtool.parse(fgtool.parser(__doc__)).fgsim
presets = {"orr2014": 1.0, "kim2014": 1.0 / 0.7}  # one CU cycle in ns (1 GHz, 700 MHz)
workloads = {"vecadd": "vecadd.n=16384", "reduce": "reduce.n=16384", "histogram": "histogram.n=16384",
             "divergent": "divergent.n=8192"}
quanta = (5, 20, 50)


def kernel_ns(preset, w, extra, q):
    return fgtool.stats([fgsim, "run", w, "--preset", preset, "--set", "gpu.cus=4", "--set", extra,
                         "--set", f"sim.quantum={q}"])["workload"]["results"]["kernel_ns"]


print("| preset | workload | one-cycle quantum: kernel ns | " + " | ".join(f"{q} ns" for q in quanta) + " |")
print("|---|---|---" + "|---" * len(quanta) + "|")
for p, cycle in presets.items():
    for w, extra in workloads.items():
        ref = kernel_ns(p, w, extra, round(cycle, 6))
        cells = []
        for q in quanta:
            t = kernel_ns(p, w, extra, q)
            cells.append(f"{100.0 * (t - ref) / ref:+.2f}%")
        print(f"| {p} | {w} | {ref:.1f} | " + " | ".join(cells) + " |")
