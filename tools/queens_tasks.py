#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""Tasks of the fork-join N-Queens at a cutoff, counted on the host.

    tools/queens_tasks.py N CUTOFF [N CUTOFF ...]

GTaP's nq (and the model's queens.mechanism=forkjoin) spawns a task per
partial placement of rows 0..CUTOFF+1 (a task at row > CUTOFF searches the
rest serially), so its tasks are the partial placements of depth 0..CUTOFF+1.
Prints, per input, the placements at each of those depths and their sum;
docs/validation/forkjoin.md's fig3-nqueens-scale quotes them (16-queens at
cutoff 7, the paper's input, takes about a minute)."""
import sys


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


def main(argv):
    if len(argv) < 2 or len(argv) % 2:
        print("usage: tools/queens_tasks.py N CUTOFF [N CUTOFF ...]", file=sys.stderr)
        return 2
    for i in range(0, len(argv), 2):
        try:
            n, cutoff = int(argv[i]), int(argv[i + 1])
        except ValueError:
            print(f"queens_tasks: '{argv[i]} {argv[i + 1]}' is not two integers", file=sys.stderr)
            return 2
        if not (1 <= n <= 31 and 0 <= cutoff and cutoff + 1 <= n):
            print(f"queens_tasks: need 1 <= N <= 31 and 0 <= CUTOFF < N, got {n} {cutoff}", file=sys.stderr)
            return 2
        counts, _ = placements(n, cutoff + 1)
        print(f"{n}-queens, cutoff {cutoff}: {sum(counts):,} tasks (per row: {', '.join(f'{c:,}' for c in counts)})")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
