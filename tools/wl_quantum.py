#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""The hardware worklist's quantum dependence (the table in docs/worklists.md,
"The loose-timing bridge"): bfs and sssp with the hardware worklist on kim2014
(4 CUs, 700 MHz: one cycle is 1.4286 ns), scale-9 R-MAT graphs of three seeds,
worklist.depth=1024, at a one-cycle quantum and at 5, 20 (default), 50 and
100 ns: kernel time and pulls returning WAIT, and the largest deviation of
the kernel time from the one-cycle run.
Usage: tools/wl_quantum.py [build/fgsim] [--schemes lsorting,none]"""
import json
import subprocess
import sys
import tempfile

args = [a for a in sys.argv[1:] if not a.startswith("--")]
fgsim = args[0] if args else "build/fgsim"
schemes = ["lsorting"]
for a in sys.argv[1:]:
    if a.startswith("--schemes="):
        schemes = a.split("=", 1)[1].split(",")
one_cycle = "1.4286"
quanta = ("5", "20", "50", "100")
seeds = (1, 2, 3)


def run(w, scheme, seed, q):
    with tempfile.NamedTemporaryFile(suffix=".json") as f:
        subprocess.run([fgsim, "run", w, "--preset", "kim2014", "--set", f"{w}.variant=hwwl", "--set",
                        f"{w}.scale=9", "--set", "worklist.depth=1024", "--set", f"worklist.scheme={scheme}",
                        "--seed", str(seed), "--set", f"sim.quantum={q}", "--quiet", "--stats", f.name], check=True)
        j = json.load(open(f.name))
        return j["workload"]["results"]["kernel_ns"], j["stats"]["gpu.worklist.pull_waits"]


print("| workload | scheme | seed | one-cycle quantum: kernel ns (WAITs) | "
      + " | ".join(f"{q} ns" for q in quanta) + " |")
print("|---|---|---|---" + "|---" * len(quanta) + "|")
worst = 0.0
for w in ("bfs", "sssp"):
    for scheme in schemes:
        for seed in seeds:
            ref, ref_waits = run(w, scheme, seed, one_cycle)
            cells = []
            for q in quanta:
                ns, waits = run(w, scheme, seed, q)
                dev = 100.0 * (ns / ref - 1.0)
                worst = max(worst, abs(dev))
                cells.append(f"{dev:+.2f}% ({waits})")
            print(f"| {w} | {scheme} | {seed} | {ref:,.1f} ({ref_waits}) | " + " | ".join(cells) + " |")
print(f"\nLargest deviation of the kernel time from the one-cycle quantum: {worst:.2f}%")
