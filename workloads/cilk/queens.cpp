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
// search every run.
#include <fmt/format.h>

#include <bit>
#include <cstdint>
#include <memory>
#include <vector>

#include "cilk/cilk.h"
#include "forkjoin/apps.h"
#include "gpu/host.h"
#include "runtime/channel.h"
#include "runtime/forkjoin.h"
#include "sim/config.h"
#include "sim/error.h"
#include "sim/workload.h"

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
const Param<std::string> kMechanism{"queens.mechanism", "channels", std::vector<std::string>{"channels", "forkjoin"},
                                    "channels: Cilk on channel stacks (Orr et al.); forkjoin: spawn-only tasks on "
                                    "the fork-join runtime (GTaP, docs/forkjoin.md)"};

// The base case's search, per square tried: three mask tests, the branch,
// the mask updates or the return (an assumption about the compiled loop).
constexpr std::uint64_t kInstrPerSquare = 8;

// CEs. Pre-spawn (32 B): u64 result slot, u32 cols, u32 diag1, u32 diag2.
// Continuation (64 B): u64 parent slot, u32 k, u32 count[13].
constexpr std::uint32_t kTaskBytes = 32, kContBytes = 64;

struct Board {
  std::uint32_t cols = 0, d1 = 0, d2 = 0;
  bool safe(std::uint32_t n, std::uint32_t r, std::uint32_t c) const {
    return !(cols >> c & 1) && !(d1 >> (r + c) & 1) && !(d2 >> (r + n - c) & 1);
  }
  Board with(std::uint32_t n, std::uint32_t r, std::uint32_t c) const {
    return Board{cols | 1u << c, d1 | 1u << (r + c), d2 | 1u << (r + n - c)};
  }
};

// Completions of rows r..n-1; `squares` counts the squares tried.
std::uint64_t complete(std::uint32_t n, std::uint32_t r, Board b, std::uint64_t& squares) {
  if (r == n) return 1;
  std::uint64_t total = 0;
  for (std::uint32_t c = 0; c < n; ++c) {
    ++squares;
    if (b.safe(n, r, c)) total += complete(n, r + 1, b.with(n, r, c), squares);
  }
  return total;
}

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
      const chan::Alloc ca = co_await chan::talloc(l, child, k);  // spawn one task per safe column
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
  if (kMechanism.get(h.config()) == "forkjoin") {
    for (const char* key : {kCapacity.name().c_str(), kBaseRows.name().c_str()})
      if (h.config().set_by_user(key))
        throw UserError(
            fmt::format("{}: queens.mechanism=forkjoin has no channels (its cutoff is queens.cutoff)", key));
    std::uint64_t squares = 0;
    return fj::queens_app(h, s.n, complete(s.n, 0, Board{}, squares));
  }
  if (h.config().set_by_user("queens.cutoff"))
    throw UserError("queens.cutoff: a fork-join setting (queens.mechanism=forkjoin)");
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
// GPGPU-Sim's N-queens (NQU, from the ISPASS 2009 benchmarks) flattens the
// recursion: the host places the first rows, and each work-item completes one
// such board with an iterative bit-mask backtracking loop whose stack lives in
// LDS, 96 work-items a workgroup. Here: `queens_flat.prefix_rows` rows placed
// on the host; per level the stack holds {left diagonals, right diagonals,
// columns, untried columns} in two 64-bit LDS words.
const Param<std::uint64_t> kFlatN{"queens_flat.n", 13, "", "board size (Table 4: as queens, 13)", {{2}, {16}}};
const Param<std::uint64_t> kFlatRows{
    "queens_flat.prefix_rows",
    3,
    "rows",
    "rows placed on the host, one work-item per resulting board (an assumption; docs/channels.md)",
    {{1}, {8}}};
constexpr std::uint32_t kFlatGroup = 96;  // NQU's THREAD_NUM

struct FlatBoard {
  std::uint32_t ld, rd, col, pad;
};

void prefixes(std::uint32_t n, std::uint32_t rows, std::uint32_t r, FlatBoard b, std::vector<FlatBoard>& out) {
  if (r == rows) {
    out.push_back(b);
    return;
  }
  const std::uint32_t all = (1u << n) - 1;
  for (std::uint32_t free = all & ~(b.ld | b.rd | b.col); free;) {
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

void queens_flat(Host& h) {
  const auto n = static_cast<std::uint32_t>(kFlatN.get(h.config()));
  const auto rows = static_cast<std::uint32_t>(kFlatRows.get(h.config()));
  if (rows >= n) throw UserError(fmt::format("{}={}: must be below queens_flat.n={}", kFlatRows.name(), rows, n));
  std::vector<FlatBoard> boards;
  prefixes(n, rows, 0, FlatBoard{}, boards);
  const auto nb = static_cast<std::uint32_t>(boards.size());
  const std::uint64_t db = h.upload(boards), dc = h.upload(std::vector<std::uint32_t>(nb, 0));
  const auto t = h.run_kernel({"queens_flat", nb, kFlatGroup, 32, kFlatGroup * (n + 1) * 16,
                               [=](Lane& l) { return queens_flat_kernel(l, db, dc, nb, n, rows); }});
  std::uint64_t got = 0;
  for (const std::uint32_t c : h.download<std::uint32_t>(dc, nb)) got += c;
  std::uint64_t squares = 0;
  const std::uint64_t want = complete(n, 0, Board{}, squares);
  h.check(got == want, fmt::format("queens-flat: device count for {}x{} = {} vs host {}", n, n, got, want));
  h.result("solutions", got);
  h.result("boards", std::uint64_t{nb});
  h.result("kernel_ns", t.to_seconds() * 1e9);
  h.result("wavefronts", std::uint64_t{(nb + kFlatGroup - 1) / kFlatGroup * ((kFlatGroup + 63) / 64)});
  h.output() << got << "\n";
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
    {"queens", "Cilk N-queens on channel stacks with levelized scheduling and yield (Orr et al. Sec. 7.1)", "", queens,
     [](const Config& c) {
       return kMechanism.get(c) == "forkjoin" ? fj::runtime_bytes(c, 20, static_cast<std::uint32_t>(kN.get(c)),
                                                                  static_cast<std::uint32_t>(kN.get(c)))
                                              : channel_bytes(c);
     },
     [](const Config& c) {
       return kMechanism.get(c) == "forkjoin" ? std::vector<std::string>{fj::kName} : flow::mechanisms(c);
     }}};
const RegisterWorkload kRegFlat{{"queens-flat",
                                 "conventional N-queens, host-placed prefixes and an LDS stack per work-item "
                                 "(GPGPU-Sim NQU; Orr et al. Table 4)",
                                 "", queens_flat, nullptr}};

}  // namespace
}  // namespace fg
