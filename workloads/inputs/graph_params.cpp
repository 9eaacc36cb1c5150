// SPDX-License-Identifier: Apache-2.0
#include "inputs/graph_params.h"

#include <filesystem>
#include <vector>

#include <fmt/format.h>

#include "sim/error.h"

namespace fg::graph {

// Defaults: R-MAT a, b, c, d, the edge factor 16 and the permuted labels are
// the Graph 500 benchmark's (graph500.org specification V1.2, Sec. 3
// "Generating the Edge List": "vertex numbers must be randomly permuted"). The
// weight range (1..100) has no source: neither paper states one, so
// experiments set it explicitly next to the graph they use. road: graph.h.
GraphParams::GraphParams(const std::string& w)
    : prefix_(w),
      input_{w + ".input", "", "", "graph file (--input FILE); empty: use the generator"},
      format_{w + ".format",
              "auto",
              {"auto", "dimacs", "galois", "mtx", "snap"},
              "input format (auto: from the content; see docs/worklists.md)"},
      generator_{w + ".generator",
                 "rmat",
                 {"rmat", "grid", "road", "uniform"},
                 "graph generator when no input file is given (road: road-network-like, docs/worklists.md)"},
      scale_{w + ".scale", 12, "", "generators: 2^scale nodes", {{1}, {26}}},
      edge_factor_{w + ".edge_factor", 16, "", "rmat, uniform: arcs per node (Graph 500: 16)", {{1}, {1024}}},
      max_weight_{w + ".max_weight",
                  100,
                  "",
                  "generators: weights in 1..max_weight (uniform; road: rome99's lengths scaled)",
                  {{1}, {1u << 24}}},
      a_{w + ".rmat.a", 0.57, "", "R-MAT probability a (Graph 500: 0.57)", {{0}, {1}}},
      b_{w + ".rmat.b", 0.19, "", "R-MAT probability b (Graph 500: 0.19)", {{0}, {1}}},
      c_{w + ".rmat.c", 0.19, "", "R-MAT probability c (Graph 500: 0.19)", {{0}, {1}}},
      d_{w + ".rmat.d", 0.05, "", "R-MAT probability d (Graph 500: 0.05)", {{0}, {1}}},
      permute_{w + ".rmat.permute", true, "",
               "R-MAT: relabel the nodes by a seeded random permutation (Graph 500); false: node 0 is the hub"},
      parallel_{w + ".parallel_arcs", "keep", std::vector<std::string>{"keep", "drop"},
                "parallel arcs: keep all, or keep the lightest"},
      self_loops_{w + ".self_loops", "keep", std::vector<std::string>{"keep", "drop"},
                  "arcs from a node to itself: keep or drop"},
      symmetrize_{w + ".symmetrize", false, "", "add the reverse of every arc"},
      weight_scale_{w + ".weight_scale", 1.0, "", "real weights (mtx real) become round(w * scale)", {{1e-9}, {1e9}}} {}

Options GraphParams::options(const Config& cfg) const {
  Options o;
  o.keep_parallel = parallel_.get(cfg) == "keep";
  o.keep_self_loops = self_loops_.get(cfg) == "keep";
  o.symmetrize = symmetrize_.get(cfg);
  o.weight_scale = weight_scale_.get(cfg);
  return o;
}

namespace {

// A parameter the user set that the chosen graph source does not use.
void refuse(const Config& cfg, const std::vector<std::string>& keys, const std::string& why) {
  for (const auto& k : keys)
    if (!cfg.is_default(k)) throw UserError(fmt::format("{} (set by {}) does not apply: {}", k, cfg.origin(k), why));
}

}  // namespace

Graph GraphParams::load(const Config& cfg, std::uint64_t seed) const {
  const std::string path = input_.get(cfg);
  const std::vector<std::string> gen_keys{generator_.name(),  scale_.name(), edge_factor_.name(),
                                          max_weight_.name(), a_.name(),     b_.name(),
                                          c_.name(),          d_.name(),     permute_.name()};
  if (!path.empty()) {
    refuse(cfg, gen_keys, fmt::format("the graph is read from {}", input_.name()));
    const std::string f = format_.get(cfg);
    const Format fmt = f == "dimacs"   ? Format::Dimacs
                       : f == "galois" ? Format::Galois
                       : f == "mtx"    ? Format::Mtx
                       : f == "snap"   ? Format::Snap
                                       : Format::Auto;
    return read_file(path, fmt, options(cfg));
  }
  refuse(cfg, {format_.name(), weight_scale_.name()}, fmt::format("no input file ({} is empty)", input_.name()));
  const std::string gen = generator_.get(cfg);
  const auto scale = static_cast<unsigned>(scale_.get(cfg));
  const auto maxw = static_cast<std::uint32_t>(max_weight_.get(cfg));
  if (gen == "rmat") {
    RmatParams p;
    p.scale = scale;
    p.edge_factor = static_cast<unsigned>(edge_factor_.get(cfg));
    p.a = a_.get(cfg);
    p.b = b_.get(cfg);
    p.c = c_.get(cfg);
    p.d = d_.get(cfg);
    p.permute = permute_.get(cfg);
    return rmat(p, maxw, seed, options(cfg));
  }
  refuse(cfg, {a_.name(), b_.name(), c_.name(), d_.name(), permute_.name()}, "the generator is " + gen);
  if (gen == "grid") {
    refuse(cfg, {edge_factor_.name()}, "the grid generator makes 4-neighbour grids");
    return grid(1u << ((scale + 1) / 2), 1u << (scale / 2), maxw, seed, options(cfg));
  }
  if (gen == "road") {
    refuse(cfg, {edge_factor_.name()}, "the road generator makes lattice graphs of average out-degree 2.75");
    return road(1u << ((scale + 1) / 2), 1u << (scale / 2), maxw, seed, options(cfg));
  }
  const auto nodes = 1u << scale;
  return uniform(nodes, std::uint64_t{nodes} * edge_factor_.get(cfg), maxw, seed, options(cfg));
}

std::uint64_t GraphParams::estimate_nodes(const Config& cfg) const {
  const std::string path = input_.get(cfg);
  if (path.empty()) return 1ull << scale_.get(cfg);
  std::error_code ec;
  const auto size = std::filesystem::file_size(path, ec);
  // As in estimate_bytes; a missing file is reported when it is read.
  return ec ? 0 : size / 8 + 1;
}

std::uint64_t GraphParams::estimate_bytes(const Config& cfg) const {
  const std::string path = input_.get(cfg);
  const bool sym = symmetrize_.get(cfg);
  std::uint64_t nodes = 0, arcs = 0;
  if (path.empty()) {
    nodes = 1ull << scale_.get(cfg);
    // grid and road: every lattice edge both ways, a bound (road keeps about
    // 69% of them, a number known only once they are drawn).
    const std::string gen = generator_.get(cfg);
    arcs = gen == "grid" || gen == "road" ? 4 * nodes : nodes * edge_factor_.get(cfg);
  } else {
    std::error_code ec;
    const auto size = std::filesystem::file_size(path, ec);
    if (ec) return 0;
    // An estimate, not a bound: text arcs take 4 bytes ("1 2\n") to 20 and
    // more, binary ones 4 to 12; the allocation itself is checked again.
    nodes = size / 8 + 1;
    arcs = size / 4 + 1;
  }
  if (sym) arcs *= 2;
  return 4 * (nodes + 1) + 8 * arcs;
}

}  // namespace fg::graph
