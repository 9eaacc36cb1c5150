#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""CAS contention vs the TLM quantum (the table in docs/memory.md).

k CUs each make 200 successful CAS increments of one counter
(memstream.pattern=cas) on orr2014; prints the simulated time relative to one
CU for each quantum. Usage: tools/cas_quantum.py [build/fgsim]"""

import fgtool  # tools/fgtool.py, beside this script

fgsim = fgtool.parse(fgtool.parser(__doc__)).fgsim
quanta, cus = (1, 20, 50), (1, 2, 4, 8)


def sim_ns(k, q):
    return fgtool.stats([fgsim, "run", "memstream", "--preset", "orr2014", "--set", f"gpu.cus={k}",
                         "--set", "memstream.pattern=cas", "--set", "memstream.iterations=200",
                         "--set", f"sim.quantum={q}"])["sim"]["time_ns"]


t = {(k, q): sim_ns(k, q) for k in cus for q in quanta}
print("| CUs | " + " | ".join(f"quantum {q} ns" for q in quanta) + " |")
print("|---" * (len(quanta) + 1) + "|")
for k in cus[1:]:
    print(f"| {k} | " + " | ".join(f"{t[(k, q)] / t[(1, q)]:.2f}" for q in quanta) + " |")
