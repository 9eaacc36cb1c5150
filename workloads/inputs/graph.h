// SPDX-License-Identifier: Apache-2.0
// Graph inputs of the graph workloads (bfs, sssp): a directed, weighted graph
// in compressed sparse row form, the readers of four file formats, four
// seeded generators and a DIMACS writer. No SystemC here: the libFuzzer harness
// (tests/fuzz/graph_fuzz.cpp) builds this file on its own.
//
// Readers (docs/worklists.md, "Inputs"):
//   dimacs  9th DIMACS challenge shortest-path text (.gr): `c` comments,
//           `p sp N M`, `a U V W` arcs; node ids 1..N.
//   galois  the Galois / LonestarGPU binary .gr (versions 1 and 2): uint64
//           version, edge-data size, N, M; N uint64 end offsets; M uint32
//           (v1, padded to 8 bytes) or uint64 (v2) destinations; M edge
//           values (uint32 when the edge-data size is 4); ids 0..N-1.
//   mtx     Matrix Market `coordinate` with `pattern`, `real` or `integer`
//           values, `general` or `symmetric`; entry (i, j) is the arc i -> j;
//           ids 1..N.
//   snap    SNAP edge lists: `#` comments, `U V` or `U V W` per line; ids are
//           any 64-bit numbers, numbered densely in increasing order.
// Every malformed file is a UserError "file:line: what" (binary: "file: at
// byte N: what"), exit 2.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace fg::graph {

struct Graph {
  std::uint32_t nodes = 0;
  std::vector<std::uint32_t> row;     // nodes + 1 offsets into col / weight
  std::vector<std::uint32_t> col;     // destination of each arc
  std::vector<std::uint32_t> weight;  // weight of each arc (1 when unweighted)
  bool weighted = false;              // the input had weights
  // Numbering of the input: node i is input id `id_base + i`, or `ids[i]`
  // when the ids were sparse (SNAP).
  std::uint64_t id_base = 0;
  std::vector<std::uint64_t> ids;
  std::string origin;  // "rome99.gr (dimacs)", "rmat(scale=10, ...)"
  // What the build changed, for the run's statistics.
  std::uint64_t dropped_parallel = 0, dropped_self_loops = 0, added_reverse = 0;

  std::uint64_t arcs() const { return col.size(); }
  std::uint64_t id_of(std::uint32_t node) const { return ids.empty() ? id_base + node : ids[node]; }
  // The node with input id `id`, if there is one.
  std::optional<std::uint32_t> node_of(std::uint64_t id) const;
};

struct Options {
  bool keep_parallel = true;             // false: of parallel arcs keep the lightest
  bool keep_self_loops = true;           // false: drop arcs u -> u
  bool symmetrize = false;               // true: add v -> u for every arc u -> v
  double weight_scale = 1.0;             // real weights become round(w * scale)
  std::uint64_t max_nodes = 1ull << 26;  // reader bound (memory), exit 2 above
  std::uint64_t max_arcs = 1ull << 30;
};

enum class Format { Auto, Dimacs, Galois, Mtx, Snap };
const char* to_string(Format f);

// Read `path` (format Auto: detected from the content). Throws UserError.
Graph read_file(const std::string& path, Format format, const Options& opt);
// Read from memory; `name` is the file name used in messages.
Graph read_text(const std::string& data, const std::string& name, Format format, const Options& opt);

// Seeded generators; weights in [1, max_weight] (uniform, except road's).
struct RmatParams {
  unsigned scale = 10;       // 2^scale nodes
  unsigned edge_factor = 8;  // arcs = edge_factor * nodes
  double a = 0.57, b = 0.19, c = 0.19, d = 0.05;
  // Relabel the nodes by a random permutation drawn from the seed, as the
  // Graph 500 specification requires ("as a final step, vertex numbers must
  // be randomly permuted", Sec. 3 "Generating the Edge List"): the hub is a
  // random node, not node 0. false: the recursion's labels (node 0 the hub).
  bool permute = true;
};
Graph rmat(const RmatParams& p, std::uint32_t max_weight, std::uint64_t seed, const Options& opt);
// The relabelling rmat(p, w, seed, opt) applies when p.permute: node u of the
// graph with p.permute = false is node perm[u] of the permuted one; arcs,
// weights and the order of each node's arcs are otherwise the same.
std::vector<std::uint32_t> rmat_permutation(unsigned scale, std::uint64_t seed);
// width x height 4-neighbour grid, both directions with the same weight.
Graph grid(std::uint32_t width, std::uint32_t height, std::uint32_t max_weight, std::uint64_t seed, const Options& opt);
// Road-network-like: high diameter, low degree. The width x height lattice's
// edges in a seeded random order, Kruskal's random spanning tree of them (so
// the graph is connected) plus each other lattice edge with probability 3/8;
// every edge both ways with one weight. Average out-degree 2 + 2 * 3/8 = 2.75
// for large lattices (DIMACS USA-road-d.NY: 733,846 arcs / 264,346 nodes =
// 2.78; rome99: 2.65), at most 4. Weights follow rome99's arc lengths (metres,
// its quantiles in 2.5% steps, interpolated), scaled so that its longest arc
// (12,711 m) is max_weight. Nodes numbered row by row, as the grid.
Graph road(std::uint32_t width, std::uint32_t height, std::uint32_t max_weight, std::uint64_t seed, const Options& opt);
// `arcs` arcs between uniformly random endpoints.
Graph uniform(std::uint32_t nodes, std::uint64_t arcs, std::uint32_t max_weight, std::uint64_t seed,
              const Options& opt);

// A search source of typical degree: of the nodes with at least one arc to
// another node (Graph 500 samples its search keys among the vertices of
// degree >= 1 "not counting self-loops", Sec. 5 "Sampling 64 Search Keys"),
// those whose out-degree (self-loops not counted) is the median out-degree of
// that set (the lower median), one chosen by the seed (the same node for the
// same graph and seed). The worklist paper does not state its source. A graph
// without such arcs gives node 0; one without nodes throws UserError.
std::uint32_t typical_source(const Graph& g, std::uint64_t seed);

// The graph as DIMACS shortest-path text (`p sp N M`, `a U V W` in CSR
// order); node i is written as i + 1 whatever the input's ids were.
std::string write_dimacs(const Graph& g);

// Host references: hop counts from `source` (BFS) and shortest-path weights
// (Dijkstra); kUnreached for nodes not reached.
inline constexpr std::uint32_t kUnreached = 0xffffffffu;
std::vector<std::uint32_t> bfs_levels(const Graph& g, std::uint32_t source);
std::vector<std::uint32_t> dijkstra(const Graph& g, std::uint32_t source);

}  // namespace fg::graph
