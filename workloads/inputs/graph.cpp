// SPDX-License-Identifier: Apache-2.0
// Graph readers, generators and host references (graph.h).
#include "inputs/graph.h"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstring>
#include <fstream>
#include <iterator>
#include <queue>
#include <sstream>
#include <string_view>
#include <utility>

#include <fmt/format.h>

#include "inputs/lines.h"
#include "inputs/rng.h"
#include "sim/error.h"

namespace fg::graph {

const char* to_string(Format f) {
  switch (f) {
    case Format::Auto:
      return "auto";
    case Format::Dimacs:
      return "dimacs";
    case Format::Galois:
      return "galois";
    case Format::Mtx:
      return "mtx";
    case Format::Snap:
      return "snap";
  }
  return "?";
}

std::optional<std::uint32_t> Graph::node_of(std::uint64_t id) const {
  if (ids.empty()) {
    if (id < id_base || id - id_base >= nodes) return std::nullopt;
    return static_cast<std::uint32_t>(id - id_base);
  }
  auto it = std::lower_bound(ids.begin(), ids.end(), id);
  if (it == ids.end() || *it != id) return std::nullopt;
  return static_cast<std::uint32_t>(it - ids.begin());
}

namespace {

struct Arc {
  std::uint32_t u, v, w;
};

// Arcs in input order -> CSR. Within a node the arcs keep their input order
// (the order LonestarGPU's kernels see); dropping parallel arcs keeps the
// lightest of each (u, v) in the place of its first occurrence.
Graph build(std::uint32_t nodes, std::vector<Arc> arcs, const Options& opt, bool weighted, std::string origin) {
  Graph g;
  g.nodes = nodes;
  g.weighted = weighted;
  g.origin = std::move(origin);
  if (!opt.keep_self_loops) {
    const auto before = arcs.size();
    std::erase_if(arcs, [](const Arc& a) { return a.u == a.v; });
    g.dropped_self_loops = before - arcs.size();
  }
  if (opt.symmetrize) {
    const auto n = arcs.size();
    for (std::size_t i = 0; i < n; ++i)
      if (arcs[i].u != arcs[i].v) arcs.push_back({arcs[i].v, arcs[i].u, arcs[i].w});
    g.added_reverse = arcs.size() - n;
  }
  if (arcs.size() > opt.max_arcs || arcs.size() > 0xffffffffull)
    throw UserError(fmt::format("{}: {} arcs is more than the reader's limit of {}", g.origin, arcs.size(),
                                std::min<std::uint64_t>(opt.max_arcs, 0xffffffffull)));
  g.row.assign(std::size_t{nodes} + 1, 0);
  for (const Arc& a : arcs) ++g.row[a.u + 1];
  for (std::uint32_t i = 0; i < nodes; ++i) g.row[i + 1] += g.row[i];
  g.col.resize(arcs.size());
  g.weight.resize(arcs.size());
  std::vector<std::uint32_t> fill(g.row.begin(), g.row.end() - 1);
  for (const Arc& a : arcs) {
    const auto k = fill[a.u]++;
    g.col[k] = a.v;
    g.weight[k] = a.w;
  }
  if (!opt.keep_parallel) {
    // Per node: find the lightest arc of each destination, keep it at the
    // position of the destination's first arc.
    std::vector<std::uint32_t> row(std::size_t{nodes} + 1, 0), col, weight;
    col.reserve(g.col.size());
    weight.reserve(g.col.size());
    std::vector<std::uint32_t> seen(nodes, 0xffffffffu);  // destination -> index in col (this node)
    for (std::uint32_t u = 0; u < nodes; ++u) {
      const auto start = static_cast<std::uint32_t>(col.size());
      for (auto k = g.row[u]; k < g.row[u + 1]; ++k) {
        const auto v = g.col[k];
        if (seen[v] != 0xffffffffu && seen[v] >= start) {
          weight[seen[v]] = std::min(weight[seen[v]], g.weight[k]);
          ++g.dropped_parallel;
        } else {
          seen[v] = static_cast<std::uint32_t>(col.size());
          col.push_back(v);
          weight.push_back(g.weight[k]);
        }
      }
      row[u + 1] = static_cast<std::uint32_t>(col.size());
    }
    g.row = std::move(row);
    g.col = std::move(col);
    g.weight = std::move(weight);
  }
  return g;
}

// ---- text parsing ----------------------------------------------------------

using inputs::fields;
using inputs::is_space;
using inputs::Lines;
using inputs::to_uint;

bool blank(std::string_view line) {
  return std::all_of(line.begin(), line.end(), [](char c) { return is_space(c); });
}

// A weight field: integer, or real scaled by opt.weight_scale and rounded.
std::uint32_t to_weight(const Lines& in, std::string_view f, bool real, const Options& opt) {
  if (!real) {
    if (!f.empty() && f[0] == '-') in.fail(fmt::format("negative weight '{}'", shown(f, 40)));
    const auto v = to_uint(in, f, "weight");
    if (v > 0xffffffffull) in.fail(fmt::format("weight {} does not fit in 32 bits", v));
    return static_cast<std::uint32_t>(v);
  }
  double d = 0;
  const char* end = f.data() + f.size();
  auto [p, ec] = std::from_chars(f.data(), end, d);
  if (ec != std::errc() || p != end || !std::isfinite(d))
    in.fail(fmt::format("weight '{}' is not a number", shown(f, 40)));
  if (d < 0) in.fail(fmt::format("negative weight '{}'", shown(f, 40)));
  const double s = std::round(d * opt.weight_scale);
  if (s > 4294967295.0)
    in.fail(fmt::format("weight {} x scale {} does not fit in 32 bits", shown(f, 40), opt.weight_scale));
  return static_cast<std::uint32_t>(s);
}

void check_counts(const Lines& in, std::uint64_t nodes, std::uint64_t arcs, const Options& opt) {
  if (nodes > opt.max_nodes || nodes >= 0xffffffffull)
    in.fail(fmt::format("{} nodes is more than the reader's limit of {}", nodes, opt.max_nodes));
  if (arcs > opt.max_arcs) in.fail(fmt::format("{} arcs is more than the reader's limit of {}", arcs, opt.max_arcs));
}

Graph read_dimacs(const std::string& data, const std::string& name, const Options& opt) {
  Lines in(data, name);
  std::string_view line;
  std::optional<std::uint64_t> nodes, declared;
  std::vector<Arc> arcs;
  std::uint64_t header_line = 0;
  while (in.next(line)) {
    if (blank(line)) continue;
    const auto f = fields(line);
    if (f[0] == "c") continue;
    if (f[0] == "p") {
      if (nodes) in.fail(fmt::format("second problem line (the first is line {})", header_line));
      if (f.size() != 4 || f[1] != "sp") in.fail("expected the problem line 'p sp NODES ARCS'");
      nodes = to_uint(in, f[2], "node count");
      declared = to_uint(in, f[3], "arc count");
      check_counts(in, *nodes, *declared, opt);
      // The declared count is checked below; reserve at most what the file can hold.
      arcs.reserve(std::min<std::uint64_t>(*declared, data.size() / 6));
      header_line = in.number();
      continue;
    }
    if (f[0] == "a") {
      if (!nodes) in.fail("arc before the problem line 'p sp NODES ARCS'");
      if (f.size() != 4) in.fail("expected an arc 'a FROM TO WEIGHT'");
      const auto u = to_uint(in, f[1], "node"), v = to_uint(in, f[2], "node");
      if (u < 1 || u > *nodes) in.fail(fmt::format("node {} is not in 1..{}", u, *nodes));
      if (v < 1 || v > *nodes) in.fail(fmt::format("node {} is not in 1..{}", v, *nodes));
      if (arcs.size() == *declared) in.fail(fmt::format("more arcs than the {} the problem line declares", *declared));
      arcs.push_back(
          {static_cast<std::uint32_t>(u - 1), static_cast<std::uint32_t>(v - 1), to_weight(in, f[3], false, opt)});
      continue;
    }
    in.fail(fmt::format("unknown line type '{}' (expected c, p or a)", shown(f[0], 20)));
  }
  if (!nodes) in.fail("no problem line 'p sp NODES ARCS'");
  if (arcs.size() != *declared)
    throw UserError(fmt::format("{}:{}: the problem line declares {} arcs, the file has {}", shown(name, 200),
                                header_line, *declared, arcs.size()));
  Graph g = build(static_cast<std::uint32_t>(*nodes), std::move(arcs), opt, true, name + " (dimacs)");
  g.id_base = 1;
  return g;
}

Graph read_mtx(const std::string& data, const std::string& name, const Options& opt) {
  Lines in(data, name);
  std::string_view line;
  if (!in.next(line)) in.fail("empty file (expected '%%MatrixMarket matrix coordinate ...')");
  auto h = fields(line);
  std::vector<std::string> hl;
  for (auto s : h) {
    std::string t(s);
    std::transform(t.begin(), t.end(), t.begin(), [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
    hl.push_back(t);
  }
  if (hl.size() != 5 || hl[0] != "%%matrixmarket" || hl[1] != "matrix")
    in.fail("expected the header '%%MatrixMarket matrix coordinate FIELD SYMMETRY'");
  if (hl[2] != "coordinate") in.fail(fmt::format("format '{}' is not supported (only coordinate)", shown(h[2], 20)));
  const std::string& field = hl[3];
  if (field != "pattern" && field != "real" && field != "integer")
    in.fail(fmt::format("field '{}' is not supported (pattern, real or integer)", shown(h[3], 20)));
  const std::string& sym = hl[4];
  if (sym != "general" && sym != "symmetric")
    in.fail(fmt::format("symmetry '{}' is not supported (general or symmetric)", shown(h[4], 20)));
  const bool pattern = field == "pattern", real = field == "real";
  const std::size_t want = pattern ? 2 : 3;
  std::optional<std::uint64_t> nodes, declared;
  std::uint64_t size_line = 0, entries = 0;
  std::vector<Arc> arcs;
  while (in.next(line)) {
    if (blank(line) || line[0] == '%') continue;
    const auto f = fields(line);
    if (!nodes) {
      if (f.size() != 3) in.fail("expected the size line 'ROWS COLUMNS ENTRIES'");
      const auto r = to_uint(in, f[0], "row count"), c = to_uint(in, f[1], "column count");
      if (r != c) in.fail(fmt::format("a {} x {} matrix is not a graph (it must be square)", r, c));
      nodes = r;
      declared = to_uint(in, f[2], "entry count");
      check_counts(in, *nodes, *declared, opt);
      arcs.reserve(std::min<std::uint64_t>(*declared, data.size() / 4));
      size_line = in.number();
      continue;
    }
    if (f.size() != want)
      in.fail(fmt::format("expected an entry 'ROW COLUMN{}' ({} fields, found {})", pattern ? "" : " VALUE", want,
                          f.size()));
    const auto u = to_uint(in, f[0], "row"), v = to_uint(in, f[1], "column");
    if (u < 1 || u > *nodes) in.fail(fmt::format("row {} is not in 1..{}", u, *nodes));
    if (v < 1 || v > *nodes) in.fail(fmt::format("column {} is not in 1..{}", v, *nodes));
    if (entries == *declared) in.fail(fmt::format("more entries than the {} the size line declares", *declared));
    ++entries;
    const std::uint32_t w = pattern ? 1 : to_weight(in, f[2], real, opt);
    arcs.push_back({static_cast<std::uint32_t>(u - 1), static_cast<std::uint32_t>(v - 1), w});
    if (sym == "symmetric" && u != v)
      arcs.push_back({static_cast<std::uint32_t>(v - 1), static_cast<std::uint32_t>(u - 1), w});
  }
  if (!nodes) in.fail("no size line 'ROWS COLUMNS ENTRIES'");
  if (entries != *declared)
    throw UserError(fmt::format("{}:{}: the size line declares {} entries, the file has {}", shown(name, 200),
                                size_line, *declared, entries));
  Graph g = build(static_cast<std::uint32_t>(*nodes), std::move(arcs), opt, !pattern, name + " (mtx)");
  g.id_base = 1;
  return g;
}

Graph read_snap(const std::string& data, const std::string& name, const Options& opt) {
  Lines in(data, name);
  std::string_view line;
  struct Raw {
    std::uint64_t u, v;
    std::uint32_t w;
  };
  std::vector<Raw> raw;
  std::optional<bool> weighted;
  std::uint64_t first_line = 0;
  while (in.next(line)) {
    if (blank(line) || line[0] == '#' || line[0] == '%') continue;
    const auto f = fields(line);
    if (f.size() != 2 && f.size() != 3)
      in.fail(fmt::format("expected 'FROM TO' or 'FROM TO WEIGHT', found {} fields", f.size()));
    if (!weighted) {
      weighted = f.size() == 3;
      first_line = in.number();
    } else if (*weighted != (f.size() == 3)) {
      in.fail(fmt::format("{} fields where line {} has {}", f.size(), first_line, *weighted ? 3 : 2));
    }
    if (raw.size() >= opt.max_arcs) in.fail(fmt::format("more than the reader's limit of {} arcs", opt.max_arcs));
    raw.push_back(
        {to_uint(in, f[0], "node"), to_uint(in, f[1], "node"), f.size() == 3 ? to_weight(in, f[2], false, opt) : 1u});
  }
  std::vector<std::uint64_t> ids;
  ids.reserve(raw.size() * 2);
  for (const Raw& r : raw) {
    ids.push_back(r.u);
    ids.push_back(r.v);
  }
  std::sort(ids.begin(), ids.end());
  ids.erase(std::unique(ids.begin(), ids.end()), ids.end());
  if (ids.size() > opt.max_nodes)
    throw UserError(
        fmt::format("{}: {} nodes is more than the reader's limit of {}", shown(name, 200), ids.size(), opt.max_nodes));
  auto index = [&](std::uint64_t id) {
    return static_cast<std::uint32_t>(std::lower_bound(ids.begin(), ids.end(), id) - ids.begin());
  };
  std::vector<Arc> arcs;
  arcs.reserve(raw.size());
  for (const Raw& r : raw) arcs.push_back({index(r.u), index(r.v), r.w});
  raw = {};
  Graph g =
      build(static_cast<std::uint32_t>(ids.size()), std::move(arcs), opt, weighted.value_or(false), name + " (snap)");
  // Dense ids 0..N-1 need no table.
  if (!ids.empty() && ids.front() == 0 && ids.back() == ids.size() - 1)
    g.id_base = 0;
  else
    g.ids = std::move(ids);
  return g;
}

Graph read_galois(const std::string& data, const std::string& name, const Options& opt) {
  auto fail = [&](std::size_t at, const std::string& what) {
    throw UserError(fmt::format("{}: at byte {}: {}", shown(name, 200), at, what));
  };
  auto u64 = [&](std::size_t at) {
    if (at + 8 > data.size())
      fail(at, fmt::format("file ends ({} bytes) inside the {}", data.size(), "header or offsets"));
    std::uint64_t v;
    std::memcpy(&v, data.data() + at, 8);
    return v;
  };
  const auto version = u64(0), edge_size = u64(8), nodes = u64(16), arcs = u64(24);
  if (version != 1 && version != 2) fail(0, fmt::format("version {} is not 1 or 2", version));
  if (edge_size != 0 && edge_size != 4)
    fail(8, fmt::format("edge data of {} bytes is not supported (0: unweighted, 4: 32-bit weights)", edge_size));
  if (nodes > opt.max_nodes || nodes >= 0xffffffffull)
    fail(16, fmt::format("{} nodes is more than the reader's limit of {}", nodes, opt.max_nodes));
  if (arcs > opt.max_arcs) fail(24, fmt::format("{} arcs is more than the reader's limit of {}", arcs, opt.max_arcs));
  const std::size_t dest_size = version == 1 ? 4 : 8;
  const std::size_t offsets = 32, dests = offsets + 8 * nodes;
  std::size_t values = dests + dest_size * arcs;
  if (version == 1 && arcs % 2) values += 4;
  const std::size_t expect = values + edge_size * arcs;
  if (data.size() != expect)
    fail(std::min(data.size(), expect),
         fmt::format("{} nodes and {} arcs (version {}, {}-byte edge data) need {} bytes, the file has {}", nodes, arcs,
                     version, edge_size, expect, data.size()));
  std::vector<Arc> list;
  list.reserve(arcs);
  std::uint64_t begin = 0;
  for (std::uint64_t u = 0; u < nodes; ++u) {
    const auto end = u64(offsets + 8 * u);
    if (end < begin || end > arcs)
      fail(offsets + 8 * u, fmt::format("offset {} of node {} is not in {}..{}", end, u, begin, arcs));
    for (auto k = begin; k < end; ++k) {
      std::uint64_t v = 0;
      std::memcpy(&v, data.data() + dests + dest_size * k, dest_size);
      if (v >= nodes)
        fail(dests + dest_size * k, fmt::format("destination {} of arc {} is not a node (0..{})", v, k, nodes - 1));
      std::uint32_t w = 1;
      if (edge_size == 4) std::memcpy(&w, data.data() + values + 4 * k, 4);
      list.push_back({static_cast<std::uint32_t>(u), static_cast<std::uint32_t>(v), w});
    }
    begin = end;
  }
  if (begin != arcs)
    fail(offsets + 8 * (nodes ? nodes - 1 : 0), fmt::format("the offsets end at {}, not at the {} arcs", begin, arcs));
  return build(static_cast<std::uint32_t>(nodes), std::move(list), opt, edge_size == 4, name + " (galois)");
}

Format detect(const std::string& data) {
  if (data.size() >= 8 && (data[0] == 1 || data[0] == 2) &&
      std::all_of(data.begin() + 1, data.begin() + 8, [](char c) { return c == 0; }))
    return Format::Galois;
  if (data.rfind("%%MatrixMarket", 0) == 0 || data.rfind("%%matrixmarket", 0) == 0) return Format::Mtx;
  // DIMACS: the first non-blank line is a comment `c ...` or the problem line.
  std::size_t i = 0;
  while (i < data.size() && (is_space(data[i]) || data[i] == '\n' || data[i] == '\r')) ++i;
  if (i < data.size() && (data[i] == 'c' || data[i] == 'p') &&
      (i + 1 == data.size() || is_space(data[i + 1]) || data[i + 1] == '\n' || data[i + 1] == '\r'))
    return Format::Dimacs;
  return Format::Snap;
}

}  // namespace

Graph read_text(const std::string& data, const std::string& name, Format format, const Options& opt) {
  if (!(opt.weight_scale > 0) || !std::isfinite(opt.weight_scale))
    throw UserError(fmt::format("{}: weight scale {} is not a positive number", shown(name, 200), opt.weight_scale));
  if (format == Format::Auto) {
    // A .mtx file is Matrix Market: without its banner it is refused, not
    // read as an edge list (<w>.format=snap reads it so on purpose).
    const bool mtx = name.size() >= 4 && std::equal(name.end() - 4, name.end(), ".mtx", [](char a, char b) {
                       return std::tolower(static_cast<unsigned char>(a)) == b;
                     });
    format = mtx ? Format::Mtx : detect(data);
  }
  switch (format) {
    case Format::Dimacs:
      return read_dimacs(data, name, opt);
    case Format::Galois:
      return read_galois(data, name, opt);
    case Format::Mtx:
      return read_mtx(data, name, opt);
    case Format::Snap:
    case Format::Auto:
      break;
  }
  return read_snap(data, name, opt);
}

Graph read_file(const std::string& path, Format format, const Options& opt) {
  std::ifstream f(path, std::ios::binary);
  if (!f) throw UserError(fmt::format("{}: cannot open: {}", shown(path, 200), std::strerror(errno)));
  std::ostringstream s;
  s << f.rdbuf();
  if (f.bad()) throw UserError(fmt::format("{}: read error", shown(path, 200)));
  return read_text(std::move(s).str(), path, format, opt);
}

// ---- generators --------------------------------------------------------------

namespace {

using Rng = inputs::SplitMix64;  // inputs/rng.h

void check_generated(std::uint64_t nodes, std::uint64_t arcs, const Options& opt, const std::string& what) {
  if (nodes > opt.max_nodes || nodes >= 0xffffffffull)
    throw UserError(fmt::format("{}: {} nodes is more than the limit of {}", what, nodes, opt.max_nodes));
  if (arcs > opt.max_arcs)
    throw UserError(fmt::format("{}: {} arcs is more than the limit of {}", what, arcs, opt.max_arcs));
}

}  // namespace

Graph rmat(const RmatParams& p, std::uint32_t max_weight, std::uint64_t seed, const Options& opt) {
  const std::string what = fmt::format("rmat(scale={}, edge_factor={}, a={}, b={}, c={}, d={}, permute={}, seed={})",
                                       p.scale, p.edge_factor, p.a, p.b, p.c, p.d, p.permute, seed);
  if (p.scale > 31) throw UserError(what + ": scale above 31");
  const double sum = p.a + p.b + p.c + p.d;
  if (p.a < 0 || p.b < 0 || p.c < 0 || p.d < 0 || std::abs(sum - 1.0) > 1e-9)
    throw UserError(fmt::format("{}: a + b + c + d is {}, not 1", what, sum));
  const std::uint64_t nodes = 1ull << p.scale, arcs = nodes * p.edge_factor;
  check_generated(nodes, arcs, opt, what);
  Rng r{seed};
  std::vector<Arc> list;
  list.reserve(arcs);
  for (std::uint64_t e = 0; e < arcs; ++e) {
    std::uint32_t u = 0, v = 0;
    for (unsigned bit = 0; bit < p.scale; ++bit) {
      const double x = r.unit();
      const bool down = x >= p.a + p.b;  // quadrants c and d: lower half (u bit 1)
      const bool right = down ? x >= p.a + p.b + p.c : x >= p.a;
      u = (u << 1) | down;
      v = (v << 1) | right;
    }
    list.push_back({u, v, 1 + r.below(max_weight)});
  }
  // Relabelled after every arc is drawn: the same arcs as without, renamed.
  // Graph 500 also shuffles the edge tuples; here each node's arcs are in the
  // order they were drawn, independent draws, so a shuffle changes nothing.
  if (p.permute) {
    const auto perm = rmat_permutation(p.scale, seed);
    for (Arc& a : list) {
      a.u = perm[a.u];
      a.v = perm[a.v];
    }
  }
  return build(static_cast<std::uint32_t>(nodes), std::move(list), opt, true, what);
}

std::vector<std::uint32_t> rmat_permutation(unsigned scale, std::uint64_t seed) {
  if (scale > 31) throw UserError(fmt::format("rmat_permutation: scale {} is above 31", scale));
  // A stream of its own (the seed xor an arbitrary constant, "Permute!" in
  // ASCII), so that the labels do not repeat the arcs' first draws.
  Rng r{seed ^ 0x5065726d75746521ull};
  std::vector<std::uint32_t> perm(std::size_t{1} << scale);
  for (std::size_t i = 0; i < perm.size(); ++i) perm[i] = static_cast<std::uint32_t>(i);
  // Fisher-Yates.
  for (std::size_t i = perm.size(); i > 1; --i) std::swap(perm[i - 1], perm[r.below(i)]);
  return perm;
}

Graph grid(std::uint32_t width, std::uint32_t height, std::uint32_t max_weight, std::uint64_t seed,
           const Options& opt) {
  const std::string what = fmt::format("grid(width={}, height={}, seed={})", width, height, seed);
  const std::uint64_t nodes = std::uint64_t{width} * height;
  check_generated(nodes, 4 * nodes, opt, what);
  Rng r{seed};
  std::vector<Arc> list;
  list.reserve(4 * nodes);
  for (std::uint32_t y = 0; y < height; ++y)
    for (std::uint32_t x = 0; x < width; ++x) {
      const std::uint32_t n = y * width + x;
      if (x + 1 < width) {
        const auto w = 1 + r.below(max_weight);
        list.push_back({n, n + 1, w});
        list.push_back({n + 1, n, w});
      }
      if (y + 1 < height) {
        const auto w = 1 + r.below(max_weight);
        list.push_back({n, n + width, w});
        list.push_back({n + width, n, w});
      }
    }
  return build(static_cast<std::uint32_t>(nodes), std::move(list), opt, true, what);
}

namespace {

// Arc lengths of rome99.gr (9th DIMACS challenge; "Edge costs are physical
// distances in meters", 8,870 arcs of Rome's road network, ../shared/inputs):
// the weight at every 2.5% quantile, 0% to 100% (sorted weights, index
// round(q * (n - 1))). Its median is 267 m, its longest arc 12,711 m.
constexpr std::uint32_t kRome99Quantiles[41] = {
    1,   13,  23,  39,  51,  62,  72,  82,  92,  103, 117, 132, 142, 157, 171, 182,  197,  213,  230,  247,  267,
    286, 308, 329, 348, 374, 402, 433, 471, 507, 554, 607, 666, 743, 838, 979, 1149, 1441, 1951, 2991, 12711};

// A road weight: a length drawn from rome99's quantiles (linear between two),
// scaled so that 12,711 m is max_weight, rounded up (at least 1). Integers
// only: the same weights on every machine.
std::uint32_t road_weight(Rng& r, std::uint32_t max_weight) {
  const std::uint64_t x = r.next();
  const std::uint64_t bin = ((x >> 32) * 40) >> 32, frac = x & 0xffffffffu;
  const std::uint64_t lo = kRome99Quantiles[bin], hi = kRome99Quantiles[bin + 1];
  const std::uint64_t metres = lo + (((hi - lo) * frac) >> 32);
  const std::uint64_t top = kRome99Quantiles[40];
  return static_cast<std::uint32_t>(std::max<std::uint64_t>(1, (metres * max_weight + top - 1) / top));
}

}  // namespace

Graph road(std::uint32_t width, std::uint32_t height, std::uint32_t max_weight, std::uint64_t seed,
           const Options& opt) {
  const std::string what = fmt::format("road(width={}, height={}, seed={})", width, height, seed);
  const std::uint64_t nodes = std::uint64_t{width} * height;
  // The lattice's edges (at most 2 per node, both ways): a bound on the arcs.
  check_generated(nodes, 4 * nodes, opt, what);
  Rng r{seed};
  // Lattice edge 2n joins node n to its right neighbour, 2n + 1 to the one
  // below; the edges that exist, in a random order (Fisher-Yates).
  std::vector<std::uint32_t> order;
  order.reserve(2 * nodes);
  for (std::uint32_t y = 0; y < height; ++y)
    for (std::uint32_t x = 0; x < width; ++x) {
      const std::uint32_t n = y * width + x;
      if (x + 1 < width) order.push_back(2 * n);
      if (y + 1 < height) order.push_back(2 * n + 1);
    }
  for (std::size_t i = order.size(); i > 1; --i) std::swap(order[i - 1], order[r.below(i)]);
  // Kruskal in that order (union by rank, path halving): an edge that joins
  // two components is a tree edge and kept; of the others, each is kept with
  // probability 3/8 (average out-degree 2.75, between NY's 2.78 and rome99's
  // 2.65: see graph.h).
  std::vector<std::uint32_t> parent(nodes);
  std::vector<std::uint8_t> rank(nodes, 0), kept(2 * nodes, 0);
  for (std::uint32_t i = 0; i < nodes; ++i) parent[i] = i;
  auto find = [&](std::uint32_t a) {
    while (parent[a] != a) a = parent[a] = parent[parent[a]];
    return a;
  };
  for (const std::uint32_t e : order) {
    const std::uint32_t a = e / 2, b = e % 2 ? a + width : a + 1;
    auto ra = find(a), rb = find(b);
    if (ra != rb) {
      if (rank[ra] < rank[rb]) std::swap(ra, rb);
      parent[rb] = ra;
      rank[ra] += rank[ra] == rank[rb];
      kept[e] = 1;
    } else {
      kept[e] = r.below(8) < 3;
    }
  }
  order = {};
  parent = {};
  // The kept edges in lattice order, both ways with one weight.
  std::vector<Arc> list;
  list.reserve(3 * nodes);
  for (std::uint32_t n = 0; n < nodes; ++n)
    for (std::uint32_t dir = 0; dir < 2; ++dir)
      if (kept[2 * n + dir]) {
        const std::uint32_t m = dir ? n + width : n + 1;
        const auto w = road_weight(r, max_weight);
        list.push_back({n, m, w});
        list.push_back({m, n, w});
      }
  return build(static_cast<std::uint32_t>(nodes), std::move(list), opt, true, what);
}

Graph uniform(std::uint32_t nodes, std::uint64_t arcs, std::uint32_t max_weight, std::uint64_t seed,
              const Options& opt) {
  const std::string what = fmt::format("uniform(nodes={}, arcs={}, seed={})", nodes, arcs, seed);
  check_generated(nodes, arcs, opt, what);
  if (nodes == 0 && arcs > 0) throw UserError(what + ": arcs without nodes");
  Rng r{seed};
  std::vector<Arc> list;
  list.reserve(arcs);
  for (std::uint64_t e = 0; e < arcs; ++e) {
    const auto u = r.below(nodes), v = r.below(nodes);
    list.push_back({u, v, 1 + r.below(max_weight)});
  }
  return build(nodes, std::move(list), opt, true, what);
}

std::uint32_t typical_source(const Graph& g, std::uint64_t seed) {
  if (g.nodes == 0) throw UserError(fmt::format("{}: the graph has no nodes", g.origin));
  std::vector<std::uint32_t> degree(g.nodes, 0);
  for (std::uint32_t u = 0; u < g.nodes; ++u)
    for (auto k = g.row[u]; k < g.row[u + 1]; ++k) degree[u] += g.col[k] != u;
  std::vector<std::uint32_t> positive;
  positive.reserve(g.nodes);
  for (const auto d : degree)
    if (d > 0) positive.push_back(d);
  if (positive.empty()) return 0;
  const auto mid = positive.begin() + static_cast<std::ptrdiff_t>((positive.size() - 1) / 2);
  std::nth_element(positive.begin(), mid, positive.end());
  const std::uint32_t median = *mid;
  const auto count = static_cast<std::uint64_t>(std::count(degree.begin(), degree.end(), median));
  // A stream of its own (the seed xor an arbitrary constant, "Source!!"), so
  // that a generator's seed does not also pick the source.
  Rng r{seed ^ 0x536f757263652121ull};
  std::uint64_t pick = r.below(count);
  for (std::uint32_t u = 0;; ++u)
    if (degree[u] == median && pick-- == 0) return u;
}

std::string write_dimacs(const Graph& g) {
  fmt::memory_buffer out;
  fmt::format_to(std::back_inserter(out), "p sp {} {}\n", g.nodes, g.arcs());
  for (std::uint32_t u = 0; u < g.nodes; ++u)
    for (auto k = g.row[u]; k < g.row[u + 1]; ++k)
      fmt::format_to(std::back_inserter(out), "a {} {} {}\n", u + 1, g.col[k] + 1, g.weight[k]);
  return fmt::to_string(out);
}

// ---- host references ---------------------------------------------------------

std::vector<std::uint32_t> bfs_levels(const Graph& g, std::uint32_t source) {
  std::vector<std::uint32_t> d(g.nodes, kUnreached);
  std::vector<std::uint32_t> q;
  q.reserve(g.nodes);
  d[source] = 0;
  q.push_back(source);
  for (std::size_t h = 0; h < q.size(); ++h) {
    const auto u = q[h];
    for (auto k = g.row[u]; k < g.row[u + 1]; ++k)
      if (d[g.col[k]] == kUnreached) {
        d[g.col[k]] = d[u] + 1;
        q.push_back(g.col[k]);
      }
  }
  return d;
}

std::vector<std::uint32_t> dijkstra(const Graph& g, std::uint32_t source) {
  std::vector<std::uint64_t> d(g.nodes, ~0ull);
  using Item = std::pair<std::uint64_t, std::uint32_t>;
  std::priority_queue<Item, std::vector<Item>, std::greater<>> q;
  d[source] = 0;
  q.push({0, source});
  while (!q.empty()) {
    const auto [du, u] = q.top();
    q.pop();
    if (du != d[u]) continue;
    for (auto k = g.row[u]; k < g.row[u + 1]; ++k) {
      const auto nd = du + g.weight[k];
      if (nd < d[g.col[k]]) {
        d[g.col[k]] = nd;
        q.push({nd, g.col[k]});
      }
    }
  }
  std::vector<std::uint32_t> out(g.nodes);
  for (std::uint32_t i = 0; i < g.nodes; ++i) {
    if (d[i] != ~0ull && d[i] > kUnreached)
      throw UserError(fmt::format("{}: the distance of node {} ({}) does not fit in 32 bits; use smaller weights",
                                  g.origin, g.id_of(i), d[i]));
    if (d[i] == kUnreached)
      throw UserError(
          fmt::format("{}: the distance of node {} is {}, the value that marks unreached nodes (2^32 "
                      "- 1); use smaller weights",
                      g.origin, g.id_of(i), d[i]));
    out[i] = d[i] == ~0ull ? kUnreached : static_cast<std::uint32_t>(d[i]);
  }
  return out;
}

}  // namespace fg::graph
