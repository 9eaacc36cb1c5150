// SPDX-License-Identifier: Apache-2.0
// LonestarGPU's data-driven bfs and sssp as the cooperative-kernel paper runs
// them (Sorensen et al., FSE 2017, Table 1: bfs-worklistc and sssp, "l-sssp"):
// one persistent kernel, levels (rounds) separated by kernel-wide barriers,
// two worklists in memory swapped between rounds; bfs.mechanism /
// sssp.mechanism `persistent` (plain grid barriers) or `coop` (resizing
// barriers). workloads/graph/bfs_sssp.cpp runs it and checks the distances.
//
// Per round: expand (each work-item takes in-list items at the kernel's
// stride; bfs claims an unreached neighbour by CAS on its level, sssp lowers
// a neighbour by atomic min, after a plain read as LonestarGPU does; a claimed
// or lowered neighbour goes on the out-list with one atomic add), barrier 1,
// swap the lists and clear the new out-list's count, barrier 2, stop when the
// in-list is empty. LonestarGPU compacts a workgroup's pushes with a scan and
// one atomic; here each push is its own atomic (docs/cooperative.md).
#include <fmt/format.h>

#include "coop/coop_graph.h"
#include "coop/lonestar.h"
#include "mem/memory_system.h"
#include "sim/error.h"

namespace fg::coopg {

namespace {

constexpr std::uint32_t kInf = 0xffffffffu;

struct Ctx {
  DevGraph g;
  std::uint64_t dist = 0, list[2] = {0, 0}, count[2] = {0, 0}, overflow = 0;
  std::uint32_t capacity = 0;
  bool weighted = false, check_first = true;
};
struct Vars {  // transmitted: where a forked workgroup starts
  std::uint32_t phase = 0, level = 0, in = 0;
};

Task<> lonestar_kernel(Lane& l, Ctx c, Phases p) {
  Vars v;
  if (p.coop && coop::joined(l)) v = coop::transmitted<Vars>(l);
  std::uint32_t m = co_await start_count(l, p);
  const std::uint32_t id = co_await l.get_group_id();
  const std::uint64_t size = l.group_size();
  for (;;) {
    const std::uint64_t stride = std::uint64_t{m} * size;
    if (v.phase == 0) {
      const std::uint32_t n = co_await l.load<std::uint32_t>(c.count[v.in]);
      const std::uint64_t out = c.list[1 - v.in], out_count = c.count[1 - v.in];
      for (std::uint64_t t = std::uint64_t{id} * size + l.local_id(); t < n; t += stride) {
        const std::uint32_t u = co_await l.load<std::uint32_t>(c.list[v.in] + 4 * t);
        const std::uint32_t du = co_await l.load<std::uint32_t>(c.dist + 4ull * u);
        const std::uint32_t b = co_await l.load<std::uint32_t>(c.g.row + 4ull * u);
        const std::uint32_t e = co_await l.load<std::uint32_t>(c.g.row + 4ull * u + 4);
        for (std::uint32_t k = b; k < e; ++k) {
          const std::uint32_t w = co_await l.load<std::uint32_t>(c.g.col + 4ull * k);
          std::uint32_t alt = v.level + 1;
          if (c.weighted) {
            const std::uint32_t wt = co_await l.load<std::uint32_t>(c.g.weight + 4ull * k);
            alt = du + wt;
          }
          co_await l.alu(2);
          if (c.check_first) {
            const std::uint32_t dw = co_await l.load<std::uint32_t>(c.dist + 4ull * w);
            if (c.weighted ? alt >= dw : dw != kInf) continue;
          }
          bool push = false;
          if (c.weighted) {
            const std::uint32_t old = co_await l.atomic_min<std::uint32_t>(c.dist + 4ull * w, alt);
            push = alt < old;
          } else {
            const std::uint32_t old = co_await l.atomic_cas<std::uint32_t>(c.dist + 4ull * w, kInf, alt);
            push = old == kInf;
          }
          if (!push) continue;
          const std::uint32_t at = co_await l.atomic_add<std::uint32_t>(out_count, 1u);
          if (at < c.capacity)
            co_await l.store<std::uint32_t>(out + 4ull * at, w);
          else
            co_await l.store<std::uint32_t>(c.overflow, 1u);
        }
      }
      v.phase = 1;
    } else if (v.phase == 1) {
      // Swap: the out-list is the next round's in-list; the old in-list's
      // count is cleared for its pushes.
      v.in = 1 - v.in;
      ++v.level;
      if (id == 0 && l.local_id() == 0) co_await l.store<std::uint32_t>(c.count[1 - v.in], 0u);
      v.phase = 2;
    } else {
      const std::uint32_t n = co_await l.load_acquire<std::uint32_t>(c.count[v.in]);
      if (n == 0) break;
      v.phase = 0;
      continue;  // on to the expansion: reading the count is not a phase of its own
    }
    m = co_await wait(l, p, v);
  }
}

}  // namespace

void run_lonestar(Host& h, const graph::Graph& g, std::uint32_t src, const LonestarOptions& o) {
  const unsigned line = h.memory().line_size();
  Ctx c;
  c.g = upload(h, g);
  c.dist = o.dist;
  // bfs claims a node once; sssp may push one again whenever it is lowered.
  const std::uint64_t cap = o.weighted ? g.arcs() + 1 : g.nodes;
  if (cap > 0xffffffffull) throw UserError(fmt::format("{}: {} arcs are too many for the worklists", o.name, g.arcs()));
  c.capacity = static_cast<std::uint32_t>(cap);
  for (int i = 0; i < 2; ++i) {
    c.list[i] = h.alloc(4 * cap);
    c.count[i] = h.memory().allocate(line, line);
  }
  const std::uint32_t one = 1, zero = 0;
  h.copy_in(c.list[0], &src, 4);
  h.copy_in(c.count[0], &one, 4);
  h.copy_in(c.count[1], &zero, 4);
  c.overflow = h.upload(std::vector<std::uint32_t>(1, 0));
  c.weighted = o.weighted;
  c.check_first = o.check_first;
  KernelLaunch shape{o.weighted ? "l-sssp" : "bfs-worklist", 0, o.group_size, 16, 0, {}};
  run(h, o.mechanism, std::move(shape), o.groups,
      [c](const Phases& p) -> KernelBody { return [c, p](Lane& l) { return lonestar_kernel(l, c, p); }; });
  if (h.download<std::uint32_t>(c.overflow, 1)[0] != 0)
    throw SimFault(fmt::format("{}: a round pushed more than the worklists' {} entries", o.name, cap));
}

}  // namespace fg::coopg
