#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""Golden stats: a handful of canonical fgsim runs on the three presets whose stats
(everything but the `host` section and the stat descriptions) are committed in
tests/golden/. `make test` runs `golden.py check`: any change in the model's
behaviour shows up as a failing test naming the runs and stats that moved.
Regenerate only on purpose, and say why in the commit:

    tools/golden.py update build/fgsim
"""
import json
import os
import subprocess
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
GOLDEN = os.path.join(ROOT, "tests", "golden")

# name -> fgsim arguments. Small inputs: the whole set runs in a few seconds.
RUNS = {}
for preset in ("orr2014", "kim2014"):
    RUNS[f"{preset}-vecadd"] = ["vecadd", "--set", "gpu.cus=2", "--set", "vecadd.n=8192"]
    RUNS[f"{preset}-reduce"] = ["reduce", "--set", "gpu.cus=3", "--set", "reduce.n=6000",
                                "--set", "kernel.group_size=128"]
    RUNS[f"{preset}-histogram"] = ["histogram", "--set", "gpu.cus=2", "--set", "histogram.n=4096",
                                   "--set", "histogram.bins=8"]
    RUNS[f"{preset}-divergent"] = ["divergent", "--set", "gpu.cus=1", "--set", "divergent.n=2048",
                                   "--set", "divergent.fraction=0.25", "--set", "divergent.work=16"]
    RUNS[f"{preset}-memstream-cas"] = ["memstream", "--set", "gpu.cus=4", "--set", "memstream.pattern=cas",
                                       "--set", "memstream.iterations=20"]
    RUNS[f"{preset}-fib-flow"] = ["fib-flow", "--set", "gpu.cus=4", "--set", "fib_flow.n=12"]
    RUNS[f"{preset}-fib"] = ["fib", "--set", "gpu.cus=4", "--set", "fib.n=14", "--set", "fib.capacity=256"]
    for k in RUNS:
        if k.startswith(preset) and "--preset" not in RUNS[k]:
            RUNS[k] += ["--preset", preset]
# Queens on narrow channels at 8 CUs (yields, about a second): a run long enough
# to show a change of the CUs' tie order (ComputeUnit::order_ties counts delta
# cycles), which the short runs above did not (a firmware's needless event
# notification moved it by 10%, 2026-11-25).
RUNS["orr2014-queens-yield"] = ["queens", "--set", "gpu.cus=8", "--set", "queens.capacity=4096", "--preset", "orr2014"]
# GTaP's machine (issue 36): fork-join fib and cilksort on 2 SMs of gh200, so a change of the
# preset (its sectors, hashed L2 slices, lazy L2 write misses, static schedules) or of the
# fork-join runtime shows here, not only on the validation page.
RUNS["gh200-fib-forkjoin"] = ["fib", "--preset", "gh200", "--set", "gpu.cus=2", "--set", "fib.mechanism=forkjoin",
                              "--set", "fib.n=14"]
RUNS["gh200-cilksort-forkjoin"] = ["sort", "--preset", "gh200", "--set", "gpu.cus=2", "--set", "sort.mechanism=forkjoin",
                                   "--set", "sort.n=3000"]


def run(fgsim, args):
    with tempfile.TemporaryDirectory() as d:
        path = os.path.join(d, "s.json")
        p = subprocess.run([fgsim, "run", *args, "--quiet", "--stats", path], capture_output=True, text=True)
        if p.returncode != 0:
            raise SystemExit(f"fgsim {' '.join(args)}: exit {p.returncode}: {p.stderr.strip()}")
        with open(path) as f:
            j = json.load(f)
    j.pop("host", None)
    j.pop("descriptions", None)
    j.pop("units", None)
    j.pop("totals", None)  # derived from the stats, which are compared
    return j


def flatten(x, prefix=""):
    if isinstance(x, dict):
        out = {}
        for k, v in x.items():
            out.update(flatten(v, f"{prefix}.{k}" if prefix else k))
        return out
    if isinstance(x, list) and any(isinstance(v, (dict, list)) for v in x):
        out = {}
        for i, v in enumerate(x):
            out.update(flatten(v, f"{prefix}[{i}]"))
        return out
    return {prefix: x}


def main():
    if len(sys.argv) < 3 or sys.argv[1] not in ("check", "update"):
        print(__doc__)
        print("usage: golden.py check|update FGSIM [RUN...]")
        return 2
    mode, fgsim, only = sys.argv[1], sys.argv[2], sys.argv[3:]
    os.makedirs(GOLDEN, exist_ok=True)
    failed = 0
    for name, args in RUNS.items():
        if only and name not in only:
            continue
        got = run(fgsim, args)
        path = os.path.join(GOLDEN, name + ".json")
        if mode == "update":
            with open(path, "w") as f:
                json.dump(got, f, indent=1, sort_keys=True)
                f.write("\n")
            print(f"wrote {os.path.relpath(path, ROOT)}")
            continue
        if not os.path.exists(path):
            print(f"FAIL {name}: no golden file {os.path.relpath(path, ROOT)} (tools/golden.py update)")
            failed += 1
            continue
        with open(path) as f:
            want = json.load(f)
        a, b = flatten(want), flatten(got)
        diff = [k for k in sorted(set(a) | set(b)) if a.get(k, "<absent>") != b.get(k, "<absent>")]
        if diff:
            failed += 1
            print(f"FAIL {name}: {len(diff)} values differ from {os.path.relpath(path, ROOT)}")
            for k in diff[:12]:
                print(f"  {k}: golden {a.get(k, '<absent>')!r}, now {b.get(k, '<absent>')!r}")
        else:
            print(f"ok   {name}")
    if mode == "check":
        n = len([r for r in RUNS if not only or r in only])
        print(f"golden: {n - failed} passed, {failed} failed")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
