#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""The hardware-worklist benchmark of docs/performance.md: host time of BFS with
the hardware worklist on an R-MAT graph at 16 cores (kim2014's cores,
gpu.cus=16), with the model backend and, when this fgsim carries a Verilated
worklist for that configuration, the rtl backend; one line per run with the
host wall time, the peak resident memory, the unit's cycles and how many of
them the fast-forward skipped. The issue's run is scale 20 (1,048,576 nodes);
smaller scales show the trend.
Usage: tools/wl_bench.py [build/fgsim] [--scales=14,16,18,20] [--cus=16] [--backends=model,rtl] [--no-ff]"""
import json
import os
import resource
import subprocess
import tempfile
import time

import fgtool  # tools/fgtool.py, beside this script

ap = fgtool.parser(__doc__)
ap.add_argument("--scales", type=fgtool.int_list, default=[20], metavar="S,...", help="R-MAT scales (default 20)")
ap.add_argument("--cus", type=fgtool.positive, default=16, help="gpu.cus (default 16)")
ap.add_argument("--backends", type=fgtool.choice_list("model", "rtl"), default=["model", "rtl"], metavar="B,...",
                help="worklist.backend values (default model,rtl)")
ap.add_argument("--no-ff", action="store_true", help="worklist.fast_forward=false")
opts = fgtool.parse(ap)
fgsim, scales, cus, backends = opts.fgsim, opts.scales, opts.cus, opts.backends
ff = "false" if opts.no_ff else "true"


def run(scale, backend):
    with tempfile.NamedTemporaryFile(suffix=".json") as f:
        cmd = [fgsim, "run", "bfs", "--preset", "kim2014", "--set", f"gpu.cus={cus}", "--set", "bfs.variant=hwwl",
               "--set", f"bfs.scale={scale}", "--set", f"worklist.backend={backend}",
               "--set", f"worklist.fast_forward={ff}", "--stats", f.name, "--quiet"]
        before = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss
        t = time.monotonic()
        p = subprocess.run(cmd, capture_output=True, text=True)
        wall = time.monotonic() - t
        rss = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss
        if p.returncode != 0:
            return None, p.stderr.strip().splitlines()[-1] if p.stderr.strip() else f"exit {p.returncode}"
        j = json.load(open(f.name))
    st = j["stats"]
    return {
        "wall": wall,
        "rss_mb": max(rss, before) / 1024,  # ru_maxrss of children: the largest so far (KiB)
        "kernel_us": j["workload"]["results"]["kernel_ns"] / 1000,
        "cycles": st["gpu.worklist.cycles"],
        "skipped": st.get("gpu.worklist.skipped_cycles", 0),
        "spills": st.get("gpu.worklist.hvu.spills", 0),
        "nodes": j["workload"]["results"].get("nodes", 2 ** scale),
    }, None


print(f"fgsim: {os.path.abspath(fgsim)}; gpu.cus={cus}; worklist.fast_forward={ff}")
print("| scale (nodes) | backend | host wall s | peak RSS MB | kernel us | unit cycles | skipped | spills |")
print("|---|---|---|---|---|---|---|---|")
model_wall = {}
for s in scales:
    for b in backends:
        r, err = run(s, b)
        if r is None:
            print(f"| {s} ({2 ** s:,}) | {b} | - | - | - | - | - | {err} |")
            continue
        extra = ""
        if b == "model":
            model_wall[s] = r["wall"]
        elif s in model_wall:
            extra = f" ({r['wall'] / model_wall[s]:.2f}x model)"
        print(f"| {s} ({2 ** s:,}) | {b} | {r['wall']:.1f}{extra} | {r['rss_mb']:.0f} | {r['kernel_us']:.1f} | "
              f"{r['cycles']:,.0f} | {r['skipped']:,.0f} | {r['spills']:,.0f} |", flush=True)
