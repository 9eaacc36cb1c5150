// SPDX-License-Identifier: Apache-2.0
#include "coop/coop_graph.h"

#include <algorithm>
#include <utility>

#include "gpu/dispatcher.h"

namespace fg::coopg {

DevGraph upload(Host& h, const graph::Graph& g) {
  return DevGraph{h.upload(g.row), h.upload(g.col), h.upload(g.weight), g.nodes};
}

namespace {
graph::Graph from_arcs(const graph::Graph& g,
                       std::vector<std::pair<std::uint32_t, std::pair<std::uint32_t, std::uint32_t>>> arcs) {
  std::sort(arcs.begin(), arcs.end());
  graph::Graph out = g;
  out.row.assign(std::size_t{g.nodes} + 1, 0);
  out.col.clear();
  out.weight.clear();
  for (const auto& [u, vw] : arcs) {
    ++out.row[u + 1];
    out.col.push_back(vw.first);
    out.weight.push_back(vw.second);
  }
  for (std::uint32_t i = 0; i < g.nodes; ++i) out.row[i + 1] += out.row[i];
  return out;
}
}  // namespace

graph::Graph symmetric(const graph::Graph& g) {
  std::vector<std::pair<std::uint32_t, std::pair<std::uint32_t, std::uint32_t>>> arcs;
  for (std::uint32_t u = 0; u < g.nodes; ++u)
    for (std::uint32_t e = g.row[u]; e < g.row[u + 1]; ++e) {
      arcs.push_back({u, {g.col[e], g.weight[e]}});
      arcs.push_back({g.col[e], {u, g.weight[e]}});
    }
  // Each pair once (the lighter weight), no self-loops.
  std::sort(arcs.begin(), arcs.end());
  std::vector<std::pair<std::uint32_t, std::pair<std::uint32_t, std::uint32_t>>> kept;
  for (const auto& a : arcs)
    if (a.first != a.second.first &&
        (kept.empty() || kept.back().first != a.first || kept.back().second.first != a.second.first))
      kept.push_back(a);
  graph::Graph out = from_arcs(g, std::move(kept));
  out.origin = g.origin + ", symmetric";
  return out;
}

graph::Graph transpose(const graph::Graph& g) {
  std::vector<std::pair<std::uint32_t, std::pair<std::uint32_t, std::uint32_t>>> arcs;
  for (std::uint32_t u = 0; u < g.nodes; ++u)
    for (std::uint32_t e = g.row[u]; e < g.row[u + 1]; ++e) arcs.push_back({g.col[e], {u, g.weight[e]}});
  return from_arcs(g, std::move(arcs));
}

void run(Host& h, const std::string& mechanism, KernelLaunch shape, std::int64_t groups,
         const std::function<KernelBody(const Phases&)>& make) {
  const bool coop = mechanism == "coop";
  const std::uint32_t n = coop::groups(h, shape, groups, coop);
  if (!coop) {
    Phases p;
    p.gb = GridBarrier::make(h, shape.name);
    p.groups = n;
    shape.body = make(p);
    coop::run_persistent(h, std::move(shape), n);
    return;
  }
  const std::string name = shape.name;
  coop::run_cooperative(h, std::move(shape), n, [&](const coop::Kernel& k) {
    Phases p;
    p.coop = true;
    p.cb = coop::Barrier::make(h, k, name);
    return make(p);
  });
}

}  // namespace fg::coopg
