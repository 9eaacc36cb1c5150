// SPDX-License-Identifier: Apache-2.0
// What the cooperative-kernel graph workloads share (color, mis, p-sssp and
// the LonestarGPU-style bfs/sssp of Sorensen et al. Table 1): the graph on
// the device, the barrier of each version, and running either version.
//
// Every one is a persistent kernel whose workgroups stride over the nodes and
// meet at a kernel-wide barrier between phases. The non-cooperative version
// (`<w>.mechanism=persistent`) launches `<w>.groups` workgroups (at most the
// resident capacity) and uses a plain grid barrier; the cooperative one
// (`coop`) asks the scheduler for them and uses resizing barriers, after each
// of which it recomputes its id and stride from the barrier's count (Sec.
// 3.2), and its forked workgroups start at the phase the transmit block
// names.
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "gpu/host.h"
#include "gpu/kernel.h"
#include "inputs/graph.h"
#include "runtime/coop.h"
#include "runtime/coop_host.h"
#include "runtime/grid_barrier.h"

namespace fg::coopg {

struct DevGraph {
  std::uint64_t row = 0, col = 0, weight = 0;
  std::uint32_t nodes = 0;
};
DevGraph upload(Host& h, const graph::Graph& g);

// The graph with every arc's reverse added (once), for the undirected
// algorithms (colouring, independent sets); weights kept.
graph::Graph symmetric(const graph::Graph& g);
// The transpose (in-arcs as CSR), for the pull-style Bellman-Ford.
graph::Graph transpose(const graph::Graph& g);

// The kernel-wide barrier of either version; `wait` returns the workgroups
// of the next interval (the stride), the same number in the plain version.
struct Phases {
  bool coop = false;
  coop::Barrier cb;
  GridBarrier gb;
  std::uint32_t groups = 0;  // the plain version's count
};
template <class V>
Task<std::uint32_t> wait(Lane& l, const Phases& p, const V& vars) {
  if (p.coop) {
    const std::uint32_t m = co_await coop::resizing_barrier(l, p.cb, vars);
    co_return m;
  }
  co_await grid_barrier(l, p.gb, p.groups);
  co_return p.groups;
}
// The workgroup count a kernel starts with (forked ones: after the fork).
inline Task<std::uint32_t> start_count(Lane& l, const Phases& p) {
  if (p.coop) {
    const std::uint32_t m = co_await l.get_num_groups();
    co_return m;
  }
  co_return p.groups;
}

// Run `shape` (its body from `make`) as either version: `mechanism` is
// "persistent" or "coop", `groups` the value of `<w>.groups`.
void run(Host& h, const std::string& mechanism, KernelLaunch shape, std::int64_t groups,
         const std::function<KernelBody(const Phases&)>& make);

}  // namespace fg::coopg
