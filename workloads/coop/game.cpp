// SPDX-License-Identifier: Apache-2.0
// game: the connect-four look-ahead of the cooperative-kernel paper
// (Sorensen, Evrard, Donaldson, FSE 2017, Table 1 "game"; the authors'
// prototype test_suite/connect_four), a work-stealing kernel. Every node of
// the game tree (a board reached by up to `game.depth` moves from a fixed
// board) is a task: a workgroup pops one, replays its moves on the board in
// LDS, evaluates it with its work-items in parallel and either answers (a
// leaf) or creates its children and pushes them. Answers travel up the tree
// by atomics: each node counts its children's answers, and the last one
// carries the node's value on to its parent. A workgroup that finds no task
// sleeps and tries again; the run ends when the seven moves of the computer
// at the root are answered (or when the work has run out without that, which
// the host's check then reports).
//
// Two versions, `game.mechanism`:
//   persistent  a persistent kernel of `game.groups` workgroups (at most the
//               resident capacity): global thread 0 seeds the pools, a plain
//               grid barrier, then the work loop;
//   coop        a cooperative kernel (runtime/coop.h): the same, with
//               coop::global_barrier after the seeding (the workgroups the
//               kernel starts with only; forked ones join at the work loop),
//               and at the top of every iteration workgroup 0 calls
//               request_fork and every other workgroup offer_kill (Table 1:
//               one of each, no resizing barrier).
//
// Rules (textbook minimax; the prototype's differ, docs/cooperative.md):
//   * board 6 x 7, the prototype's: bottom row "ox.xx..", above it
//     "o......" (x the computer, o the human); the computer moves first;
//   * a move drops a piece into a column with room; a full column is not a
//     move (no child);
//   * a node is a leaf when the last move made four in a row, when it is
//     `game.depth` moves deep, or when no column has room;
//   * a leaf's value: +666 when the computer has four in a row, -666 when the
//     human has; otherwise, over the 25 lines of four or more cells (6 rows,
//     7 columns, 6 + 6 diagonals), +1 for every maximal run of two or more of
//     the computer's pieces and -1 for every such run of the human's;
//   * an inner node's value is the maximum of its children's when the
//     computer is to move (even depth) and the minimum when the human is
//     (odd depth): its own evaluation does not count;
//   * the result is the value of each of the seven moves at the root.
//
// Work items: per workgroup a LIFO pool of `game.pool_size` node indices
// behind a CAS lock (the pool of a killed workgroup keeps its tasks; others
// steal them). Pop: the first wavefront reads every pool's count in one go,
// own pool first, then thread 0 locks the first non-empty ones in that order
// until it gets a task. Push: thread 0 puts the children into its own pool,
// then the next ones, as room allows; none with room is a simulated fault.
// The host checks every run: the seven values against its own minimax with
// the same rules, and every node the kernel created (its count, its value,
// its answers).
#include <algorithm>
#include <array>
#include <bit>
#include <cstdint>
#include <limits>
#include <stdexcept>
#include <string>
#include <variant>
#include <vector>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "coop/coop.h"
#include "gpu/dispatcher.h"
#include "gpu/host.h"
#include "gpu/kernel.h"
#include "runtime/coop.h"
#include "runtime/coop_host.h"
#include "runtime/grid_barrier.h"
#include "sim/config.h"
#include "sim/error.h"
#include "sim/workload.h"

namespace fg {
namespace {

const Param<std::string> kMechanism{"game.mechanism", "persistent", std::vector<std::string>{"persistent", "coop"},
                                    "persistent: a persistent work-stealing kernel with a plain grid barrier after "
                                    "the seeding; coop: a cooperative kernel, workgroup 0 calls request_fork and the "
                                    "others offer_kill at the top of the work loop (Sorensen et al. Table 1)"};
const Param<std::uint64_t> kDepth{"game.depth",
                                  5,
                                  "moves",
                                  "look-ahead: the deepest node is this many moves from the board (the paper's "
                                  "runs: 6; 5 keeps a default run near 2 s of host time, docs/cooperative.md)",
                                  {{1}, {8}}};
const Param<std::uint64_t> kPoolSize{
    "game.pool_size",
    10000,
    "tasks",
    "node indices one workgroup's pool holds (the prototype's connect_four: 10,000); a push with every pool full is "
    "a simulated fault",
    {{1}, {1u << 24}}};
const Param<std::int64_t> kGroups{"game.groups",
                                  0,
                                  "",
                                  "workgroups, one task pool each (0: the resident capacity, the most the persistent "
                                  "version's grid barrier allows; -k: that minus k)",
                                  {{-1e6}, {1e6}}};
const Param<std::uint64_t> kGroupSize{"game.group_size",
                                      128,
                                      "",
                                      "work-items per workgroup (the paper's runs: 128; at least 42, one per cell "
                                      "of the board)",
                                      {{42}, {1024}}};

// ---- the game ---------------------------------------------------------------

constexpr std::uint32_t kRows = 6, kCols = 7, kCells = kRows * kCols, kLines = 25, kRoots = kCols;
constexpr std::uint32_t kEmpty = 0, kComputer = 1, kHuman = 2;
constexpr std::int32_t kWin = 666;
// Where a max (min) node's value starts before its children answer.
constexpr std::int32_t kInf = 1 << 20;

// The board the look-ahead starts from, bottom row first (the prototype's).
constexpr std::array<const char*, kRows> kStart{"ox.xx..", "o......", ".......", ".......", ".......", "......."};

std::array<std::uint32_t, kCells> start_board() {
  std::array<std::uint32_t, kCells> b{};
  for (std::uint32_t r = 0; r < kRows; ++r)
    for (std::uint32_t c = 0; c < kCols; ++c)
      b[r * kCols + c] = kStart[r][c] == 'x' ? kComputer : kStart[r][c] == 'o' ? kHuman : kEmpty;
  return b;
}

// A line of the evaluation: first cell, direction, length.
struct Line {
  std::int32_t r, c, dr, dc, len;
};
std::array<Line, kLines> make_lines() {
  std::array<Line, kLines> l{};
  std::uint32_t n = 0;
  for (std::int32_t r = 0; r < 6; ++r) l[n++] = {r, 0, 0, 1, 7};
  for (std::int32_t c = 0; c < 7; ++c) l[n++] = {0, c, 1, 0, 6};
  // Diagonals up-right from the bottom row and the left column, then
  // up-left from the bottom row and the right column: those of 4 or more.
  const std::int32_t up[6][2] = {{0, 0}, {0, 1}, {0, 2}, {0, 3}, {1, 0}, {2, 0}};
  for (const auto& s : up) l[n++] = {s[0], s[1], 1, 1, std::min(6 - s[0], 7 - s[1])};
  for (const auto& s : up) l[n++] = {s[0], 6 - s[1], 1, -1, std::min(6 - s[0], 7 - s[1])};
  return l;
}
const std::array<Line, kLines> kLineTable = make_lines();

// Node records in device memory: 8 words each. info packs the depth (bits
// 0-3) and the moves from the root, 3 bits each from bit 4, the first
// (the computer's move at the root) lowest.
constexpr std::uint32_t kNodeBytes = 32;
constexpr std::uint32_t kParent = 0, kInfo = 4, kValue = 8, kAnswers = 12, kChildren = 16, kDone = 20;
constexpr std::uint32_t kRoot = 0xffffffffu, kNone = 0xffffffffu;
constexpr std::uint32_t level_of(std::uint32_t info) { return info & 15u; }
constexpr std::uint32_t move_of(std::uint32_t info, std::uint32_t i) { return (info >> (4 + 3 * i)) & 7u; }

// LDS of a workgroup: the task and what to do with it, the evaluation's
// two sums, the board.
constexpr std::uint32_t kLdsTask = 0, kLdsStatus = 4, kLdsScore = 8, kLdsWins = 12, kLdsBoard = 16;
constexpr std::uint32_t kLdsBytes = kLdsBoard + 4 * kCells;
constexpr std::uint32_t kWork = 0, kIdle = 1, kFinished = 2;

// Back-off: a lock taken by another workgroup, and a loop that found no task.
constexpr std::uint64_t kLockBackoff = 16, kIdleBackoff = 256;  // CU cycles

// What the kernel works on (device addresses).
struct Dev {
  std::uint64_t nodes = 0, board = 0, heights = 0, count = 0, lock = 0, items = 0, head = 0, popped = 0, evaluated = 0,
                root_done = 0, values = 0;
  std::uint32_t capacity = 0, pools = 0, pool_size = 0, depth = 0;
};
// The barrier after the seeding, of either version.
struct Sync {
  bool coop = false;
  coop::Barrier cb;
  GridBarrier gb;
  std::uint32_t groups = 0;
};
// The transmit block: where a forked workgroup resumes (the work loop). The
// prototype's restoration context holds only that label for game (Table 1:
// no transmit variables); a non-empty block is also what tells a forked
// workgroup from one the kernel started with (coop::joined).
struct Vars {
  std::uint32_t resume = 1;
};

// ---- device code --------------------------------------------------------------

Task<> lock(Lane& l, const Dev& d, std::uint32_t p) {
  for (;;) {
    const std::uint32_t was = co_await l.atomic_cas<std::uint32_t>(d.lock + 4ull * p, 0u, 1u);
    if (was == 0) break;
    co_await l.sleep(kLockBackoff);
  }
}
Task<> unlock(Lane& l, const Dev& d, std::uint32_t p) {
  co_await l.store_release<std::uint32_t>(d.lock + 4ull * p, 0u);
}

// The first wavefront: a task from the pools, own pool first (kNone: none).
Task<std::uint32_t> pop(Lane& l, const Dev& d, std::uint32_t own) {
  const std::uint32_t ws = l.wave_size();
  for (std::uint32_t base = 0; base < d.pools; base += ws) {
    const std::uint32_t i = base + l.lane_id();
    std::uint32_t n = 0;
    if (i < d.pools) n = co_await l.load_acquire<std::uint32_t>(d.count + 4ull * ((own + i) % d.pools));
    const std::uint64_t seen = co_await l.ballot(n > 0);
    std::uint32_t task = kNone;
    if (l.lane_id() == 0) {
      for (std::uint64_t m = seen; m != 0 && task == kNone; m &= m - 1) {
        const std::uint32_t p = (own + base + static_cast<std::uint32_t>(std::countr_zero(m))) % d.pools;
        co_await lock(l, d, p);
        const std::uint32_t c = co_await l.load<std::uint32_t>(d.count + 4ull * p);
        if (c > 0) {
          task = co_await l.load<std::uint32_t>(d.items + 4 * (std::uint64_t{p} * d.pool_size + c - 1));
          // Counted before the pool shows it gone (see the end test in game_kernel).
          co_await l.atomic_nr<std::uint32_t>(AtomicOp::Add, d.popped, 1u);
          co_await l.store<std::uint32_t>(d.count + 4ull * p, c - 1);
        }
        co_await unlock(l, d, p);
      }
    }
    task = co_await l.broadcast<std::uint32_t>(task, 0);
    if (task != kNone) co_return task;
  }
  co_return kNone;
}

// Thread 0: nodes first .. first+k-1 into the pools, own pool first.
Task<> push(Lane& l, const Dev& d, std::uint32_t own, std::uint32_t first, std::uint32_t k, std::uint32_t parent) {
  std::uint32_t left = k, next = first, own_count = 0;
  for (std::uint32_t t = 0; t < d.pools && left > 0; ++t) {
    const std::uint32_t p = (own + t) % d.pools;
    co_await lock(l, d, p);
    const std::uint32_t c = co_await l.load<std::uint32_t>(d.count + 4ull * p);
    const std::uint32_t put = std::min(left, d.pool_size - std::min(c, d.pool_size));
    if (t == 0) own_count = c + put;
    for (std::uint32_t j = 0; j < put; ++j)
      co_await l.store<std::uint32_t>(d.items + 4 * (std::uint64_t{p} * d.pool_size + c + j), next + j);
    if (put > 0) co_await l.store<std::uint32_t>(d.count + 4ull * p, c + put);
    co_await unlock(l, d, p);
    left -= put;
    next += put;
  }
  if (left > 0) {
    const std::string others = d.pools == 1   ? "it is the only pool"
                               : d.pools == 2 ? "so is the other pool"
                                              : fmt::format("so are the other {} pools", d.pools - 1);
    throw SimFault(
        fmt::format("game: task pool {} (workgroup {}'s) is full ({} of {} tasks, game.pool_size) and {}: "
                    "{} of node {}'s {} children have nowhere to go; raise game.pool_size",
                    own, own, own_count, d.pool_size, others, left, parent, k));
  }
}

// Thread 0: a node's value is final; carry it up while it completes its
// parent (the last of the parent's children to answer goes on).
Task<> answer(Lane& l, const Dev& d, std::uint32_t n, std::uint32_t info, std::int32_t v) {
  std::uint64_t node = d.nodes + std::uint64_t{kNodeBytes} * n;
  std::uint32_t level = level_of(info);
  co_await l.store<std::int32_t>(node + kValue, v);
  co_await l.store<std::uint32_t>(node + kDone, 1u);
  for (;;) {
    const std::uint32_t p = co_await l.load<std::uint32_t>(node + kParent);
    if (p == kRoot) {
      co_await l.store<std::int32_t>(d.values + 4ull * move_of(info, 0), v);
      co_await l.fence_release();
      co_await l.atomic_add<std::uint32_t>(d.root_done, 1u);
      break;
    }
    node = d.nodes + std::uint64_t{kNodeBytes} * p;
    --level;  // the parent's: the computer is to move at even depths
    if (level % 2 == 0)
      co_await l.atomic_max<std::int32_t>(node + kValue, v);
    else
      co_await l.atomic_min<std::int32_t>(node + kValue, v);
    const std::uint32_t before = co_await l.atomic_add<std::uint32_t>(node + kAnswers, 1u);
    const std::uint32_t children = co_await l.load<std::uint32_t>(node + kChildren);
    if (before + 1 < children) break;
    // The last answer: every sibling's min/max came before its count.
    v = co_await l.load_acquire<std::int32_t>(node + kValue);
    co_await l.store<std::uint32_t>(node + kDone, 1u);
  }
}

// Chains of one line: a run of two or more scores 1, four or more is a win.
struct Chains {
  std::int32_t score = 0;
  std::uint32_t wins = 0;  // bit 0: the computer has four in a row, bit 1: the human
  std::uint32_t prev = kEmpty, run = 0;
  void close() {
    if (prev == kEmpty) return;
    if (run >= 2) score += prev == kComputer ? 1 : -1;
    if (run >= 4) wins |= prev == kComputer ? 1u : 2u;
  }
  void add(std::uint32_t cell) {
    if (cell != kEmpty && cell == prev) {
      ++run;
      return;
    }
    close();
    prev = cell;
    run = cell != kEmpty;
  }
};

// The whole workgroup: evaluate node `task` and answer it or expand it.
Task<> evaluate(Lane& l, const Dev& d, std::uint32_t own, std::uint32_t task) {
  const std::uint32_t lid = l.local_id();
  const std::uint64_t node = d.nodes + std::uint64_t{kNodeBytes} * task;
  const std::uint32_t info = co_await l.load<std::uint32_t>(node + kInfo);
  const std::uint32_t level = level_of(info);
  // The board: work-item i < 42 replays the moves into its cell (i / 7, i % 7).
  if (lid < kCells) {
    const std::uint32_t r = lid / kCols, c = lid % kCols;
    std::uint32_t cell = co_await l.load<std::uint32_t>(d.board + 4ull * lid);
    std::uint32_t height = co_await l.load<std::uint32_t>(d.heights + 4ull * c);
    for (std::uint32_t i = 0; i < level; ++i)
      if (move_of(info, i) == c) {
        if (height == r) cell = i % 2 == 0 ? kComputer : kHuman;
        ++height;
      }
    co_await l.alu(2 * level + 2);
    co_await l.lds_store<std::uint32_t>(kLdsBoard + 4 * lid, cell);
  }
  co_await l.barrier();
  // The evaluation: work-item i < 25 scans line i.
  if (lid < kLines) {
    const Line& ln = kLineTable[lid];
    Chains ch;
    for (std::int32_t k = 0; k < ln.len; ++k) {
      const auto at =
          static_cast<std::uint32_t>((ln.r + k * ln.dr) * static_cast<std::int32_t>(kCols) + ln.c + k * ln.dc);
      const std::uint32_t cell = co_await l.lds_load<std::uint32_t>(kLdsBoard + 4 * at);
      co_await l.alu(3);
      ch.add(cell);
    }
    ch.close();
    co_await l.lds_atomic<std::uint32_t>(AtomicOp::Add, kLdsScore, static_cast<std::uint32_t>(ch.score));
    co_await l.lds_atomic<std::uint32_t>(AtomicOp::Or, kLdsWins, ch.wins);
  }
  co_await l.barrier();
  // The rest is the first wavefront's.
  if (lid >= l.wave_size()) co_return;
  const std::uint32_t score = co_await l.lds_load<std::uint32_t>(kLdsScore);
  const std::uint32_t wins = co_await l.lds_load<std::uint32_t>(kLdsWins);
  co_await l.alu(2);
  const std::int32_t value = wins & 1u ? kWin : wins & 2u ? -kWin : static_cast<std::int32_t>(score);
  bool leaf = wins != 0 || level >= d.depth;
  bool legal = false;
  std::uint64_t moves = 0;
  if (!leaf) {
    // Work-item c < 7: column c has room when its top cell is empty.
    if (lid < kCols) {
      const std::uint32_t top = co_await l.lds_load<std::uint32_t>(kLdsBoard + 4 * ((kRows - 1) * kCols + lid));
      legal = top == kEmpty;
    }
    moves = co_await l.ballot(legal);
    leaf = moves == 0;  // a full board: a draw, valued as it stands
  }
  if (leaf) {
    if (lid == 0) co_await answer(l, d, task, info, value);
    co_return;
  }
  const auto k = static_cast<std::uint32_t>(std::popcount(moves));
  std::uint32_t first = 0;
  if (lid == 0) {
    first = co_await l.atomic_add<std::uint32_t>(d.head, k);
    if (first + k > d.capacity)
      throw SimFault(fmt::format("game: node {} creates nodes {}..{} beyond the {} of a full tree of depth {}", task,
                                 first, first + k - 1, d.capacity, d.depth));
  }
  first = co_await l.broadcast<std::uint32_t>(first, 0);
  if (legal) {
    const std::uint32_t child = first + static_cast<std::uint32_t>(std::popcount(moves & ((1ull << lid) - 1)));
    const std::uint64_t cn = d.nodes + std::uint64_t{kNodeBytes} * child;
    co_await l.store<std::uint32_t>(cn + kParent, task);
    co_await l.store<std::uint32_t>(cn + kInfo, (info & ~15u) | (level + 1) | lid << (4 + 3 * level));
  }
  if (lid == 0) {
    co_await l.store<std::int32_t>(node + kValue, level % 2 == 0 ? -kInf : kInf);
    co_await l.store<std::uint32_t>(node + kChildren, k);
    co_await l.fence_release();  // the children and the count before any child is seen
    co_await push(l, d, own, first, k, task);
  }
}

// Global thread 0: the computer's seven moves at the root, round robin into
// the pools.
Task<> seed(Lane& l, const Dev& d) {
  for (std::uint32_t c = 0; c < kRoots; ++c) {
    const std::uint64_t node = d.nodes + std::uint64_t{kNodeBytes} * c;
    co_await l.store<std::uint32_t>(node + kParent, kRoot);
    co_await l.store<std::uint32_t>(node + kInfo, 1u | c << 4);
    const std::uint32_t p = c % d.pools, slot = c / d.pools;
    if (slot >= d.pool_size)
      throw SimFault(
          fmt::format("game: task pool {} is full ({} of {} tasks, game.pool_size) while seeding the {} "
                      "moves at the root into {} pool{}; raise game.pool_size",
                      p, slot, d.pool_size, kRoots, d.pools, d.pools == 1 ? "" : "s"));
    co_await l.store<std::uint32_t>(d.items + 4 * (std::uint64_t{p} * d.pool_size + slot), c);
  }
  for (std::uint32_t p = 0; p < std::min(d.pools, kRoots); ++p)
    co_await l.store<std::uint32_t>(d.count + 4ull * p, (kRoots - p + d.pools - 1) / d.pools);
  co_await l.store<std::uint32_t>(d.head, kRoots);
  co_await l.store<std::uint32_t>(d.root_done, 0u);
}

Task<> game_kernel(Lane& l, Dev d, Sync s) {
  const std::uint32_t lid = l.local_id();
  if (!(s.coop && coop::joined(l))) {
    if (l.global_id() == 0) co_await seed(l, d);
    if (s.coop)
      co_await coop::global_barrier(l, s.cb);
    else
      co_await grid_barrier(l, s.gb, s.groups);
  }
  const Vars vars;
  // Ids are stable in a cooperative kernel (only M-1 dies, forks take the
  // next ids), so the workgroup's pool is too.
  const std::uint32_t id = l.group_id();
  const std::uint32_t own = id % d.pools;
  for (;;) {
    // Both versions start an iteration with a workgroup barrier (offer_kill
    // and request_fork begin with one): the lanes thread 0 left behind while
    // it answered or pushed join it here.
    if (!s.coop)
      co_await l.barrier();
    else if (id > 0)
      co_await coop::offer_kill(l);
    else
      co_await coop::request_fork(l, vars);
    if (lid < l.wave_size()) {
      const std::uint32_t evaluated = co_await l.load_acquire<std::uint32_t>(d.evaluated);
      const std::uint32_t task = co_await pop(l, d, own);
      if (lid == 0) {
        std::uint32_t status = kWork;
        if (task == kNone) {
          // Done when the seven moves are answered. Also when the work has
          // run out without that (a lost task or answer: the host's check
          // then says so, instead of a kernel that never ends): the tasks
          // evaluated, read before the pools were searched, equal the tasks
          // popped, read after. Both only grow and evaluated <= popped, so
          // neither moved meanwhile: no workgroup was evaluating (none could
          // push) and none popped, so the pools were empty throughout the
          // search, and stay so.
          const std::uint32_t answered = co_await l.load_acquire<std::uint32_t>(d.root_done);
          const std::uint32_t popped = co_await l.load_acquire<std::uint32_t>(d.popped);
          status = answered == kRoots || popped == evaluated ? kFinished : kIdle;
        }
        co_await l.lds_store<std::uint32_t>(kLdsTask, task);
        co_await l.lds_store<std::uint32_t>(kLdsStatus, status);
        co_await l.lds_store<std::uint32_t>(kLdsScore, 0u);
        co_await l.lds_store<std::uint32_t>(kLdsWins, 0u);
      }
    }
    co_await l.barrier();
    const std::uint32_t status = co_await l.lds_load<std::uint32_t>(kLdsStatus);
    const std::uint32_t task = co_await l.lds_load<std::uint32_t>(kLdsTask);
    co_await l.barrier();
    if (status == kFinished) break;
    if (status == kIdle) {
      co_await l.sleep(kIdleBackoff);
      continue;
    }
    co_await evaluate(l, d, own, task);
    if (lid == 0) co_await l.atomic_nr<std::uint32_t>(AtomicOp::Add, d.evaluated, 1u);  // after its answers, pushes
  }
}

// ---- host reference ------------------------------------------------------------

// Minimax by the rules above, written separately from the device code: per
// position (keyed by its info word) its value and its number of children, in
// a vector sorted by info. With a hash map and a vector per line scored, depth
// 8's millions of positions took 10 s of host time before the run began (over
// 30 s under ASan, where the sanitizer job counted it a hang); now 1.3 s.
struct Reference {
  struct Node {
    std::uint32_t info = 0;
    std::int32_t value = 0;
    std::uint32_t children = 0;
  };
  std::vector<Node> nodes;
  std::array<std::int32_t, kRoots> values{};

  const Node* find(std::uint32_t info) const {
    const auto it =
        std::lower_bound(nodes.begin(), nodes.end(), info, [](const Node& n, std::uint32_t i) { return n.info < i; });
    return it != nodes.end() && it->info == info ? &*it : nullptr;
  }
};

bool four(const std::array<std::uint32_t, kCells>& b, std::uint32_t who) {
  const int dirs[4][2] = {{0, 1}, {1, 0}, {1, 1}, {1, -1}};
  for (int r = 0; r < 6; ++r)
    for (int c = 0; c < 7; ++c)
      for (const auto& dd : dirs) {
        int k = 0;
        while (k < 4) {
          const int rr = r + k * dd[0], cc = c + k * dd[1];
          if (rr < 0 || rr >= 6 || cc < 0 || cc >= 7 || b[rr * 7 + cc] != who) break;
          ++k;
        }
        if (k == 4) return true;
      }
  return false;
}

// Whether the piece at (r, c) is part of four in a row: the one check a move
// needs when the board before it had no four (the start board has none,
// reference() checks; a won board is a leaf).
bool four_through(const std::array<std::uint32_t, kCells>& b, int r, int c) {
  const std::uint32_t who = b[r * 7 + c];
  const int dirs[4][2] = {{0, 1}, {1, 0}, {1, 1}, {1, -1}};
  for (const auto& dd : dirs) {
    int k = 1;
    for (int s = -1; s <= 1; s += 2)
      for (int rr = r + s * dd[0], cc = c + s * dd[1]; rr >= 0 && rr < 6 && cc >= 0 && cc < 7 && b[rr * 7 + cc] == who;
           rr += s * dd[0], cc += s * dd[1])
        ++k;
    if (k >= 4) return true;
  }
  return false;
}

// Runs of two or more along every row, column and diagonal of four or more cells.
std::int32_t runs(const std::array<std::uint32_t, kCells>& b) {
  std::int32_t s = 0;
  auto walk = [&](int r, int c, int dr, int dc) {
    std::array<std::uint32_t, 7> cells{};  // a line has at most 7 cells
    std::size_t size = 0;
    for (; r >= 0 && r < 6 && c >= 0 && c < 7; r += dr, c += dc) cells[size++] = b[r * 7 + c];
    if (size < 4) return;
    for (std::size_t i = 0; i < size;) {
      std::size_t j = i;
      while (j < size && cells[j] == cells[i]) ++j;
      if (cells[i] != kEmpty && j - i >= 2) s += cells[i] == kComputer ? 1 : -1;
      i = j;
    }
  };
  for (int r = 0; r < 6; ++r) walk(r, 0, 0, 1);
  for (int c = 0; c < 7; ++c) walk(0, c, 1, 0);
  for (int c = 0; c < 7; ++c) walk(0, c, 1, 1), walk(0, c, 1, -1);
  for (int r = 1; r < 6; ++r) walk(r, 0, 1, 1), walk(r, 6, 1, -1);
  return s;
}

// The node reached by the move that put a piece at (row, col).
std::int32_t search(Reference& ref, std::array<std::uint32_t, kCells>& b, std::uint32_t info, std::uint32_t depth,
                    int row, int col) {
  const std::uint32_t level = level_of(info);
  const bool won = four_through(b, row, col);
  std::int32_t v = won ? (b[row * kCols + col] == kComputer ? kWin : -kWin) : 0;
  std::uint32_t children = 0;
  if (!won && level < depth) {
    std::int32_t best =
        level % 2 == 0 ? std::numeric_limits<std::int32_t>::min() : std::numeric_limits<std::int32_t>::max();
    for (std::uint32_t c = 0; c < kCols; ++c) {
      std::uint32_t r = 0;
      while (r < kRows && b[r * kCols + c] != kEmpty) ++r;
      if (r == kRows) continue;
      b[r * kCols + c] = level % 2 == 0 ? kComputer : kHuman;
      const std::int32_t cv = search(ref, b, (info & ~15u) | (level + 1) | c << (4 + 3 * level), depth,
                                     static_cast<int>(r), static_cast<int>(c));
      b[r * kCols + c] = kEmpty;
      best = level % 2 == 0 ? std::max(best, cv) : std::min(best, cv);
      ++children;
    }
    if (children > 0) v = best;
  }
  if (!won && children == 0) v = runs(b);    // a leaf's evaluation (an inner node's does not count)
  ref.nodes.push_back({info, v, children});  // each position once: its info word spells its moves
  return v;
}

Reference reference(std::uint32_t depth) {
  Reference ref;
  auto b = start_board();
  if (four(b, kComputer) || four(b, kHuman)) throw std::logic_error("game: the start board has four in a row");
  for (std::uint32_t c = 0; c < kRoots; ++c) {
    std::uint32_t r = 0;
    while (b[r * kCols + c] != kEmpty) ++r;  // the start board has room in every column
    b[r * kCols + c] = kComputer;
    ref.values[c] = search(ref, b, 1u | c << 4, depth, static_cast<int>(r), static_cast<int>(c));
    b[r * kCols + c] = kEmpty;
  }
  std::sort(ref.nodes.begin(), ref.nodes.end(), [](const auto& x, const auto& y) { return x.info < y.info; });
  return ref;
}

// Nodes of a full 7-ary tree of `depth` levels below the root: the most the
// kernel could create (the prototype's node array, 137,257 at depth 6 with
// its root).
std::uint64_t max_nodes(std::uint64_t depth) {
  std::uint64_t n = 0, w = 1;
  for (std::uint64_t i = 1; i <= depth; ++i) n += (w *= 7);
  return n;
}

// ---- host ------------------------------------------------------------------------

std::uint64_t config_uint(const Config& c, const char* key) {
  const ParamValue& v = c.value(key);
  if (const auto* u = std::get_if<std::uint64_t>(&v)) return *u;
  if (const auto* i = std::get_if<std::int64_t>(&v)) return static_cast<std::uint64_t>(std::max<std::int64_t>(*i, 0));
  return 0;
}

// Device memory: the node array of a full tree, the pools (at most one per
// workgroup slot of the GPU when game.groups is not given).
std::uint64_t device_bytes(const Config& c) {
  const std::int64_t g = kGroups.get(c);
  const std::uint64_t pools =
      g > 0 ? static_cast<std::uint64_t>(g) : config_uint(c, "gpu.cus") * config_uint(c, "gpu.cu.max_workgroups");
  return max_nodes(kDepth.get(c)) * kNodeBytes + 4 * pools * (kPoolSize.get(c) + 2) + 4096;
}

void game(Host& h) {
  const Config& cfg = h.config();
  const bool cooperative = kMechanism.get(cfg) == "coop";
  const auto depth = static_cast<std::uint32_t>(kDepth.get(cfg));
  const auto pool_size = static_cast<std::uint32_t>(kPoolSize.get(cfg));
  KernelLaunch shape{"game", 0, static_cast<std::uint32_t>(kGroupSize.get(cfg)), 32, kLdsBytes, {}};
  const std::uint32_t n = coop::groups(h, shape, kGroups.get(cfg), cooperative);
  const Reference ref = reference(depth);
  // The node array of a full tree, as the prototype's: a kernel that creates
  // more nodes than the rules allow shows in the check, not as an overflow.
  const auto capacity = static_cast<std::uint32_t>(max_nodes(depth));

  const auto board = start_board();
  std::vector<std::uint32_t> heights(kCols, 0);
  for (std::uint32_t c = 0; c < kCols; ++c)
    while (heights[c] < kRows && board[heights[c] * kCols + c] != kEmpty) ++heights[c];
  Dev d;
  d.nodes = h.upload(std::vector<std::uint32_t>(std::size_t{capacity} * kNodeBytes / 4, 0));
  d.board = h.upload(std::vector<std::uint32_t>(board.begin(), board.end()));
  d.heights = h.upload(heights);
  d.count = h.upload(std::vector<std::uint32_t>(n, 0));
  d.lock = h.upload(std::vector<std::uint32_t>(n, 0));
  d.items = h.alloc(4ull * n * pool_size);
  d.head = h.upload(std::vector<std::uint32_t>(1, 0));
  d.popped = h.upload(std::vector<std::uint32_t>(1, 0));
  d.evaluated = h.upload(std::vector<std::uint32_t>(1, 0));
  d.root_done = h.upload(std::vector<std::uint32_t>(1, 0));
  d.values = h.upload(std::vector<std::int32_t>(kRoots, std::numeric_limits<std::int32_t>::min()));
  d.capacity = capacity;
  d.pools = n;
  d.pool_size = pool_size;
  d.depth = depth;

  if (!cooperative) {
    Sync s;
    s.gb = GridBarrier::make(h, "game");
    s.groups = n;
    shape.body = [d, s](Lane& l) { return game_kernel(l, d, s); };
    coop::run_persistent(h, std::move(shape), n);
  } else {
    coop::run_cooperative(h, std::move(shape), n, [&](const coop::Kernel& k) -> KernelBody {
      Sync s;
      s.coop = true;
      s.cb = coop::Barrier::make(h, k, "game");
      return [d, s](Lane& l) { return game_kernel(l, d, s); };
    });
  }

  const auto values = h.download<std::int32_t>(d.values, kRoots);
  const std::uint32_t created = h.download<std::uint32_t>(d.head, 1)[0];
  const std::uint32_t answered = h.download<std::uint32_t>(d.root_done, 1)[0];
  const std::uint32_t listed = std::min(created, capacity);
  const auto nodes = h.download<std::uint32_t>(d.nodes, std::size_t{listed} * kNodeBytes / 4);
  std::uint32_t wrong = 0;
  std::vector<std::string> shown;  // unanswered: none
  for (std::uint32_t c = 0; c < kRoots; ++c) {
    wrong += values[c] != ref.values[c];
    shown.push_back(values[c] == std::numeric_limits<std::int32_t>::min() ? "none" : std::to_string(values[c]));
  }
  h.check(wrong == 0 && answered == kRoots,
          fmt::format("game: {} of the {} root values differ from the host's minimax at depth {} (kernel [{}], host "
                      "{}); {} answers reached the root, {} expected",
                      wrong, kRoots, depth, fmt::join(shown, ", "), ref.values, answered, kRoots));
  std::uint64_t unanswered = 0, unknown = 0, off = 0;
  for (std::uint32_t i = 0; i < listed; ++i) {
    const std::uint32_t* w = &nodes[std::size_t{i} * kNodeBytes / 4];
    const Reference::Node* it = ref.find(w[kInfo / 4]);
    if (it == nullptr) {
      ++unknown;
      continue;
    }
    unanswered += w[kDone / 4] != 1 || w[kAnswers / 4] != it->children || w[kChildren / 4] != it->children;
    off += static_cast<std::int32_t>(w[kValue / 4]) != it->value;
  }
  h.check(created == ref.nodes.size() && unanswered == 0 && unknown == 0 && off == 0,
          fmt::format("game: {} nodes created against the host's {}; {} not answered by all their children, {} "
                      "not in the host's tree, {} valued other than the host",
                      created, ref.nodes.size(), unanswered, unknown, off));
  h.result("depth", depth);
  h.result("pools", n);
  h.result("values", std::vector<std::int32_t>(values.begin(), values.end()));
  h.result("nodes", created);
  for (std::int32_t v : values) h.output() << v << '\n';
}

const RegisterWorkload r{{"game",
                          "connect-four look-ahead by work stealing (cooperative kernels Table 1), persistent or coop",
                          "", game, device_bytes, [](const Config& c) {
                            return kMechanism.get(c) == "coop" ? std::vector<std::string>{coop::Scheduler::kName}
                                                               : std::vector<std::string>{};
                          }}};

}  // namespace
}  // namespace fg
