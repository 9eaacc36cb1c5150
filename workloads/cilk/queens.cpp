// SPDX-License-Identifier: Apache-2.0
// queens: Cilk's N-queens count (Orr et al. Sec. 7.1, from the MIT Cilk
// distribution) on channel stacks (Sec. 5). A pre-spawn task at depth d
// holds a board with queens on rows 0..d-1 (column and diagonal masks).
// With `queens.base_rows` rows or fewer left it counts the completions
// serially (the base case; see kBaseRows); otherwise it allocates its continuation
// {parent slot, k, count[k]} at depth d and spawns one task per safe column
// of row d at depth d + 1, each writing its count into count[i]. A
// continuation adds its counts into its parent slot. Two kernel nodes with
// Table 3's registers. The count is checked against a host backtracking
// search every run. The other values of queens.mechanism: forkjoin
// (forkjoin/queens.cpp) and swwl, hwwl, persistent, coop
// (cilk/queens_sched.cpp).
#include <fmt/format.h>

#include <bit>
#include <cstdint>
#include <memory>
#include <vector>

#include "cilk/cilk.h"
#include "cilk/queens.h"
#include "coop/coop.h"
#include "forkjoin/apps.h"
#include "gpu/host.h"
#include "runtime/channel.h"
#include "runtime/forkjoin.h"
#include "sim/config.h"
#include "sim/error.h"
#include "sim/workload.h"
#include "worklist/worklist.h"

namespace fg {
namespace {

// Table 3: Queens' data set is 13x13 and its channel width 16,384.
const Param<std::uint64_t> kN{"queens.n", 13, "", "board size (Orr et al. Table 3: 13)", {{1}, {13}}};
const Param<std::uint64_t> kCapacity{"queens.capacity",
                                     16384,
                                     "CEs",
                                     "capacity of each channel of the stacks (Orr et al. Table 3: 16,384)",
                                     {{0}, {1u << 30}}};
// Sec. 7.1 calls the base case "a 4x4 sub-section of the chessboard"; Table
// 3's 1,114 wavefronts for 13x13 fit the last eight rows (732 wavefronts;
// seven give 3,061) and not the last four (at least 53,005): the default
// follows the measured count (docs/channels.md, "queens").
const Param<std::uint64_t> kBaseRows{"queens.base_rows",
                                     8,
                                     "rows",
                                     "rows the base case completes serially (8: Orr et al. Table 3's wavefront count; "
                                     "docs/channels.md)",
                                     {{1}, {13}}};
const Param<std::string> kMechanism{
    "queens.mechanism", "channels",
    std::vector<std::string>{"channels", "forkjoin", "swwl", "hwwl", "persistent", "coop"},
    "channels: Cilk on channel stacks (Orr et al.); forkjoin: spawn-only tasks on the fork-join runtime (GTaP, "
    "docs/forkjoin.md); swwl / hwwl: a software (one step per row) or hardware (one persistent kernel) worklist of "
    "partial boards; persistent / coop: work-stealing pools of boards in a persistent or cooperative kernel "
    "(offer_kill / request_fork; cilk/queens_sched.cpp)"};

// CEs. Pre-spawn (32 B): u64 result slot, u32 cols, u32 diag1, u32 diag2.
// Continuation (64 B): u64 parent slot, u32 k, u32 count[13].
constexpr std::uint32_t kTaskBytes = 32, kContBytes = 64;

using queens::Board;
using queens::complete;
using queens::kInstrPerSquare;

struct Shape {
  std::uint32_t n, base;
};

Task<> queens_spawn(Lane& l, Shape s, const cilk::Stack& pre, const cilk::Stack& post, std::uint32_t d,
                    std::uint32_t off) {
  chan::Channel& in = pre.at(d);
  const chan::Ce ce = co_await chan::deq(l, in, off);
  const std::uint64_t result = co_await l.load<std::uint64_t>(ce.addr);
  Board b;
  b.cols = co_await l.load<std::uint32_t>(ce.addr + 8);
  b.d1 = co_await l.load<std::uint32_t>(ce.addr + 12);
  b.d2 = co_await l.load<std::uint32_t>(ce.addr + 16);
  if (s.n - d <= s.base) {
    std::uint64_t squares = 0;
    const auto count = static_cast<std::uint32_t>(complete(s.n, d, b, squares));
    co_await l.alu(squares * kInstrPerSquare);
    co_await l.store<std::uint32_t>(result, count);
  } else {
    std::uint32_t safe[13] = {};
    std::uint32_t k = 0;
    for (std::uint32_t c = 0; c < s.n; ++c)
      if (b.safe(s.n, d, c)) safe[k++] = c;
    co_await l.alu(std::uint64_t{s.n} * 4);  // the column scan
    if (k == 0) {
      co_await l.store<std::uint32_t>(result, 0);
    } else {
      chan::Channel& cont = post.at(d);
      chan::Channel& child = pre.at(d + 1);
      const chan::Alloc ka = co_await chan::talloc(l, cont, 1);  // sync: the continuation
      const std::uint64_t kaddr = ka.addr(cont, 0);
      co_await l.store<std::uint64_t>(kaddr, result);
      co_await l.store<std::uint32_t>(kaddr + 8, k);
      const chan::Alloc ca = co_await chan::talloc(l, child, k, true);  // spawn one task per safe column
      if (ca.split) {  // the wavefront's spawns exceed the channel: in rounds, the continuation last
        co_await chan::in_rounds(l, child, k, [&](Lane& lr, chan::Alloc a) -> Task<> {
          for (std::uint32_t i = 0; i < k; ++i) {
            const Board nb = b.with(s.n, d, safe[i]);
            const std::uint64_t at = a.addr(child, i);
            co_await lr.store<std::uint64_t>(at, kaddr + 12 + 4 * i);
            co_await lr.store<std::uint32_t>(at + 8, nb.cols);
            co_await lr.store<std::uint32_t>(at + 12, nb.d1);
            co_await lr.store<std::uint32_t>(at + 16, nb.d2);
          }
          co_await chan::enq(lr, child, a);
        });
        co_await chan::enq(l, cont, ka);
      } else {
        for (std::uint32_t i = 0; i < k; ++i) {
          const Board nb = b.with(s.n, d, safe[i]);
          const std::uint64_t a = ca.addr(child, i);
          co_await l.store<std::uint64_t>(a, kaddr + 12 + 4 * i);
          co_await l.store<std::uint32_t>(a + 8, nb.cols);
          co_await l.store<std::uint32_t>(a + 12, nb.d1);
          co_await l.store<std::uint32_t>(a + 16, nb.d2);
        }
        co_await chan::enq(l, cont, ka);
        co_await chan::enq(l, child, ca);
      }
    }
  }
  co_await chan::tfree(l, in, ce);
}

Task<> queens_sync(Lane& l, const cilk::Stack& post, std::uint32_t d, std::uint32_t off) {
  chan::Channel& in = post.at(d);
  const chan::Ce ce = co_await chan::deq(l, in, off);
  const std::uint64_t parent = co_await l.load<std::uint64_t>(ce.addr);
  const std::uint32_t k = co_await l.load<std::uint32_t>(ce.addr + 8);
  std::uint32_t sum = 0;
  for (std::uint32_t i = 0; i < k; ++i) sum += co_await l.load<std::uint32_t>(ce.addr + 12 + 4 * i);
  co_await l.store<std::uint32_t>(parent, sum);
  co_await chan::tfree(l, in, ce);
}

void queens(Host& h) {
  const Shape s{static_cast<std::uint32_t>(kN.get(h.config())), static_cast<std::uint32_t>(kBaseRows.get(h.config()))};
  const std::string mech = kMechanism.get(h.config());
  queens::refuse_scheduled_keys(h.config(), mech);
  if (mech != "channels" && h.config().set_by_user(kCapacity.name()))
    throw UserError(fmt::format("{}: a channel setting (queens.mechanism=channels; it is {})", kCapacity.name(), mech));
  if (mech == "forkjoin") {
    if (h.config().set_by_user(kBaseRows.name()))
      throw UserError(fmt::format("{}: queens.mechanism=forkjoin has no base rows (its cutoff is queens.cutoff)",
                                  kBaseRows.name()));
    std::uint64_t squares = 0;
    return fj::queens_app(h, s.n, complete(s.n, 0, Board{}, squares));
  }
  if (h.config().set_by_user("queens.cutoff"))
    throw UserError(fmt::format("queens.cutoff: a fork-join setting (queens.mechanism=forkjoin; it is {})", mech));
  if (mech != "channels") {
    std::uint64_t squares = 0;
    return queens::run_scheduled(h, mech, s.n, s.base, complete(s.n, 0, Board{}, squares));
  }
  const auto cap = static_cast<std::uint32_t>(kCapacity.get(h.config()));
  const std::uint64_t res = h.upload(std::vector<std::uint32_t>{0});
  flow::Graph g(h, kCapacity.name());
  // Tasks at rows 0..n-base (the last are base cases); continuations at rows
  // 0..n-base-1.
  const std::uint32_t spawn_levels = s.n > s.base ? s.n - s.base + 1 : 1;
  const std::uint32_t cont_levels = s.n > s.base ? s.n - s.base : 1;
  cilk::Stack pre, post;
  post = cilk::make_stack(
      g, "queens_sync", kContBytes, cap, cont_levels,
      [&post](std::uint32_t d) {
        return [&post, d](Lane& l, std::uint32_t off) { return queens_sync(l, post, d, off); };
      },
      15, ContextSize{856, 5, 5, 1});  // Table 3: 5s/5d/1c
  pre = cilk::make_stack(
      g, "queens", kTaskBytes, cap, spawn_levels,
      [&pre, &post, s](std::uint32_t d) {
        return [&pre, &post, s, d](Lane& l, std::uint32_t off) { return queens_spawn(l, s, pre, post, d, off); };
      },
      32, ContextSize{856, 16, 8, 3});  // Table 3: 16s/8d/3c
  g.aggregator().set_scheduler(std::make_unique<cilk::LevelScheduler>(std::vector{pre}, std::vector{post}));
  struct Root {
    std::uint64_t result;
    std::uint32_t cols, d1, d2, pad[3];
  };
  static_assert(sizeof(Root) == kTaskBytes);
  g.host_enq(pre.at(0), Root{res, 0, 0, 0, {}});
  const Tick elapsed = cilk::run(g);
  const std::uint64_t got = h.download<std::uint32_t>(res, 1)[0];
  std::uint64_t squares = 0;
  const std::uint64_t want = complete(s.n, 0, Board{}, squares);
  h.check(got == want, fmt::format("queens: device count for {}x{} = {} vs host {}", s.n, s.n, got, want));
  h.result("solutions", got);
  cilk::report(h, g, elapsed);
  h.output() << got << "\n";
}

// ---- queens-flat: the conventional version (Table 4) ----
//
// GPGPU-Sim's N-queens (NQU: nqueen.cu of the ISPASS 2009 benchmarks, Ping-Che
// Chen 2008) flattens the recursion. The host places the first rows (`mark`:
// n - 10 when n > 11, else 2) with the first queen in the left half of the
// first row only, and each work-item completes one such board with an
// iterative bit-mask backtracking loop whose whole stack (mask, left and right
// diagonals, tried columns; ten levels) lives in shared memory. The boards go
// out in batches of `steps` (24,576), each one launch of steps / 96 blocks of
// 96 threads (THREAD_NUM) whatever the number of boards in it; a block sums its
// threads' counts in shared memory (a tree with a barrier per step) and thread
// 0 stores it. The count is doubled (mirror images), and for odd n a second
// pass with the first queen in the middle column adds its count once.
// queens_flat.style=compact keeps the earlier kernel: every first-row column,
// the top of the stack in registers (two 64-bit LDS words per level below
// it), a per-thread count, one launch sized to the boards.
const Param<std::uint64_t> kFlatN{"queens_flat.n", 13, "", "board size (Table 4: as queens, 13)", {{2}, {16}}};
const Param<std::uint64_t> kFlatRows{
    "queens_flat.prefix_rows",
    0,
    "rows",
    "rows placed on the host, one work-item per resulting board; 0: NQU's rule (n - 10 when n > 11, else 2; "
    "nqueen.cu)",
    {{0}, {8}}};
const Param<std::uint64_t> kFlatSteps{"queens_flat.steps",
                                      24576,
                                      "boards",
                                      "boards per launch (NQU's `steps`, default 24,576: 256 blocks of 96); a "
                                      "multiple of 96 (style nqu)",
                                      {{96}, {1u << 24}}};
const Param<std::string> kFlatStyle{"queens_flat.style", "nqu", std::vector<std::string>{"nqu", "compact"},
                                    "nqu: GPGPU-Sim's nqueen.cu as it runs (half the first row doubled, stack in "
                                    "shared memory, fixed-size launches, block sums); compact: the earlier kernel "
                                    "(every first-row column, top of stack in registers, one launch)"};
constexpr std::uint32_t kFlatGroup = 96;  // NQU's THREAD_NUM
constexpr std::uint32_t kNquLevels = 10;  // NQU's shared arrays: [THREAD_NUM][10]

struct FlatBoard {
  std::uint32_t ld, rd, col, pad;
};

// Boards with `rows` queens placed from `b` (row r placed so far); the first
// row limited to the columns in `first` when r == 0.
void prefixes(std::uint32_t n, std::uint32_t rows, std::uint32_t r, FlatBoard b, std::vector<FlatBoard>& out,
              std::uint32_t first = ~0u) {
  if (r == rows) {
    out.push_back(b);
    return;
  }
  const std::uint32_t all = (1u << n) - 1;
  for (std::uint32_t free = all & ~(b.ld | b.rd | b.col) & (r == 0 ? first : ~0u); free;) {
    const std::uint32_t q = free & (~free + 1);
    free ^= q;
    prefixes(n, rows, r + 1, FlatBoard{((b.ld | q) << 1) & all, (b.rd | q) >> 1, b.col | q, 0}, out);
  }
}

Task<> queens_flat_kernel(Lane& l, std::uint64_t boards, std::uint64_t counts, std::uint32_t nb, std::uint32_t n,
                          std::uint32_t start) {
  const std::uint32_t id = l.global_id();
  if (id >= nb) co_return;
  const std::uint64_t w = co_await l.load<std::uint64_t>(boards + 16ull * id);
  std::uint32_t ld = static_cast<std::uint32_t>(w), rd = static_cast<std::uint32_t>(w >> 32);
  std::uint32_t col = co_await l.load<std::uint32_t>(boards + 16ull * id + 8);
  const std::uint32_t all = (1u << n) - 1;
  const std::uint32_t slot = l.local_id() * (n + 1) * 16;  // this work-item's stack
  std::uint32_t row = start, free = all & ~(ld | rd | col), count = 0;
  for (;;) {
    co_await l.alu(3);  // test free, branch
    if (free != 0 && row + 1 < n) {
      const std::uint32_t q = free & (~free + 1);
      free ^= q;
      // Push this row's state, place q, go down.
      co_await l.lds_store<std::uint64_t>(slot + row * 16, ld | std::uint64_t{rd} << 32);
      co_await l.lds_store<std::uint64_t>(slot + row * 16 + 8, col | std::uint64_t{free} << 32);
      ld = ((ld | q) << 1) & all, rd = (rd | q) >> 1, col |= q;
      ++row;
      free = all & ~(ld | rd | col);
      co_await l.alu(8);
      continue;
    }
    if (free != 0) {  // the last row: every free column is a solution
      count += static_cast<std::uint32_t>(std::popcount(free));
      free = 0;
      co_await l.alu(2);
    }
    if (row == start) break;
    --row;  // pop
    const std::uint64_t a = co_await l.lds_load<std::uint64_t>(slot + row * 16);
    const std::uint64_t b = co_await l.lds_load<std::uint64_t>(slot + row * 16 + 8);
    ld = static_cast<std::uint32_t>(a), rd = static_cast<std::uint32_t>(a >> 32);
    col = static_cast<std::uint32_t>(b), free = static_cast<std::uint32_t>(b >> 32);
  }
  co_await l.store<std::uint32_t>(counts + 4ull * id, count);
}

// NQU's shared memory: mask, l_mask, r_mask, m as [THREAD_NUM][10] words, then sum[THREAD_NUM].
constexpr std::uint32_t nqu_at(std::uint32_t array, std::uint32_t tid, std::uint32_t level) {
  return 4 * (array * kFlatGroup * kNquLevels + tid * kNquLevels + level);
}
constexpr std::uint32_t kNquSum = 4 * 4 * kFlatGroup * kNquLevels;
constexpr std::uint32_t kNquLds = kNquSum + 4 * kFlatGroup;

// solve_nqueen_cuda_kernel: `mark` levels below the host's rows; every stack
// access is a shared-memory access, as in the CUDA source.
Task<> nqu_kernel(Lane& l, std::uint64_t masks, std::uint64_t results, std::uint32_t nb, std::uint32_t n,
                  std::uint32_t mark) {
  enum { kMask, kLeft, kRight, kTried };
  const std::uint32_t tid = l.local_id(), idx = l.global_id();
  const std::uint32_t t_mask = (1u << n) - 1;
  std::uint32_t total = 0;
  co_await l.alu(6);  // ids, t_mask, the bound test
  if (idx < nb) {
    const std::uint32_t mask = co_await l.load<std::uint32_t>(masks + 4ull * idx);
    const std::uint32_t lm = co_await l.load<std::uint32_t>(masks + 4ull * (nb + idx));
    const std::uint32_t rm = co_await l.load<std::uint32_t>(masks + 4ull * (2ull * nb + idx));
    co_await l.lds_store<std::uint32_t>(nqu_at(kMask, tid, 0), mask);
    co_await l.lds_store<std::uint32_t>(nqu_at(kLeft, tid, 0), lm);
    co_await l.lds_store<std::uint32_t>(nqu_at(kRight, tid, 0), rm);
    co_await l.alu(2);
    co_await l.lds_store<std::uint32_t>(nqu_at(kTried, tid, 0), mask | lm | rm);
    std::int32_t i = 0;
    for (;;) {
      co_await l.alu(1);  // while (i >= 0)
      if (i < 0) break;
      const auto u = static_cast<std::uint32_t>(i);
      const std::uint32_t m = co_await l.lds_load<std::uint32_t>(nqu_at(kTried, tid, u));
      co_await l.alu(2);  // (m & t_mask) == t_mask
      if ((m & t_mask) == t_mask) {
        --i;
        co_await l.alu(1);
        continue;
      }
      const std::uint32_t index = (m + 1) & ~m;
      co_await l.alu(3);
      co_await l.lds_store<std::uint32_t>(nqu_at(kTried, tid, u), m | index);
      co_await l.alu(2);  // (index & t_mask) != 0
      if ((index & t_mask) == 0) {
        --i;
        co_await l.alu(1);
        continue;
      }
      co_await l.alu(2);  // i + 1 == mark
      if (u + 1 == mark) {
        ++total;
        --i;
        co_await l.alu(2);
        continue;
      }
      const std::uint32_t pm = co_await l.lds_load<std::uint32_t>(nqu_at(kMask, tid, u));
      const std::uint32_t pl = co_await l.lds_load<std::uint32_t>(nqu_at(kLeft, tid, u));
      const std::uint32_t pr = co_await l.lds_load<std::uint32_t>(nqu_at(kRight, tid, u));
      const std::uint32_t nm = pm | index, nl = (pl | index) << 1, nr = (pr | index) >> 1;
      co_await l.alu(5);
      co_await l.lds_store<std::uint32_t>(nqu_at(kMask, tid, u + 1), nm);
      co_await l.lds_store<std::uint32_t>(nqu_at(kLeft, tid, u + 1), nl);
      co_await l.lds_store<std::uint32_t>(nqu_at(kRight, tid, u + 1), nr);
      co_await l.lds_store<std::uint32_t>(nqu_at(kTried, tid, u + 1), nm | nl | nr);
      ++i;
      co_await l.alu(1);
    }
  }
  co_await l.lds_store<std::uint32_t>(kNquSum + 4 * tid, total);
  co_await l.barrier();
  // The block's sum: a tree over shared memory, a barrier after every step.
  if (tid < 64 && tid + 64 < kFlatGroup) {
    const std::uint32_t a = co_await l.lds_load<std::uint32_t>(kNquSum + 4 * tid);
    const std::uint32_t b = co_await l.lds_load<std::uint32_t>(kNquSum + 4 * (tid + 64));
    co_await l.lds_store<std::uint32_t>(kNquSum + 4 * tid, a + b);
  }
  co_await l.barrier();
  for (std::uint32_t s = 32; s >= 1; s /= 2) {
    if (tid < s) {
      const std::uint32_t a = co_await l.lds_load<std::uint32_t>(kNquSum + 4 * tid);
      const std::uint32_t b = co_await l.lds_load<std::uint32_t>(kNquSum + 4 * (tid + s));
      co_await l.lds_store<std::uint32_t>(kNquSum + 4 * tid, a + b);
    }
    co_await l.barrier();
  }
  if (tid == 0) {
    const std::uint32_t sum = co_await l.lds_load<std::uint32_t>(kNquSum);
    co_await l.store<std::uint32_t>(results + 4ull * l.group_id(), sum);
  }
}

struct FlatRun {
  std::uint64_t count = 0, kernels = 0, boards = 0, wavefronts = 0;
  double ns = 0;
};

// NQU's batches of `steps` boards: one launch of steps / 96 blocks each.
void nqu_pass(Host& h, const std::vector<FlatBoard>& boards, std::uint32_t n, std::uint32_t mark, std::uint32_t steps,
              FlatRun& run) {
  const std::uint32_t blocks = steps / kFlatGroup;
  for (std::size_t from = 0; from < boards.size(); from += steps) {
    const auto nb = static_cast<std::uint32_t>(std::min<std::size_t>(steps, boards.size() - from));
    std::vector<std::uint32_t> m(3ull * nb);
    for (std::uint32_t i = 0; i < nb; ++i) {
      const FlatBoard& b = boards[from + i];
      m[i] = b.col, m[nb + i] = b.ld, m[2ull * nb + i] = b.rd;
    }
    const std::uint64_t dm = h.upload(m), dr = h.upload(std::vector<std::uint32_t>(blocks, 0));
    const auto t = h.run_kernel({"nqueen", std::uint64_t{steps}, kFlatGroup, 32, kNquLds,
                                 [=](Lane& l) { return nqu_kernel(l, dm, dr, nb, n, n - mark); }});
    run.ns += t.to_seconds() * 1e9;
    for (const std::uint32_t c : h.download<std::uint32_t>(dr, blocks)) run.count += c;
    ++run.kernels;
    run.boards += nb;
    run.wavefronts += std::uint64_t{blocks} * ((kFlatGroup + 63) / 64);
  }
}

void queens_flat(Host& h) {
  const auto n = static_cast<std::uint32_t>(kFlatN.get(h.config()));
  auto rows = static_cast<std::uint32_t>(kFlatRows.get(h.config()));
  if (rows == 0) rows = n > 11 ? n - 10 : 2;
  if (rows >= n) throw UserError(fmt::format("{}={}: must be below queens_flat.n={}", kFlatRows.name(), rows, n));
  const bool nqu = kFlatStyle.get(h.config()) == "nqu";
  const auto steps = static_cast<std::uint32_t>(kFlatSteps.get(h.config()));
  FlatRun run;
  if (nqu) {
    if (steps % kFlatGroup != 0)
      throw UserError(
          fmt::format("{}={}: must be a multiple of {} (NQU's THREAD_NUM)", kFlatSteps.name(), steps, kFlatGroup));
    if (n - rows > kNquLevels)
      throw UserError(fmt::format("{}={} with queens_flat.n={}: NQU's stack holds {} levels (n - rows at most)",
                                  kFlatRows.name(), rows, n, kNquLevels));
    // The left half of the first row, counted twice (mirror images); for
    // odd n the middle column once.
    std::vector<FlatBoard> left, middle;
    prefixes(n, rows, 0, FlatBoard{}, left, (1u << (n / 2)) - 1);
    nqu_pass(h, left, n, rows, steps, run);
    run.count *= 2;
    if (n % 2 == 1) {
      prefixes(n, rows, 0, FlatBoard{}, middle, 1u << (n / 2));
      nqu_pass(h, middle, n, rows, steps, run);
    }
  } else {
    std::vector<FlatBoard> boards;
    prefixes(n, rows, 0, FlatBoard{}, boards);
    const auto nb = static_cast<std::uint32_t>(boards.size());
    const std::uint64_t db = h.upload(boards), dc = h.upload(std::vector<std::uint32_t>(nb, 0));
    const auto t = h.run_kernel({"queens_flat", nb, kFlatGroup, 32, kFlatGroup * (n + 1) * 16,
                                 [=](Lane& l) { return queens_flat_kernel(l, db, dc, nb, n, rows); }});
    for (const std::uint32_t c : h.download<std::uint32_t>(dc, nb)) run.count += c;
    run.ns = t.to_seconds() * 1e9;
    run.kernels = 1;
    run.boards = nb;
    run.wavefronts = std::uint64_t{(nb + kFlatGroup - 1) / kFlatGroup} * ((kFlatGroup + 63) / 64);
  }
  std::uint64_t squares = 0;
  const std::uint64_t want = complete(n, 0, Board{}, squares);
  h.check(run.count == want, fmt::format("queens-flat: device count for {}x{} = {} vs host {}", n, n, run.count, want));
  h.result("solutions", run.count);
  h.result("prefix_rows", std::uint64_t{rows});
  h.result("boards", run.boards);
  h.result("launches", run.kernels);
  h.result("kernel_ns", run.ns);
  h.result("wavefronts", run.wavefronts);
  h.output() << run.count << "\n";
}

// The two channel stacks as queens() makes them, and the spill blocks of their kernels.
std::uint64_t channel_bytes(const Config& c) {
  const auto n = static_cast<std::uint32_t>(kN.get(c)), base = static_cast<std::uint32_t>(kBaseRows.get(c));
  const std::uint64_t cap = kCapacity.get(c);
  return cilk::stack_bytes(c, kTaskBytes, cap, n > base ? n - base + 1 : 1) +
         cilk::stack_bytes(c, kContBytes, cap, n > base ? n - base : 1) +
         flow::spill_bytes(c, ContextSize{856, 16, 8, 3});
}

const RegisterWorkload kReg{
    {"queens",
     "N-queens: Cilk on channel stacks with levelized scheduling and yield (Orr et al. Sec. 7.1), or fork-join, "
     "worklist, persistent or cooperative versions (queens.mechanism)",
     "", queens,
     [](const Config& c) {
       const std::string m = kMechanism.get(c);
       const auto n = static_cast<std::uint32_t>(kN.get(c));
       if (m == "forkjoin") return fj::runtime_bytes(c, 20, n, fj::queens_local_slots(n));
       if (m == "channels") return channel_bytes(c);
       return queens::scheduled_bytes(c, m, n, static_cast<std::uint32_t>(kBaseRows.get(c)));
     },
     [](const Config& c) {
       const std::string m = kMechanism.get(c);
       if (m == "forkjoin") return std::vector<std::string>{fj::kName};
       if (m == "hwwl") return std::vector<std::string>{wl::Worklist::kName};
       if (m == "coop") return std::vector<std::string>{coop::Scheduler::kName};
       if (m == "channels") return flow::mechanisms(c);
       return std::vector<std::string>{};
     }}};
const RegisterWorkload kRegFlat{{"queens-flat",
                                 "conventional N-queens as GPGPU-Sim's NQU: host-placed prefixes, a shared-memory "
                                 "stack per work-item, fixed-size launches (Orr et al. Table 4)",
                                 "", queens_flat, nullptr}};

}  // namespace
}  // namespace fg
