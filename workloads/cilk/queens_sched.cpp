// SPDX-License-Identifier: Apache-2.0
// N-Queens on the worklists and on the cooperative kernel (issue 41, the
// cross-mechanism study; docs/workloads.md "queens"): the values swwl, hwwl,
// persistent and coop of `queens.mechanism`. The work is the channel
// version's (cilk/queens.cpp): a partial board with queens on rows 0..r-1
// expands into one child per safe square of row r while more than
// `queens.base_rows` rows are left, and otherwise completes its rows with the
// same serial search (queens::complete, charged per square tried). The work
// items are board IDs: the boards live in one array (16 bytes each: column
// and diagonal masks, the row) sized up front to the host's count of the
// boards the search makes (queens::boards, exact whatever the order); a board
// that expands takes k consecutive IDs from an allocation counter (one atomic
// add per board), stores its children there and hands their IDs to the
// scheduler. A base case adds its completions to the answer with one atomic
// add (none when it has none).
//
//   swwl        the shared software worklist, one step per row (the host
//               swaps the lists), one work-item per board (swwl::step and its
//               options: queens.swwl.push / threads / donate; WDO's estimate
//               of a board's work is the safe squares of its row);
//   hwwl        the hardware worklist in single-buffer mode (Sec. V-C): one
//               persistent kernel of every resident thread pulls board IDs
//               until DONE and pushes the children's (no rows: the search
//               has no order to keep);
//   persistent  work-stealing pools, one per workgroup (octree's scheme, the
//   / coop      cooperative-kernel paper's Table 1 pattern): thread 0 takes
//               up to a workgroup's worth of IDs from the top of its own pool
//               under the pool's lock, else from the others in order; every
//               thread expands one board; the workgroup's children go to its
//               own pool (or the next with room) under one lock; a count of
//               boards not yet finished ends the kernel. coop calls
//               request_fork in workgroup 0 and offer_kill in the others at
//               the top of the loop (no barrier in the kernel, as octree).
#include <fmt/format.h>

#include <algorithm>
#include <bit>
#include <string>
#include <type_traits>
#include <vector>

#include "cilk/queens.h"
#include "coop/coop.h"
#include "gpu/dispatcher.h"
#include "gpu/gpu.h"
#include "gpu/host.h"
#include "gpu/kernel.h"
#include "mem/memory_system.h"
#include "runtime/coop.h"
#include "runtime/coop_host.h"
#include "runtime/swwl.h"
#include "sim/config.h"
#include "sim/error.h"
#include "worklist/worklist.h"

namespace fg::queens {
namespace {

const swwl::Params kSw{"queens"};
const Param<std::int64_t> kGroups{"queens.groups",
                                  0,
                                  "",
                                  "persistent / coop: workgroups, one pool each (0: the resident capacity; -k: that "
                                  "minus k)",
                                  {{-1e6}, {1e6}}};
const Param<std::uint64_t> kGroupSize{"queens.group_size",
                                      128,
                                      "",
                                      "persistent / coop: work-items per workgroup, the boards a workgroup takes at "
                                      "once (the cooperative-kernel paper's runs: 128)",
                                      {{1}, {1024}}};
const Param<std::uint64_t> kPoolSize{"queens.pool_size",
                                     0,
                                     "boards",
                                     "persistent / coop: board IDs per workgroup pool (0: the host's count of the "
                                     "search's boards, so that no pool can fill); every pool full is a simulated "
                                     "fault",
                                     {{0}, {1u << 26}}};

constexpr std::uint32_t kBoardBytes = 16;
constexpr std::uint32_t kGroup = 256;  // swwl and hwwl work-items per workgroup (as bfs)
// Instructions: the column scan of an expanding board (as the channel
// version's), and building one child's masks.
constexpr std::uint64_t kScanPerColumn = 4, kChildInstr = 6;
// Back-offs (assumed, as octree's): a taken lock is retried after
// kLockBackoff cycles, a workgroup that found no board looks again after
// kIdleSleep cycles.
constexpr std::uint64_t kLockBackoff = 16, kIdleSleep = 200;
// Faults the kernels record (the host turns them into a SimFault).
constexpr std::uint32_t kFaultBoards = 1, kFaultPools = 2;

// ---- boards -------------------------------------------------------------------

void count_boards(std::uint32_t n, std::uint32_t base, std::uint32_t r, Board b, std::uint64_t& total) {
  ++total;
  if (n - r <= base) return;
  for (std::uint32_t c = 0; c < n; ++c)
    if (b.safe(n, r, c)) count_boards(n, base, r + 1, b.with(n, r, c), total);
}

// The device's view (kernel arguments, immutable).
struct Dev {
  std::uint64_t boards = 0, next = 0, answer = 0, fault = 0;
  std::uint32_t n = 0, base = 0, capacity = 0;
  std::uint64_t board(std::uint32_t id) const { return boards + std::uint64_t{kBoardBytes} * id; }
};

struct Loaded {
  Board b;
  std::uint32_t row = 0;
};

Task<Loaded> load_board(Lane& l, const Dev& d, std::uint32_t id) {
  const std::uint64_t w0 = co_await l.load<std::uint64_t>(d.board(id));
  const std::uint64_t w1 = co_await l.load<std::uint64_t>(d.board(id) + 8);
  co_return Loaded{
      Board{static_cast<std::uint32_t>(w0), static_cast<std::uint32_t>(w0 >> 32), static_cast<std::uint32_t>(w1)},
      static_cast<std::uint32_t>(w1 >> 32)};
}

// Records the first fault (one lane): its code and a detail word.
Task<> record_fault(Lane& l, const Dev& d, std::uint32_t code, std::uint32_t detail) {
  const std::uint32_t old = co_await l.atomic_cas<std::uint32_t>(d.fault, 0u, code);
  if (old == 0) co_await l.store<std::uint32_t>(d.fault + 4, detail);
}

// Board `id`'s work: the base case counts its completions; an expanding
// board stores its k children at k new IDs. Returns {first ID, k}.
struct Children {
  std::uint32_t first = 0, k = 0;
};
Task<Children> expand(Lane& l, const Dev& d, std::uint32_t id) {
  const Loaded x = co_await load_board(l, d, id);
  if (d.n - x.row <= d.base) {
    std::uint64_t squares = 0;
    const auto found = static_cast<std::uint32_t>(complete(d.n, x.row, x.b, squares));
    co_await l.alu(squares * kInstrPerSquare);
    if (found) co_await l.atomic_nr<std::uint32_t>(AtomicOp::Add, d.answer, found);
    co_return Children{};
  }
  std::uint32_t safe[32] = {};
  std::uint32_t k = 0;
  for (std::uint32_t c = 0; c < d.n; ++c)
    if (x.b.safe(d.n, x.row, c)) safe[k++] = c;
  co_await l.alu(std::uint64_t{d.n} * kScanPerColumn);
  if (k == 0) co_return Children{};
  const std::uint32_t first = co_await l.atomic_add<std::uint32_t>(d.next, k);
  if (std::uint64_t{first} + k > d.capacity) {
    co_await record_fault(l, d, kFaultBoards, first + k);
    co_return Children{};
  }
  for (std::uint32_t i = 0; i < k; ++i) {
    const Board c = x.b.with(d.n, x.row, safe[i]);
    co_await l.alu(kChildInstr);
    co_await l.store<std::uint64_t>(d.board(first + i), c.cols | std::uint64_t{c.d1} << 32);
    co_await l.store<std::uint64_t>(d.board(first + i) + 8, c.d2 | std::uint64_t{x.row + 1} << 32);
  }
  co_return Children{first, k};
}

// WDO's estimate of a board's work: the safe squares of its row.
Task<std::uint32_t> estimate(Lane& l, const Dev& d, std::uint32_t id) {
  const Loaded x = co_await load_board(l, d, id);
  std::uint32_t k = 0;
  for (std::uint32_t c = 0; c < d.n; ++c) k += x.b.safe(d.n, x.row, c);
  co_await l.alu(std::uint64_t{d.n} * kScanPerColumn);
  co_return k;
}

// ---- shared software worklist: one step per row -----------------------------

Task<> swwl_step(Lane& l, Dev d, swwl::Opts o, std::uint64_t in, std::uint32_t in_count, swwl::List out,
                 std::uint64_t donated) {
  swwl::Pusher p(o.push, {out});
  co_await swwl::step(
      l, o, in, in_count, donated, p, [&](Lane& lane, std::uint32_t id) { return estimate(lane, d, id); },
      [&](Lane& lane, std::uint32_t id, swwl::Pusher& pusher) -> Task<> {
        const Children c = co_await expand(lane, d, id);
        for (std::uint32_t i = 0; i < c.k; ++i) co_await pusher.push(lane, 0, c.first + i);
      });
}

// ---- hardware worklist: one persistent kernel, single-buffer mode -----------

Task<> hwwl_init(Lane& l, std::uint64_t overflow, std::uint64_t entries) {
  co_await wl::wl_cfg(l, false);
  co_await wl::wl_init(l, overflow, entries);
  if (l.global_id() == 0) co_await wl::wl_push(l, 0u);
}

Task<> hwwl_visit(Lane& l, const Dev& d, std::uint32_t id) {
  const Children c = co_await expand(l, d, id);
  for (std::uint32_t i = 0; i < c.k; ++i) co_await wl::wl_push(l, c.first + i);
}

// The pull at the loop's bottom, after the visit in this file (the min-PC
// rule; bfs_sssp.cpp's pull_loop says why).
Task<> hwwl_kernel(Lane& l, Dev d) {
  std::uint32_t id = co_await wl::wl_pull(l);
  for (;;) {
    if (id == wl::kDone) break;
    if (id != wl::kWait) co_await hwwl_visit(l, d, id);
    id = co_await wl::wl_pull_spin(l);
  }
}

// ---- work-stealing pools: persistent and cooperative ------------------------

// Pool p: a line {lock, head, high-water, steals} and pool_size IDs (a LIFO
// stack). The high-water mark and the steals (batches other workgroups took
// from it) are books for the results, kept under the lock in the line.
struct Pools {
  std::uint64_t headers = 0, ids = 0, pending = 0;
  std::uint32_t count = 0, size = 0, line = 0;
  std::uint64_t lock(std::uint32_t p) const { return headers + std::uint64_t{p} * line; }
  std::uint64_t head(std::uint32_t p) const { return lock(p) + 4; }
  std::uint64_t high(std::uint32_t p) const { return lock(p) + 8; }
  std::uint64_t steals(std::uint32_t p) const { return lock(p) + 12; }
  std::uint64_t slot(std::uint32_t p, std::uint32_t i) const { return ids + 4 * (std::uint64_t{p} * size + i); }
};

// LDS of a workgroup: the loop's status, the pool taken from, its first
// slot and the IDs taken, the children's count, the pool pushed to and its
// first slot.
constexpr std::uint32_t kLdsStatus = 0, kLdsPool = 4, kLdsFirst = 8, kLdsTaken = 12, kLdsChildren = 16, kLdsTarget = 20,
                        kLdsBase = 24, kLdsBytes = 32;
constexpr std::uint32_t kNone = 0, kGot = 1, kStop = 2;

Task<> lock_pool(Lane& l, const Pools& q, std::uint32_t p) {
  for (;;) {
    const std::uint32_t old = co_await l.atomic_cas<std::uint32_t>(q.lock(p), 0u, 1u);
    if (old == 0) break;
    co_await l.sleep(kLockBackoff);
  }
}
Task<> unlock_pool(Lane& l, const Pools& q, std::uint32_t p) { co_await l.store_release<std::uint32_t>(q.lock(p), 0u); }

// Thread 0: locks the first pool from `own` on that holds IDs (a plain read
// of its head first: an empty pool is skipped without its lock); returns its
// head, the pool in `p`; 0 with no pool locked when every pool is empty.
Task<std::uint32_t> lock_nonempty(Lane& l, const Pools& q, std::uint32_t own, std::uint32_t& p) {
  for (std::uint32_t k = 0; k < q.count; ++k) {
    p = (own + k) % q.count;
    const std::uint32_t peek = co_await l.load<std::uint32_t>(q.head(p));
    if (peek == 0) continue;
    co_await lock_pool(l, q, p);
    const std::uint32_t head = co_await l.load<std::uint32_t>(q.head(p));
    if (head > 0) co_return head;
    co_await unlock_pool(l, q, p);
  }
  co_return 0u;
}

// Thread 0: locks the first pool from `own` on with room for n more IDs;
// returns false (nothing locked) when every pool is too full.
Task<bool> lock_room(Lane& l, const Pools& q, std::uint32_t own, std::uint32_t n, std::uint32_t& p,
                     std::uint32_t& head) {
  for (std::uint32_t k = 0; k < q.count; ++k) {
    p = (own + k) % q.count;
    co_await lock_pool(l, q, p);
    head = co_await l.load<std::uint32_t>(q.head(p));
    if (std::uint64_t{head} + n <= q.size) co_return true;
    co_await unlock_pool(l, q, p);
  }
  co_return false;
}

struct Plain {};
struct Coop {};
// The transmit block: nothing to carry (a forked workgroup starts in the loop).
struct Vars {
  std::uint32_t resume = 1;
};

template <class Sync>
Task<> pool_kernel(Lane& l, Dev d, Pools q, Sync) {
  constexpr bool cooperative = std::is_same_v<Sync, Coop>;
  const std::uint32_t lid = l.local_id(), size = l.group_size();
  const std::uint32_t id = co_await l.get_group_id();
  const std::uint32_t own = id % q.count;
  const Vars vars;
  if (lid == 0) co_await l.lds_store<std::uint32_t>(kLdsChildren, 0u);  // LDS starts undefined
  for (;;) {
    co_await l.barrier();  // the previous round's LDS is read
    if constexpr (cooperative) {
      if (id == 0)
        co_await coop::request_fork(l, vars);
      else
        co_await coop::offer_kill(l);
    }
    // Thread 0 takes up to a workgroup's worth of IDs from the top of a pool;
    // the lock is held until every thread has loaded its ID.
    if (lid == 0) {
      std::uint32_t p = 0;
      const std::uint32_t head = co_await lock_nonempty(l, q, own, p);
      std::uint32_t status = kGot;
      if (head > 0) {
        const std::uint32_t take = std::min(head, size);
        co_await l.lds_store<std::uint32_t>(kLdsPool, p);
        co_await l.lds_store<std::uint32_t>(kLdsFirst, head - take);
        co_await l.lds_store<std::uint32_t>(kLdsTaken, take);
      } else {
        const std::uint32_t pending = co_await l.load_acquire<std::uint32_t>(q.pending);
        const std::uint32_t fault = co_await l.load_acquire<std::uint32_t>(d.fault);
        status = pending == 0 || fault != 0 ? kStop : kNone;
        if (status == kNone) co_await l.sleep(kIdleSleep);
      }
      co_await l.lds_store<std::uint32_t>(kLdsStatus, status);
    }
    co_await l.barrier();
    const std::uint32_t status = co_await l.lds_load<std::uint32_t>(kLdsStatus);
    if (status == kStop) break;
    if (status == kNone) continue;
    const std::uint32_t p = co_await l.lds_load<std::uint32_t>(kLdsPool);
    const std::uint32_t first = co_await l.lds_load<std::uint32_t>(kLdsFirst);
    const std::uint32_t taken = co_await l.lds_load<std::uint32_t>(kLdsTaken);
    std::uint32_t mine = 0;
    if (lid < taken) mine = co_await l.load<std::uint32_t>(q.slot(p, first + lid));
    co_await l.barrier();  // every ID loaded: the slots may be reused
    if (lid == 0) {
      co_await l.store<std::uint32_t>(q.head(p), first);
      if (p != own) co_await l.store<std::uint32_t>(q.steals(p), co_await l.load<std::uint32_t>(q.steals(p)) + 1);
      co_await unlock_pool(l, q, p);
    }
    // Every thread with an ID expands its board; the children's offsets in
    // the workgroup's batch from an LDS counter.
    Children c;
    std::uint32_t off = 0;
    if (lid < taken) {
      c = co_await expand(l, d, mine);
      if (c.k) off = co_await l.lds_atomic<std::uint32_t>(AtomicOp::Add, kLdsChildren, c.k);
    }
    co_await l.barrier();
    // Thread 0 locks a pool with room for the batch; the threads store their
    // children's IDs; thread 0 publishes them (head, pending) and unlocks.
    if (lid == 0) {
      const std::uint32_t total = co_await l.lds_load<std::uint32_t>(kLdsChildren);
      std::uint32_t target = 0, base = 0;
      std::uint32_t ok = 1;
      if (total > 0) {
        const bool room = co_await lock_room(l, q, own, total, target, base);
        if (!room) {
          co_await record_fault(l, d, kFaultPools, total);
          ok = 0;
        }
      }
      co_await l.lds_store<std::uint32_t>(kLdsTarget, ok ? target : ~0u);
      co_await l.lds_store<std::uint32_t>(kLdsBase, base);
    }
    co_await l.barrier();
    const std::uint32_t target = co_await l.lds_load<std::uint32_t>(kLdsTarget);
    if (target != ~0u && c.k) {
      const std::uint32_t base = co_await l.lds_load<std::uint32_t>(kLdsBase);
      for (std::uint32_t i = 0; i < c.k; ++i)
        co_await l.store<std::uint32_t>(q.slot(target, base + off + i), c.first + i);
      co_await l.fence_release();  // the IDs are in memory before the head says so
    }
    co_await l.barrier();
    if (lid == 0) {
      const std::uint32_t total = co_await l.lds_load<std::uint32_t>(kLdsChildren);
      if (target != ~0u && total > 0) {
        const std::uint32_t base = co_await l.lds_load<std::uint32_t>(kLdsBase);
        co_await l.store<std::uint32_t>(q.head(target), base + total);
        const std::uint32_t high = co_await l.load<std::uint32_t>(q.high(target));
        if (base + total > high) co_await l.store<std::uint32_t>(q.high(target), base + total);
      }
      // The children join the unfinished boards before they can be taken
      // (the unlock publishes them); the boards expanded leave.
      co_await l.atomic_nr<std::uint32_t>(AtomicOp::Add, q.pending, total - taken);
      if (target != ~0u && total > 0) co_await unlock_pool(l, q, target);
      co_await l.lds_store<std::uint32_t>(kLdsChildren, 0u);
    }
  }
}

std::uint64_t config_uint(const Config& c, const char* key, std::uint64_t fallback) {
  const ParamValue& v = c.value(key);
  if (const auto* u = std::get_if<std::uint64_t>(&v)) return *u;
  return fallback;
}

}  // namespace

std::uint64_t boards(std::uint32_t n, std::uint32_t base) {
  std::uint64_t total = 0;
  count_boards(n, base, 0, Board{}, total);
  return total;
}

void refuse_scheduled_keys(const Config& c, const std::string& mechanism) {
  kSw.get(c, "queens.mechanism", mechanism);  // swwl's keys: swwl only
  if (mechanism == "persistent" || mechanism == "coop") return;
  for (const std::string& k : {kGroups.name(), kGroupSize.name(), kPoolSize.name()})
    if (!c.is_default(k))
      throw UserError(fmt::format("{} (set by {}) does not apply: queens.mechanism is {}, not persistent or coop", k,
                                  c.origin(k), mechanism));
}

std::uint64_t scheduled_bytes(const Config& c, const std::string& mechanism, std::uint32_t n, std::uint32_t base) {
  const std::uint64_t total = boards(n, base);
  std::uint64_t bytes = kBoardBytes * total + 4096;
  if (mechanism == "swwl") bytes += 2 * 4 * total;  // two lists
  if (mechanism == "hwwl") bytes += 4 * total * config_uint(c, "gpu.cus", 8);
  if (mechanism == "persistent" || mechanism == "coop") {
    const std::int64_t g = kGroups.get(c);
    const std::uint64_t groups = g > 0 ? static_cast<std::uint64_t>(g)
                                       : config_uint(c, "gpu.cus", 8) * config_uint(c, "gpu.cu.max_workgroups", 40);
    const std::uint64_t pool = kPoolSize.get(c) ? kPoolSize.get(c) : total;
    bytes += groups * (4 * pool + 256);
  }
  return bytes;
}

void run_scheduled(Host& h, const std::string& mechanism, std::uint32_t n, std::uint32_t base, std::uint64_t want) {
  const Config& cfg = h.config();
  refuse_scheduled_keys(cfg, mechanism);
  const std::uint64_t total = boards(n, base);
  if (mechanism == "hwwl" && total > (1u << 24))
    throw UserError(
        fmt::format("queens.n={} with queens.base_rows={}: {} boards, more than the {} that the hardware "
                    "worklist's 24-bit work IDs name (raise queens.base_rows)",
                    n, base, total, 1u << 24));
  const std::uint32_t line = h.memory().line_size();
  Dev d;
  d.n = n;
  d.base = base;
  d.capacity = static_cast<std::uint32_t>(total);
  // The root (an empty board, row 0) at ID 0.
  std::vector<std::uint64_t> root(2 * total, 0);
  d.boards = h.upload(root);
  d.next = h.upload(std::vector<std::uint32_t>(line / 4, 0));
  const std::uint32_t one = 1;
  h.copy_in(d.next, &one, 4);
  d.answer = h.upload(std::vector<std::uint32_t>(line / 4, 0));
  d.fault = h.upload(std::vector<std::uint32_t>(line / 4, 0));
  double kernel_ns = 0;
  std::uint64_t steps = 0;

  if (mechanism == "swwl") {
    const swwl::Opts o = kSw.get(cfg, "queens.mechanism", mechanism);
    std::uint64_t in = h.upload(std::vector<std::uint32_t>(total, 0));  // ID 0: the root
    std::uint64_t out = h.alloc(4 * total);
    const std::uint64_t out_count = h.upload(std::vector<std::uint32_t>(line / 4, 0));
    const std::uint64_t donated = o.donate ? h.upload(std::vector<std::uint32_t>(1, 0)) : 0;
    for (std::uint32_t in_count = 1; in_count > 0; ++steps) {
      const std::uint32_t zero = 0;
      h.copy_in(out_count, &zero, 4);
      const swwl::List ol{out, out_count, static_cast<std::uint32_t>(total)};
      const auto t = h.run_kernel({"queens_swwl", swwl::threads(o, in_count), kGroup, 16, swwl::lds_bytes(o),
                                   [=](Lane& l) { return swwl_step(l, d, o, in, in_count, ol, donated); }});
      kernel_ns += t.to_seconds() * 1e9;
      std::uint32_t count = 0;
      h.copy_out(&count, out_count, 4);
      if (count > total)
        throw SimFault(fmt::format("queens: software worklist overflow: {} pushes in step {} into {} entries", count,
                                   steps, total));
      std::swap(in, out);
      in_count = count;
    }
    if (o.donate) h.result("donated", h.download<std::uint32_t>(donated, 1)[0]);
  } else if (mechanism == "hwwl") {
    wl::Worklist* unit = &h.gpu().get<wl::Worklist>("queens");
    const std::uint64_t threads = h.dispatcher().resident_capacity({"hwwl", 0, kGroup, 16, 0, {}}) * kGroup;
    const std::uint64_t overflow = h.alloc(4 * total * h.cus());
    h.run_kernel({"queens_hwwl_init", 1, kGroup, 4, 0, [=](Lane& l) { return hwwl_init(l, overflow, total); }});
    unit->kernel_done();
    const auto t = h.run_kernel({"queens_hwwl", threads, kGroup, 16, 0, [=](Lane& l) { return hwwl_kernel(l, d); }});
    unit->kernel_done();
    kernel_ns = t.to_seconds() * 1e9;
    steps = 1;
    if (unit->work_inside() != 0)
      throw SimFault(fmt::format("queens: the worklist kernel ended with {} work IDs inside ({})", unit->work_inside(),
                                 unit->where()));
  } else {
    const bool cooperative = mechanism == "coop";
    const auto group_size = static_cast<std::uint32_t>(kGroupSize.get(cfg));
    KernelLaunch shape{"queens_" + mechanism, 0, group_size, 16, kLdsBytes, {}};
    const std::uint32_t groups = coop::groups(h, shape, kGroups.get(cfg), cooperative);
    Pools q;
    q.count = groups;
    q.size = static_cast<std::uint32_t>(kPoolSize.get(cfg) ? kPoolSize.get(cfg) : total);
    q.line = line;
    std::vector<std::uint32_t> hdr(std::uint64_t{groups} * line / 4, 0);
    hdr[1] = hdr[2] = 1;  // pool 0 holds the root's ID
    q.headers = h.upload(hdr);
    q.ids = h.upload(std::vector<std::uint32_t>(std::uint64_t{groups} * q.size, 0));
    q.pending = h.upload(std::vector<std::uint32_t>(line / 4, 0));
    h.copy_in(q.pending, &one, 4);
    coop::Run r;
    if (cooperative) {
      r = coop::run_cooperative(h, shape, groups, [&](const coop::Kernel&) -> KernelBody {
        return [d, q](Lane& l) { return pool_kernel(l, d, q, Coop{}); };
      });
    } else {
      shape.body = [d, q](Lane& l) { return pool_kernel(l, d, q, Plain{}); };
      r = coop::run_persistent(h, shape, groups);
    }
    kernel_ns = r.kernel_ns;
    steps = 1;
    const auto hd = h.download<std::uint32_t>(q.headers, std::uint64_t{groups} * line / 4);
    std::uint32_t high = 0;
    std::uint64_t steals = 0;
    for (std::uint32_t p = 0; p < groups; ++p) {
      high = std::max(high, hd[std::uint64_t{p} * line / 4 + 2]);
      steals += hd[std::uint64_t{p} * line / 4 + 3];
    }
    const auto fault = h.download<std::uint32_t>(d.fault, 2);
    if (fault[0] == kFaultPools && fault[1] > q.size)
      throw SimFault(
          fmt::format("queens: a workgroup's batch of {} children is larger than a board pool ({} IDs): "
                      "raise queens.pool_size (now {})",
                      fault[1], q.size, kPoolSize.get(cfg)));
    if (fault[0] == kFaultPools)
      throw SimFault(
          fmt::format("queens: every one of the {} board pools is too full for a workgroup's {} children "
                      "(the pools' high-water mark: {} of {} IDs): raise queens.pool_size (now {})",
                      groups, fault[1], high, q.size, kPoolSize.get(cfg)));
    h.result("pools", groups);
    h.result("pool_high_water", high);
    h.result("steals", steals);
  }

  const auto fault = h.download<std::uint32_t>(d.fault, 2);
  if (fault[0] == kFaultBoards)
    throw SimFault(
        fmt::format("queens: the board array overflowed ({} boards, {} asked for): the device made "
                    "more boards than the host's search",
                    total, fault[1]));
  const std::uint32_t made = h.download<std::uint32_t>(d.next, 1)[0];
  const std::uint64_t got = h.download<std::uint32_t>(d.answer, 1)[0];
  h.check(got == want && made == total,
          fmt::format("queens ({}): device count for {}x{} = {} vs host {}; {} boards vs the host's {}", mechanism, n,
                      n, got, want, made, total));
  h.result("solutions", got);
  h.result("boards", made);
  h.result("steps", steps);
  h.result("kernel_ns", kernel_ns);
  h.output() << got << "\n";
}

}  // namespace fg::queens
