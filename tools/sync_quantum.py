#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""Hand-off time vs the TLM quantum (the table in docs/memory.md, "Synchronisation
order"): the pingpong workload (2 CUs, 100 rounds) on both presets, by release
store + acquire polling and by atomics, with sim.sync_order on and off, at a
one-cycle quantum and at 5, 10, 20 (default), 30 and 50 ns.
Usage: tools/sync_quantum.py [build/fgsim]"""

import fgtool  # tools/fgtool.py, beside this script

fgsim = fgtool.parse(fgtool.parser(__doc__)).fgsim
presets = {"orr2014": 1.0, "kim2014": 1.0 / 0.7}  # one CU cycle (ns)
quanta = (5, 10, 20, 30, 50)


def handoff(preset, via, q, order):
    return fgtool.stats([fgsim, "run", "pingpong", "--preset", preset, "--set", "gpu.cus=2", "--set",
                         f"pingpong.via={via}", "--set", f"sim.quantum={q}", "--set",
                         f"sim.sync_order={'true' if order else 'false'}"])["workload"]["results"]["handoff_ns"]


print("| preset | via | sim.sync_order | one-cycle quantum (ns) | " + " | ".join(f"{q} ns" for q in quanta) + " |")
print("|---|---|---|---" + "|---" * len(quanta) + "|")
for p, cycle in presets.items():
    for via in ("store", "atomic"):
        for order in (True, False):
            ref = handoff(p, via, round(cycle, 6), order)
            cells = [f"{handoff(p, via, q, order):.2f}" for q in quanta]
            print(f"| {p} | {via} | {'on' if order else 'off'} | {ref:.2f} | " + " | ".join(cells) + " |")
