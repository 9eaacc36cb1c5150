// SPDX-License-Identifier: Apache-2.0
// bfs and sssp (the worklist paper, Sec. II and Table II; LonestarGPU's BFS
// and SSSP) on a graph file or a generated graph (workloads/inputs/).
//
// Variants (`bfs.mechanism`, `sssp.mechanism`; their old name `<w>.variant` is an alias):
//   topo  topology-driven (the paper's Fig. 1, left): every super-step
//         launches one work-item per node; a node whose value changed last
//         step (bfs: whose level is the current one; sssp: every reached
//         node) relaxes its out-arcs. Steps repeat until nothing changes.
//   swwl  data-driven with a shared software worklist (Fig. 1, right; the
//         paper's baseline with atomics): a double-buffered worklist in
//         memory; one work-item per item pulls a node and relaxes its arcs;
//         a node whose value improved is pushed with an atomic add on the
//         out-list's count (sssp: at most once per step, by an atomic
//         exchange on a per-node stamp). The host swaps the lists between
//         steps until the out-list is empty.
//   hwwl  data-driven with the hardware worklist (systemc/worklist/), in
//         double-buffer mode as the paper runs it: an initialization kernel
//         configures it and pushes the source; each step launches persistent
//         threads (every wavefront slot) that pull until DONE and push the
//         nodes whose distance improved; the partitions swap after each
//         kernel; pushes to full banks spill to the overflow buffer that
//         the initialization kernel gives wlinit (`<w>.hwwl.overflow`);
//         `<w>.hwwl.buffer=single` runs one persistent kernel instead.
//         swwl's options (Sec. II-D, Table II; runtime/swwl.h, shared with
//         mst, bh, dmr and sp): `<w>.swwl.push` atomic / chunk (WCH) / aru
//         (ARU), `<w>.swwl.threads` 0 (one work-item per item: VKC) or a
//         fixed count with even shares, `<w>.swwl.donate` (WDO; a node's
//         estimated work is its degree).
//   forkjoin asynchronous search as spawn-only tasks on the fork-join
//         runtime (GTaP, docs/forkjoin.md; the cross-mechanism study):
//         a task relaxes a node's arcs with the node's distance at its
//         spawn and spawns a task for every neighbour it improved; no
//         levels, no barrier (label-correcting: a node reached again by a
//         shorter path runs again, a task whose node has since improved
//         ends at once). A node of more than kFjArcs arcs is split in
//         halves by child tasks.
//   channels the same asynchronous search as a channel-flow graph (Orr et
//         al. Sec. 4.2; the cross-mechanism study): one channel of frontier
//         CEs (the fork-join task's payload) consumed by one kernel node
//         that puts the neighbours it improved back into it; the aggregator
//         dispatches wavefronts of CEs as they arrive.
//
// Every atomic on a neighbour's distance is guarded by a plain load, as in
// LonestarGPU's kernels (`if (dist[dst] == INF && atomicCAS(...) == INF)`,
// sssp: `if (alt < dist[dst]) atomicMin(...)`): the atomic goes to the L2
// only when it may change the value (`<w>.check_first`; false: an atomic on
// every arc). A stale L1 copy is never wrong in the unsafe direction: bfs
// levels are set once and sssp distances only fall, so a stale value at
// worst sends an atomic that changes nothing.
//
// The instructions between the memory operations (`<w>.alu`): lonestar (the
// default) charges what LonestarGPU 2.0's kernels execute besides them, per
// node, per arc and per push, counted in their PTX (docs/worklists.md, "ALU
// work per arc"); none charges only sssp's relaxation add (the kernels before
// that count, kept as an ablation).
//
// Every run compares the distances with a host BFS / Dijkstra; `--output FILE`
// writes one line per node: its id in the input's numbering and its distance,
// or `unreachable`.
#include <algorithm>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "aggregator/aggregator.h"
#include "cilk/cilk.h"
#include "coop/coop.h"
#include "coop/lonestar.h"
#include "gpu/dispatcher.h"
#include "gpu/gpu.h"
#include "gpu/host.h"
#include "gpu/kernel.h"
#include "inputs/graph_params.h"
#include "runtime/channel.h"
#include "runtime/flow.h"
#include "runtime/forkjoin.h"
#include "runtime/swwl.h"
#include "sim/config.h"
#include "sim/error.h"
#include "sim/workload.h"
#include "worklist/worklist.h"

namespace fg {
namespace {

using graph::Graph;
using graph::kUnreached;

constexpr std::uint32_t kGroup = 256;  // work-items per workgroup (LonestarGPU's BLOCKSIZE is 256 or 384)

struct Workload {
  const char* name;
  bool weighted;  // sssp: weights and atomic min; bfs: levels
  graph::GraphParams graph;
  Param<std::string> variant;  // <workload>.mechanism
  ParamAlias old_name;         // <workload>.variant, its name until the mechanisms shared one key
  Param<std::int64_t> source;
  // The software worklist's options (Sec. II; swwl only).
  swwl::Params sw;
  // The hardware worklist's overflow buffer and buffering mode (hwwl only).
  Param<std::int64_t> overflow;
  Param<std::string> buffer;
  // The plain load before each atomic on a neighbour (every variant with one).
  Param<bool> check_first;
  // The instructions between the memory operations (lonestar / none).
  Param<std::string> alu;
  // The persistent kernel of the cooperative-kernel paper (persistent, coop only).
  Param<std::int64_t> groups;
  Param<std::uint64_t> group_size;
  // The frontier channel's capacity (channels only).
  Param<std::uint64_t> capacity;
};

Workload make(const char* name, bool weighted) {
  const std::string n = name;
  return Workload{
      name,
      weighted,
      graph::GraphParams{name},
      Param<std::string>{
          n + ".mechanism", "topo",
          std::vector<std::string>{"topo", "swwl", "hwwl", "persistent", "coop", "forkjoin", "channels"},
          "how the work is scheduled: topo: topology-driven; swwl: shared software worklist; hwwl: "
          "the hardware worklist, double-buffered (docs/worklists.md); persistent / coop: "
          "LonestarGPU's data-driven kernel as one persistent kernel with plain or resizing "
          "barriers (the cooperative-kernel paper's bfs and l-sssp, docs/cooperative.md); forkjoin: "
          "asynchronous search as spawn-only tasks on the fork-join runtime (docs/forkjoin.md); channels: the "
          "same search as a channel-flow graph, frontier nodes as CEs of one channel that the "
          "aggregator dispatches (docs/channels.md)"},
      ParamAlias{n + ".variant", n + ".mechanism"},
      Param<std::int64_t>{n + ".source",
                          -1,
                          "",
                          "source node, in the input's numbering (-1: a node of typical degree, chosen by the seed: "
                          "graph::typical_source)",
                          {{-1}, {9.2e18}}},
      swwl::Params{n},
      Param<std::int64_t>{n + ".hwwl.overflow",
                          -1,
                          "entries",
                          "hwwl overflow buffer per core, given to wlinit (Sec. III-D): -1: two per "
                          "node (a node is pushed at most once per step, so a round's half never "
                          "fills); 0: none (a push to a full bank is the hardware exception)",
                          {{-1}, {1ll << 32}}},
      Param<std::string>{n + ".hwwl.buffer", "double", std::vector<std::string>{"double", "single"},
                         "hwwl worklist mode (wlcfg): double: one kernel per step, pulls and pushes on "
                         "separate partitions swapped between kernels (the paper's evaluation); single: "
                         "one persistent kernel whose pushes go to the list it pulls, steps overlapping "
                         "(label-correcting; Sec. V-C, Fig. 8)"},
      Param<bool>{n + ".check_first", true, "",
                  "read a neighbour's distance before the atomic on it and skip the atomic when it "
                  "cannot change it, as LonestarGPU's kernels do; false: an atomic on every arc (not "
                  "bfs topo, which reads and stores without atomics)"},
      Param<std::string>{n + ".alu", "lonestar", std::vector<std::string>{"lonestar", "none"},
                         "instructions charged between the memory operations: lonestar: LonestarGPU 2.0's "
                         "address arithmetic, compares and branches per node, arc and push, counted in its "
                         "kernels' PTX (docs/worklists.md, \"ALU work per arc\"); none: only sssp's relaxation "
                         "add (an ablation: the kernels before that count)"},
      Param<std::int64_t>{n + ".groups",
                          0,
                          "",
                          "persistent / coop: workgroups (0: the resident capacity, the most the plain barriers "
                          "allow; -k: that minus k)",
                          {{-1e6}, {1e6}}},
      Param<std::uint64_t>{n + ".group_size",
                           128,
                           "",
                           "persistent / coop: work-items per workgroup (the cooperative-kernel paper's runs: 128)",
                           {{1}, {1024}}},
      Param<std::uint64_t>{n + ".capacity",
                           0,
                           "CEs",
                           "channels: CEs of the frontier channel (0: 2 x (nodes + arcs), rounded up to whole "
                           "channel.done_count groups, ours); the kernel node feeds its own channel, so a channel "
                           "that fills with every consumer waiting in a talloc into it is a deadlock (exit 3)",
                           {{0}, {1u << 30}}}};
}

const Workload kBfs = make("bfs", false);
const Workload kSssp = make("sssp", true);

struct DevGraph {
  std::uint64_t row, col, weight;
  std::uint32_t nodes;
};

std::uint64_t at(std::uint64_t base, std::uint32_t i) { return base + 4ull * i; }

// sssp: du + w, saturated below kUnreached (a path longer than 32 bits is
// never final: the host reference refuses graphs whose distances do not fit).
std::uint32_t relaxed(std::uint32_t du, std::uint32_t w) {
  const std::uint64_t s = std::uint64_t{du} + w;
  return s >= kUnreached ? kUnreached - 1 : static_cast<std::uint32_t>(s);
}

// The instructions a kernel executes besides its memory operations, from
// LonestarGPU 2.0's kernels compiled to PTX (nvcc, -O3; non-memory
// instructions on the common path, docs/worklists.md "ALU work per arc"):
// topo bfs_ls / sssp_ls, data-driven bfs_worklistw / sssp_worklistn. Our
// loads, atomics and pushes stand for theirs; these are the rest.
struct Alu {
  std::uint32_t node = 0;      // per node (topo: per work-item; hwwl: per pulled node)
  std::uint32_t first = 0;     // swwl: a work-item's first item (the software pull and the node)
  std::uint32_t further = 0;   // swwl: each further item of the same work-item
  std::uint32_t arc = 0;       // every arc
  std::uint32_t improved = 0;  // the path where the neighbour improves
  std::uint32_t push = 0;      // swwl: the software push's own instructions
};

Alu alu_of(const std::string& mode, const std::string& variant, bool weighted) {
  Alu a;
  if (mode == "none") {
    a.arc = weighted ? 1 : 0;  // sssp's du + w
    return a;
  }
  if (variant == "topo") {
    a.node = weighted ? 37 : 38;  // tid, 1024 / blockDim, bounds, the row entry, loop set-up, exit
    a.arc = weighted ? 40 : 23;   // getDestination / getWeight: bounds, edge index; compare; loop
    a.improved = weighted ? 2 : 3;
  } else if (variant == "swwl") {
    a.first = 47;  // myItems, count, getItem, getOutDegree, loop set-up
    a.further = 21;
    a.arc = weighted ? 46 : 27;
    a.improved = weighted ? 2 : 1;
    a.push = 7;   // Worklist::push: capacity check, index, store address
  } else {        // hwwl (and forkjoin, per task): wl_pull replaces the software pull; the node part stays
    a.node = 13;  // getOutDegree bound, loop set-up, item latch
    a.arc = weighted ? 46 : 27;
    a.improved = weighted ? 2 : 1;
  }
  return a;
}

// ---- topology-driven --------------------------------------------------------

Task<> bfs_topo(Lane& l, DevGraph g, std::uint64_t dist, std::uint64_t changed, std::uint32_t level, Alu a) {
  const std::uint32_t u = l.global_id();
  if (u >= g.nodes) co_return;
  if (a.node) co_await l.alu(a.node);
  const auto du = co_await l.load<std::uint32_t>(at(dist, u));
  if (du != level) co_return;
  const auto begin = co_await l.load<std::uint32_t>(at(g.row, u));
  const auto end = co_await l.load<std::uint32_t>(at(g.row, u + 1));
  bool any = false;
  for (auto k = begin; k < end; ++k) {
    const auto v = co_await l.load<std::uint32_t>(at(g.col, k));
    if (a.arc) co_await l.alu(a.arc);
    const auto dv = co_await l.load<std::uint32_t>(at(dist, v));
    if (dv == kUnreached) {
      if (a.improved) co_await l.alu(a.improved);
      co_await l.store<std::uint32_t>(at(dist, v), level + 1);
      any = true;
    }
  }
  if (any) co_await l.store<std::uint32_t>(changed, 1);
}

Task<> sssp_topo(Lane& l, DevGraph g, std::uint64_t dist, std::uint64_t changed, bool check, Alu a) {
  const std::uint32_t u = l.global_id();
  if (u >= g.nodes) co_return;
  if (a.node) co_await l.alu(a.node);
  const auto du = co_await l.load<std::uint32_t>(at(dist, u));
  if (du == kUnreached) co_return;
  const auto begin = co_await l.load<std::uint32_t>(at(g.row, u));
  const auto end = co_await l.load<std::uint32_t>(at(g.row, u + 1));
  bool any = false;
  for (auto k = begin; k < end; ++k) {
    const auto v = co_await l.load<std::uint32_t>(at(g.col, k));
    const auto w = co_await l.load<std::uint32_t>(at(g.weight, k));
    if (a.arc) co_await l.alu(a.arc);
    const auto nd = relaxed(du, w);
    if (check) {  // LonestarGPU: no atomic when it cannot change the value
      const auto seen = co_await l.load<std::uint32_t>(at(dist, v));
      if (seen <= nd) continue;
    }
    const auto old = co_await l.atomic_min<std::uint32_t>(at(dist, v), nd);
    if (nd < old) {
      any = true;
      if (a.improved) co_await l.alu(a.improved);
    }
  }
  if (any) co_await l.store<std::uint32_t>(changed, 1);
}

// ---- shared software worklist -------------------------------------------------

struct Lists {
  std::uint64_t in, out, out_count, stamp;
  std::uint32_t in_count, capacity;
  std::uint64_t donated = 0;  // WDO: items donated (one atomic add per workgroup, for the results)
};

// Relaxes u's out-arcs; the nodes to push go to the out-list through the
// Pusher (runtime/swwl.h: atomic, chunk or aru).
Task<> swwl_visit(Lane& l, DevGraph g, std::uint64_t dist, const Lists& w, bool weighted, std::uint32_t step,
                  std::uint32_t u, bool check, swwl::Pusher& p, Alu a, std::uint32_t node) {
  if (node) co_await l.alu(node);
  const auto du = weighted ? co_await l.load<std::uint32_t>(at(dist, u)) : step;
  const auto begin = co_await l.load<std::uint32_t>(at(g.row, u));
  const auto end = co_await l.load<std::uint32_t>(at(g.row, u + 1));
  for (auto k = begin; k < end; ++k) {
    const auto v = co_await l.load<std::uint32_t>(at(g.col, k));
    bool improved = false;
    if (weighted) {
      const auto wt = co_await l.load<std::uint32_t>(at(g.weight, k));
      if (a.arc) co_await l.alu(a.arc);
      const auto nd = relaxed(du, wt);
      if (check) {  // LonestarGPU: no atomic when it cannot change the value
        const auto seen = co_await l.load<std::uint32_t>(at(dist, v));
        if (seen <= nd) continue;
      }
      const auto old = co_await l.atomic_min<std::uint32_t>(at(dist, v), nd);
      if (nd < old) {
        if (a.improved) co_await l.alu(a.improved);
        // Once per step: the first improver of v this step pushes it.
        improved = co_await l.atomic_exch<std::uint32_t>(at(w.stamp, v), step) != step;
      }
    } else {
      if (a.arc) co_await l.alu(a.arc);
      if (check) {  // LonestarGPU: no atomic when it cannot change the value
        const auto seen = co_await l.load<std::uint32_t>(at(dist, v));
        if (seen != kUnreached) continue;
      }
      improved = co_await l.atomic_cas<std::uint32_t>(at(dist, v), kUnreached, step + 1) == kUnreached;
    }
    if (improved) {
      // The push's own instructions (LonestarGPU's Worklist::push; charged whatever the
      // push option), and bfs's improving path (sssp's is charged at the atomic min).
      const std::uint32_t n = a.push + (weighted ? 0 : a.improved);
      if (n) co_await l.alu(n);
      co_await p.push(l, 0, v);
    }
  }
}

// One step of the software worklist (bfs: step is the level of the in-list's
// nodes; sssp: the step's stamp); WDO's estimate of a node's work is its
// degree.
Task<> swwl_step(Lane& l, DevGraph g, std::uint64_t dist, Lists w, bool weighted, std::uint32_t step, swwl::Opts o,
                 bool check, Alu a) {
  swwl::Pusher p(o.push, {swwl::List{w.out, w.out_count, w.capacity}});
  bool first = true;  // this work-item's first item (LonestarGPU's pull costs more for it)
  co_await swwl::step(
      l, o, w.in, w.in_count, w.donated, p,
      [&](Lane& lane, std::uint32_t u) -> Task<std::uint32_t> {
        const auto b = co_await lane.load<std::uint32_t>(at(g.row, u));
        const auto e = co_await lane.load<std::uint32_t>(at(g.row, u + 1));
        co_return e - b;
      },
      [&](Lane& lane, std::uint32_t u, swwl::Pusher& pusher) -> Task<> {
        const std::uint32_t node = first ? a.first : a.further;
        first = false;
        co_await swwl_visit(lane, g, dist, w, weighted, step, u, check, pusher, a, node);
      });
}

// ---- hardware worklist (double-buffered: one kernel per step) -------------------

// The paper's initialization kernel: the overflow buffer, double-buffer mode,
// the source pushed.
Task<> hwwl_init(Lane& l, std::uint32_t src, std::uint64_t overflow, std::uint64_t entries) {
  co_await wl::wl_init(l, overflow, entries);
  co_await wl::wl_cfg(l, true);
  if (l.global_id() == 0) co_await wl::wl_push(l, src);
}

Task<> bfs_visit(Lane& l, DevGraph g, std::uint64_t dist, std::uint32_t level, std::uint32_t u, bool check, Alu a) {
  if (a.node) co_await l.alu(a.node);
  const auto begin = co_await l.load<std::uint32_t>(at(g.row, u));
  const auto end = co_await l.load<std::uint32_t>(at(g.row, u + 1));
  for (auto k = begin; k < end; ++k) {
    const auto v = co_await l.load<std::uint32_t>(at(g.col, k));
    if (a.arc) co_await l.alu(a.arc);
    if (check) {  // LonestarGPU: no atomic when it cannot change the value
      const auto seen = co_await l.load<std::uint32_t>(at(dist, v));
      if (seen != kUnreached) continue;
    }
    const auto old = co_await l.atomic_cas<std::uint32_t>(at(dist, v), kUnreached, level + 1);
    if (old == kUnreached) {
      if (a.improved) co_await l.alu(a.improved);
      co_await wl::wl_push(l, v);
    }
  }
}

// Single-buffer mode (Sec. V-C, Fig. 8): one persistent kernel; pushes go
// to the list the pulls read, so levels overlap. Label-correcting: a node is
// pushed again whenever its level drops (atomic min), and the levels
// converge to the BFS levels. The unit answers DONE only once no thread is
// active (docs/worklists.md, "Single-buffer mode").
Task<> hwwl_init_single(Lane& l, std::uint32_t src, std::uint64_t overflow, std::uint64_t entries) {
  co_await wl::wl_cfg(l, false);
  co_await wl::wl_init(l, overflow, entries);
  if (l.global_id() == 0) co_await wl::wl_push(l, src);
}

Task<> bfs_visit_single(Lane& l, DevGraph g, std::uint64_t dist, std::uint32_t u, bool check, Alu a) {
  if (a.node) co_await l.alu(a.node);
  const auto du = co_await l.load<std::uint32_t>(at(dist, u));
  const auto begin = co_await l.load<std::uint32_t>(at(g.row, u));
  const auto end = co_await l.load<std::uint32_t>(at(g.row, u + 1));
  for (auto k = begin; k < end; ++k) {
    const auto v = co_await l.load<std::uint32_t>(at(g.col, k));
    if (a.arc) co_await l.alu(a.arc);
    if (check) {  // LonestarGPU: no atomic when it cannot change the value
      const auto seen = co_await l.load<std::uint32_t>(at(dist, v));
      if (seen <= du + 1) continue;
    }
    const auto old = co_await l.atomic_min<std::uint32_t>(at(dist, v), du + 1);
    if (du + 1 < old) {
      if (a.improved) co_await l.alu(a.improved);
      co_await wl::wl_push(l, v);
    }
  }
}

Task<> sssp_visit(Lane& l, DevGraph g, std::uint64_t dist, std::uint64_t stamp, std::uint32_t step, std::uint32_t u,
                  bool check, Alu a) {
  if (a.node) co_await l.alu(a.node);
  const auto du = co_await l.load<std::uint32_t>(at(dist, u));
  const auto begin = co_await l.load<std::uint32_t>(at(g.row, u));
  const auto end = co_await l.load<std::uint32_t>(at(g.row, u + 1));
  for (auto k = begin; k < end; ++k) {
    const auto v = co_await l.load<std::uint32_t>(at(g.col, k));
    const auto wt = co_await l.load<std::uint32_t>(at(g.weight, k));
    if (a.arc) co_await l.alu(a.arc);
    const auto nd = relaxed(du, wt);
    if (check) {  // LonestarGPU: no atomic when it cannot change the value
      const auto seen = co_await l.load<std::uint32_t>(at(dist, v));
      if (seen <= nd) continue;
    }
    const auto old = co_await l.atomic_min<std::uint32_t>(at(dist, v), nd);
    if (nd < old) {
      if (a.improved) co_await l.alu(a.improved);
      const auto seen = co_await l.atomic_exch<std::uint32_t>(at(stamp, v), step);
      if (seen != step) co_await wl::wl_push(l, v);
    }
  }
}

// sssp in single-buffer mode: a node is pushed whenever its distance drops.
Task<> sssp_visit_single(Lane& l, DevGraph g, std::uint64_t dist, std::uint32_t u, bool check, Alu a) {
  if (a.node) co_await l.alu(a.node);
  const auto du = co_await l.load<std::uint32_t>(at(dist, u));
  const auto begin = co_await l.load<std::uint32_t>(at(g.row, u));
  const auto end = co_await l.load<std::uint32_t>(at(g.row, u + 1));
  for (auto k = begin; k < end; ++k) {
    const auto v = co_await l.load<std::uint32_t>(at(g.col, k));
    const auto wt = co_await l.load<std::uint32_t>(at(g.weight, k));
    if (a.arc) co_await l.alu(a.arc);
    const auto nd = relaxed(du, wt);
    if (check) {  // LonestarGPU: no atomic when it cannot change the value
      const auto seen = co_await l.load<std::uint32_t>(at(dist, v));
      if (seen <= nd) continue;
    }
    const auto old = co_await l.atomic_min<std::uint32_t>(at(dist, v), nd);
    if (nd < old) {
      if (a.improved) co_await l.alu(a.improved);
      co_await wl::wl_push(l, v);
    }
  }
}

// Persistent threads pull until DONE; WAIT: pull again, the paper's wait
// path (Sec. III-C: "accessing the worklist again until it receives a work ID
// or DONE token"; with worklist.waiters=block the unit parks a wavefront
// whose lanes all got WAIT until it can retry). The loop's
// pull is at its bottom: lanes reconverge at the lowest pending
// source site (docs/compute-unit.md), so lanes that got WAIT wait there until
// the lanes that got work come round to pull again (the paper's "waiting
// threads ... reconverge when the active threads pull again", Sec. III-C). A
// pull at the top would be issued again and again ahead of the working lanes.
// It is defined after every visit function: the min-PC rule orders sites by
// file position, and the pull must come after the visit's operations. The
// bottom pull is wl_pull_spin: a lane that got WAIT there does nothing but
// pull again, so the unit re-issues an all-WAIT pull without resuming the
// lanes (the same instructions and accesses; worklist.h).
template <class Visit>
Task<> pull_loop(Lane& l, Visit visit) {
  std::uint32_t u = co_await wl::wl_pull(l);
  for (;;) {
    if (u == wl::kDone) break;
    if (u != wl::kWait) co_await visit(u);
    u = co_await wl::wl_pull_spin(l);
  }
}

Task<> bfs_hwwl(Lane& l, DevGraph g, std::uint64_t dist, std::uint32_t level, bool check, Alu a) {
  return pull_loop(l, [=, &l](std::uint32_t u) { return bfs_visit(l, g, dist, level, u, check, a); });
}

Task<> bfs_hwwl_single(Lane& l, DevGraph g, std::uint64_t dist, bool check, Alu a) {
  return pull_loop(l, [=, &l](std::uint32_t u) { return bfs_visit_single(l, g, dist, u, check, a); });
}

Task<> sssp_hwwl_single(Lane& l, DevGraph g, std::uint64_t dist, bool check, Alu a) {
  return pull_loop(l, [=, &l](std::uint32_t u) { return sssp_visit_single(l, g, dist, u, check, a); });
}

Task<> sssp_hwwl(Lane& l, DevGraph g, std::uint64_t dist, std::uint64_t stamp, std::uint32_t step, bool check, Alu a) {
  return pull_loop(l, [=, &l](std::uint32_t u) { return sssp_visit(l, g, dist, stamp, step, u, check, a); });
}

// ---- host side ------------------------------------------------------------------

std::uint32_t source_node(const Workload& wl, const Config& cfg, const Graph& g, std::uint64_t seed) {
  if (g.nodes == 0) throw UserError(fmt::format("{}: the graph has no nodes", g.origin));
  const auto s = wl.source.get(cfg);
  // The paper states no source; node 0 of an unpermuted R-MAT is its hub
  // (one lane then pushes the hub's neighbours: 41% of the Sec. V-A run).
  if (s < 0) return graph::typical_source(g, seed);
  const auto node = g.node_of(static_cast<std::uint64_t>(s));
  if (!node) {
    const std::string range = g.ids.empty() ? fmt::format("ids {}..{}", g.id_base, g.id_base + g.nodes - 1)
                                            : fmt::format("{} sparse ids", g.ids.size());
    throw UserError(fmt::format("{} = {}: no such node in {} ({})", wl.source.name(), s, g.origin, range));
  }
  return *node;
}

// ---- fork-join -------------------------------------------------------------

// Arcs a task relaxes itself; a node with more is split in halves by child
// tasks (a record holds at most this many children: GTAP_MAX_CHILD_TASKS).
constexpr std::uint32_t kFjArcs = 16;

// A task: arcs [begin, end) of node u, whose distance was du when the task
// was spawned. Its payload is those four words (the graph and the distances
// are the program's globals). The per-node and per-arc instructions are the
// data-driven kernel's (alu_of).
fj::Fn<void> fj_relax(fj::Ctx& t, DevGraph g, std::uint64_t dist, bool weighted, bool check, Alu a, std::uint32_t u,
                      std::uint32_t du, std::uint32_t begin, std::uint32_t end) {
  Lane& l = t.lane();
  if (a.node) co_await l.alu(a.node);
  const auto cur = co_await l.load<std::uint32_t>(at(dist, u));
  if (cur < du) co_return;  // a shorter path reached u since: that task relaxes its arcs
  if (end - begin > kFjArcs) {
    const std::uint32_t mid = begin + (end - begin) / 2;
    co_await t.spawn(fj_relax, g, dist, weighted, check, a, u, du, begin, mid);
    co_await t.spawn(fj_relax, g, dist, weighted, check, a, u, du, mid, end);
    co_return;
  }
  for (auto k = begin; k < end; ++k) {
    const auto v = co_await l.load<std::uint32_t>(at(g.col, k));
    if (a.arc) co_await l.alu(a.arc);
    std::uint32_t dv = du + 1;
    if (weighted) {
      const auto w = co_await l.load<std::uint32_t>(at(g.weight, k));
      dv = relaxed(du, w);
    }
    if (check) {  // LonestarGPU's plain load before the atomic
      const auto seen = co_await l.load<std::uint32_t>(at(dist, v));
      if (seen <= dv) continue;
    }
    const auto old = co_await l.atomic_min<std::uint32_t>(at(dist, v), dv);
    if (dv < old) {
      if (a.improved) co_await l.alu(a.improved);
      const auto b = co_await l.load<std::uint32_t>(at(g.row, v));
      const auto e = co_await l.load<std::uint32_t>(at(g.row, v + 1));
      if (e > b) co_await t.spawn(fj_relax, g, dist, weighted, check, a, v, dv, b, e);
    }
  }
}

// ---- channels ---------------------------------------------------------------

// A CE of the frontier channel: fork-join's task payload (arcs [begin, end)
// of node u, reached with distance du); a CE of more than kFjArcs arcs is
// split in halves, as the fork-join task is, so that a lane makes at most
// kFjArcs CEs.
struct FlowCe {
  std::uint32_t u, du, begin, end;
};
static_assert(sizeof(FlowCe) == 16);

// The consumer kernel: the fork-join task's work (fj_relax), its children
// collected on the lane and put in the same channel with one talloc and one
// enq (a channel-flow graph whose one kernel node feeds its own channel,
// as fib-flow's, Orr et al. Fig. 6).
Task<> flow_relax(Lane& l, chan::Channel& ch, DevGraph g, std::uint64_t dist, bool weighted, bool check, Alu a,
                  std::uint32_t off) {
  const chan::Ce ce = co_await chan::deq(l, ch, off);
  const auto w0 = co_await l.load<std::uint64_t>(ce.addr);
  const auto w1 = co_await l.load<std::uint64_t>(ce.addr + 8);
  const FlowCe in{static_cast<std::uint32_t>(w0), static_cast<std::uint32_t>(w0 >> 32), static_cast<std::uint32_t>(w1),
                  static_cast<std::uint32_t>(w1 >> 32)};
  FlowCe out[kFjArcs];
  std::uint32_t k = 0;
  if (a.node) co_await l.alu(a.node);
  const auto cur = co_await l.load<std::uint32_t>(at(dist, in.u));
  if (cur >= in.du) {  // else a shorter path reached u since: its CE relaxes the arcs
    if (in.end - in.begin > kFjArcs) {
      const std::uint32_t mid = in.begin + (in.end - in.begin) / 2;
      out[k++] = FlowCe{in.u, in.du, in.begin, mid};
      out[k++] = FlowCe{in.u, in.du, mid, in.end};
    } else {
      for (auto e = in.begin; e < in.end; ++e) {
        const auto v = co_await l.load<std::uint32_t>(at(g.col, e));
        if (a.arc) co_await l.alu(a.arc);
        std::uint32_t dv = in.du + 1;
        if (weighted) {
          const auto w = co_await l.load<std::uint32_t>(at(g.weight, e));
          dv = relaxed(in.du, w);
        }
        if (check) {  // LonestarGPU's plain load before the atomic
          const auto seen = co_await l.load<std::uint32_t>(at(dist, v));
          if (seen <= dv) continue;
        }
        const auto old = co_await l.atomic_min<std::uint32_t>(at(dist, v), dv);
        if (dv < old) {
          if (a.improved) co_await l.alu(a.improved);
          const auto b = co_await l.load<std::uint32_t>(at(g.row, v));
          const auto en = co_await l.load<std::uint32_t>(at(g.row, v + 1));
          if (en > b) out[k++] = FlowCe{v, dv, b, en};
        }
      }
    }
  }
  if (k > 0) {
    const chan::Alloc c = co_await chan::talloc(l, ch, k, true);
    auto write = [&](Lane& lw, chan::Alloc al) -> Task<> {
      for (std::uint32_t i = 0; i < k; ++i) {
        co_await lw.store<std::uint64_t>(al.addr(ch, i), out[i].u | std::uint64_t{out[i].du} << 32);
        co_await lw.store<std::uint64_t>(al.addr(ch, i) + 8, out[i].begin | std::uint64_t{out[i].end} << 32);
      }
      co_await chan::enq(lw, ch, al);
    };
    if (c.split)  // the wavefront's CEs exceed the channel: in rounds
      co_await chan::in_rounds(l, ch, k, write);
    else
      co_await write(l, c);
  }
  co_await chan::tfree(l, ch, ce);
}

// The kernel node's registers and yield context: no BFS in Orr et al. Table
// 3; fib's kernel (16 s, 8 d, 2 c registers) is assumed, the closest in size
// (a handful of ids and counters).
constexpr ContextSize kFlowContext{856, 16, 8, 2};

std::uint64_t flow_capacity(const Workload& wl, const Config& c, std::uint64_t nodes, std::uint64_t arcs) {
  const std::uint64_t v = wl.capacity.get(c);
  if (v) return v;
  // Whole done-count groups (the channel's layout needs them).
  const std::uint64_t group = std::max<std::uint64_t>(std::get<std::uint64_t>(c.value("channel.done_count")), 1);
  return std::min<std::uint64_t>((2 * (nodes + arcs) + group - 1) / group * group, 1u << 30);
}

void run(const Workload& wl, Host& h) {
  const Config& cfg = h.config();
  const std::uint64_t seed = h.rng()();
  const Graph g = wl.graph.load(cfg, seed);
  const std::uint32_t src = source_node(wl, cfg, g, seed);
  // The reference first: a graph whose distances do not fit is bad input.
  const auto want = wl.weighted ? graph::dijkstra(g, src) : graph::bfs_levels(g, src);
  const std::string variant = wl.variant.get(cfg);
  // The software worklist's options apply to swwl only; donating needs
  // work-items with more than one item.
  const swwl::Opts sw = wl.sw.get(cfg, wl.variant.name(), variant);
  const bool check = wl.check_first.get(cfg);
  if (variant == "topo" && !wl.weighted && !cfg.is_default(wl.check_first.name()))
    throw UserError(
        fmt::format("{} (set by {}) does not apply: bfs topo has no atomic (it reads a neighbour's level "
                    "and stores it)",
                    wl.check_first.name(), cfg.origin(wl.check_first.name())));
  if (variant != "channels" && !cfg.is_default(wl.capacity.name()))
    throw UserError(fmt::format("{} (set by {}) does not apply: {} is {}, not channels", wl.capacity.name(),
                                cfg.origin(wl.capacity.name()), wl.variant.name(), variant));
  for (const std::string& k : {wl.overflow.name(), wl.buffer.name()})
    if (variant != "hwwl" && !cfg.is_default(k))
      throw UserError(fmt::format("{} (set by {}) does not apply: {} is {}, not hwwl", k, cfg.origin(k),
                                  wl.variant.name(), variant));
  if ((variant == "persistent" || variant == "coop") && !cfg.is_default(wl.alu.name()))
    throw UserError(fmt::format("{} (set by {}) does not apply: {} is {} (the cooperative-kernel paper's kernels)",
                                wl.alu.name(), cfg.origin(wl.alu.name()), wl.variant.name(), variant));
  const Alu a = alu_of(wl.alu.get(cfg), variant, wl.weighted);
  for (const std::string& k : {wl.groups.name(), wl.group_size.name()})
    if (variant != "persistent" && variant != "coop" && !cfg.is_default(k))
      throw UserError(fmt::format("{} (set by {}) does not apply: {} is {}, not persistent or coop", k, cfg.origin(k),
                                  wl.variant.name(), variant));

  const DevGraph dg{h.upload(g.row), h.upload(g.col), h.upload(g.weight), g.nodes};
  std::vector<std::uint32_t> init(g.nodes, kUnreached);
  init[src] = 0;
  const std::uint64_t dist = h.upload(init);
  const std::uint64_t flag = h.alloc(4);
  sc_core::sc_time kernel_time = sc_core::SC_ZERO_TIME;
  std::uint64_t steps = 0, items = 0, pushes = 0;
  std::uint64_t w_donated = 0;
  const std::uint64_t step_limit = std::uint64_t{g.nodes} + 2;  // Bellman-Ford needs at most nodes - 1 steps

  auto launch = [&](const char* kname, std::uint64_t n, KernelBody body, std::uint32_t lds = 0) {
    if (++steps > step_limit)
      throw SimFault(
          fmt::format("{}: {} steps without converging (at most {} are needed)", wl.name, steps - 1, step_limit));
    items += n;
    kernel_time += h.run_kernel({kname, n, kGroup, 16, lds, std::move(body)});
  };

  if (variant == "forkjoin") {
    fj::Program p;
    p.name = wl.weighted ? "sssp_forkjoin" : "bfs_forkjoin";
    p.payload = 16;            // u, du, begin, end
    p.max_children = kFjArcs;  // a split spawns 2, a leaf at most one per arc
    p.spawn_only = true;       // no taskwait: GTAP_ASSUME_NO_TASKWAIT
    p.first_finish = false;    // ends when no worker is active
    const fj::RunInfo r = fj::run(h, p, fj_relax, dg, dist, wl.weighted, check, a, src, 0u, g.row[src], g.row[src + 1]);
    kernel_time = sc_core::sc_time(r.kernel_ns, sc_core::SC_NS);
    steps = 1;
  } else if (variant == "channels") {
    flow::Graph fg(h, wl.capacity.name());
    const auto cap = static_cast<std::uint32_t>(flow_capacity(wl, cfg, g.nodes, g.arcs()));
    chan::Channel& ch = fg.channel(std::string(wl.name) + "_frontier", sizeof(FlowCe), cap);
    const bool weighted = wl.weighted;
    flow::KernelNode& k = fg.kernel(
        std::string(wl.name) + "_relax",
        [&ch, dg, dist, weighted, check, a](Lane& l, std::uint32_t off) {
          return flow_relax(l, ch, dg, dist, weighted, check, a, off);
        },
        32, kFlowContext);
    fg.connect(ch, k);
    if (g.row[src + 1] > g.row[src]) fg.host_enq(ch, FlowCe{src, 0, g.row[src], g.row[src + 1]});
    const Tick elapsed = cilk::run(fg);
    kernel_time = sc_core::sc_time(tick_to_ns(elapsed), sc_core::SC_NS);
    h.result("wavefronts", static_cast<std::uint64_t>(fg.aggregator().wavefronts.value()));
    steps = 1;
  } else if (variant == "persistent" || variant == "coop") {
    coopg::LonestarOptions o;
    o.name = wl.name;
    o.weighted = wl.weighted;
    o.check_first = check;
    o.mechanism = variant;
    o.groups = wl.groups.get(cfg);
    o.group_size = static_cast<std::uint32_t>(wl.group_size.get(cfg));
    o.dist = dist;
    coopg::run_lonestar(h, g, src, o);
    kernel_time = sc_core::sc_time(h.results()["kernel_ns"].get<double>(), sc_core::SC_NS);
  } else if (variant == "topo") {
    for (std::uint32_t level = 0;; ++level) {
      const std::uint32_t zero = 0;
      h.copy_in(flag, &zero, 4);
      if (wl.weighted)
        launch("sssp_topo", g.nodes, [=](Lane& l) { return sssp_topo(l, dg, dist, flag, check, a); });
      else
        launch("bfs_topo", g.nodes, [=](Lane& l) { return bfs_topo(l, dg, dist, flag, level, a); });
      std::uint32_t changed = 0;
      h.copy_out(&changed, flag, 4);
      if (!changed) break;
    }
  } else if (variant == "hwwl") {
    wl::Worklist* unit = &h.gpu().get<wl::Worklist>(wl.name);
    if (g.nodes > (1u << 24))
      throw UserError(fmt::format("{}: {} nodes do not fit in the worklist's 24-bit work IDs", g.origin, g.nodes));
    const std::uint64_t stamp = wl.weighted ? h.upload(std::vector<std::uint32_t>(g.nodes, 0xffffffffu)) : 0;
    // Persistent threads: as many workgroups as are resident at once (every
    // wavefront slot of every CU on both presets).
    const std::uint64_t threads = h.dispatcher().resident_capacity({"hwwl", 0, kGroup, 16, 0, {}}) * kGroup;
    const std::int64_t ov = wl.overflow.get(cfg);
    const std::uint64_t entries = ov < 0 ? 2ull * g.nodes : static_cast<std::uint64_t>(ov);
    const std::uint64_t overflow = entries ? h.alloc(4ull * entries * h.cus()) : 0;
    if (wl.buffer.get(cfg) == "single") {
      h.run_kernel(
          {"hwwl_init", 1, kGroup, 4, 0, [=](Lane& l) { return hwwl_init_single(l, src, overflow, entries); }});
      unit->kernel_done();
      if (wl.weighted)
        launch("sssp_hwwl_single", threads, [=](Lane& l) { return sssp_hwwl_single(l, dg, dist, check, a); });
      else
        launch("bfs_hwwl_single", threads, [=](Lane& l) { return bfs_hwwl_single(l, dg, dist, check, a); });
      unit->kernel_done();
      if (unit->work_inside() != 0)
        throw SimFault(fmt::format("{}: single-buffer kernel ended with {} work IDs inside ({})", wl.name,
                                   unit->work_inside(), unit->where()));
    } else {
      h.run_kernel({"hwwl_init", 1, kGroup, 4, 0, [=](Lane& l) { return hwwl_init(l, src, overflow, entries); }});
      unit->kernel_done();  // the source moves to the pull side
      for (std::uint32_t step = 0; unit->work_inside() > 0; ++step) {
        if (wl.weighted)
          launch("sssp_hwwl", threads, [=](Lane& l) { return sssp_hwwl(l, dg, dist, stamp, step, check, a); });
        else
          launch("bfs_hwwl", threads, [=](Lane& l) { return bfs_hwwl(l, dg, dist, step, check, a); });
        unit->kernel_done();
      }
    }
  } else {
    Lists w{h.alloc(4ull * g.nodes), h.alloc(4ull * g.nodes), flag, 0, 1, g.nodes};
    if (wl.weighted) w.stamp = h.upload(std::vector<std::uint32_t>(g.nodes, 0xffffffffu));
    if (sw.donate) w.donated = w_donated = h.upload(std::vector<std::uint32_t>(1, 0));
    h.copy_in(w.in, &src, 4);
    for (std::uint32_t step = 0; w.in_count > 0; ++step) {
      const std::uint32_t zero = 0;
      h.copy_in(w.out_count, &zero, 4);
      const bool weighted = wl.weighted;
      launch(
          weighted ? "sssp_swwl" : "bfs_swwl", swwl::threads(sw, w.in_count),
          [=](Lane& l) { return swwl_step(l, dg, dist, w, weighted, step, sw, check, a); }, swwl::lds_bytes(sw));
      std::uint32_t count = 0;
      h.copy_out(&count, w.out_count, 4);
      if (count > w.capacity)
        throw SimFault(fmt::format("{}: software worklist overflow: {} pushes in step {} into {} entries", wl.name,
                                   count, step, w.capacity));
      pushes += count;
      std::swap(w.in, w.out);
      w.in_count = count;
    }
  }

  const auto got = h.download<std::uint32_t>(dist, g.nodes);
  std::uint64_t bad = 0, reached = 0;
  std::uint32_t first_bad = 0;
  for (std::uint32_t i = 0; i < g.nodes; ++i) {
    if (got[i] != want[i] && bad++ == 0) first_bad = i;
    reached += want[i] != kUnreached;
  }
  h.check(bad == 0, bad == 0 ? fmt::format("{}: {} distances equal the host {}", wl.name, g.nodes,
                                           wl.weighted ? "Dijkstra" : "BFS")
                             : fmt::format("{}: {} of {} distances differ from the host {} (first: node {}: {} != {})",
                                           wl.name, bad, g.nodes, wl.weighted ? "Dijkstra" : "BFS", g.id_of(first_bad),
                                           got[first_bad], want[first_bad]));
  h.result("graph", g.origin);
  h.result("nodes", g.nodes);
  h.result("arcs", g.arcs());
  if (g.dropped_parallel) h.result("dropped_parallel_arcs", g.dropped_parallel);
  if (g.dropped_self_loops) h.result("dropped_self_loops", g.dropped_self_loops);
  if (g.added_reverse) h.result("added_reverse_arcs", g.added_reverse);
  h.result("source", g.id_of(src));
  h.result("reached", reached);
  h.result("steps", steps);
  h.result("work_items", items);
  if (variant == "swwl") h.result("pushes", pushes);
  if (sw.donate) h.result("donated", h.download<std::uint32_t>(w_donated, 1)[0]);
  h.result("kernel_ns", kernel_time.to_seconds() * 1e9);
  for (std::uint32_t i = 0; i < g.nodes; ++i) {
    h.output() << g.id_of(i) << ' ';
    if (got[i] == kUnreached)
      h.output() << "unreachable\n";
    else
      h.output() << got[i] << '\n';
  }
}

std::uint64_t device_bytes(const Workload& wl, const Config& c) {
  // Graph, distances, the flag, two lists and the stamps (swwl).
  const std::uint64_t nodes = wl.graph.estimate_nodes(c);
  std::uint64_t bytes = wl.graph.estimate_bytes(c) + 16 * (nodes + 1);
  // hwwl: the overflow buffer, <w>.hwwl.overflow entries of 4 bytes per core
  // (-1: two per node), as run() allocates it.
  if (wl.variant.get(c) == "hwwl") {
    const std::int64_t ov = wl.overflow.get(c);
    const std::uint64_t entries = ov < 0 ? 2 * nodes : static_cast<std::uint64_t>(ov);
    bytes += 4 * entries * std::get<std::uint64_t>(c.value("gpu.cus"));
  }
  // channels: the frontier channel and the yield engine's spill blocks.
  if (wl.variant.get(c) == "channels")
    bytes += flow::channel_bytes(c, sizeof(FlowCe), flow_capacity(wl, c, nodes, wl.graph.estimate_bytes(c) / 4)) +
             flow::spill_bytes(c, kFlowContext);
  return bytes;
}

// The hardware worklist only for hwwl; topo and swwl are plain GPU code.
std::vector<std::string> mechanisms(const Workload& wl, const Config& c) {
  if (wl.variant.get(c) == "hwwl") return {wl::Worklist::kName};
  if (wl.variant.get(c) == "coop") return {coop::Scheduler::kName};
  if (wl.variant.get(c) == "forkjoin") return {fj::kName};
  if (wl.variant.get(c) == "channels") return flow::mechanisms(c);
  return {};
}

const RegisterWorkload r_bfs{
    {"bfs",
     "breadth-first search levels (topo, swwl, hwwl, persistent, coop, forkjoin or channels) on a graph file or "
     "generator",
     kBfs.graph.input_param(), [](Host& h) { run(kBfs, h); }, [](const Config& c) { return device_bytes(kBfs, c); },
     [](const Config& c) { return mechanisms(kBfs, c); }}};
const RegisterWorkload r_sssp{
    {"sssp",
     "single-source shortest paths (topo, swwl, hwwl, persistent, coop, forkjoin or channels) on a graph file or "
     "generator",
     kSssp.graph.input_param(), [](Host& h) { run(kSssp, h); }, [](const Config& c) { return device_bytes(kSssp, c); },
     [](const Config& c) { return mechanisms(kSssp, c); }}};

}  // namespace
}  // namespace fg
