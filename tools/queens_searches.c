/* SPDX-License-Identifier: Apache-2.0 */
/* The serial searches of the fork-join N-Queens at a cutoff: for each task at row CUTOFF+1 (in the order of the
 * columns), the calls of its serial search, itself included (one per partial placement below it, complete
 * ones too). tools/queens_tasks.py --searches builds and runs it (16-queens takes seconds; Python, minutes).
 *
 *     queens_searches N CUTOFF   (1 <= N <= 31, 0 <= CUTOFF <= N - 1; the caller checks)
 *
 * Prints one count a line. */
#include <stdio.h>
#include <stdlib.h>

static unsigned full;
static int n;

static unsigned long long search(int row, unsigned cols, unsigned left, unsigned right) {
  unsigned long long calls = 1;
  unsigned free_cols = ~(cols | left | right) & full;
  while (row < n && free_cols) {
    unsigned bit = free_cols & (0u - free_cols);
    free_cols ^= bit;
    calls += search(row + 1, cols | bit, ((left | bit) << 1) & full, (right | bit) >> 1);
  }
  return calls;
}

static void tasks(int row, int depth, unsigned cols, unsigned left, unsigned right) {
  if (row == depth) {
    printf("%llu\n", search(row, cols, left, right));
    return;
  }
  unsigned free_cols = ~(cols | left | right) & full;
  while (free_cols) {
    unsigned bit = free_cols & (0u - free_cols);
    free_cols ^= bit;
    tasks(row + 1, depth, cols | bit, ((left | bit) << 1) & full, (right | bit) >> 1);
  }
}

int main(int argc, char** argv) {
  if (argc != 3) return 2;
  n = atoi(argv[1]);
  full = (1u << n) - 1;
  tasks(0, atoi(argv[2]) + 1, 0, 0, 0);
  return 0;
}
