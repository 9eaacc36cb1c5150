#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""Tasks of the fork-join N-Queens at a cutoff, counted on the host.

    tools/queens_tasks.py [--searches [--lanes=L]] N CUTOFF [N CUTOFF ...]

GTaP's nq (and the model's queens.mechanism=forkjoin) spawns a task per
partial placement of rows 0..CUTOFF+1 (a task at row > CUTOFF searches the
rest serially), so its tasks are the partial placements of depth 0..CUTOFF+1.
Prints, per input, the placements at each of those depths and their sum;
docs/validation/forkjoin.md's fig3-nqueens-scale quotes them (16-queens at
cutoff 7, the paper's input, takes about a minute).

--searches adds a line per input on the serial searches (the tasks at row
CUTOFF+1): their calls of the serial search function, each task's own call
included (one per partial placement at rows CUTOFF+1..N, complete ones too),
in all and per search (mean, median, 90th and 99th percentiles, the
longest and its ratio to the mean). With --lanes=L (the worker lanes, warps
x 32), the calls a lane and the longest search over them: how much longer
than a lane's even share of the work the longest single search is (Fig.
10's N-Queens at cutoff 3: 16-queens on the paper's 64,000 lanes, 13-queens
on our 8,000). The counts come from tools/queens_searches.c, built with the
system's C compiler (cc) into a temporary directory (16-queens takes
seconds)."""
import os
import shutil
import subprocess
import sys
import tempfile


def placements(n, depth):
    """Partial placements of `n` queens at rows 0..depth, per row, and per row
    below `depth` those that leave a safe column in the next row (the ones
    whose search goes on)."""
    full = (1 << n) - 1
    counts = [0] * (depth + 1)
    branching = [0] * depth
    stack = [(0, 0, 0, 0)]  # row, columns, left and right diagonals
    while stack:
        row, cols, left, right = stack.pop()
        counts[row] += 1
        if row == depth:
            continue
        free = ~(cols | left | right) & full
        if free:
            branching[row] += 1
        while free:
            bit = free & -free
            free ^= bit
            stack.append((row + 1, cols | bit, ((left | bit) << 1) & full, (right | bit) >> 1))
    return counts, branching


def c_compiler():
    """The C compiler --searches builds with: $CC, else cc."""
    return os.environ.get("CC", "cc")


def search_calls(n, cutoff, workdir):
    """The calls of each serial search of `n`-queens at `cutoff` (tools/queens_searches.c, built in
    `workdir`), in the order of the tasks."""
    exe = os.path.join(workdir, "queens_searches")
    if not os.path.exists(exe):
        src = os.path.join(os.path.dirname(os.path.abspath(__file__)), "queens_searches.c")
        subprocess.run([c_compiler(), "-O2", "-o", exe, src], check=True)
    out = subprocess.run([exe, str(n), str(cutoff)], capture_output=True, text=True, check=True).stdout
    return [int(x) for x in out.split()]


def describe_searches(n, cutoff, calls, lanes):
    """The --searches line."""
    if not calls:  # no placement reaches row cutoff + 1 (2- and 3-queens)
        return f"  serial searches (row {cutoff + 1}): none"
    ranked = sorted(calls)
    total, longest = sum(calls), ranked[-1]
    mean = total / len(calls)

    def pct(p):
        return ranked[min(len(ranked) - 1, len(ranked) * p // 100)]
    line = (f"  serial searches (row {cutoff + 1}): {len(calls):,}, {total:,} calls: mean {mean:,.1f}, median "
            f"{pct(50):,}, p90 {pct(90):,}, p99 {pct(99):,}, longest {longest:,} ({longest / mean:.2f}x the mean)")
    if lanes:
        line += (f"; {total / lanes:,.1f} calls a lane of {lanes:,}, the longest search "
                 f"{longest * lanes / total:.2f}x that")
    return line


def main(argv):
    searches, lanes, args = False, 0, []
    for a in argv:
        if a == "--searches":
            searches = True
        elif a.startswith("--lanes="):
            try:
                lanes = int(a[len("--lanes="):])
            except ValueError:
                lanes = -1
            if lanes < 1:
                print(f"queens_tasks: --lanes needs a positive integer, got '{a[len('--lanes='):]}'", file=sys.stderr)
                return 2
        elif a.startswith("--"):
            print(f"queens_tasks: unknown option '{a}' (--searches, --lanes=L)", file=sys.stderr)
            return 2
        else:
            args.append(a)
    if lanes and not searches:
        print("queens_tasks: --lanes=L goes with --searches", file=sys.stderr)
        return 2
    argv = args
    if len(argv) < 2 or len(argv) % 2:
        print("usage: tools/queens_tasks.py [--searches [--lanes=L]] N CUTOFF [N CUTOFF ...]", file=sys.stderr)
        return 2
    inputs = []
    for i in range(0, len(argv), 2):
        try:
            n, cutoff = int(argv[i]), int(argv[i + 1])
        except ValueError:
            print(f"queens_tasks: '{argv[i]} {argv[i + 1]}' is not two integers", file=sys.stderr)
            return 2
        if not (1 <= n <= 31 and 0 <= cutoff and cutoff + 1 <= n):
            print(f"queens_tasks: need 1 <= N <= 31 and 0 <= CUTOFF < N, got {n} {cutoff}", file=sys.stderr)
            return 2
        inputs.append((n, cutoff))
    if searches and not shutil.which(c_compiler()):
        print("queens_tasks: --searches needs a C compiler ('cc', or $CC): install Debian package 'gcc'",
              file=sys.stderr)
        return 2
    with tempfile.TemporaryDirectory(prefix="fg_queens_searches_") as workdir:
        for n, cutoff in inputs:
            counts, _ = placements(n, cutoff + 1)
            per_row = ", ".join(f"{c:,}" for c in counts)
            print(f"{n}-queens, cutoff {cutoff}: {sum(counts):,} tasks (per row: {per_row})")
            if searches:
                print(describe_searches(n, cutoff, search_calls(n, cutoff, workdir), lanes), flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
