// SPDX-License-Identifier: Apache-2.0
// LonestarGPU-style bfs and sssp as one persistent kernel, in the
// non-cooperative and the cooperative version (workloads/coop/lonestar.cpp).
#pragma once

#include <cstdint>
#include <string>

#include "gpu/host.h"
#include "inputs/graph.h"

namespace fg::coopg {

struct LonestarOptions {
  const char* name = "bfs";
  bool weighted = false;    // sssp: weights and atomic min; bfs: levels
  bool check_first = true;  // read a neighbour's distance before the atomic on it
  std::string mechanism;    // "persistent" or "coop"
  std::int64_t groups = 0;  // <w>.groups
  std::uint32_t group_size = 128;
  std::uint64_t dist = 0;  // the distances (device words), `src` at 0 and the rest unreached
};

// Runs the kernel on `g` from `src` into o.dist (0xffffffff: unreached).
void run_lonestar(Host& h, const graph::Graph& g, std::uint32_t src, const LonestarOptions& o);

}  // namespace fg::coopg
