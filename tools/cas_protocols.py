#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""Contended CAS under both coherence protocols (the table in docs/memory.md,
"Coherence protocols"): memstream.pattern=cas on orr2014, 200 successful CAS
per CU, 1/2/4/8 CUs, at a one-cycle quantum and at the default 20 ns; prints
the time per success and the ownership transfers.
Usage: tools/cas_protocols.py [build/fgsim]"""

import fgtool  # tools/fgtool.py, beside this script

fgsim = fgtool.parse(fgtool.parser(__doc__)).fgsim
iters = 200


def run(coh, k, q):
    d = fgtool.stats([fgsim, "run", "memstream", "--preset", "orr2014", "--set", f"gpu.cus={k}", "--set",
                      "memstream.pattern=cas", "--set", f"memstream.iterations={iters}", "--set",
                      f"mem.coherence={coh}", "--set", f"sim.quantum={q}"])
    s = d["stats"]
    return d["sim"]["time_ns"] / (k * iters), sum(v for n, v in s.items() if n.endswith(".ownership_transfers"))


print("| CUs | moesi ns/success (1 ns quantum) | moesi ns/success (20 ns) | ownership transfers | "
      "gpu ns/success (1 ns) | gpu ns/success (20 ns) |")
print("|---|---|---|---|---|---|")
for k in (1, 2, 4, 8):
    m1, t1 = run("moesi", k, 1)
    m20, _ = run("moesi", k, 20)
    g1, _ = run("gpu", k, 1)
    g20, _ = run("gpu", k, 20)
    print(f"| {k} | {m1:.2f} | {m20:.2f} | {t1:.0f} | {g1:.2f} | {g20:.2f} |")
