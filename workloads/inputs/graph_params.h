// SPDX-License-Identifier: Apache-2.0
// The graph a graph workload runs on, as parameters under the workload's name
// (`bfs.input`, `bfs.generator`, `bfs.scale`, ...): a file (`--input FILE`)
// or one of the seeded generators, plus the reader options. One GraphParams
// per workload, at namespace scope (its Params register at static init).
#pragma once

#include <cstdint>
#include <string>

#include "inputs/graph.h"
#include "sim/config.h"

namespace fg::graph {

class GraphParams {
 public:
  explicit GraphParams(const std::string& workload);
  // The graph of this configuration; `seed` is the run's seed (generators).
  // Throws UserError: a bad file, or a parameter that does not apply (a
  // generator parameter set while an input file is given, ...).
  Graph load(const Config& cfg, std::uint64_t seed) const;
  // Device bytes of the graph (offsets, destinations, weights) before it is
  // read: exact for rmat and uniform, a bound for grid and road (every
  // lattice edge), from the file's size for files.
  std::uint64_t estimate_bytes(const Config& cfg) const;
  // Nodes of the graph an estimate assumes (per-node buffers of the workload).
  std::uint64_t estimate_nodes(const Config& cfg) const;
  const std::string& input_param() const { return input_.name(); }

 private:
  Options options(const Config& cfg) const;
  std::string prefix_;
  Param<std::string> input_, format_, generator_;
  Param<std::uint64_t> scale_, edge_factor_, max_weight_;
  Param<double> a_, b_, c_, d_;
  Param<bool> permute_;
  Param<std::string> parallel_, self_loops_;
  Param<bool> symmetrize_;
  Param<double> weight_scale_;
};

}  // namespace fg::graph
