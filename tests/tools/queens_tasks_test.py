#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""tools/queens_tasks.py (the task counts fig3-nqueens-scale quotes) against the model: the tool's count for
N-Queens at a cutoff equals the tasks a fork-join run of the same input runs (tasks.forkjoin.run), at two
cutoffs; a count per row; the per-row counts and those with a safe next column (tools/channel_tables.py's
fewest wavefronts) against a brute-force enumeration; bad input is one line and exit 2.

    queens_tasks_test.py ROOT FGSIM"""
import json
import os
import re
import subprocess
import sys
import tempfile
from itertools import permutations

root, fgsim = os.path.abspath(sys.argv[1]), sys.argv[2]
tool = os.path.join(root, "tools", "queens_tasks.py")
failures = []


def tool_count(n, cutoff):
    r = subprocess.run([sys.executable, tool, str(n), str(cutoff)], capture_output=True, text=True)
    m = re.match(rf"{n}-queens, cutoff {cutoff}: ([0-9,]+) tasks \(per row: ([0-9, ]+)\)", r.stdout)
    if r.returncode != 0 or not m:
        failures.append(f"{n} {cutoff}: exit {r.returncode}, {r.stdout!r} {r.stderr!r}")
        return None, []
    return int(m[1].replace(",", "")), [int(x.replace(",", "")) for x in m[2].split(", ")]


with tempfile.TemporaryDirectory(prefix="fg_queens_tasks_") as tmp:
    for cutoff in (1, 3):
        count, rows = tool_count(8, cutoff)
        if rows and (len(rows) != cutoff + 2 or rows[:3] != [1, 8, 42] or sum(rows) != count):
            failures.append(f"8 {cutoff}: rows {rows} (8-queens: 1, 8, 42, ...; {cutoff + 2} rows summing to the count)")
        stats = os.path.join(tmp, f"c{cutoff}.json")
        r = subprocess.run([fgsim, "run", "queens", "--quiet", "--stats", stats, "--set", "queens.mechanism=forkjoin",
                            "queens.n=8", f"queens.cutoff={cutoff}", "gpu.cus=2"], capture_output=True, text=True)
        if r.returncode != 0:
            failures.append(f"fgsim 8 {cutoff}: exit {r.returncode}: {r.stderr.strip()}")
            continue
        run = json.load(open(stats))["stats"]["tasks.forkjoin.run"]
        if count is not None and run != count:
            failures.append(f"8-queens at cutoff {cutoff}: the tool counts {count} tasks, the model ran {run}")

sys.path.insert(0, os.path.join(root, "tools"))
import queens_tasks  # noqa: E402


def safe(cols):
    return all(abs(cols[i] - cols[j]) != j - i for i in range(len(cols)) for j in range(i + 1, len(cols)))


for n in (4, 5, 6):
    depth = n - 1
    counts, branching = queens_tasks.placements(n, depth)
    want = [len({p[:r] for p in permutations(range(n)) if safe(p[:r])}) for r in range(depth + 1)]
    want_b = [len({p[:r] for p in permutations(range(n)) if safe(p[:r + 1])}) for r in range(depth)]
    if (counts, branching) != (want, want_b):
        failures.append(f"placements({n}, {depth}): {counts} {branching}, brute force {want} {want_b}")

for args in (["12"], ["12", "x"], ["12", "12"], ["40", "3"]):
    r = subprocess.run([sys.executable, tool, *args], capture_output=True, text=True)
    if r.returncode != 2 or len(r.stderr.strip().splitlines()) != 1 or r.stdout:
        failures.append(f"{args}: exit {r.returncode}, {r.stdout!r} {r.stderr!r} (want one line and exit 2)")

for f in failures:
    print("FAIL:", f)
sys.exit(1 if failures else 0)
