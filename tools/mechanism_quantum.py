#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""The quantum table of docs/workloads.md ("One workload on several mechanisms", "Quantum"):
the mechanisms that synchronise through memory (channels' CAS on the channel's tail, the
work-stealing pools' locks, the worklists' counters) and the runs beside a graphics co-runner,
each at the default 20 ns quantum and at 1 ns (at most one cycle of either preset: orr2014's
1 GHz, kim2014's 700 MHz). Prints the table with each row's full command.
Usage: tools/mechanism_quantum.py [build/fgsim] [--set=K=V ...]"""

import fgtool  # tools/fgtool.py, beside this script

ap = fgtool.parser(__doc__)
ap.add_argument("--set", action="append", default=[], metavar="K=V")
opts = fgtool.parse(ap)
extra = [x for kv in opts.set for x in ("--set", kv)]

kim = ["--preset", "kim2014"]  # 4 cores (the preset's)
rows = [
    ("bfs channels, kim2014, 4 cores, R-MAT 2^14", "bfs", kim, ["bfs.mechanism=channels", "bfs.scale=14"], "cas"),
    ("bfs channels, kim2014, 16 cores", "bfs", kim, ["bfs.mechanism=channels", "bfs.scale=14", "gpu.cus=16"], "cas"),
    ("queens persistent, orr2014, 4 CUs, n = 11", "queens", ["--preset", "orr2014"],
     ["queens.mechanism=persistent", "gpu.cus=4", "queens.n=11"], "steals"),
    ("queens coop, kim2014, 4 cores, n = 11", "queens", kim, ["queens.mechanism=coop", "queens.n=11"], ""),
    ("queens swwl, kim2014, 4 cores, n = 11", "queens", kim, ["queens.mechanism=swwl", "queens.n=11"], ""),
    ("queens hwwl, kim2014, 4 cores, n = 11", "queens", kim, ["queens.mechanism=hwwl", "queens.n=11"], ""),
    ("bfs topo beside the plain graphics co-runner (heavy), kim2014, 4 cores, 2^14", "bfs", kim,
     ["bfs.mechanism=topo", "bfs.scale=14", "graphics.load=heavy"], "periods"),
    ("bfs channels beside it (heavy)", "bfs", kim, ["bfs.mechanism=channels", "bfs.scale=14", "graphics.load=heavy"],
     "periods"),
    ("bfs coop with its cooperative co-runner (light)", "bfs", kim,
     ["bfs.mechanism=coop", "bfs.scale=14", "coop.graphics.load=light"], "periods"),
]


def run(w, preset, sets, q):
    args = [x for kv in sets for x in ("--set", kv)]
    return fgtool.stats([opts.fgsim, "run", w, *preset, *args, *extra, "--set", f"sim.quantum={q}"])


def cell(j, what):
    r = j["workload"]["results"]
    text = f"{r['kernel_ns'] / 1000:,.1f} us"
    if what == "cas":
        st = j["stats"]
        tries = sum(v for k, v in st.items() if k.startswith("channels.") and k.endswith(".cas_attempts"))
        fails = sum(v for k, v in st.items() if k.startswith("channels.") and k.endswith(".cas_failures"))
        text += f", {100.0 * fails / tries:.2f}% of CASes failed"
    elif what == "steals":
        text += f", {r['steals']} steals"
    elif what == "periods":
        text += f"; graphics period median {r['period_median_ns'] / 1000:,.1f}, max {r['period_max_ns'] / 1000:,.1f} us"
    return text


print("| run | 20 ns | 1 ns |")
print("|---|---|---|")
commands = []
for name, w, preset, sets, what in rows:
    a, b = run(w, preset, sets, "20"), run(w, preset, sets, "1")
    ka, kb = a["workload"]["results"]["kernel_ns"], b["workload"]["results"]["kernel_ns"]
    one = "identical" if cell(a, what) == cell(b, what) and ka == kb else cell(b, what)
    if one != "identical" and ka != kb:
        one = one.replace(" us", f" us ({100.0 * (kb / ka - 1.0):+.1f}%)", 1)
    print(f"| {name} | {cell(a, what)} | {one} |")
    commands.append(f"fgsim run {w} {' '.join(preset)} " + " ".join(f"--set {kv}" for kv in sets))
print("\nEach row is one of these, with `--set sim.quantum=20` or `=1`:\n")
for c in commands:
    print(f"    {c}")
