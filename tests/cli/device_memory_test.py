#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""The device-memory estimate checked before a run (gpu.mem.size, sim.max_memory) covers what
the run allocates: for every workload of `fgsim list`, in small runs of each of its mechanisms
(channels with yields, the fork-join runtime's task pools, the hardware worklist's overflow
buffer, cooperative kernels), the stats' sim.device_bytes.peak (the highest device address
any allocation reached) must not exceed sim.device_bytes.estimate. A workload without a run
below fails the test: a new workload needs one.

    device_memory_test.py FGSIM
"""
import json
import os
import subprocess
import sys
import tempfile

G = ["--set", "gpu.cus=2"]
RUNS = {
    "bfs": [[*G, "--set", "bfs.scale=7", "--set", f"bfs.mechanism={m}"]
            for m in ("topo", "swwl", "hwwl", "persistent", "coop")]
    + [[*G, "--set", "bfs.scale=7", "--set", "bfs.mechanism=hwwl", "--set", "bfs.hwwl.buffer=single"]],
    "sssp": [[*G, "--set", "sssp.scale=7", "--set", f"sssp.mechanism={m}"] for m in ("topo", "swwl", "hwwl")],
    "mst": [[*G, "--set", "mst.scale=7", "--set", f"mst.mechanism={m}"] for m in ("topo", "swwl", "hwwl")]
    + [[*G, "--set", "mst.scale=7", "--set", "mst.generator=grid", "--set", "mst.mechanism=hwwl"]],
    "sp": [[*G, "--set", "sp.vars=64", "--set", f"sp.mechanism={m}"] for m in ("topo", "swwl", "hwwl")],
    "dmr": [[*G, "--set", "dmr.points=50", "--set", f"dmr.mechanism={m}"] for m in ("topo", "swwl", "hwwl")],
    "bh": [[*G, "--set", "bh.bodies=300", "--set", f"bh.mechanism={m}"] for m in ("topo", "swwl", "hwwl")],
    "color": [[*G, "--set", "color.scale=6", "--set", f"color.mechanism={m}"] for m in ("persistent", "coop")],
    "mis": [[*G, "--set", "mis.scale=6", "--set", f"mis.mechanism={m}"] for m in ("persistent", "coop")],
    "p-sssp": [[*G, "--set", "p-sssp.scale=6", "--set", f"p-sssp.mechanism={m}"] for m in ("persistent", "coop")],
    "divergent": [[*G, "--set", "divergent.n=1024"]],
    "elastic": [[*G]],
    "fib": [[*G, "--set", "fib.n=10"], [*G, "--set", "fib.n=18", "--set", "fib.capacity=512"],  # 12 yields
            [*G, "--set", "fib.n=10", "--set", "fib.mechanism=forkjoin"]],
    "fib-flow": [[*G, "--set", "fib_flow.n=10"], [*G, "--set", "fib_flow.n=12", "--set", "fib_flow.capacity=1024"]],
    "game": [[*G, "--set", "game.depth=2", "--set", f"game.mechanism={m}"] for m in ("persistent", "coop")],
    "histogram": [[*G, "--set", "histogram.n=1024"]],
    "matmul": [[*G, "--set", "matmul.n=32"]],
    "memstream": [[*G, "--set", "memstream.bytes=4096", "--set", "memstream.pattern=reuse"],
                  [*G, "--set", "memstream.bytes=4096", "--set", "memstream.pattern=copy"]],
    "octree": [[*G, "--set", "octree.particles=300", "--set", f"octree.mechanism={m}"] for m in ("persistent", "coop")],
    "persistent": [[*G, "--set", "persistent.rounds=2"], [*G, "--set", "persistent.rounds=2",
                                                          "--set", "persistent.mechanism=coop"]],
    "pingpong": [["--set", "pingpong.rounds=4"]],
    "queens": [[*G, "--set", "queens.n=8"], ["--set", "gpu.cus=4", "--set", "queens.n=12", "--set", "queens.capacity=2048"],
               [*G, "--set", "queens.n=7", "--set", "queens.mechanism=forkjoin"]],
    "queens-flat": [[*G, "--set", "queens_flat.n=8"]],
    "reduce": [[*G, "--set", "reduce.n=1024"]],
    "saxpy": [[*G, "--set", "saxpy.n=1024"]],
    "sort": [[*G, "--set", "sort.n=2048"], [*G, "--set", "sort.n=4096", "--set", "sort.capacity=256"],
             [*G, "--set", "sort.n=1024", "--set", "sort.mechanism=forkjoin"]],
    "strassen": [[*G, "--set", "strassen.n=64"]],
    "tree": [[*G, "--set", "tree.depth=5", "--set", "tree.input_log2=10"]],
    "fj-sum": [[*G, "--set", "fj-sum.n=2000"]],
    "vecadd": [[*G, "--set", "vecadd.n=1024"]],
}


def main():
    fgsim = os.path.abspath(sys.argv[1])
    listing = subprocess.run([fgsim, "list"], capture_output=True, text=True, check=True).stdout
    workloads, section = [], None
    for line in listing.splitlines():
        if line and not line[0].isspace():
            section = line.split(" ", 1)[0]
        elif section == "Workloads" and line.strip():
            workloads.append(line.split()[0])
    failed = 0
    for w in workloads:
        if w not in RUNS:
            failed += 1
            print(f"FAIL {w}: no run in device_memory_test.py (add a small one for each of its mechanisms)")
            continue
        for args in RUNS[w]:
            with tempfile.TemporaryDirectory() as d:
                path = os.path.join(d, "s.json")
                r = subprocess.run([fgsim, "run", w, *args, "--quiet", "--stats", path], capture_output=True,
                                   text=True, timeout=120)
                name = " ".join([w, *(args[len(G):] if args[:len(G)] == G else args)])
                if r.returncode != 0:
                    failed += 1
                    print(f"FAIL {name}: exit {r.returncode}: {r.stderr.strip()[:300]}")
                    continue
                b = json.load(open(path))["sim"]["device_bytes"]
            ok = b["peak"] <= b["estimate"]
            failed += not ok
            print(f"{'ok  ' if ok else 'FAIL'} {name}: peak {b['peak']:,} B, estimate {b['estimate']:,} B "
                  f"({b['estimate'] / max(b['peak'], 1):.1f}x)")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
