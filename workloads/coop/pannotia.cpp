// SPDX-License-Identifier: Apache-2.0
// The Pannotia graph applications of the cooperative-kernel paper (Sorensen et
// al., FSE 2017, Table 1): color (graph colouring, max-priority rounds), mis
// (maximal independent set, Luby style with fixed priorities) and p-sssp
// (Bellman-Ford as a min-plus product over in-arcs), each as a persistent
// kernel whose phases are separated by kernel-wide barriers, in the
// non-cooperative version (plain grid barriers) and the cooperative one
// (resizing barriers): `<w>.mechanism` persistent or coop
// (workloads/coop/coop_graph.h). docs/cooperative.md.
//
// Departures from Pannotia's sources (docs/cooperative.md says why): every
// node's priority is unique (its index, as in the paper's prototype, or a
// bijective hash of its id and the seed), so the result is the host replay's
// whatever the schedule; a node of degree 1
// considers its neighbour (Pannotia's color skipped it and could colour both
// ends of an edge alike); the graph of color and mis is made symmetric; the
// transmit variables are what the phases need (Table 1's counts beside ours
// in docs/cooperative.md).
#include <algorithm>
#include <limits>
#include <vector>

#include <fmt/format.h>

#include "coop/coop_graph.h"
#include "gpu/gpu.h"
#include "inputs/graph_params.h"
#include "mem/memory_system.h"
#include "sim/config.h"
#include "sim/error.h"
#include "sim/workload.h"

namespace fg {
namespace {

using coopg::DevGraph;
using coopg::Phases;

struct App {
  const char* name;
  graph::GraphParams graph;
  Param<std::string> mechanism;
  Param<std::int64_t> groups;
  Param<std::uint64_t> group_size;
};

App make(const char* name) {
  const std::string n = name;
  return App{name, graph::GraphParams{name},
             Param<std::string>{n + ".mechanism", "persistent", std::vector<std::string>{"persistent", "coop"},
                                "persistent: a persistent kernel with plain grid barriers; coop: a cooperative kernel "
                                "with resizing barriers (Sorensen et al. Table 1)"},
             Param<std::int64_t>{n + ".groups",
                                 0,
                                 "",
                                 "workgroups (0: the resident capacity, the most the plain barriers allow; -k: that "
                                 "minus k)",
                                 {{-1e6}, {1e6}}},
             Param<std::uint64_t>{
                 n + ".group_size", 128, "", "work-items per workgroup (the paper's runs: 128)", {{1}, {1024}}}};
}

App kColor = make("color");
App kMis = make("mis");
App kPsssp = make("p-sssp");

std::vector<std::string> mechanisms(const App& a, const Config& c) {
  if (a.mechanism.get(c) == "coop") return {coop::Scheduler::kName};
  return {};
}

// A node's priority in color and mis, unique either way. `<w>.priority`:
// index, the prototype's (node_value[i] = i / (n + 1) in its color.h and
// mis.h, so the paper's runs): on a mesh numbered row by row it sweeps the
// mesh corner to corner, one anti-diagonal per round (many short barrier
// intervals); hash, ours until 2026-11-25 and kept as an ablation (a
// multiplicative hash of the id and sim.seed, a bijection on 32 bits: like
// Pannotia's rand(), a handful of rounds).
struct Prio {
  bool index = true;
  std::uint32_t seed = 0;
};
constexpr std::uint32_t priority(std::uint32_t i, Prio p) { return p.index ? i : (i + p.seed) * 2654435761u; }
Param<std::string> priority_param(const char* w) {
  return Param<std::string>{std::string(w) + ".priority", "index", std::vector<std::string>{"index", "hash"},
                            "node priorities: index (the prototype's i/(n+1), the paper's runs) or hash (a bijective "
                            "hash of the id and sim.seed; docs/cooperative.md)"};
}
const Param<std::string> kColorPriority = priority_param("color");
const Param<std::string> kMisPriority = priority_param("mis");
Prio prio_of(const Config& cfg, const Param<std::string>& p) {
  return Prio{p.get(cfg) == "index", static_cast<std::uint32_t>(std::get<std::uint64_t>(cfg.value("sim.seed")))};
}

std::uint64_t device_bytes(const App& a, const Config& c) {
  return 2 * a.graph.estimate_bytes(c) + 24 * (a.graph.estimate_nodes(c) + 1) + (1u << 16);
}

// ---- color ------------------------------------------------------------------

// Two flags, one per round parity: phase A of round r sets flag[r % 2] when
// an uncoloured node is left; phase B reads it after the barrier, and clears
// the next round's.
struct ColorCtx {
  DevGraph g;
  std::uint64_t color = 0, maxp = 0, has = 0, flags = 0, line = 64;
  Prio seed;
};
struct ColorVars {  // transmitted: where a forked workgroup starts
  std::uint32_t phase = 0, round = 1;
};

Task<> color_kernel(Lane& l, ColorCtx c, Phases p) {
  ColorVars v;
  if (p.coop && coop::joined(l)) v = coop::transmitted<ColorVars>(l);
  std::uint32_t m = co_await coopg::start_count(l, p);
  const std::uint32_t id = co_await l.get_group_id();
  const std::uint64_t size = l.group_size();
  for (;;) {
    const std::uint64_t stride = std::uint64_t{m} * size;
    const std::uint64_t flag = c.flags + c.line * (v.round % 2);
    if (v.phase == 0) {
      // A: the highest priority among each uncoloured node's uncoloured neighbours.
      for (std::uint64_t i = std::uint64_t{id} * size + l.local_id(); i < c.g.nodes; i += stride) {
        const std::uint32_t ci = co_await l.load<std::uint32_t>(c.color + 4 * i);
        if (ci != 0) continue;
        const std::uint32_t b = co_await l.load<std::uint32_t>(c.g.row + 4 * i);
        const std::uint32_t e = co_await l.load<std::uint32_t>(c.g.row + 4 * i + 4);
        std::uint32_t best = 0, any = 0;
        for (std::uint32_t k = b; k < e; ++k) {
          const std::uint32_t j = co_await l.load<std::uint32_t>(c.g.col + 4ull * k);
          const std::uint32_t cj = co_await l.load<std::uint32_t>(c.color + 4ull * j);
          co_await l.alu(2);
          if (cj == 0 && (!any || priority(j, c.seed) > best)) best = priority(j, c.seed), any = 1;
        }
        co_await l.store<std::uint32_t>(c.maxp + 4 * i, best);
        co_await l.store<std::uint32_t>(c.has + 4 * i, any);
        co_await l.store<std::uint32_t>(flag, 1u);
      }
      v.phase = 1;
    } else {
      // B: done when round r found nothing uncoloured; else colour the local maxima.
      const std::uint32_t left = co_await l.load_acquire<std::uint32_t>(flag);
      if (left == 0) break;
      for (std::uint64_t i = std::uint64_t{id} * size + l.local_id(); i < c.g.nodes; i += stride) {
        const std::uint32_t ci = co_await l.load<std::uint32_t>(c.color + 4 * i);
        if (ci != 0) continue;
        const std::uint32_t any = co_await l.load<std::uint32_t>(c.has + 4 * i);
        const std::uint32_t best = co_await l.load<std::uint32_t>(c.maxp + 4 * i);
        co_await l.alu(2);
        if (!any || priority(static_cast<std::uint32_t>(i), c.seed) > best)
          co_await l.store<std::uint32_t>(c.color + 4 * i, v.round);
      }
      if (id == 0 && l.local_id() == 0) co_await l.store<std::uint32_t>(c.flags + c.line * ((v.round + 1) % 2), 0u);
      v.phase = 0;
      ++v.round;
    }
    m = co_await coopg::wait(l, p, v);
  }
}

std::vector<std::uint32_t> color_host(const graph::Graph& g, Prio seed) {
  std::vector<std::uint32_t> col(g.nodes, 0);
  for (std::uint32_t round = 1;; ++round) {
    std::vector<std::uint32_t> pick;
    for (std::uint32_t i = 0; i < g.nodes; ++i) {
      if (col[i]) continue;
      bool max = true;
      for (std::uint32_t k = g.row[i]; k < g.row[i + 1]; ++k)
        if (!col[g.col[k]] && priority(g.col[k], seed) > priority(i, seed)) max = false;
      if (max) pick.push_back(i);
    }
    if (pick.empty()) break;
    for (std::uint32_t i : pick) col[i] = round;
  }
  return col;
}

// ---- mis --------------------------------------------------------------------

// state: 0 undecided, 1 in the set, 2 out; `out` marks neighbours of new set
// members (phase 2) that phase 3 takes out.
struct MisCtx {
  DevGraph g;
  std::uint64_t state = 0, minp = 0, out = 0, flags = 0, line = 64;
  Prio seed;
};
struct MisVars {
  std::uint32_t phase = 0, round = 0, stop = 0;  // stop: the round found nothing undecided (read after RB1)
};

Task<> mis_kernel(Lane& l, MisCtx c, Phases p) {
  MisVars v;
  if (p.coop && coop::joined(l)) v = coop::transmitted<MisVars>(l);
  std::uint32_t m = co_await coopg::start_count(l, p);
  const std::uint32_t id = co_await l.get_group_id();
  const std::uint64_t size = l.group_size();
  for (;;) {
    const std::uint64_t stride = std::uint64_t{m} * size;
    const std::uint64_t first = std::uint64_t{id} * size + l.local_id();
    const std::uint64_t flag = c.flags + c.line * (v.round % 2);
    if (v.phase == 0) {
      // 1: the lowest priority among each undecided node's undecided neighbours.
      for (std::uint64_t i = first; i < c.g.nodes; i += stride) {
        const std::uint32_t si = co_await l.load<std::uint32_t>(c.state + 4 * i);
        if (si != 0) continue;
        co_await l.store<std::uint32_t>(flag, 1u);
        const std::uint32_t b = co_await l.load<std::uint32_t>(c.g.row + 4 * i);
        const std::uint32_t e = co_await l.load<std::uint32_t>(c.g.row + 4 * i + 4);
        std::uint32_t low = std::numeric_limits<std::uint32_t>::max();
        for (std::uint32_t k = b; k < e; ++k) {
          const std::uint32_t j = co_await l.load<std::uint32_t>(c.g.col + 4ull * k);
          const std::uint32_t sj = co_await l.load<std::uint32_t>(c.state + 4ull * j);
          co_await l.alu(2);
          if (sj == 0) low = std::min(low, priority(j, c.seed));
        }
        co_await l.store<std::uint32_t>(c.minp + 4 * i, low);
      }
      v.phase = 1;
    } else if (v.phase == 1) {
      // 2: local minima join the set and mark their undecided neighbours out.
      v.stop = co_await l.load_acquire<std::uint32_t>(flag) == 0;
      for (std::uint64_t i = first; i < c.g.nodes && !v.stop; i += stride) {
        const std::uint32_t si = co_await l.load<std::uint32_t>(c.state + 4 * i);
        if (si != 0) continue;
        const std::uint32_t low = co_await l.load<std::uint32_t>(c.minp + 4 * i);
        co_await l.alu(1);
        if (priority(static_cast<std::uint32_t>(i), c.seed) >= low) continue;
        co_await l.store<std::uint32_t>(c.state + 4 * i, 1u);
        const std::uint32_t b = co_await l.load<std::uint32_t>(c.g.row + 4 * i);
        const std::uint32_t e = co_await l.load<std::uint32_t>(c.g.row + 4 * i + 4);
        for (std::uint32_t k = b; k < e; ++k) {
          const std::uint32_t j = co_await l.load<std::uint32_t>(c.g.col + 4ull * k);
          co_await l.store<std::uint32_t>(c.out + 4ull * j, 1u);
        }
      }
      v.phase = 2;
    } else {
      if (v.stop) break;
      // 3: the marked neighbours are out; the next round's flag is cleared.
      for (std::uint64_t i = first; i < c.g.nodes; i += stride) {
        const std::uint32_t o = co_await l.load<std::uint32_t>(c.out + 4 * i);
        if (o == 0) continue;
        const std::uint32_t si = co_await l.load<std::uint32_t>(c.state + 4 * i);
        if (si == 0) co_await l.store<std::uint32_t>(c.state + 4 * i, 2u);
      }
      if (id == 0 && l.local_id() == 0) co_await l.store<std::uint32_t>(c.flags + c.line * ((v.round + 1) % 2), 0u);
      v.phase = 0;
      ++v.round;
    }
    m = co_await coopg::wait(l, p, v);
  }
}

std::vector<std::uint32_t> mis_host(const graph::Graph& g, Prio seed) {
  std::vector<std::uint32_t> st(g.nodes, 0);
  for (;;) {
    std::vector<std::uint32_t> join;
    bool any = false;
    for (std::uint32_t i = 0; i < g.nodes; ++i) {
      if (st[i]) continue;
      any = true;
      bool min = true;
      for (std::uint32_t k = g.row[i]; k < g.row[i + 1]; ++k)
        if (!st[g.col[k]] && priority(g.col[k], seed) <= priority(i, seed) && g.col[k] != i) min = false;
      if (min) join.push_back(i);
    }
    if (!any) break;
    for (std::uint32_t i : join) st[i] = 1;
    for (std::uint32_t i : join)
      for (std::uint32_t k = g.row[i]; k < g.row[i + 1]; ++k)
        if (!st[g.col[k]]) st[g.col[k]] = 2;
  }
  return st;
}

// ---- p-sssp -------------------------------------------------------------------

// x: the last round's distances, y: this round's; pull over in-arcs.
struct PsspCtx {
  DevGraph in;  // the transpose
  std::uint64_t x = 0, y = 0, stop = 0;
};
struct PsspVars {
  std::uint32_t phase = 0;
};
constexpr std::uint32_t kInf = 0xffffffffu;

Task<> psssp_kernel(Lane& l, PsspCtx c, Phases p) {
  PsspVars v;
  if (p.coop && coop::joined(l)) v = coop::transmitted<PsspVars>(l);
  std::uint32_t m = co_await coopg::start_count(l, p);
  const std::uint32_t id = co_await l.get_group_id();
  const std::uint64_t size = l.group_size();
  for (;;) {
    const std::uint64_t stride = std::uint64_t{m} * size;
    const std::uint64_t first = std::uint64_t{id} * size + l.local_id();
    if (v.phase == 0) {
      for (std::uint64_t i = first; i < c.in.nodes; i += stride) {
        const std::uint32_t yi = co_await l.load<std::uint32_t>(c.y + 4 * i);
        co_await l.store<std::uint32_t>(c.x + 4 * i, yi);
      }
      v.phase = 1;
    } else if (v.phase == 1) {
      if (id == 0 && l.local_id() == 0) co_await l.store<std::uint32_t>(c.stop, 0u);
      for (std::uint64_t i = first; i < c.in.nodes; i += stride) {
        std::uint32_t best = co_await l.load<std::uint32_t>(c.x + 4 * i);
        const std::uint32_t b = co_await l.load<std::uint32_t>(c.in.row + 4 * i);
        const std::uint32_t e = co_await l.load<std::uint32_t>(c.in.row + 4 * i + 4);
        for (std::uint32_t k = b; k < e; ++k) {
          const std::uint32_t u = co_await l.load<std::uint32_t>(c.in.col + 4ull * k);
          const std::uint32_t w = co_await l.load<std::uint32_t>(c.in.weight + 4ull * k);
          const std::uint32_t xu = co_await l.load<std::uint32_t>(c.x + 4ull * u);
          co_await l.alu(2);
          if (xu != kInf && xu + w < best) best = xu + w;
        }
        co_await l.store<std::uint32_t>(c.y + 4 * i, best);
      }
      v.phase = 2;
    } else if (v.phase == 2) {
      for (std::uint64_t i = first; i < c.in.nodes; i += stride) {
        const std::uint32_t xi = co_await l.load<std::uint32_t>(c.x + 4 * i);
        const std::uint32_t yi = co_await l.load<std::uint32_t>(c.y + 4 * i);
        if (xi != yi) co_await l.store<std::uint32_t>(c.stop, 1u);
      }
      v.phase = 3;
    } else {
      const std::uint32_t changed = co_await l.load_acquire<std::uint32_t>(c.stop);
      if (changed == 0) break;
      v.phase = 0;
      continue;  // straight on to the copy: the stop word is read, not a phase
    }
    m = co_await coopg::wait(l, p, v);
  }
}

// ---- the host side -------------------------------------------------------------

graph::Graph load(Host& h, const App& a) {
  graph::Graph g = a.graph.load(h.config(), std::get<std::uint64_t>(h.config().value("sim.seed")));
  if (g.nodes == 0) throw UserError(fmt::format("{}: the graph has no nodes", a.name));
  return g;
}

KernelLaunch shape(const App& a, const Config& cfg) {
  return KernelLaunch{a.name, 0, static_cast<std::uint32_t>(a.group_size.get(cfg)), 32, 0, {}};
}

void results(Host& h, const graph::Graph& g) {
  h.result("graph", g.origin);
  h.result("nodes", g.nodes);
  h.result("arcs", g.arcs());
}

void color(Host& h) {
  const Config& cfg = h.config();
  const graph::Graph g = coopg::symmetric(load(h, kColor));
  const Prio seed = prio_of(cfg, kColorPriority);
  const unsigned line = h.memory().line_size();
  ColorCtx c;
  c.g = coopg::upload(h, g);
  c.color = h.upload(std::vector<std::uint32_t>(g.nodes, 0));
  c.maxp = h.alloc(4ull * g.nodes);
  c.has = h.alloc(4ull * g.nodes);
  c.flags = h.upload(std::vector<std::uint32_t>(2 * line / 4, 0));
  c.line = line;
  c.seed = seed;
  coopg::run(h, kColor.mechanism.get(cfg), shape(kColor, cfg), kColor.groups.get(cfg),
             [c](const Phases& p) -> KernelBody { return [c, p](Lane& l) { return color_kernel(l, c, p); }; });
  const auto got = h.download<std::uint32_t>(c.color, g.nodes);
  const auto want = color_host(g, seed);
  std::uint64_t clash = 0, uncoloured = 0, differ = 0, colours = 0;
  for (std::uint32_t i = 0; i < g.nodes; ++i) {
    uncoloured += got[i] == 0;
    differ += got[i] != want[i];
    colours = std::max<std::uint64_t>(colours, got[i]);
    for (std::uint32_t k = g.row[i]; k < g.row[i + 1]; ++k) clash += got[g.col[k]] == got[i];
  }
  h.check(uncoloured == 0 && clash == 0 && differ == 0,
          fmt::format("color: {} nodes uncoloured, {} arcs joining one colour, {} colours differing from the host's "
                      "rounds",
                      uncoloured, clash, differ));
  results(h, g);
  h.result("colours", colours);
  for (std::uint32_t i = 0; i < g.nodes; ++i) h.output() << g.id_of(i) << ' ' << got[i] << '\n';
}

void mis(Host& h) {
  const Config& cfg = h.config();
  const graph::Graph g = coopg::symmetric(load(h, kMis));
  const Prio seed = prio_of(cfg, kMisPriority);
  const unsigned line = h.memory().line_size();
  MisCtx c;
  c.g = coopg::upload(h, g);
  c.state = h.upload(std::vector<std::uint32_t>(g.nodes, 0));
  c.minp = h.alloc(4ull * g.nodes);
  c.out = h.upload(std::vector<std::uint32_t>(g.nodes, 0));
  c.flags = h.upload(std::vector<std::uint32_t>(2 * line / 4, 0));
  c.line = line;
  c.seed = seed;
  coopg::run(h, kMis.mechanism.get(cfg), shape(kMis, cfg), kMis.groups.get(cfg),
             [c](const Phases& p) -> KernelBody { return [c, p](Lane& l) { return mis_kernel(l, c, p); }; });
  const auto got = h.download<std::uint32_t>(c.state, g.nodes);
  const auto want = mis_host(g, seed);
  std::uint64_t undecided = 0, adjacent = 0, not_maximal = 0, differ = 0, members = 0;
  for (std::uint32_t i = 0; i < g.nodes; ++i) {
    undecided += got[i] == 0;
    differ += got[i] != want[i];
    members += got[i] == 1;
    bool covered = got[i] == 1;
    for (std::uint32_t k = g.row[i]; k < g.row[i + 1]; ++k) {
      adjacent += got[i] == 1 && got[g.col[k]] == 1;
      covered = covered || got[g.col[k]] == 1;
    }
    not_maximal += !covered;
  }
  h.check(undecided == 0 && adjacent == 0 && not_maximal == 0 && differ == 0,
          fmt::format("mis: {} undecided, {} arcs inside the set, {} nodes outside it with no neighbour in it, {} "
                      "differing from the host's rounds",
                      undecided, adjacent, not_maximal, differ));
  results(h, g);
  h.result("members", members);
  for (std::uint32_t i = 0; i < g.nodes; ++i) h.output() << g.id_of(i) << ' ' << (got[i] == 1 ? 1 : 0) << '\n';
}

const Param<std::int64_t> kPsssp_source{
    "p-sssp.source",
    -1,
    "",
    "source node, in the input's numbering (-1: a node of typical degree, chosen by the seed: graph::typical_source)",
    {{-1}, {9.2e18}}};

void psssp(Host& h) {
  const Config& cfg = h.config();
  const graph::Graph g = load(h, kPsssp);
  const std::int64_t s = kPsssp_source.get(cfg);
  // -1: as bfs and sssp (workloads/graph/bfs_sssp.cpp): node 0 of a permuted
  // R-MAT often has no arc at all.
  std::uint32_t src = graph::typical_source(g, std::get<std::uint64_t>(cfg.value("sim.seed")));
  if (s >= 0) {
    const auto n = g.node_of(static_cast<std::uint64_t>(s));
    if (!n) throw UserError(fmt::format("p-sssp.source: {} is not a node of {}", s, g.origin));
    src = *n;
  }
  PsspCtx c;
  c.in = coopg::upload(h, coopg::transpose(g));
  std::vector<std::uint32_t> init(g.nodes, kInf);
  init[src] = 0;
  c.x = h.upload(init);
  c.y = h.upload(init);
  c.stop = h.alloc(4);
  coopg::run(h, kPsssp.mechanism.get(cfg), shape(kPsssp, cfg), kPsssp.groups.get(cfg),
             [c](const Phases& p) -> KernelBody { return [c, p](Lane& l) { return psssp_kernel(l, c, p); }; });
  const auto got = h.download<std::uint32_t>(c.y, g.nodes);
  const auto want = graph::dijkstra(g, src);
  std::uint64_t bad = 0;
  for (std::uint32_t i = 0; i < g.nodes; ++i) bad += got[i] != (want[i] == graph::kUnreached ? kInf : want[i]);
  h.check(bad == 0, fmt::format("p-sssp: {} of {} distances differ from the host Dijkstra", bad, g.nodes));
  results(h, g);
  h.result("source", g.id_of(src));
  for (std::uint32_t i = 0; i < g.nodes; ++i) {
    h.output() << g.id_of(i) << ' ';
    if (got[i] == kInf)
      h.output() << "unreachable\n";
    else
      h.output() << got[i] << '\n';
  }
}

const RegisterWorkload r_color{{"color",
                                "graph colouring by max-priority rounds (Pannotia; cooperative kernels Table 1), "
                                "persistent or coop",
                                kColor.graph.input_param(), color,
                                [](const Config& c) { return device_bytes(kColor, c); },
                                [](const Config& c) { return mechanisms(kColor, c); }}};
const RegisterWorkload r_mis{{"mis",
                              "maximal independent set, Luby style (Pannotia; cooperative kernels Table 1), persistent "
                              "or coop",
                              kMis.graph.input_param(), mis, [](const Config& c) { return device_bytes(kMis, c); },
                              [](const Config& c) { return mechanisms(kMis, c); }}};
const RegisterWorkload r_psssp{{"p-sssp",
                                "shortest paths as min-plus Bellman-Ford over in-arcs (Pannotia; cooperative kernels "
                                "Table 1), persistent or coop",
                                kPsssp.graph.input_param(), psssp,
                                [](const Config& c) { return device_bytes(kPsssp, c); },
                                [](const Config& c) { return mechanisms(kPsssp, c); }}};

}  // namespace
}  // namespace fg
