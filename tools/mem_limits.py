#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""How large the memory model's known omissions are on real runs (the table in
docs/memory.md, "What the model does not capture"). Runs the canonical
workloads of tools/golden.py on both presets and derives, from each run's
stats, an upper bound on what an omission could change:

* free invalidations (gpu protocol): every invalidation sent, had it cost a
  round trip of two directory hops (gpu.l2.forward_latency each) on the
  critical path, one after another: sum / simulated time;
* write-backs off the requester's path: DRAM writes / DRAM transfers;
* GPGPU-Sim's limit of 8 merges per L1 MSHR (not modelled): merges per read
  miss (a mean: a value far below 8 means the limit could rarely bind);
* back-pressure: the fraction of CU-time the L1s were blocked;
* the quantum: measured separately (docs/compute-unit.md), not here.

Usage: tools/mem_limits.py [build/fgsim]"""
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import fgtool  # noqa: E402
from golden import RUNS  # noqa: E402

fgsim = fgtool.parse(fgtool.parser(__doc__)).fgsim


def run(args):
    return fgtool.stats([fgsim, "run", *args])


def total(stats, prefix, suffix):
    return sum(v for k, v in stats.items() if k.startswith(prefix) and k.endswith(suffix) and isinstance(v, (int, float)))


print("| run | protocol | simulated us | invalidations sent | bound if each cost 2 hops | DRAM writes / transfers "
      "| MSHR merges per read miss | L1 blocked (share of CU time) |")
print("|---|---|---|---|---|---|---|---|")
# Plus hand-offs, whose stores invalidate the poller's copy under gpu.
EXTRA = {f"{p}-pingpong-store": ["pingpong", "--preset", p, "--set", "pingpong.via=store", "--set", "mem.coherence=gpu"]
         for p in ("orr2014", "kim2014")}
for name, args in {**RUNS, **EXTRA}.items():
    d = run(args)
    s, c = d["stats"], d["config"]
    t_ns = d["sim"]["time_ns"]
    hop_ns = c["gpu.l2.forward_latency"] * 1e3 / c["gpu.l2.clock"]
    inv = total(s, "gpu.l2.bank", ".invalidations_sent")
    gpu_protocol = c["mem.coherence"] == "gpu"
    # Under moesi the hops are charged already; the bound applies to gpu only.
    bound = f"{100 * inv * 2 * hop_ns / t_ns:.1f}%" if gpu_protocol else "charged"
    reads, writes = s["gpu.dram.reads"], s["gpu.dram.writes"]
    misses = total(s, "gpu.cu", ".l1.misses")
    merges = total(s, "gpu.cu", ".l1.mshr_merges")
    cus = c["gpu.cus"]
    cycle_ns = 1e3 / c["gpu.clock"]
    blocked = total(s, "gpu.cu", ".l1.stall_cycles") * cycle_ns / (t_ns * cus)
    print(f"| {name} | {c['mem.coherence']} | {t_ns / 1e3:.2f} | {inv:.0f} | {bound} | "
          f"{100 * writes / max(1, reads + writes):.1f}% | {merges / max(1, misses):.2f} | {100 * blocked:.1f}% |")
