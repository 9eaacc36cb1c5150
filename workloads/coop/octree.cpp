// SPDX-License-Identifier: Apache-2.0
// octree: the work-stealing octree partitioning of the cooperative-kernel
// paper (Sorensen, Evrard, Donaldson, FSE 2017, Table 1 and Sec. 5; after
// Cederman and Tsigas), in its two versions: `octree.mechanism=persistent`, a
// persistent kernel of `octree.groups` workgroups (resident capacity by
// default), and `coop`, the same kernel as a cooperative kernel in which
// workgroup 0 calls request_fork and every other workgroup offer_kill at the
// top of the work loop (Table 1: 1 kill, 1 fork, no resizing barrier).
// docs/cooperative.md, "octree".
//
// Work items are cells ("tasks"): a centre, w (the prototype's middle.w: the
// cell's half-size is 2w, its octants' centres are the centre +-w), which of
// the two particle buffers holds the cell's particles (flip), their range
// [beg, end) and the base of the cell's 8 slots in the tree array. Each
// workgroup owns one LIFO pool of tasks in device memory (an array, a head
// index and a CAS spin lock). A workgroup pops from its own pool first, then
// steals from the others in order; it counts the particles of the cell per
// octant (LDS atomics), takes a prefix sum and scatters them into the other
// buffer. An octant with more than `octree.max_children` particles becomes a
// child task (8 tree slots from the treeSize counter, pushed to the
// workgroup's own pool, or the next one with room); the others are leaves:
// their particles go back to the first buffer, their count to particlesDone
// and their tree slot holds 0x80000000 | count. Workgroups stop when they
// find no task and particlesDone has reached the particle count.
//
// Departures from the prototype (docs/cooperative.md says why): an empty pool
// is skipped by a plain read of its head before its lock is taken (a task is
// still only taken under the lock); every pool full is a simulated fault
// (exit 3) naming the pool and octree.pool_size, not the prototype's silent
// early end (it set particlesDone = n); a depth limit (octree.max_depth) ends
// the subdivision of coincident particles; the particle generator is ours
// (the prototype's shadows its x offset).
#include <algorithm>
#include <array>
#include <bit>
#include <cstring>
#include <map>
#include <string>
#include <tuple>
#include <variant>
#include <vector>

#include <fmt/format.h>

#include "coop/coop.h"
#include "gpu/dispatcher.h"
#include "gpu/host.h"
#include "gpu/kernel.h"
#include "mem/memory_system.h"
#include "runtime/coop.h"
#include "runtime/coop_host.h"
#include "runtime/grid_barrier.h"
#include "sim/config.h"
#include "sim/error.h"
#include "sim/workload.h"

namespace fg {
namespace {

// ---- parameters (the paper's inputs: the prototype's octree.h, digest 4.6) --

const Param<std::string> kMechanism{"octree.mechanism", "persistent", std::vector<std::string>{"persistent", "coop"},
                                    "persistent: a persistent kernel of octree.groups workgroups with a plain grid "
                                    "barrier after the initialisation; coop: the cooperative kernel, workgroup 0 "
                                    "calls request_fork and the others offer_kill at the top of the work loop "
                                    "(Sorensen et al. Table 1)"};
// The paper's input is 3,000,000 particles (Sec. 5.1); 30,000 (1/100) keeps a
// run at a few seconds of host time on 4-8 CUs.
const Param<std::uint64_t> kParticles{
    "octree.particles", 30000, "", "particles (the paper's 3,000,000 scaled by 1/100)", {{1}, {1u << 24}}};
const Param<std::uint64_t> kMaxChildren{"octree.max_children",
                                        5,
                                        "",
                                        "an octant with more particles than this is subdivided (the prototype's "
                                        "maxChildren, 5)",
                                        {{0}, {1u << 24}}};
// The prototype's 50,000 tasks per pool for 3 M particles, scaled by the
// particle count (30,000 / 3,000,000 x 50,000 = 500) and rounded up to 512.
const Param<std::uint64_t> kPoolSize{"octree.pool_size",
                                     512,
                                     "tasks",
                                     "tasks per workgroup pool (the prototype's 50,000 for 3 M particles, scaled "
                                     "to 512 for 30,000); all pools full is a simulated fault",
                                     {{1}, {1u << 24}}};
const Param<std::int64_t> kGroups{"octree.groups",
                                  0,
                                  "",
                                  "workgroups, one pool each (0: the resident capacity, the most the persistent "
                                  "version's barrier allows; -k: that minus k)",
                                  {{-1e6}, {1e6}}};
const Param<std::uint64_t> kGroupSize{
    "octree.group_size", 128, "", "work-items per workgroup (the paper's runs: 128)", {{8}, {1024}}};
const Param<std::uint64_t> kClusterSize{
    "octree.cluster_size", 100, "", "particles per cluster (the prototype's 100)", {{1}, {1u << 24}}};
const Param<double> kCube{
    "octree.cube", 400.0, "", "cluster centres uniform in [-cube, cube]^3 (the prototype's 400)", {{0}, {1e6}}};
const Param<double> kSpread{"octree.spread",
                            50.0,
                            "",
                            "particles uniform within +-spread of their cluster centre per axis (the prototype's 50)",
                            {{0}, {1e6}}};
// With the root's w = 256 = 2^8, centres at depth d are multiples of 2^(8-d)
// below 2^10: exact in a float (24 bits) to depth 22.
const Param<std::uint64_t> kMaxDepth{"octree.max_depth",
                                     20,
                                     "",
                                     "depth limit (a guard against coincident particles, ours): an octant at this "
                                     "depth is a leaf whatever its count",
                                     {{1}, {22}}};

// The prototype's constants: the first tree slots given out (treeSize's
// start) and the root's w.
constexpr std::uint32_t kTreeStart = 100;
constexpr float kRootW = 256.0f;
constexpr std::uint32_t kLeaf = 0x80000000u;
constexpr std::uint32_t kUnwritten = 0xffffffffu;  // a tree slot nobody wrote
// Backoffs (assumed): a taken lock is retried after kLockBackoff cycles, a
// workgroup that found no task looks again after kIdleSleep cycles.
constexpr std::uint64_t kLockBackoff = 16;
constexpr std::uint64_t kIdleSleep = 200;
// Instructions to place a particle in an octant (3 compares, 2 adds) and to
// build a child task.
constexpr std::uint64_t kBoxInstr = 5, kChildInstr = 12;

// Fault codes the kernel records (the host turns them into a SimFault).
constexpr std::uint32_t kFaultPoolsFull = 1, kFaultTree = 2;

// LDS of a workgroup: the task (4 words of 8 bytes), the loop's status, the
// counts and the prefix sums per octant.
constexpr std::uint32_t kLdsTask = 0, kLdsStatus = 32, kLdsCount = 64, kLdsSum = 96, kLdsBytes = 128;
constexpr std::uint32_t kNoTask = 0, kGotTask = 1, kStop = 2;

// ---- data ---------------------------------------------------------------------

// A particle in device memory: 16 bytes (the prototype's float4), the fourth
// word its index in the input (for the permutation check).
struct Particle {
  float x = 0, y = 0, z = 0;
  std::uint32_t id = 0;
};
static_assert(sizeof(Particle) == 16);

// A task in device memory and LDS: 32 bytes, moved as four 8-byte words.
struct Cell {
  float x = 0, y = 0, z = 0, w = 0;
  std::uint32_t beg = 0, end = 0, treepos = 0, meta = 0;  // meta: flip | depth << 1
  bool flip() const { return meta & 1; }
  std::uint32_t depth() const { return meta >> 1; }
};
static_assert(sizeof(Cell) == 32);
using Words = std::array<std::uint64_t, 4>;
Words to_words(const Cell& c) { return std::bit_cast<Words>(c); }
Cell from_words(const Words& w) { return std::bit_cast<Cell>(w); }

// The octant of a position relative to a centre (the prototype's whichbox):
// bit 0 x, bit 1 y, bit 2 z, set on the + side.
std::uint32_t whichbox(float x, float y, float z, const Cell& c) {
  return (x < c.x ? 0u : 1u) + (y < c.y ? 0u : 2u) + (z < c.z ? 0u : 4u);
}
// Octant `o` of cell `c`: its centre (w is its half-size).
std::array<float, 3> octant_centre(const Cell& c, std::uint32_t o) {
  return {(o & 1) ? c.x + c.w : c.x - c.w, (o & 2) ? c.y + c.w : c.y - c.w, (o & 4) ? c.z + c.w : c.z - c.w};
}
std::uint32_t box_of(std::uint64_t a, std::uint64_t b, const Cell& c) {
  return whichbox(std::bit_cast<float>(static_cast<std::uint32_t>(a)),
                  std::bit_cast<float>(static_cast<std::uint32_t>(a >> 32)),
                  std::bit_cast<float>(static_cast<std::uint32_t>(b)), c);
}

// The device's view: addresses and sizes (kernel arguments, immutable).
struct Dev {
  std::uint64_t particles[2] = {0, 0};  // [0] the input and result, [1] the other buffer
  std::uint64_t tree = 0, tree_size = 0, done = 0, fault = 0;
  std::uint64_t headers = 0, tasks = 0;  // per pool: a line {lock, head, high-water}; pool_size tasks
  std::uint32_t n = 0, max_children = 0, max_depth = 0, pools = 0, pool_size = 0, line = 0, tree_slots = 0;
  std::uint64_t lock(std::uint32_t p) const { return headers + std::uint64_t{p} * line; }
  std::uint64_t head(std::uint32_t p) const { return lock(p) + 4; }
  std::uint64_t high(std::uint32_t p) const { return lock(p) + 8; }
  std::uint64_t slot(std::uint32_t p, std::uint32_t i) const {
    return tasks + (std::uint64_t{p} * pool_size + i) * sizeof(Cell);
  }
};

// ---- device code ----------------------------------------------------------------

// The CAS spin lock of pool p (one lane).
Task<> lock_pool(Lane& l, const Dev& d, std::uint32_t p) {
  for (;;) {
    const std::uint32_t old = co_await l.atomic_cas<std::uint32_t>(d.lock(p), 0u, 1u);
    if (old == 0) break;
    co_await l.sleep(kLockBackoff);
  }
}
Task<> unlock_pool(Lane& l, const Dev& d, std::uint32_t p) { co_await l.store_release<std::uint32_t>(d.lock(p), 0u); }

// Pops the newest task of pool `own`, else of the pools after it in order
// (one lane). False: every pool was empty.
Task<bool> pop_task(Lane& l, const Dev& d, std::uint32_t own, Words& out) {
  for (std::uint32_t k = 0; k < d.pools; ++k) {
    const std::uint32_t p = (own + k) % d.pools;
    const std::uint32_t peek = co_await l.load<std::uint32_t>(d.head(p));
    if (peek == 0) continue;
    co_await lock_pool(l, d, p);
    const std::uint32_t head = co_await l.load<std::uint32_t>(d.head(p));
    if (head > 0) {
      for (std::uint32_t i = 0; i < 4; ++i) out[i] = co_await l.load<std::uint64_t>(d.slot(p, head - 1) + 8 * i);
      co_await l.store<std::uint32_t>(d.head(p), head - 1);
      co_await unlock_pool(l, d, p);
      co_return true;
    }
    co_await unlock_pool(l, d, p);
  }
  co_return false;
}

// Pushes a task to pool `own`, else to the next one with room (one lane).
// False: every pool was full.
Task<bool> push_task(Lane& l, const Dev& d, std::uint32_t own, const Words& t) {
  for (std::uint32_t k = 0; k < d.pools; ++k) {
    const std::uint32_t p = (own + k) % d.pools;
    co_await lock_pool(l, d, p);
    const std::uint32_t head = co_await l.load<std::uint32_t>(d.head(p));
    if (head < d.pool_size) {
      for (std::uint32_t i = 0; i < 4; ++i) co_await l.store<std::uint64_t>(d.slot(p, head) + 8 * i, t[i]);
      co_await l.store<std::uint32_t>(d.head(p), head + 1);
      const std::uint32_t high = co_await l.load<std::uint32_t>(d.high(p));
      if (head + 1 > high) co_await l.store<std::uint32_t>(d.high(p), head + 1);
      co_await unlock_pool(l, d, p);
      co_return true;
    }
    co_await unlock_pool(l, d, p);
  }
  co_return false;
}

// Records the first fault (one lane): its code, the pool and the workgroup.
Task<> record_fault(Lane& l, const Dev& d, std::uint32_t code, std::uint32_t pool) {
  const std::uint32_t old = co_await l.atomic_cas<std::uint32_t>(d.fault, 0u, code);
  if (old == 0) {
    co_await l.store<std::uint32_t>(d.fault + 4, pool);
    co_await l.store<std::uint32_t>(d.fault + 8, l.group_id());
  }
}

// Global thread 0's initialisation (the prototype's octree_init): empty every
// pool, reset the counters, push the root cell into pool 0.
Task<> init(Lane& l, const Dev& d) {
  for (std::uint32_t p = 0; p < d.pools; ++p) {
    co_await l.store<std::uint32_t>(d.lock(p), 0u);
    co_await l.store<std::uint32_t>(d.head(p), 0u);
    co_await l.store<std::uint32_t>(d.high(p), 0u);
  }
  co_await l.store<std::uint32_t>(d.tree_size, kTreeStart);
  co_await l.store<std::uint32_t>(d.done, 0u);
  co_await l.store<std::uint32_t>(d.fault, 0u);
  Cell root;
  root.w = kRootW;
  root.end = d.n;
  const Words t = to_words(root);
  for (std::uint32_t i = 0; i < 4; ++i) co_await l.store<std::uint64_t>(d.slot(0, 0) + 8 * i, t[i]);
  co_await l.store<std::uint32_t>(d.head(0), 1u);
  co_await l.store<std::uint32_t>(d.high(0), 1u);
  co_await l.fence_release();
}

// The kernel's synchronisation: a grid barrier (persistent) or the
// cooperative kernel's barrier (coop).
struct Plain {
  GridBarrier barrier;
  std::uint32_t groups = 0;
};
struct Coop {
  coop::Barrier barrier;
};
// The transmit block: octree needs no variable (Table 1: 0); the resume
// marker tells a forked workgroup from an initial one (coop::joined).
struct Vars {
  std::uint32_t resume = 1;
};

template <class Sync>
Task<> octree_kernel(Lane& l, Dev d, Sync s) {
  constexpr bool cooperative = std::is_same_v<Sync, Coop>;
  const std::uint32_t lid = l.local_id(), size = l.group_size();
  const std::uint32_t id = co_await l.get_group_id();
  const std::uint32_t own = id % d.pools;
  const Vars vars;
  bool forked = false;
  if constexpr (cooperative) forked = coop::joined(l);
  // Forked workgroups start in the loop: the initialisation and its barrier
  // are the initial workgroups' only.
  if (!forked) {
    if (id == 0 && lid == 0) co_await init(l, d);
    if constexpr (cooperative)
      co_await coop::global_barrier(l, s.barrier);
    else
      co_await grid_barrier(l, s.barrier, s.groups);
  }
  for (;;) {
    co_await l.barrier();  // the LDS of the previous task is read
    if constexpr (cooperative) {
      if (id == 0)
        co_await coop::request_fork(l, vars);
      else
        co_await coop::offer_kill(l);
    }
    // Thread 0 takes a task and shares it through the LDS.
    if (lid == 0) {
      Words t{};
      std::uint32_t status = kGotTask;
      const bool got = co_await pop_task(l, d, own, t);
      if (got) {
        for (std::uint32_t i = 0; i < 4; ++i) co_await l.lds_store<std::uint64_t>(kLdsTask + 8 * i, t[i]);
      } else {
        const std::uint32_t done = co_await l.load_acquire<std::uint32_t>(d.done);
        const std::uint32_t fault = co_await l.load_acquire<std::uint32_t>(d.fault);
        status = done >= d.n || fault != 0 ? kStop : kNoTask;
        if (status == kNoTask) co_await l.sleep(kIdleSleep);
      }
      co_await l.lds_store<std::uint32_t>(kLdsStatus, status);
    }
    co_await l.barrier();
    const std::uint32_t status = co_await l.lds_load<std::uint32_t>(kLdsStatus);
    if (status == kStop) break;
    if (status == kNoTask) continue;
    Words tw{};
    for (std::uint32_t i = 0; i < 4; ++i) tw[i] = co_await l.lds_load<std::uint64_t>(kLdsTask + 8 * i);
    const Cell t = from_words(tw);
    const std::uint64_t from = d.particles[t.flip() ? 1 : 0], to = d.particles[t.flip() ? 0 : 1];

    // Count the particles per octant.
    if (lid < 8) co_await l.lds_store<std::uint32_t>(kLdsCount + 4 * lid, 0u);
    co_await l.barrier();
    for (std::uint32_t i = t.beg + lid; i < t.end; i += size) {
      const std::uint64_t a = co_await l.load<std::uint64_t>(from + 16ull * i);
      const std::uint64_t b = co_await l.load<std::uint64_t>(from + 16ull * i + 8);
      co_await l.alu(kBoxInstr);
      co_await l.lds_atomic<std::uint32_t>(AtomicOp::Add, kLdsCount + 4 * box_of(a, b, t), 1u);
    }
    co_await l.barrier();
    // Inclusive prefix sum of the counts (lanes 0-7, one wavefront).
    if (lid < 8) {
      const std::uint32_t c = co_await l.lds_load<std::uint32_t>(kLdsCount + 4 * lid);
      const std::uint32_t sum = co_await l.prefix_sum_inclusive<std::uint32_t>(c);
      co_await l.lds_store<std::uint32_t>(kLdsSum + 4 * lid, sum);
    }
    co_await l.barrier();
    // Scatter into the other buffer; the sums end exclusive.
    for (std::uint32_t i = t.beg + lid; i < t.end; i += size) {
      const std::uint64_t a = co_await l.load<std::uint64_t>(from + 16ull * i);
      const std::uint64_t b = co_await l.load<std::uint64_t>(from + 16ull * i + 8);
      co_await l.alu(kBoxInstr);
      const std::uint32_t old =
          co_await l.lds_atomic<std::uint32_t>(AtomicOp::Add, kLdsSum + 4 * box_of(a, b, t), 0xffffffffu);
      const std::uint64_t dst = to + 16ull * (t.beg + old - 1);
      co_await l.store<std::uint64_t>(dst, a);
      co_await l.store<std::uint64_t>(dst + 8, b);
    }
    // The scattered particles are in memory before a child task that holds
    // them is pushed (an OpenCL barrier with a global fence).
    co_await l.fence_release();
    co_await l.barrier();
    // Per octant: a child task, or a leaf.
    for (std::uint32_t o = 0; o < 8; ++o) {
      const std::uint32_t count = co_await l.lds_load<std::uint32_t>(kLdsCount + 4 * o);
      const std::uint32_t first = t.beg + co_await l.lds_load<std::uint32_t>(kLdsSum + 4 * o);
      if (count > d.max_children && t.depth() + 1 < d.max_depth) {
        if (lid == 0) {
          co_await l.alu(kChildInstr);
          const std::uint32_t base = co_await l.atomic_add<std::uint32_t>(d.tree_size, 8u);
          if (base + 8 > d.tree_slots) {
            co_await record_fault(l, d, kFaultTree, own);
          } else {
            co_await l.store<std::uint32_t>(d.tree + 4ull * (t.treepos + o), base);
            const auto c = octant_centre(t, o);
            Cell child;
            child.x = c[0], child.y = c[1], child.z = c[2], child.w = t.w / 2;
            child.beg = first, child.end = first + count, child.treepos = base;
            child.meta = (t.flip() ? 0u : 1u) | (t.depth() + 1) << 1;  // the particles are in `to`
            const bool pushed = co_await push_task(l, d, own, to_words(child));
            if (!pushed) co_await record_fault(l, d, kFaultPoolsFull, own);
          }
        }
      } else {
        // A leaf: its particles back in the first buffer.
        if (!t.flip()) {
          for (std::uint32_t j = first + lid; j < first + count; j += size) {
            const std::uint64_t a = co_await l.load<std::uint64_t>(to + 16ull * j);
            const std::uint64_t b = co_await l.load<std::uint64_t>(to + 16ull * j + 8);
            co_await l.store<std::uint64_t>(d.particles[0] + 16ull * j, a);
            co_await l.store<std::uint64_t>(d.particles[0] + 16ull * j + 8, b);
          }
        }
        if (lid == 0) {
          co_await l.atomic_add<std::uint32_t>(d.done, count);
          co_await l.store<std::uint32_t>(d.tree + 4ull * (t.treepos + o), kLeaf | count);
        }
      }
    }
  }
}

// ---- host side ------------------------------------------------------------------

// A cell by its centre and half-size.
using Key = std::tuple<float, float, float, float>;

struct Leaf {
  std::uint32_t count = 0, depth = 0;
};
// The host's sequential build of the same octree.
struct Reference {
  std::map<Key, Leaf> leaves;
  std::vector<Key> leaf_of;  // per input particle
  std::uint32_t tasks = 0, depth = 0;
};

Reference build_reference(const std::vector<Particle>& in, std::uint32_t max_children, std::uint32_t max_depth) {
  Reference r;
  r.leaf_of.resize(in.size());
  struct Item {
    Cell cell;
    std::vector<std::uint32_t> ids;
  };
  std::vector<Item> stack;
  Item root;
  root.cell.w = kRootW;
  root.ids.resize(in.size());
  for (std::uint32_t i = 0; i < in.size(); ++i) root.ids[i] = i;
  stack.push_back(std::move(root));
  while (!stack.empty()) {
    Item t = std::move(stack.back());
    stack.pop_back();
    ++r.tasks;
    std::array<std::vector<std::uint32_t>, 8> part;
    for (std::uint32_t i : t.ids) part[whichbox(in[i].x, in[i].y, in[i].z, t.cell)].push_back(i);
    for (std::uint32_t o = 0; o < 8; ++o) {
      const auto c = octant_centre(t.cell, o);
      const std::uint32_t depth = t.cell.depth() + 1;
      if (part[o].size() > max_children && depth < max_depth) {
        Item child;
        child.cell.x = c[0], child.cell.y = c[1], child.cell.z = c[2], child.cell.w = t.cell.w / 2;
        child.cell.meta = depth << 1;
        child.ids = std::move(part[o]);
        stack.push_back(std::move(child));
      } else {
        const Key k{c[0], c[1], c[2], t.cell.w};
        r.leaves[k] = Leaf{static_cast<std::uint32_t>(part[o].size()), depth};
        r.depth = std::max(r.depth, depth);
        for (std::uint32_t i : part[o]) r.leaf_of[i] = k;
      }
    }
  }
  return r;
}

// The device's tree, walked from the root: every leaf with its particle
// range; `bad` says what was malformed.
struct DeviceLeaf {
  Key key;
  std::uint32_t beg = 0, count = 0, depth = 0;
};
struct Walk {
  std::vector<DeviceLeaf> leaves;
  std::uint32_t internal = 0;
  std::string bad;
};
std::uint32_t walk(const std::vector<std::uint32_t>& tree, std::uint32_t tree_size, const Cell& cell, std::uint32_t beg,
                   std::uint32_t max_depth, std::vector<bool>& seen, Walk& w) {
  ++w.internal;
  std::uint32_t total = 0;
  for (std::uint32_t o = 0; o < 8 && w.bad.empty(); ++o) {
    const std::uint32_t slot = tree[cell.treepos + o];
    const auto c = octant_centre(cell, o);
    const std::uint32_t depth = cell.depth() + 1;
    if (slot == kUnwritten) {
      w.bad = fmt::format("tree slot {} (octant {} of the cell at {} {} {}) was never written", cell.treepos + o, o,
                          cell.x, cell.y, cell.z);
    } else if (slot & kLeaf) {
      const std::uint32_t count = slot & ~kLeaf;
      w.leaves.push_back({Key{c[0], c[1], c[2], cell.w}, beg + total, count, depth});
      total += count;
    } else if (slot < kTreeStart || slot + 8 > tree_size || (slot - kTreeStart) % 8 != 0 || depth >= max_depth ||
               seen[(slot - kTreeStart) / 8]) {
      w.bad = fmt::format("tree slot {} points to {}, not a fresh block of 8 below treeSize {} (depth {})",
                          cell.treepos + o, slot, tree_size, depth);
    } else {
      seen[(slot - kTreeStart) / 8] = true;
      Cell child{c[0], c[1], c[2], cell.w / 2, 0, 0, slot, depth << 1};
      total += walk(tree, tree_size, child, beg + total, max_depth, seen, w);
    }
  }
  return total;
}

std::vector<Particle> generate(Host& h, std::uint32_t n, std::uint32_t cluster, float cube, float spread) {
  // Uniform in [0, 1) from the run's generator (53 bits; not the library's
  // distributions, whose output may differ between standard libraries).
  auto u = [&h] { return static_cast<double>(h.rng()() >> 11) * 0x1.0p-53; };
  std::vector<Particle> p(n);
  float cx = 0, cy = 0, cz = 0;
  for (std::uint32_t i = 0; i < n; ++i) {
    if (i % cluster == 0) {
      cx = static_cast<float>((2 * u() - 1) * cube);
      cy = static_cast<float>((2 * u() - 1) * cube);
      cz = static_cast<float>((2 * u() - 1) * cube);
    }
    p[i].x = cx + static_cast<float>((2 * u() - 1) * spread);
    p[i].y = cy + static_cast<float>((2 * u() - 1) * spread);
    p[i].z = cz + static_cast<float>((2 * u() - 1) * spread);
    p[i].id = i;
  }
  return p;
}

std::uint64_t config_uint(const Config& c, const char* key, std::uint64_t fallback) {
  const ParamValue& v = c.value(key);
  if (const auto* u = std::get_if<std::uint64_t>(&v)) return *u;
  if (const auto* s = std::get_if<std::int64_t>(&v)) return static_cast<std::uint64_t>(std::max<std::int64_t>(*s, 0));
  return fallback;
}

// Device memory: two particle buffers, the tree (bounded by the tasks a
// depth-limited tree can have), the pools (at most every slot of the GPU).
std::uint64_t device_bytes(const Config& c) {
  const std::uint64_t n = kParticles.get(c), mc = kMaxChildren.get(c), depth = kMaxDepth.get(c);
  const std::uint64_t tasks = 1 + depth * (n / (mc + 1) + 1);
  const std::int64_t g = kGroups.get(c);
  const std::uint64_t groups = g > 0 ? static_cast<std::uint64_t>(g)
                                     : config_uint(c, "gpu.cus", 8) * config_uint(c, "gpu.cu.max_workgroups", 40);
  return 32 * n + 4 * (kTreeStart + 8 * tasks) + groups * (kPoolSize.get(c) * sizeof(Cell) + 256) + 4096;
}

void octree(Host& h) {
  const Config& cfg = h.config();
  const bool cooperative = kMechanism.get(cfg) == "coop";
  const auto n = static_cast<std::uint32_t>(kParticles.get(cfg));
  const auto max_children = static_cast<std::uint32_t>(kMaxChildren.get(cfg));
  const auto max_depth = static_cast<std::uint32_t>(kMaxDepth.get(cfg));
  const auto pool_size = static_cast<std::uint32_t>(kPoolSize.get(cfg));
  const auto group_size = static_cast<std::uint32_t>(kGroupSize.get(cfg));
  const std::vector<Particle> in = generate(h, n, static_cast<std::uint32_t>(kClusterSize.get(cfg)),
                                            static_cast<float>(kCube.get(cfg)), static_cast<float>(kSpread.get(cfg)));
  const Reference ref = build_reference(in, max_children, max_depth);

  KernelLaunch shape{"octree", 0, group_size, 16, kLdsBytes, {}};
  const std::uint32_t groups = coop::groups(h, shape, kGroups.get(cfg), cooperative);
  Dev d;
  d.n = n;
  d.max_children = max_children;
  d.max_depth = max_depth;
  d.pools = groups;
  d.pool_size = pool_size;
  d.line = h.memory().line_size();
  // The tree: the prototype's first 100 slots, then 8 per task; room for 64
  // tasks more than the host's build, so that a wrong tree is still checked.
  d.tree_slots = kTreeStart + 8 * (ref.tasks - 1) + 8 * 64;
  d.particles[0] = h.upload(in);
  d.particles[1] = h.upload(std::vector<Particle>(n));
  d.tree = h.upload(std::vector<std::uint32_t>(d.tree_slots, kUnwritten));
  d.tree_size = h.upload(std::vector<std::uint32_t>(d.line / 4, 0));
  d.done = h.upload(std::vector<std::uint32_t>(d.line / 4, 0));
  d.fault = h.upload(std::vector<std::uint32_t>(d.line / 4, 0));
  d.headers = h.upload(std::vector<std::uint32_t>(std::uint64_t{groups} * d.line / 4, 0));
  d.tasks = h.alloc(std::uint64_t{groups} * pool_size * sizeof(Cell));

  if (cooperative) {
    coop::run_cooperative(h, shape, groups, [&](const coop::Kernel& k) -> KernelBody {
      const Coop s{coop::Barrier::make(h, k, "octree")};
      return [d, s](Lane& l) { return octree_kernel(l, d, s); };
    });
  } else {
    const Plain s{GridBarrier::make(h, "octree"), groups};
    shape.body = [d, s](Lane& l) { return octree_kernel(l, d, s); };
    coop::run_persistent(h, shape, groups);
  }

  // A fault the kernel recorded.
  const auto fault = h.download<std::uint32_t>(d.fault, 3);
  const auto tree_size = h.download<std::uint32_t>(d.tree_size, 1)[0];
  if (fault[0] == kFaultPoolsFull) {
    std::uint32_t high = 0;
    const auto hdr = h.download<std::uint32_t>(d.headers, std::uint64_t{groups} * d.line / 4);
    for (std::uint32_t p = 0; p < groups; ++p) high = std::max(high, hdr[std::uint64_t{p} * d.line / 4 + 2]);
    throw SimFault(
        fmt::format("octree: task pool {} is full ({} of {} tasks), and so is every other of the {} pools, "
                    "when workgroup {} pushed a child task: raise octree.pool_size (now {})",
                    fault[1], high, pool_size, groups, fault[2], pool_size));
  }
  if (fault[0] == kFaultTree)
    throw SimFault(
        fmt::format("octree: the tree array overflowed ({} slots; treeSize reached {}) when workgroup {} "
                    "allocated a child's slots: the kernel made more tasks than the host's build ({})",
                    d.tree_slots, tree_size, fault[2], ref.tasks));

  const auto out = h.download<Particle>(d.particles[0], n);
  const auto tree = h.download<std::uint32_t>(d.tree, d.tree_slots);
  const auto done = h.download<std::uint32_t>(d.done, 1)[0];
  const auto hdr = h.download<std::uint32_t>(d.headers, std::uint64_t{groups} * d.line / 4);
  std::uint32_t high = 0;
  for (std::uint32_t p = 0; p < groups; ++p) high = std::max(high, hdr[std::uint64_t{p} * d.line / 4 + 2]);

  h.check(done == n, fmt::format("octree: particlesDone is {} of {} particles", done, n));
  Walk w;
  std::vector<bool> seen((d.tree_slots - kTreeStart) / 8 + 1, false);
  Cell root;
  root.w = kRootW;
  const std::uint32_t total = walk(tree, std::min(tree_size, d.tree_slots), root, 0, max_depth, seen, w);
  h.check(w.bad.empty(), "octree: the tree is well formed" + (w.bad.empty() ? std::string() : ": " + w.bad));
  h.check(total == n, fmt::format("octree: the leaf counts sum to {} of {} particles", total, n));
  h.check(w.internal == ref.tasks && tree_size == kTreeStart + 8 * (ref.tasks - 1),
          fmt::format("octree: {} tasks (treeSize {}) against the host build's {}", w.internal, tree_size, ref.tasks));
  std::uint32_t overfull = 0, guarded = 0, nonempty = 0;
  for (const DeviceLeaf& lf : w.leaves) {
    if (lf.count > max_children) (lf.depth >= max_depth ? guarded : overfull) += 1;
    nonempty += lf.count > 0;
  }
  h.check(overfull == 0,
          fmt::format("octree: {} leaves above the depth limit hold more than {} particles", overfull, max_children));
  // The particle array is a permutation of the input.
  std::vector<bool> present(n, false);
  std::uint32_t moved = 0;
  for (const Particle& p : out) {
    if (p.id >= n || present[p.id] || std::memcmp(&p, &in[p.id], sizeof p) != 0) {
      ++moved;
      continue;
    }
    present[p.id] = true;
  }
  h.check(moved == 0, fmt::format("octree: the particle array is a permutation of the input ({} entries lost, "
                                  "duplicated or altered)",
                                  moved));
  // Per leaf: the host's count, and its particles in its range.
  std::uint32_t wrong_count = 0, misplaced = 0;
  std::map<Key, const DeviceLeaf*> got;
  for (const DeviceLeaf& lf : w.leaves) {
    got[lf.key] = &lf;
    const auto r = ref.leaves.find(lf.key);
    if (r == ref.leaves.end() || r->second.count != lf.count) ++wrong_count;
    for (std::uint32_t j = lf.beg; j < lf.beg + lf.count && j < n; ++j)
      misplaced += out[j].id >= n || ref.leaf_of[out[j].id] != lf.key;
  }
  for (const auto& [k, lf] : ref.leaves) wrong_count += got.count(k) == 0;
  h.check(wrong_count == 0 && got.size() == w.leaves.size(),
          fmt::format("octree: every leaf (by centre and size) holds the host build's count ({} of {} leaves "
                      "differ)",
                      wrong_count, ref.leaves.size()));
  h.check(misplaced == 0, fmt::format("octree: every leaf's range holds its own particles ({} misplaced)", misplaced));

  h.result("particles", n);
  h.result("leaves", w.leaves.size());
  h.result("nonempty_leaves", nonempty);
  h.result("guarded_leaves", guarded);
  h.result("tasks", w.internal);
  h.result("depth", ref.depth);
  h.result("pools", groups);
  h.result("pool_high_water", high);
  std::vector<const DeviceLeaf*> sorted;
  for (const DeviceLeaf& lf : w.leaves) sorted.push_back(&lf);
  std::sort(sorted.begin(), sorted.end(), [](const DeviceLeaf* a, const DeviceLeaf* b) { return a->key < b->key; });
  for (const DeviceLeaf* lf : sorted)
    h.output() << fmt::format("{} {} {} {} {}\n", std::get<0>(lf->key), std::get<1>(lf->key), std::get<2>(lf->key),
                              std::get<3>(lf->key), lf->count);
}

const RegisterWorkload r{{"octree",
                          "work-stealing octree partitioning (Sorensen et al. Table 1): persistent or cooperative "
                          "(offer_kill / request_fork)",
                          "", octree, device_bytes, [](const Config& c) {
                            return kMechanism.get(c) == "coop" ? std::vector<std::string>{coop::Scheduler::kName}
                                                               : std::vector<std::string>{};
                          }}};

}  // namespace
}  // namespace fg
