// SPDX-License-Identifier: Apache-2.0
// mst: minimum spanning forest by Boruvka's method (the worklist paper, Sec.
// II-B; LonestarGPU's MST) on a graph file or a generated graph
// (workloads/inputs/), in the topology-driven, shared-software-worklist and
// hardware-worklist variants of bfs and sssp (workloads/graph/bfs_sssp.cpp).
//
// The graph is made undirected and simple: an edge {u, v} for every pair of
// distinct nodes joined by an arc in either direction, weighing the lightest
// such arc (self-loops are never in a spanning tree). Edge e is numbered by
// the order of (min(u, v), max(u, v)); both of its arcs carry e. Edges are
// ordered by the key (weight << 32 | e), a total order, so the minimum
// spanning forest is unique and every variant finds the same edges.
//
// Components are a union-find forest in `parent` whose root is the
// component's smallest node (a link always puts the larger root under the
// smaller, by a CAS on the larger root's parent). A round:
//   min      each node u with a cross-component arc (a boundary node) finds
//            its lightest one by key and sends it to its root's `best` with
//            a 64-bit atomic min (after a plain load, as LonestarGPU does);
//   hook     each root with a finite `best` takes that edge: it links the
//            edge's two roots (the larger under the smaller, CAS, retried
//            from the roots it saw when another link got there first) and
//            marks the edge, unless they are already one component (the
//            other component chose the same edge: with a total order the
//            chosen edges are a forest plus such pairs, so nothing else is
//            skipped); it resets its `best`;
//   compress (topo) every node points at its root.
// Every find halves the path it walks (parent[x] := grandparent). Rounds
// repeat until no node has a cross-component arc.
//
// Variants (`mst.mechanism`):
//   topo  every round launches min, hook and compress with one work-item per
//         node; a flag set by min says whether any node had a cross arc.
//   swwl  data-driven with shared software worklists: min over the list of
//         boundary nodes (the first round over all nodes), which pushes each
//         node still on the boundary to the next round's node list and each
//         root it reached first (a per-root stamp, atomic exchange) to the
//         component list; hook over the component list. No compress kernel:
//         the finds halve. Both kernels are steps of the shared runtime
//         (runtime/swwl.h) with the Table II options (Sec. II-D):
//         `mst.swwl.push` (min's pushes: atomic; aru, one atomic add per list
//         per workgroup; chunk, one per list per work-item, which needs
//         `mst.swwl.threads` > 0: an item pushes at most one entry per list),
//         `mst.swwl.threads` (both kernels: 0, one work-item per item, VKC;
//         N fixed) and `mst.swwl.donate` (WDO, min's: a node's degree is
//         its estimate; hook's roots each link one edge, with nothing to
//         tell one's work from another's, so hook does not donate).
//   hwwl  the same work through the hardware worklist, double-buffered as
//         bfs's hwwl (persistent threads pull until DONE, the sides swap
//         after each kernel): min pushes boundary nodes and roots, a root's
//         work ID marked by bit 23 (kComp); hook pulls both, hooks the roots
//         and pushes the nodes again for the next round's min.
//
// Every run checks against a host Kruskal (same total weight, and the
// device's edges are a spanning forest: nodes - components edges, no
// cycle) and a host Boruvka (as many rounds: every chosen edge is merged in
// its round); `--output FILE` writes the total weight, then the edges
// "u v w" in the input's ids, sorted.
#include <algorithm>
#include <bit>
#include <numeric>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "gpu/dispatcher.h"
#include "gpu/gpu.h"
#include "gpu/host.h"
#include "gpu/kernel.h"
#include "inputs/graph_params.h"
#include "runtime/swwl.h"
#include "sim/config.h"
#include "sim/error.h"
#include "sim/workload.h"
#include "worklist/worklist.h"

namespace fg {
namespace {

using graph::Graph;

constexpr std::uint32_t kGroup = 256;      // work-items per workgroup, as bfs and sssp
constexpr std::uint64_t kNone = ~0ull;     // no cross-component edge (a `best` key)
constexpr std::uint32_t kComp = 1u << 23;  // hwwl: a work ID with this bit is a root, else a node
constexpr std::uint32_t kUnstamped = ~0u;  // a root not yet on this round's component list

struct Params {
  graph::GraphParams graph{"mst"};
  Param<std::string> mechanism{"mst.mechanism", "topo", std::vector<std::string>{"topo", "swwl", "hwwl"},
                               "how the work is scheduled: topo: topology-driven; swwl: shared software "
                               "worklists; hwwl: the hardware worklist, double-buffered (docs/worklists.md)"};
  // The software worklists' options (Sec. II-D; swwl only).
  swwl::Params sw{"mst"};
  Param<std::int64_t> overflow{"mst.hwwl.overflow",
                               -1,
                               "entries",
                               "hwwl overflow buffer per core, given to wlinit (Sec. III-D): -1: four per node (a "
                               "round pushes each node and each root at most once, so a round's half never "
                               "fills); 0: none (a push to a full bank is the hardware exception)",
                               {{-1}, {1ll << 32}}};
};

const Params kMst;

// ---- the undirected graph and the host reference ----------------------------------

struct Undirected {
  std::uint32_t nodes = 0;
  std::vector<std::uint32_t> eu, ev, ew;             // edge e: eu[e] < ev[e], its weight
  std::vector<std::uint32_t> row, col, weight, eid;  // both arcs of every edge, CSR
};

Undirected undirected(const Graph& g) {
  struct E {
    std::uint32_t a, b, w;
  };
  std::vector<E> es;
  es.reserve(g.arcs());
  for (std::uint32_t u = 0; u < g.nodes; ++u)
    for (std::uint32_t k = g.row[u]; k < g.row[u + 1]; ++k)
      if (const std::uint32_t v = g.col[k]; v != u) es.push_back({std::min(u, v), std::max(u, v), g.weight[k]});
  std::sort(es.begin(), es.end(), [](const E& x, const E& y) {
    return x.a != y.a ? x.a < y.a : x.b != y.b ? x.b < y.b : x.w < y.w;
  });
  // The lightest arc of each pair (the first after the sort).
  es.erase(std::unique(es.begin(), es.end(), [](const E& x, const E& y) { return x.a == y.a && x.b == y.b; }),
           es.end());
  Undirected d;
  d.nodes = g.nodes;
  const auto m = static_cast<std::uint32_t>(es.size());
  d.eu.resize(m), d.ev.resize(m), d.ew.resize(m);
  d.row.assign(g.nodes + 1, 0);
  for (std::uint32_t e = 0; e < m; ++e) {
    d.eu[e] = es[e].a, d.ev[e] = es[e].b, d.ew[e] = es[e].w;
    ++d.row[es[e].a + 1], ++d.row[es[e].b + 1];
  }
  for (std::uint32_t u = 0; u < g.nodes; ++u) d.row[u + 1] += d.row[u];
  d.col.resize(2ull * m), d.weight.resize(2ull * m), d.eid.resize(2ull * m);
  std::vector<std::uint32_t> next(d.row.begin(), d.row.end() - 1);
  for (std::uint32_t e = 0; e < m; ++e)
    for (const auto& [from, to] : {std::pair{d.eu[e], d.ev[e]}, std::pair{d.ev[e], d.eu[e]}}) {
      const std::uint32_t k = next[from]++;
      d.col[k] = to, d.weight[k] = d.ew[e], d.eid[k] = e;
    }
  return d;
}

// Host union-find (union by size, path halving).
struct Dsu {
  std::vector<std::uint32_t> p, size;
  explicit Dsu(std::uint32_t n) : p(n), size(n, 1) { std::iota(p.begin(), p.end(), 0u); }
  std::uint32_t find(std::uint32_t x) {
    while (p[x] != x) x = p[x] = p[p[x]];
    return x;
  }
  bool unite(std::uint32_t a, std::uint32_t b) {
    a = find(a), b = find(b);
    if (a == b) return false;
    if (size[a] < size[b]) std::swap(a, b);
    p[b] = a, size[a] += size[b];
    return true;
  }
};

struct Forest {
  std::uint64_t weight = 0, edges = 0;
};

// Kruskal: the edges by (weight, id), each that joins two components.
Forest kruskal(const Undirected& d) {
  std::vector<std::uint32_t> order(d.eu.size());
  std::iota(order.begin(), order.end(), 0u);
  std::stable_sort(order.begin(), order.end(), [&](std::uint32_t x, std::uint32_t y) { return d.ew[x] < d.ew[y]; });
  Dsu s(d.nodes);
  Forest f;
  for (const std::uint32_t e : order)
    if (s.unite(d.eu[e], d.ev[e])) f.weight += d.ew[e], ++f.edges;
  return f;
}

// Boruvka's rounds on the host, with the same order: the device merges every
// chosen edge in its round, so it takes exactly as many (the last finds no
// cross edge).
std::uint64_t boruvka_rounds(const Undirected& d) {
  Dsu s(d.nodes);
  std::vector<std::uint64_t> best(d.nodes, kNone);
  for (std::uint64_t rounds = 1;; ++rounds) {
    bool any = false;
    for (std::uint32_t e = 0; e < d.eu.size(); ++e) {
      const std::uint32_t a = s.find(d.eu[e]), b = s.find(d.ev[e]);
      if (a == b) continue;
      const std::uint64_t key = std::uint64_t{d.ew[e]} << 32 | e;
      best[a] = std::min(best[a], key), best[b] = std::min(best[b], key);
      any = true;
    }
    if (!any) return rounds;
    for (std::uint32_t c = 0; c < d.nodes; ++c)
      if (best[c] != kNone) {
        const auto e = static_cast<std::uint32_t>(best[c]);
        s.unite(d.eu[e], d.ev[e]);
        best[c] = kNone;
      }
  }
}

// ---- device ----------------------------------------------------------------------

struct Dev {
  std::uint64_t row, col, weight, eid;  // CSR with each arc's edge id
  std::uint64_t eu, ev;                 // each edge's endpoints
  std::uint64_t parent, best, chosen;   // union-find, each root's minimum key, the forest's edges (1 = in)
  std::uint32_t nodes;
};

// The software worklists (swwl) and the per-root stamps (swwl, hwwl).
struct Lists {
  std::uint64_t in = 0, out = 0, out_count = 0, comps = 0, comp_count = 0, stamp = 0;
  std::uint32_t in_count = 0, capacity = 0;
  // WDO: items donated by min's workgroups (0: not donating).
  std::uint64_t donated = 0;
};

enum class Mode { kTopo, kSwwl, kHwwl };

std::uint64_t at(std::uint64_t base, std::uint32_t i) { return base + 4ull * i; }
std::uint64_t at8(std::uint64_t base, std::uint32_t i) { return base + 8ull * i; }

// The root of x's component, halving the path on the way: a node that is not
// a root never becomes one again and its ancestors stay its ancestors, so a
// plain store of the grandparent is right even while hook links roots.
Task<std::uint32_t> find(Lane& l, std::uint64_t parent, std::uint32_t x) {
  for (;;) {
    const auto p = co_await l.load<std::uint32_t>(at(parent, x));
    if (p == x) co_return x;
    const auto gp = co_await l.load<std::uint32_t>(at(parent, p));
    if (gp == p) co_return p;
    co_await l.store<std::uint32_t>(at(parent, x), gp);
    x = gp;
  }
}

// min: u's lightest cross-component arc to its root's `best`; u (still on
// the boundary) and its root (first time this round) pushed (swwl: through
// `p`, list 0 the nodes, list 1 the roots).
Task<> min_visit(Lane& l, Dev d, Lists w, Mode m, std::uint32_t round, std::uint64_t flag, std::uint32_t u,
                 swwl::Pusher* p = nullptr) {
  const auto cu = co_await find(l, d.parent, u);
  const auto begin = co_await l.load<std::uint32_t>(at(d.row, u));
  const auto end = co_await l.load<std::uint32_t>(at(d.row, u + 1));
  std::uint64_t mine = kNone;
  for (auto k = begin; k < end; ++k) {
    const auto wt = co_await l.load<std::uint32_t>(at(d.weight, k));
    if (wt > (mine >> 32)) continue;  // heavier than the best so far: no find (LonestarGPU)
    const auto e = co_await l.load<std::uint32_t>(at(d.eid, k));
    co_await l.alu(1);
    const std::uint64_t key = std::uint64_t{wt} << 32 | e;
    if (key >= mine) continue;
    const auto v = co_await l.load<std::uint32_t>(at(d.col, k));
    const auto cv = co_await find(l, d.parent, v);
    if (cv != cu) mine = key;
  }
  if (mine == kNone) co_return;  // every neighbour in u's component: u never has work again
  if (m == Mode::kTopo)
    co_await l.store<std::uint32_t>(flag, 1);
  else if (m == Mode::kSwwl)
    co_await p->push(l, 0, u);
  else
    co_await wl::wl_push(l, u);
  const auto seen = co_await l.load<std::uint64_t>(at8(d.best, cu));
  if (mine < seen) co_await l.atomic_min<std::uint64_t>(at8(d.best, cu), mine);
  if (m == Mode::kTopo) co_return;
  // The root on this round's component list once: the first to stamp it.
  const auto stamped = co_await l.load<std::uint32_t>(at(w.stamp, cu));
  if (stamped == round) co_return;
  const auto old = co_await l.atomic_exch<std::uint32_t>(at(w.stamp, cu), round);
  if (old == round) co_return;
  if (m == Mode::kSwwl)
    co_await p->push(l, 1, cu);
  else
    co_await wl::wl_push(l, cu | kComp);
}

// hook: root c takes its minimum edge.
Task<> hook(Lane& l, Dev d, std::uint32_t c) {
  const auto key = co_await l.load<std::uint64_t>(at8(d.best, c));
  if (key == kNone) co_return;
  co_await l.store<std::uint64_t>(at8(d.best, c), kNone);  // ready for the next round
  const auto e = static_cast<std::uint32_t>(key);
  auto a = co_await l.load<std::uint32_t>(at(d.eu, e));
  auto b = co_await l.load<std::uint32_t>(at(d.ev, e));
  for (;;) {
    const auto ra = co_await find(l, d.parent, a);
    const auto rb = co_await find(l, d.parent, b);
    if (ra == rb) co_return;  // one component already: the other side chose this edge and linked
    const auto lo = std::min(ra, rb), hi = std::max(ra, rb);
    const auto old = co_await l.atomic_cas<std::uint32_t>(at(d.parent, hi), hi, lo);
    if (old == hi) break;
    a = ra, b = rb;  // another link moved hi: find again from the roots seen
  }
  co_await l.store<std::uint32_t>(at(d.chosen, e), 1);
}

// ---- topology-driven ----------------------------------------------------------------

Task<> min_topo(Lane& l, Dev d, std::uint64_t flag) {
  const std::uint32_t u = l.global_id();
  if (u >= d.nodes) co_return;
  co_await min_visit(l, d, Lists{}, Mode::kTopo, 0, flag, u);
}

Task<> hook_topo(Lane& l, Dev d) {
  const std::uint32_t c = l.global_id();
  if (c >= d.nodes) co_return;
  co_await hook(l, d, c);
}

Task<> compress(Lane& l, Dev d) {
  const std::uint32_t u = l.global_id();
  if (u >= d.nodes) co_return;
  const auto r = co_await find(l, d.parent, u);
  const auto p = co_await l.load<std::uint32_t>(at(d.parent, u));
  if (p != r) co_await l.store<std::uint32_t>(at(d.parent, u), r);
}

// ---- shared software worklists --------------------------------------------------------

// min as a step of the shared runtime (runtime/swwl.h) over the in-list;
// round 0 takes every node (in == 0: the items are the indices). Pushes go
// to two lists: the boundary nodes (0) and the roots (1); chunk (WCH) groups
// a work-item's pushes per list once its share and donations are done (an
// item pushes at most one entry per list). WDO's estimate of a node's work
// is its degree: min scans every arc (two row-offset loads, which the visit
// makes again from the L1).
Task<> min_swwl(Lane& l, Dev d, Lists w, std::uint32_t round, swwl::Opts o) {
  swwl::Pusher p(o.push, {{w.out, w.out_count, w.capacity}, {w.comps, w.comp_count, w.capacity}});
  co_await swwl::step(
      l, o, round == 0 ? 0 : w.in, w.in_count, w.donated, p,
      [&](Lane& lane, std::uint32_t u) -> Task<std::uint32_t> {
        const auto b = co_await lane.load<std::uint32_t>(at(d.row, u));
        const auto e = co_await lane.load<std::uint32_t>(at(d.row, u + 1));
        co_return e - b;
      },
      [&](Lane& lane, std::uint32_t u, swwl::Pusher& pusher) -> Task<> {
        co_await min_visit(lane, d, w, Mode::kSwwl, round, 0, u, &pusher);
      });
}

// hook as a step over the component list; it pushes nothing and donates
// nothing (the push and donate options are min's): every root links one
// edge, and its finds' lengths are not known before it walks them, so no
// estimate tells one root's work from another's (a constant estimate never
// donates from even shares).
Task<> hook_swwl(Lane& l, Dev d, Lists w, std::uint32_t count, swwl::Opts o) {
  o.push = swwl::Push::kAtomic;
  o.donate = false;
  swwl::Pusher none(o.push, {});
  co_await swwl::step(
      l, o, w.comps, count, 0, none, [](Lane&, std::uint32_t) -> Task<std::uint32_t> { co_return 1; },
      [&](Lane& lane, std::uint32_t c, swwl::Pusher&) -> Task<> { co_await hook(lane, d, c); });
}

// ---- hardware worklist ----------------------------------------------------------------

Task<> hwwl_init(Lane& l, std::uint64_t overflow, std::uint64_t entries) {
  co_await wl::wl_init(l, overflow, entries);
  co_await wl::wl_cfg(l, true);
}

// Round 0: one work-item per node, pushing into the unit.
Task<> min_hwwl_first(Lane& l, Dev d, Lists w) {
  const std::uint32_t u = l.global_id();
  if (u >= d.nodes) co_return;
  co_await min_visit(l, d, w, Mode::kHwwl, 0, 0, u);
}

// hook's work IDs: a root to hook, or a node carried to the next min.
Task<> hook_or_carry(Lane& l, Dev d, std::uint32_t id) {
  if (id & kComp)
    co_await hook(l, d, id & ~kComp);
  else
    co_await wl::wl_push(l, id);
}

// Persistent threads pull until DONE (WAIT: pull again). The pull is at the
// bottom of the loop and this function after every visit function: the SIMT
// engine runs the lowest pending source site first (bfs_sssp.cpp's
// pull_loop says why).
template <class Visit>
Task<> pull_loop(Lane& l, Visit visit) {
  std::uint32_t id = co_await wl::wl_pull(l);
  for (;;) {
    if (id == wl::kDone) break;
    if (id != wl::kWait) co_await visit(id);
    id = co_await wl::wl_pull_spin(l);
  }
}

Task<> min_hwwl(Lane& l, Dev d, Lists w, std::uint32_t round) {
  return pull_loop(l, [=, &l](std::uint32_t u) { return min_visit(l, d, w, Mode::kHwwl, round, 0, u); });
}

Task<> hook_hwwl(Lane& l, Dev d) {
  return pull_loop(l, [=, &l](std::uint32_t id) { return hook_or_carry(l, d, id); });
}

// ---- host side ----------------------------------------------------------------------

std::uint64_t overflow_entries(const Config& c, std::uint64_t nodes) {
  const std::int64_t ov = kMst.overflow.get(c);
  return ov < 0 ? 4 * nodes : static_cast<std::uint64_t>(ov);
}

void run(Host& h) {
  const Config& cfg = h.config();
  const std::uint64_t seed = h.rng()();
  const std::string mech = kMst.mechanism.get(cfg);
  if (mech != "hwwl" && !cfg.is_default(kMst.overflow.name()))
    throw UserError(fmt::format("{} (set by {}) does not apply: {} is {}, not hwwl", kMst.overflow.name(),
                                cfg.origin(kMst.overflow.name()), kMst.mechanism.name(), mech));
  // The software worklists' options apply to swwl only; donating needs
  // work-items with more than one item, and so does chunking here.
  const swwl::Opts sw = kMst.sw.get(cfg, kMst.mechanism.name(), mech);
  if (sw.push == swwl::Push::kChunk && sw.threads == 0)
    throw UserError(fmt::format(
        "{} (set by {}): work chunking needs {} > 0 (with one item per work-item, min pushes at most one entry "
        "per list and hook none: there is nothing to group)",
        kMst.sw.push->name(), cfg.origin(kMst.sw.push->name()), kMst.sw.threads.name()));
  const Graph g = kMst.graph.load(cfg, seed);
  if (g.nodes == 0) throw UserError(fmt::format("{}: the graph has no nodes", g.origin));
  if (mech == "hwwl" && g.nodes >= kComp)
    throw UserError(
        fmt::format("{}: {} nodes do not fit in 23 bits (mst's hwwl work IDs: 24 bits, one of them "
                    "marking a component)",
                    g.origin, g.nodes));
  const Undirected u = undirected(g);
  const std::uint32_t n = u.nodes;
  const auto m = static_cast<std::uint32_t>(u.eu.size());
  const Forest want = kruskal(u);
  const std::uint64_t want_rounds = boruvka_rounds(u);

  const Dev d{h.upload(u.row),
              h.upload(u.col),
              h.upload(u.weight),
              h.upload(u.eid),
              h.upload(u.eu),
              h.upload(u.ev),
              h.upload([&] {
                std::vector<std::uint32_t> p(n);
                std::iota(p.begin(), p.end(), 0u);
                return p;
              }()),
              h.upload(std::vector<std::uint64_t>(n, kNone)),
              h.upload(std::vector<std::uint32_t>(std::max(m, 1u), 0)),
              n};
  const std::uint64_t flag = h.alloc(4);
  sc_core::sc_time kernel_time = sc_core::SC_ZERO_TIME;
  std::uint64_t rounds = 0, kernels = 0, items = 0, pushes = 0;
  std::uint64_t donated = 0;  // WDO's count on the device
  // Each round with a cross arc at least halves the components that have
  // one: bit_width(n) + 1 rounds suffice (the last finds none).
  const std::uint64_t round_limit = std::bit_width(n) + 2ull;
  auto launch = [&](const char* name, std::uint64_t count, KernelBody body, std::uint32_t lds = 0) {
    ++kernels;
    items += count;
    kernel_time += h.run_kernel({name, count, kGroup, 16, lds, std::move(body)});
  };
  auto next_round = [&] {
    if (++rounds > round_limit)
      throw SimFault(fmt::format("mst: {} rounds without finishing (at most {} are needed)", rounds - 1, round_limit));
  };

  if (mech == "topo") {
    for (;;) {
      next_round();
      const std::uint32_t zero = 0;
      h.copy_in(flag, &zero, 4);
      launch("mst_min", n, [=](Lane& l) { return min_topo(l, d, flag); });
      std::uint32_t any = 0;
      h.copy_out(&any, flag, 4);
      if (!any) break;
      launch("mst_hook", n, [=](Lane& l) { return hook_topo(l, d); });
      launch("mst_compress", n, [=](Lane& l) { return compress(l, d); });
    }
  } else if (mech == "swwl") {
    Lists w;
    w.in = h.alloc(4ull * n), w.out = h.alloc(4ull * n), w.comps = h.alloc(4ull * n);
    w.out_count = flag, w.comp_count = h.alloc(4);
    w.stamp = h.upload(std::vector<std::uint32_t>(n, kUnstamped));
    w.in_count = n, w.capacity = n;
    if (sw.donate) {
      w.donated = donated = h.upload(std::vector<std::uint32_t>(1, 0));
    }
    swwl::Opts hook_opts = sw;
    hook_opts.push = swwl::Push::kAtomic;  // hook pushes nothing and donates nothing: no LDS
    hook_opts.donate = false;
    for (std::uint32_t round = 0;; ++round) {
      next_round();
      const std::uint32_t zero = 0;
      h.copy_in(w.out_count, &zero, 4);
      h.copy_in(w.comp_count, &zero, 4);
      launch(
          "mst_min_swwl", swwl::threads(sw, w.in_count), [=](Lane& l) { return min_swwl(l, d, w, round, sw); },
          swwl::lds_bytes(sw));
      std::uint32_t nodes_out = 0, comps = 0;
      h.copy_out(&nodes_out, w.out_count, 4);
      h.copy_out(&comps, w.comp_count, 4);
      if (nodes_out > w.capacity || comps > w.capacity)
        throw SimFault(
            fmt::format("mst: software worklist overflow in round {}: {} nodes and {} components pushed "
                        "into {} entries each",
                        round, nodes_out, comps, w.capacity));
      pushes += nodes_out + comps;
      if (comps == 0) break;
      launch(
          "mst_hook_swwl", swwl::threads(hook_opts, comps),
          [=](Lane& l) { return hook_swwl(l, d, w, comps, hook_opts); }, swwl::lds_bytes(hook_opts));
      std::swap(w.in, w.out);
      w.in_count = nodes_out;
    }
  } else {
    wl::Worklist* unit = &h.gpu().get<wl::Worklist>("mst");
    const std::uint64_t threads = h.dispatcher().resident_capacity({"hwwl", 0, kGroup, 16, 0, {}}) * kGroup;
    const std::uint64_t entries = overflow_entries(cfg, n);
    const std::uint64_t overflow = entries ? h.alloc(4ull * entries * h.cus()) : 0;
    Lists w;
    w.stamp = h.upload(std::vector<std::uint32_t>(n, kUnstamped));
    h.run_kernel({"hwwl_init", 1, kGroup, 4, 0, [=](Lane& l) { return hwwl_init(l, overflow, entries); }});
    unit->kernel_done();
    for (std::uint32_t round = 0;; ++round) {
      next_round();
      if (round == 0)
        launch("mst_min_hwwl", n, [=](Lane& l) { return min_hwwl_first(l, d, w); });
      else
        launch("mst_min_hwwl", threads, [=](Lane& l) { return min_hwwl(l, d, w, round); });
      unit->kernel_done();
      if (unit->work_inside() == 0) break;
      launch("mst_hook_hwwl", threads, [=](Lane& l) { return hook_hwwl(l, d); });
      unit->kernel_done();
    }
  }

  // The device's forest: every marked edge joins two components (no cycle),
  // as many edges as the reference (so it spans the same components), the
  // same total weight.
  const auto chosen = h.download<std::uint32_t>(d.chosen, m);
  Dsu s(n);
  Forest got;
  std::uint64_t cycles = 0, bad_marks = 0;
  for (std::uint32_t e = 0; e < m; ++e) {
    if (chosen[e] > 1) ++bad_marks;
    if (chosen[e] == 0) continue;
    got.weight += u.ew[e], ++got.edges;
    if (!s.unite(u.eu[e], u.ev[e])) ++cycles;
  }
  const std::uint64_t components = n - want.edges;
  const bool ok =
      cycles == 0 && bad_marks == 0 && got.edges == want.edges && got.weight == want.weight && rounds == want_rounds;
  h.check(ok,
          ok ? fmt::format("mst: a spanning forest of {} edges ({} components) weighing {}, as the host Kruskal's, "
                           "in the host Boruvka's {} rounds",
                           got.edges, components, got.weight, rounds)
             : fmt::format("mst: the device's {} edges weigh {} with {} closing a cycle{}, in {} rounds; the host "
                           "Kruskal's forest has {} edges ({} components) weighing {}, Boruvka takes {} rounds",
                           got.edges, got.weight, cycles,
                           bad_marks ? fmt::format(" and {} edges marked with a value other than 1", bad_marks) : "",
                           rounds, want.edges, components, want.weight, want_rounds));
  h.result("graph", g.origin);
  h.result("nodes", n);
  h.result("arcs", g.arcs());
  if (g.dropped_parallel) h.result("dropped_parallel_arcs", g.dropped_parallel);
  if (g.dropped_self_loops) h.result("dropped_self_loops", g.dropped_self_loops);
  if (g.added_reverse) h.result("added_reverse_arcs", g.added_reverse);
  h.result("edges", m);
  h.result("weight", got.weight);
  h.result("forest_edges", got.edges);
  h.result("components", components);
  h.result("rounds", rounds);
  h.result("kernels", kernels);
  h.result("work_items", items);
  if (mech == "swwl") h.result("pushes", pushes);
  if (sw.donate) {
    h.result("donated", h.download<std::uint32_t>(donated, 1)[0]);
  }
  h.result("kernel_ns", kernel_time.to_seconds() * 1e9);
  h.output() << got.weight << '\n';
  for (std::uint32_t e = 0; e < m; ++e)  // edges are numbered in (u, v) order
    if (chosen[e]) h.output() << g.id_of(u.eu[e]) << ' ' << g.id_of(u.ev[e]) << ' ' << u.ew[e] << '\n';
}

std::uint64_t device_bytes(const Config& c) {
  // The graph's estimate is 4 (nodes + 1) + 8 arcs; the undirected graph
  // has at most one edge per arc: both arcs with weight and edge id (24
  // bytes per input arc), each edge's endpoints and mark (12); per node the
  // parent, the 8-byte minimum, the stamps and three lists (28).
  const std::uint64_t nodes = kMst.graph.estimate_nodes(c);
  const std::uint64_t graph = kMst.graph.estimate_bytes(c);
  const std::uint64_t arcs = graph > 4 * (nodes + 1) ? (graph - 4 * (nodes + 1)) / 8 : 0;
  std::uint64_t bytes = 4 * (nodes + 1) + 36 * arcs + 28 * (nodes + 1) + 64;
  // hwwl: the overflow buffer, as run() allocates it.
  if (kMst.mechanism.get(c) == "hwwl")
    bytes += 4 * overflow_entries(c, nodes) * std::get<std::uint64_t>(c.value("gpu.cus"));
  return bytes;
}

std::vector<std::string> mechanisms(const Config& c) {
  if (kMst.mechanism.get(c) == "hwwl") return {wl::Worklist::kName};
  return {};
}

const RegisterWorkload r_mst{{"mst",
                              "minimum spanning forest by Boruvka (topo, swwl or hwwl) on a graph file or generator",
                              kMst.graph.input_param(), run, device_bytes, mechanisms}};

}  // namespace
}  // namespace fg
