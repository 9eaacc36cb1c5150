// SPDX-License-Identifier: Apache-2.0
// tree: GTaP's synthetic task trees (Maeda & Taura 2026, Sec. 6.3, Figs.
// 7-9) on the fork-join runtime, with thread-level or block-level tasks
// (forkjoin.workers):
//   full    a full binary tree of depth D: a task spawns its two children,
//           waits for them, then does its work (a leaf only works);
//   pruned  a 3-ary tree whose child k of a node at depth d lives with
//           probability 1 - d/D (a hash of the node decides), the root's three
//           always: a task spawns its live children, waits when it spawned
//           any, then works.
// The work of a task, after its taskwait (the paper's work function): mem_ops
// loads of random elements of a 2^20-element array of doubles and
// compute_iters independent multiply-adds; block tasks split both loops over
// the workgroup's lanes and add their partial sums in LDS. Each task's value
// (the loads' sum in 2^-32 fixed point, xor the multiply-adds' bits) goes to
// out[node] (full) or is added into a 2^20-slot sink at a hash of the node
// (pruned: the paper's hashed sink, with an add so the result does not depend
// on the order of colliding tasks). Checked against the host: every slot.
#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdint>
#include <random>
#include <vector>

#include "forkjoin/apps.h"
#include "gpu/host.h"
#include "runtime/forkjoin.h"
#include "sim/config.h"
#include "sim/error.h"
#include "sim/workload.h"

namespace fg::fj {
namespace {

const Param<std::string> kShape{"tree.shape", "full", std::vector<std::string>{"full", "pruned"},
                                "full: binary tree of depth tree.depth (GTaP Fig. 7); pruned: 3-ary tree whose nodes "
                                "at depth d have each child with probability 1 - d/D (Fig. 8)"};
const Param<std::uint64_t> kDepth{
    "tree.depth",
    10,
    "",
    "depth D (the paper: 20 full, 32 pruned; scaled to simulable sizes: docs/forkjoin.md)",
    {{1}, {24}}};
const Param<std::uint64_t> kMemOps{"tree.mem_ops",
                                   256,
                                   "loads",
                                   "random 8-byte loads per task (the paper's default 256, Figs. 7-8)",
                                   {{0}, {1u << 16}}};
const Param<std::uint64_t> kCompute{
    "tree.compute_iters", 256, "", "multiply-adds per task (the paper's default 256, Figs. 7-8)", {{0}, {1u << 20}}};

constexpr std::uint32_t kInputBits = 20;  // 2^20 doubles (8 MiB), the paper's input
constexpr std::uint32_t kInputMask = (1u << kInputBits) - 1;
constexpr std::uint32_t kSinkMask = (1u << 20) - 1;  // the pruned tree's 2^20-slot sink
// Per load: the index's xorshift, multiply-add and mask, the address, the
// accumulate; per multiply-add iteration: the xorshift, add, convert, FMA
// and xor (the instructions of the paper's loops, assumed one each).
constexpr std::uint64_t kInstrPerLoad = 8, kInstrPerIter = 10;
constexpr std::uint32_t kUnroll = 4;  // loads in flight per lane (the compiler's unrolled loop; assumed)

std::uint32_t xorshift32(std::uint32_t s) {
  s ^= s << 13;
  s ^= s >> 17;
  s ^= s << 5;
  return s;
}
// murmur3's 32-bit finaliser: the pruned tree's node hash.
std::uint32_t hash32(std::uint32_t h) {
  h ^= h >> 16;
  h *= 0x85ebca6bu;
  h ^= h >> 13;
  h *= 0xc2b2ae35u;
  h ^= h >> 16;
  return h;
}
std::uint32_t seed_of(std::uint64_t node) { return xorshift32(static_cast<std::uint32_t>(node) ^ 0x9e3779b9u); }
std::uint32_t load_index(std::uint32_t seed, std::uint64_t m) {
  return xorshift32(seed + static_cast<std::uint32_t>(m) * 747796405u) & kInputMask;
}
std::int64_t fixed(double x) { return std::llround(x * 4294967296.0); }
std::uint32_t mix_of(std::uint32_t seed, std::uint64_t it) {
  const double y = std::fma(static_cast<double>(xorshift32(seed + static_cast<std::uint32_t>(it) * 747796405u)),
                            1.0000001192092896, 0.9999999403953552);
  return static_cast<std::uint32_t>(std::bit_cast<std::uint64_t>(y));
}
std::uint64_t sink_slot(std::uint64_t node) {
  return hash32(static_cast<std::uint32_t>(node ^ (node >> 32))) & kSinkMask;
}
// Whether the pruned tree's node `id` at depth d (of D) has child k.
std::uint32_t pruned_children(std::uint64_t id, std::uint32_t d, std::uint32_t depth) {
  std::uint32_t s = hash32(static_cast<std::uint32_t>(id) ^ (d * 0x9e3779b9u));
  std::uint32_t mask = 0;
  for (std::uint32_t k = 0; k < 3; ++k) {
    s = xorshift32(s + k);
    if (s % depth < depth - d) mask |= 1u << k;
  }
  return mask;
}

struct Shape {
  bool pruned = false;
  std::uint32_t depth = 0;
  std::uint64_t mem_ops = 0, compute = 0;
  std::uint64_t input = 0, out = 0;
};

// The host's value of a task.
std::uint64_t host_value(const Shape& s, const std::vector<double>& input, std::uint64_t node) {
  const std::uint32_t seed = seed_of(node);
  std::int64_t acc = 0;
  for (std::uint64_t m = 0; m < s.mem_ops; ++m) acc += fixed(input[load_index(seed, m)]);
  std::uint32_t mix = 0;
  for (std::uint64_t it = 0; it < s.compute; ++it) mix ^= mix_of(seed, it);
  return static_cast<std::uint64_t>(acc) ^ mix;
}

// A task's work on lane `l`: this lane's share of the loops (every lane of a
// block task; the whole loops for a thread task); returns its partial value.
Task<std::pair<std::int64_t, std::uint32_t>> work(Lane& l, const Shape& s, std::uint64_t node, std::uint32_t first,
                                                  std::uint32_t stride) {
  const std::uint32_t seed = seed_of(node);
  std::int64_t acc = 0;
  std::uint64_t m = first;
  for (; m < s.mem_ops; m += std::uint64_t{stride} * kUnroll) {
    Async<double> a[kUnroll];
    std::uint32_t n = 0;
    for (; n < kUnroll && m + std::uint64_t{n} * stride < s.mem_ops; ++n) {
      co_await l.alu(kInstrPerLoad);
      a[n] = co_await l.load_async<double>(s.input + 8ull * load_index(seed, m + std::uint64_t{n} * stride));
    }
    for (std::uint32_t i = 0; i < n; ++i) acc += fixed(co_await l.wait(a[i]));
  }
  std::uint32_t mix = 0;
  std::uint64_t iters = 0;
  for (std::uint64_t it = first; it < s.compute; it += stride, ++iters) mix ^= mix_of(seed, it);
  if (iters) co_await l.alu(kInstrPerIter * iters);
  co_return std::pair{acc, mix};
}

// The value to out[] or the sink.
Task<void> deliver(Lane& l, const Shape& s, std::uint64_t node, std::uint64_t v) {
  if (s.pruned)
    co_await l.atomic_nr<std::uint64_t>(AtomicOp::Add, s.out + 8ull * sink_slot(node), v);
  else
    co_await l.store<std::uint64_t>(s.out + 8ull * node, v);
}

Fn<void> tree_task(Ctx& t, const Shape* s, std::uint64_t node, std::uint32_t d) {
  const bool spawner = !t.block() || t.lane().local_id() == 0;
  if (spawner && d < s->depth) {
    if (s->pruned) {
      const std::uint32_t live = pruned_children(node, d, s->depth);
      co_await t.lane().alu(12);  // the hash and three draws
      for (std::uint32_t k = 0; k < 3; ++k)
        if (live >> k & 1) co_await t.spawn(tree_task, s, node * 3 + k + 1, d + 1);
    } else {
      co_await t.spawn(tree_task, s, 2 * node + 1, d + 1);
      co_await t.spawn(tree_task, s, 2 * node + 2, d + 1);
    }
  }
  co_await t.taskwait();
  if (!t.block()) {
    const auto [acc, mix] = co_await work(t.lane(), *s, node, 0, 1);
    co_await deliver(t.lane(), *s, node, static_cast<std::uint64_t>(acc) ^ mix);
    co_return;
  }
  // A block task: every lane's share, then a tree reduction in the task's LDS.
  Lane& l = t.lane();
  const std::uint32_t i = l.local_id(), g = l.group_size();
  const auto [acc, mix] = co_await work(l, *s, node, i, g);
  co_await l.lds_store<std::int64_t>(t.lds() + 16 * i, acc);
  co_await l.lds_store<std::uint32_t>(t.lds() + 16 * i + 8, mix);
  co_await l.barrier();
  for (std::uint32_t half = std::bit_ceil(g) / 2; half; half /= 2) {
    if (i < half && i + half < g) {
      const auto a = co_await l.lds_load<std::int64_t>(t.lds() + 16 * (i + half));
      const auto x = co_await l.lds_load<std::uint32_t>(t.lds() + 16 * (i + half) + 8);
      const auto b = co_await l.lds_load<std::int64_t>(t.lds() + 16 * i);
      const auto y = co_await l.lds_load<std::uint32_t>(t.lds() + 16 * i + 8);
      co_await l.lds_store<std::int64_t>(t.lds() + 16 * i, a + b);
      co_await l.lds_store<std::uint32_t>(t.lds() + 16 * i + 8, x ^ y);
    }
    co_await l.barrier();
  }
  if (i == 0) {
    const auto a = co_await l.lds_load<std::int64_t>(t.lds());
    const auto x = co_await l.lds_load<std::uint32_t>(t.lds() + 8);
    co_await deliver(l, *s, node, static_cast<std::uint64_t>(a) ^ x);
  }
}

void tree(Host& h) {
  const Config& cfg = h.config();
  Shape s;
  s.pruned = kShape.get(cfg) == "pruned";
  s.depth = static_cast<std::uint32_t>(kDepth.get(cfg));
  s.mem_ops = kMemOps.get(cfg);
  s.compute = kCompute.get(cfg);
  if (!s.pruned && s.depth > 22)
    throw UserError(
        fmt::format("tree.depth={}: a full tree deeper than 22 (8M tasks) is "
                    "beyond what the model simulates",
                    s.depth));
  // The input: 2^20 doubles uniform in [-1, 1) (the paper draws them from
  // mt19937_64 with seed 0xC0FFEE; ours from the run's seed).
  std::vector<double> input(1u << kInputBits);
  std::uniform_real_distribution<double> u(-1.0, 1.0);
  for (double& x : input) x = u(h.rng());
  s.input = h.upload(input);
  // The host's tasks and values.
  std::vector<std::uint64_t> want;
  std::uint64_t tasks = 0;
  if (s.pruned) {
    want.assign(kSinkMask + 1, 0);
    std::vector<std::pair<std::uint64_t, std::uint32_t>> stack{{0, 0}};
    while (!stack.empty()) {
      const auto [id, d] = stack.back();
      stack.pop_back();
      ++tasks;
      want[sink_slot(id)] += host_value(s, input, id);
      if (d < s.depth) {
        const std::uint32_t live = pruned_children(id, d, s.depth);
        for (std::uint32_t k = 0; k < 3; ++k)
          if (live >> k & 1) stack.emplace_back(id * 3 + k + 1, d + 1);
      }
    }
  } else {
    tasks = (2ull << s.depth) - 1;
    want.resize(tasks);
    for (std::uint64_t n = 0; n < tasks; ++n) want[n] = host_value(s, input, n);
  }
  s.out = h.alloc(8 * want.size());
  static const std::array<std::uint64_t, 4096> kZeros{};
  for (std::size_t i = 0; i < want.size(); i += kZeros.size())
    h.copy_in(s.out + 8 * i, kZeros.data(), 8 * std::min(kZeros.size(), want.size() - i));
  Program p;
  p.name = "tree";
  p.block_ok = true;
  p.max_children = s.pruned ? 3 : 2;                             // GTAP_MAX_CHILD_TASKS in the paper's trees
  p.payload = s.pruned || !block_workers(cfg, false) ? 24 : 16;  // GTAP_MAX_TASK_DATA_SIZE: 24 B, 16 B block full
  p.first_finish = !s.pruned;                                    // Fig. 7 ran FIRST_TASK_FINISH, Fig. 8 ALL
  // A block task's partial sums: 16 bytes per lane.
  const std::uint64_t size = std::get<std::uint64_t>(cfg.value("forkjoin.group_size"));
  p.task_lds = block_workers(cfg, false) ? 16 * static_cast<std::uint32_t>(size ? size : 256) : 0;
  const RunInfo r = run(h, p, tree_task, static_cast<const Shape*>(&s), std::uint64_t{0}, 0u);
  const auto got = h.download<std::uint64_t>(s.out, want.size());
  std::uint64_t bad = 0;
  for (std::size_t i = 0; i < want.size(); ++i) bad += got[i] != want[i];
  h.check(bad == 0,
          fmt::format("tree: {} of {} {} differ from the host's", bad, want.size(), s.pruned ? "sink slots" : "nodes"));
  h.result("tasks", tasks);
  (void)r;
  h.output() << tasks << "\n";
}

std::uint64_t tree_bytes(const Config& cfg) {
  const bool pruned = kShape.get(cfg) == "pruned";
  const std::uint64_t d = kDepth.get(cfg);
  const std::uint64_t out = pruned ? (kSinkMask + 1ull) : (d <= 22 ? (2ull << d) : 0);
  return 8ull * (1u << kInputBits) + 8 * out + runtime_bytes(cfg, 24, pruned ? 3 : 2);
}

const RegisterWorkload kReg{{"tree",
                             "GTaP's synthetic task trees (full binary, pruned 3-ary) with memory and compute work per "
                             "task, on the fork-join runtime (thread or block workers)",
                             "", tree, tree_bytes, [](const Config&) { return std::vector<std::string>{kName}; }}};

}  // namespace
}  // namespace fg::fj
