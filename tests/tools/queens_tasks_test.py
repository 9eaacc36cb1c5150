#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""tools/queens_tasks.py (the task counts fig3-nqueens-scale quotes) against the model: the tool's count for
N-Queens at a cutoff equals the tasks a fork-join run of the same input runs (tasks.forkjoin.run), at two
cutoffs; a count per row; the per-row counts and those with a safe next column (tools/channel_tables.py's
fewest wavefronts) against a brute-force enumeration; --searches' calls per search (tools/queens_searches.c)
against a recursive count in Python, in the tasks' order, and its line's totals against the whole tree's rows
CUTOFF+1..N; bad input is one line and exit 2.

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


def py_search(n, row, cols):
    """Calls of the serial search from a placement of rows 0..row-1 (columns `cols`), itself included."""
    if row == n:
        return 1
    return 1 + sum(py_search(n, row + 1, cols + [c]) for c in range(n) if c not in cols and safe(cols + [c]))


def py_tasks(n, depth, cols=()):
    """The placements of rows 0..depth-1 in the tool's order (lowest free column first)."""
    if len(cols) == depth:
        return [list(cols)]
    return [t for c in range(n) if c not in cols and safe([*cols, c]) for t in py_tasks(n, depth, (*cols, c))]


with tempfile.TemporaryDirectory(prefix="fg_queens_searches_") as tmp:
    for n, cutoff in ((6, 0), (7, 2), (8, 3), (9, 1), (5, 3)):
        got = queens_tasks.search_calls(n, cutoff, tmp)
        want = [py_search(n, cutoff + 1, t) for t in py_tasks(n, cutoff + 1)]
        if got != want:
            failures.append(f"search_calls({n}, {cutoff}): {got[:8]}... ({len(got)}), "
                            f"Python {want[:8]}... ({len(want)})")
for n, cutoff, lanes in ((10, 3, 64), (9, 2, 0)):
    args = ["--searches", *([f"--lanes={lanes}"] if lanes else []), str(n), str(cutoff)]
    r = subprocess.run([sys.executable, tool, *args], capture_output=True, text=True)
    m = re.search(r"serial searches \(row (\d+)\): ([0-9,]+), ([0-9,]+) calls: .* longest ([0-9,]+) \(", r.stdout)
    rows, _ = queens_tasks.placements(n, n)
    if r.returncode != 0 or not m:
        failures.append(f"--searches {n} {cutoff}: exit {r.returncode}, {r.stdout!r} {r.stderr!r}")
        continue
    num = [int(m[i].replace(",", "")) for i in (1, 2, 3, 4)]
    if num[:3] != [cutoff + 1, rows[cutoff + 1], sum(rows[cutoff + 1:])]:
        failures.append(f"--searches {n} {cutoff}: row, searches, calls {num[:3]}, want {cutoff + 1}, "
                        f"{rows[cutoff + 1]}, {sum(rows[cutoff + 1:])} (the whole tree's rows)")
    share = re.search(r"([0-9,.]+) calls a lane of ([0-9,]+), the longest search ([0-9.]+)x that", r.stdout)
    if bool(share) != bool(lanes) or (share and abs(float(share[1].replace(",", "")) - num[2] / lanes) > 0.05):
        failures.append(f"--searches {n} {cutoff} lanes {lanes}: {r.stdout!r}")

for args in (["12"], ["12", "x"], ["12", "12"], ["40", "3"], ["--lanes=8", "12", "3"],
             ["--searches", "--lanes=0", "12", "3"], ["--search", "12", "3"]):
    r = subprocess.run([sys.executable, tool, *args], capture_output=True, text=True)
    if r.returncode != 2 or len(r.stderr.strip().splitlines()) != 1 or r.stdout:
        failures.append(f"{args}: exit {r.returncode}, {r.stdout!r} {r.stderr!r} (want one line and exit 2)")
# --searches without a C compiler: one line naming it, exit 2, nothing printed before it.
r = subprocess.run([sys.executable, tool, "--searches", "8", "3"], capture_output=True, text=True,
                   env={**os.environ, "CC": "/nonexistent/fg-cc"})
if r.returncode != 2 or r.stdout or len(r.stderr.strip().splitlines()) != 1 or "compiler" not in r.stderr:
    failures.append(f"--searches with CC missing: exit {r.returncode}, {r.stdout!r} {r.stderr!r}")

for f in failures:
    print("FAIL:", f)
sys.exit(1 if failures else 0)
