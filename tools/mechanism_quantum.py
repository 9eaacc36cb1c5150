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


def values(j, what):
    """The row's measured values (kernel ns first), exactly as the stats give them; None where the run has none
    (e.g. an extra --set that changed the row's mechanism)."""
    r = j["workload"]["results"]
    v = [r.get("kernel_ns")]
    if what == "cas":
        st = j["stats"]
        tries = sum(x for k, x in st.items() if k.startswith("channels.") and k.endswith(".cas_attempts"))
        fails = sum(x for k, x in st.items() if k.startswith("channels.") and k.endswith(".cas_failures"))
        v += [tries or None, fails if tries else None]
    elif what == "steals":
        v.append(r.get("steals"))
    elif what == "periods":
        v += [r.get("period_median_ns"), r.get("period_max_ns")]
    return v


def cell(v, what):
    def us(x):
        return "n/a" if x is None else f"{x / 1000:,.1f}"
    text = f"{us(v[0])} us"
    if what == "cas":
        text += ", n/a" if v[1] is None else f", {100.0 * v[2] / v[1]:.2f}% of CASes failed"
    elif what == "steals":
        text += f", {'n/a' if v[1] is None else v[1]} steals"
    elif what == "periods":
        text += f"; graphics period median {us(v[1])}, max {us(v[2])} us"
    return text


print("| run | 20 ns | 1 ns |")
print("|---|---|---|")
commands = []
for name, w, preset, sets, what in rows:
    a, b = values(run(w, preset, sets, "20"), what), values(run(w, preset, sets, "1"), what)
    one = "identical" if a == b else cell(b, what)
    if a != b and a[0] and b[0] and a[0] != b[0]:
        one = one.replace(" us", f" us ({100.0 * (b[0] / a[0] - 1.0):+.1f}%)", 1)
    print(f"| {name} | {cell(a, what)} | {one} |")
    commands.append(f"fgsim run {w} {' '.join(preset)} " + " ".join(f"--set {kv}" for kv in [*sets, *opts.set]))
print("\nEach row is one of these, with `--set sim.quantum=20` or `=1` (\"identical\": every value the row shows,\n"
      "unrounded):\n")
for c in commands:
    print(f"    {c}")
