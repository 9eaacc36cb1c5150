#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""Regenerate the measured tables of docs/channels.md (until the experiments
page of issue 13 replaces them): fib-flow by variant, core class and quantum;
fib by channel capacity and quantum; queens by base case and quantum; sort and strassen at
Table 3's sizes by quantum (about 10 minutes). Usage: tools/channel_tables.py build/fgsim"""
import json
import os
import subprocess
import tempfile

import fgtool  # tools/fgtool.py, beside this script
import queens_tasks  # tools/queens_tasks.py, beside this script


def run(fgsim, args):
    with tempfile.TemporaryDirectory() as d:
        path = os.path.join(d, "s.json")
        r = subprocess.run([fgsim, "run", *args, "--quiet", "--stats", path], capture_output=True, text=True)
        if r.returncode != 0:
            return None, r.returncode
        return json.load(open(path))["stats"], 0


def fib_flow(fgsim):
    print("fib-flow n = 20, orr2014, one-cycle quantum, by channel.variant\n")
    print("| variant | CUs | run (us) | CAS | failed CAS |")
    print("|---|---|---|---|---|")
    for v in ("per-lane", "amortized", "padded"):
        for cus in (1, 8):
            s, rc = run(fgsim, ["fib-flow", "--preset", "orr2014", "--set", f"gpu.cus={cus}", "--set",
                                f"channel.variant={v}", "--set", "sim.quantum=1"])
            print(f"| {v} | {cus} | {s['aggregator.run_ns'] / 1000:.1f} | {s['channels.fib.cas_attempts']:,} | "
                  f"{s['channels.fib.cas_failures']:,} |")
    print("\nfib-flow n = 20, orr2014, 8 CUs, one-cycle quantum, by aggregator.core\n")
    print("| `aggregator.core` | run (us) | GPU blocked on the aggregator |")
    print("|---|---|---|")
    for core in ("simple", "light-ooo-2", "ooo-2", "ooo-4"):
        s, rc = run(fgsim, ["fib-flow", "--preset", "orr2014", "--set", f"aggregator.core={core}", "--set",
                            "sim.quantum=1"])
        print(f"| {core} | {s['aggregator.run_ns'] / 1000:.1f} | {100 * s['aggregator.gpu_blocked_fraction']:.2f}% |")
    print("\nfib-flow n = 20, orr2014, run time (us) by `sim.quantum` (ns)\n")
    print("| CUs | 1 (one cycle) | 20 (default) | 100 |")
    print("|---|---|---|---|")
    for cus in (1, 2, 4, 8):
        row = []
        for q in (1, 20, 100):
            s, rc = run(fgsim, ["fib-flow", "--preset", "orr2014", "--set", f"gpu.cus={cus}", "--set",
                                f"sim.quantum={q}"])
            row.append(f"{s['aggregator.run_ns'] / 1000:.3f}")
        print(f"| {cus} | " + " | ".join(row) + " |")
    print()


def main():
    fgsim = fgtool.parse(fgtool.parser(__doc__)).fgsim
    fib_flow(fgsim)
    print("fib(24), orr2014, 8 CUs, by fib.capacity\n")
    print("| `fib.capacity` | wavefronts | yields (= restarts) | run time (us) | GPU blocked on the aggregator |")
    print("|---|---|---|---|---|")
    for cap in (32768, 4096, 1024, 512, 256, 128):
        s, rc = run(fgsim, ["fib", "--preset", "orr2014", "--set", f"fib.capacity={cap}"])
        if s is None:
            print(f"| {cap} | | exit {rc} (yield deadlock) | | |")
            continue
        assert s["yield.yields"] == s["yield.restarts"]
        print(f"| {cap} | {s['aggregator.wavefronts']} | {s['yield.yields']} | {s['aggregator.run_ns'] / 1000:.1f} "
              f"| {100 * s['aggregator.gpu_blocked_fraction']:.1f}% |")
    print("\nfib(24), orr2014, run time (us) by `sim.quantum` (ns)\n")
    print("| CUs | `fib.capacity` | 1 (one cycle) | 20 (default) | 100 |")
    print("|---|---|---|---|---|")
    for cus in (1, 2, 4, 8):
        for cap in (32768, 512):
            row = []
            for q in (1, 20, 100):
                s, rc = run(fgsim, ["fib", "--preset", "orr2014", "--set", f"gpu.cus={cus}", "--set",
                                    f"fib.capacity={cap}", "--set", f"sim.quantum={q}"])
                row.append(f"{s['aggregator.run_ns'] / 1000:.3f}" if s else f"exit {rc}")
            print(f"| {cus} | {cap} | " + " | ".join(row) + " |")

    print("\nqueens(13), orr2014, 8 CUs, by queens.base_rows (Table 3: 1,114 wavefronts)\n")
    print("| `queens.base_rows` | wavefronts | yields | run time (us) |")
    print("|---|---|---|---|")
    for base in (8, 7):
        s, rc = run(fgsim, ["queens", "--preset", "orr2014", "--set", f"queens.base_rows={base}"])
        print(f"| {base} | {s['aggregator.wavefronts']} | {s['yield.yields']} | {s['aggregator.run_ns'] / 1000:.1f} |"
              if s else f"| {base} | exit {rc} | | |")

    print("\nqueens(13), orr2014, run time (us) by `sim.quantum` (ns)\n")
    print("| CUs | yields | 1 (one cycle) | 20 (default) | 100 |")
    print("|---|---|---|---|---|")
    for cus in (1, 8):
        row, s = by_quantum(fgsim, "queens", cus)
        print(f"| {cus} | {s['yield.yields'] if s else ''} | " + " | ".join(row) + " |")

    print("\nsort and strassen at Table 3's sizes, orr2014, run time (us) by `sim.quantum` (ns)\n")
    print("| workload | CUs | wavefronts | yields | 1 (one cycle) | 20 (default) | 100 |")
    print("|---|---|---|---|---|---|---|")
    for w, name in (("sort", "sort 1,000,000"), ("strassen", "strassen 512")):
        for cus in (1, 8):
            row, s = by_quantum(fgsim, w, cus)
            print(f"| {name} | {cus} | {s['aggregator.wavefronts'] if s else ''} | {s['yield.yields'] if s else ''} | "
                  + " | ".join(row) + " |")
    print("\nqueens(13) with the last four rows in the base case: the fewest wavefronts, by a host count of "
          f"partial boards: {queens_min_wavefronts(13, 4):,}")


def by_quantum(fgsim, workload, cus):
    """Run times (us) of one workload at the one-cycle, default and 100 ns quanta
    (orr2014, its defaults), and the last run's stats (the counts of every run must
    agree for the docs' tables to give them once: asserted)."""
    row, last = [], None
    for q in (1, 20, 100):
        s, rc = run(fgsim, [workload, "--preset", "orr2014", "--set", f"gpu.cus={cus}", "--set", f"sim.quantum={q}"])
        row.append(f"{s['aggregator.run_ns'] / 1000:.3f}" if s else f"exit {rc}")
        if s and last:
            assert (s["aggregator.wavefronts"], s["yield.yields"]) == (last["aggregator.wavefronts"],
                                                                       last["yield.yields"]), workload
        last = s or last
    return row, last


def queens_min_wavefronts(n, base):
    """The fewest wavefronts queens(n) can take with `base` rows in the base
    case: the pre-spawn tasks of each row 0..n-base and the continuations of
    each row 0..n-base-1 (one per task that has a safe column), 64 to a
    wavefront."""
    tasks, conts = queens_tasks.placements(n, n - base)
    return sum(-(-t // 64) for t in tasks) + sum(-(-c // 64) for c in conts)


if __name__ == "__main__":
    main()
