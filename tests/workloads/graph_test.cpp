// SPDX-License-Identifier: Apache-2.0
// Graph inputs (workloads/inputs/graph.h): every reader on small files whose
// graphs are known by hand, their errors (file:line), the options (parallel
// arcs, self-loops, symmetrize, weight scale), the generators (seeded,
// deterministic, the shape asked for; R-MAT's permuted labels, road's
// connectivity and depth), the typical source, a million-node DIMACS file
// and the host references. The real graphs of ../shared/inputs are read when
// present (skipped otherwise).
#include <algorithm>
#include <chrono>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <set>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "inputs/graph.h"
#include "inputs/graph_params.h"
#include "sim/config.h"
#include "sim/error.h"

namespace fg::graph {
namespace {

using Adj = std::vector<std::vector<std::pair<std::uint32_t, std::uint32_t>>>;  // (dest, weight) per node

Adj adjacency(const Graph& g) {
  Adj a(g.nodes);
  EXPECT_EQ(g.row.size(), std::size_t{g.nodes} + 1);
  EXPECT_EQ(g.row.back(), g.col.size());
  for (std::uint32_t u = 0; u < g.nodes; ++u)
    for (auto k = g.row[u]; k < g.row[u + 1]; ++k) a[u].push_back({g.col[k], g.weight[k]});
  return a;
}

// The message of the UserError `f` throws ("" if it does not throw).
template <class F>
std::string error_of(F&& f) {
  try {
    f();
  } catch (const UserError& e) {
    return e.what();
  }
  return "";
}

std::string read_error(const std::string& text, Format f = Format::Auto, Options o = {}) {
  return error_of([&] { read_text(text, "in.txt", f, o); });
}

const std::string kTest4 = "p sp 4 5\na 1 2 4\na 1 3 2\na 2 4 1\na 3 4 8\na 4 1 16\n";

TEST(Dimacs, ReadsArcsInInputOrderWithOneBasedIds) {
  const Graph g = read_text("c a comment\n\n" + kTest4, "test4.gr", Format::Auto, {});
  EXPECT_EQ(g.nodes, 4u);
  EXPECT_EQ(g.arcs(), 5u);
  EXPECT_TRUE(g.weighted);
  EXPECT_EQ(g.id_base, 1u);
  EXPECT_EQ(g.id_of(0), 1u);
  EXPECT_EQ(g.node_of(4), 3u);
  EXPECT_FALSE(g.node_of(0).has_value());
  EXPECT_FALSE(g.node_of(5).has_value());
  const Adj want{{{1, 4}, {2, 2}}, {{3, 1}}, {{3, 8}}, {{0, 16}}};
  EXPECT_EQ(adjacency(g), want);
  EXPECT_EQ(dijkstra(g, 0), (std::vector<std::uint32_t>{0, 4, 2, 5}));  // SOURCES.md, by hand
  EXPECT_EQ(bfs_levels(g, 0), (std::vector<std::uint32_t>{0, 1, 1, 2}));
  EXPECT_EQ(bfs_levels(g, 3), (std::vector<std::uint32_t>{1, 2, 2, 0}));
}

TEST(Dimacs, MalformedFilesNameTheLine) {
  EXPECT_EQ(read_error("p sp 2 1\na 1 3 5\n"), "in.txt:2: node 3 is not in 1..2");
  EXPECT_EQ(read_error("p sp 2 1\na 0 1 5\n"), "in.txt:2: node 0 is not in 1..2");
  EXPECT_EQ(read_error("c x\np sp 2 1\na 1 2 -5\n"), "in.txt:3: negative weight '-5'");
  EXPECT_EQ(read_error("p sp 2 1\na 1 2\n"), "in.txt:2: expected an arc 'a FROM TO WEIGHT'");
  EXPECT_EQ(read_error("p sp 2 1\na 1 2x 3\n"), "in.txt:2: node '2x' is not a non-negative integer");
  EXPECT_EQ(read_error("p sp 2 2\na 1 2 3\n"), "in.txt:1: the problem line declares 2 arcs, the file has 1");
  EXPECT_EQ(read_error("p sp 2 1\na 1 2 3\na 2 1 3\n"), "in.txt:3: more arcs than the 1 the problem line declares");
  EXPECT_EQ(read_error("c only\na 1 2 3\n"), "in.txt:2: arc before the problem line 'p sp NODES ARCS'");
  EXPECT_EQ(read_error("p sp 2 0\np sp 2 0\n"), "in.txt:2: second problem line (the first is line 1)");
  EXPECT_EQ(read_error("p sp 2 0\nx 1\n"), "in.txt:2: unknown line type 'x' (expected c, p or a)");
  EXPECT_EQ(read_error("c nothing\n"), "in.txt:1: no problem line 'p sp NODES ARCS'");
  EXPECT_EQ(read_error("p sp 2 1\na 1 2 99999999999\n"), "in.txt:2: weight 99999999999 does not fit in 32 bits");
  EXPECT_EQ(read_error("p sp 99999999999 0\n"),
            "in.txt:1: 99999999999 nodes is more than the reader's limit of 67108864");
  EXPECT_EQ(read_error("p sp 2 1\na 1 2 99999999999999999999999\n"),
            "in.txt:2: weight '99999999999999999999999' is too large");
}

TEST(Options, ParallelArcsKeepTheLightestAtTheFirstPlace) {
  const std::string t = "p sp 3 5\na 1 3 7\na 1 2 9\na 1 3 2\na 1 2 11\na 2 2 1\n";
  const Graph keep = read_text(t, "p.gr", Format::Dimacs, {});
  EXPECT_EQ(adjacency(keep)[0],
            (std::vector<std::pair<std::uint32_t, std::uint32_t>>{{2, 7}, {1, 9}, {2, 2}, {1, 11}}));
  Options o;
  o.keep_parallel = false;
  const Graph drop = read_text(t, "p.gr", Format::Dimacs, o);
  EXPECT_EQ(adjacency(drop)[0], (std::vector<std::pair<std::uint32_t, std::uint32_t>>{{2, 2}, {1, 9}}));
  EXPECT_EQ(drop.dropped_parallel, 2u);
  EXPECT_EQ(drop.arcs(), 3u);  // the self-loop stays
  o.keep_self_loops = false;
  const Graph noloop = read_text(t, "p.gr", Format::Dimacs, o);
  EXPECT_EQ(noloop.arcs(), 2u);
  EXPECT_EQ(noloop.dropped_self_loops, 1u);
  EXPECT_TRUE(adjacency(noloop)[1].empty());
}

TEST(Options, SymmetrizeAddsEveryReverseArc) {
  Options o;
  o.symmetrize = true;
  const Graph g = read_text("p sp 3 2\na 1 2 5\na 3 3 1\n", "s.gr", Format::Dimacs, o);
  EXPECT_EQ(g.added_reverse, 1u);  // not for the self-loop
  const Adj want{{{1, 5}}, {{0, 5}}, {{2, 1}}};
  EXPECT_EQ(adjacency(g), want);
}

TEST(Mtx, SymmetricRealPatternAndGeneral) {
  const std::string sym = "%%MatrixMarket matrix coordinate real symmetric\n% c\n3 3 2\n2 1 0.5\n3 3 2.25\n";
  Options o;
  o.weight_scale = 4;
  const Graph g = read_text(sym, "m.mtx", Format::Auto, o);
  const Adj want{{{1, 2}}, {{0, 2}}, {{2, 9}}};  // the diagonal entry once
  EXPECT_EQ(adjacency(g), want);
  EXPECT_TRUE(g.weighted);
  const Graph p =
      read_text("%%MatrixMarket matrix coordinate pattern general\n2 2 1\n1 2\n", "p.mtx", Format::Auto, {});
  EXPECT_FALSE(p.weighted);
  EXPECT_EQ(adjacency(p), (Adj{{{1, 1}}, {}}));
  const Graph i =
      read_text("%%MatrixMarket Matrix Coordinate Integer General\n2 2 1\n2 1 7\n", "i.mtx", Format::Auto, {});
  EXPECT_EQ(adjacency(i), (Adj{{}, {{0, 7}}}));
}

TEST(Mtx, MalformedFilesNameTheLine) {
  const std::string h = "%%MatrixMarket matrix coordinate integer general\n";
  EXPECT_EQ(read_error(h + "2 3 0\n"), "in.txt:2: a 2 x 3 matrix is not a graph (it must be square)");
  EXPECT_EQ(read_error(h + "2 2 1\n1 2\n"), "in.txt:3: expected an entry 'ROW COLUMN VALUE' (3 fields, found 2)");
  EXPECT_EQ(read_error(h + "2 2 1\n1 2 -1\n"), "in.txt:3: negative weight '-1'");
  EXPECT_EQ(read_error(h + "2 2 1\n3 2 1\n"), "in.txt:3: row 3 is not in 1..2");
  EXPECT_EQ(read_error(h + "2 2 2\n1 2 1\n"), "in.txt:2: the size line declares 2 entries, the file has 1");
  EXPECT_EQ(read_error(h), "in.txt:1: no size line 'ROWS COLUMNS ENTRIES'");
  EXPECT_EQ(read_error("%%MatrixMarket matrix array real general\n"),
            "in.txt:1: format 'array' is not supported (only coordinate)");
  EXPECT_EQ(read_error("%%MatrixMarket matrix coordinate complex general\n"),
            "in.txt:1: field 'complex' is not supported (pattern, real or integer)");
  EXPECT_EQ(read_error("%%MatrixMarket matrix coordinate real hermitian\n"),
            "in.txt:1: symmetry 'hermitian' is not supported (general or symmetric)");
  EXPECT_EQ(read_error("%%MatrixMarket matrix coordinate real general\n1 1 1\n1 1 nan\n"),
            "in.txt:3: weight 'nan' is not a number");
}

// A .mtx file without its banner is refused, not read as a SNAP edge list
// (which it parses as: "3 3 2" and "1 2" lines); <w>.format=snap still can.
TEST(Mtx, AMtxFileWithoutTheBannerIsRefused) {
  const std::string body = "3 3 2\n1 2\n2 3\n";
  EXPECT_EQ(error_of([&] { read_text(body, "g.mtx", Format::Auto, {}); }),
            "g.mtx:1: expected the header '%%MatrixMarket matrix coordinate FIELD SYMMETRY'");
  EXPECT_EQ(error_of([&] { read_text(body, "G.MTX", Format::Auto, {}); }),
            "G.MTX:1: expected the header '%%MatrixMarket matrix coordinate FIELD SYMMETRY'");
  EXPECT_EQ(error_of([&] { read_text("1 2\n2 3\n", "g.mtx", Format::Snap, {}); }), "");
}

// 2^32 - 1 fits in 32 bits but marks unreached nodes: refused for what it is.
TEST(References, ADistanceOfTheUnreachedMarkIsRefusedAsSuch) {
  const Graph g = read_text("p sp 2 1\na 1 2 4294967295\n", "d.gr", Format::Auto, {});
  EXPECT_EQ(error_of([&] { dijkstra(g, 0); }),
            "d.gr (dimacs): the distance of node 2 is 4294967295, the value that marks unreached nodes (2^32 - 1); "
            "use smaller weights");
}

TEST(Snap, SparseIdsAreNumberedInIncreasingOrder) {
  const Graph g =
      read_text("# Directed graph\n# FromNodeId\tToNodeId\n30\t10\n10\t7000000000\n", "e.txt", Format::Auto, {});
  EXPECT_EQ(g.nodes, 3u);
  EXPECT_EQ(g.ids, (std::vector<std::uint64_t>{10, 30, 7000000000}));
  EXPECT_EQ(g.node_of(30), 1u);
  EXPECT_FALSE(g.node_of(11).has_value());
  EXPECT_EQ(adjacency(g), (Adj{{{2, 1}}, {{0, 1}}, {}}));
  EXPECT_FALSE(g.weighted);
  const Graph dense = read_text("0 1 5\n1 2 6\n", "d.txt", Format::Snap, {});
  EXPECT_TRUE(dense.ids.empty());
  EXPECT_EQ(dense.id_base, 0u);
  EXPECT_TRUE(dense.weighted);
  EXPECT_EQ(read_error("1 2\n3 4 5\n"), "in.txt:2: 3 fields where line 1 has 2");
  EXPECT_EQ(read_error("1\n"), "in.txt:1: expected 'FROM TO' or 'FROM TO WEIGHT', found 1 fields");
}

std::string galois_bytes(std::uint64_t version, std::uint64_t edge_size, const std::vector<std::uint64_t>& ends,
                         const std::vector<std::uint64_t>& dests, const std::vector<std::uint32_t>& w) {
  std::string s;
  auto put = [&](const void* p, std::size_t n) { s.append(static_cast<const char*>(p), n); };
  const std::uint64_t n = ends.size(), m = dests.size();
  put(&version, 8);
  put(&edge_size, 8);
  put(&n, 8);
  put(&m, 8);
  for (auto e : ends) put(&e, 8);
  for (auto d : dests) {
    if (version == 1) {
      const auto d32 = static_cast<std::uint32_t>(d);
      put(&d32, 4);
    } else {
      put(&d, 8);
    }
  }
  if (version == 1 && m % 2) s.append(4, '\0');
  for (auto x : w) put(&x, 4);
  return s;
}

TEST(Galois, VersionsOneAndTwoWithAndWithoutWeights) {
  const Adj want{{{1, 4}, {2, 2}}, {{3, 1}}, {{3, 8}}, {{0, 16}}};
  const std::vector<std::uint64_t> ends{2, 3, 4, 5}, dests{1, 2, 3, 3, 0};
  const Graph v1 = read_text(galois_bytes(1, 4, ends, dests, {4, 2, 1, 8, 16}), "t.gr", Format::Auto, {});
  EXPECT_EQ(adjacency(v1), want);
  EXPECT_EQ(v1.id_base, 0u);
  const Graph v2 = read_text(galois_bytes(2, 4, ends, dests, {4, 2, 1, 8, 16}), "t.gr", Format::Auto, {});
  EXPECT_EQ(adjacency(v2), want);
  const Graph bare = read_text(galois_bytes(1, 0, ends, dests, {}), "t.gr", Format::Galois, {});
  EXPECT_FALSE(bare.weighted);
  EXPECT_EQ(bare.weight, std::vector<std::uint32_t>(5, 1));
}

TEST(Galois, MalformedFilesNameTheByte) {
  const std::vector<std::uint64_t> ends{2, 3, 4, 5}, dests{1, 2, 3, 3, 0};
  const std::string good = galois_bytes(1, 4, ends, dests, {4, 2, 1, 8, 16});
  EXPECT_EQ(read_error(good.substr(0, good.size() - 1), Format::Galois),
            "in.txt: at byte 107: 4 nodes and 5 arcs (version 1, 4-byte edge data) need 108 bytes, the file has 107");
  EXPECT_EQ(read_error(galois_bytes(1, 4, {2, 1, 4, 5}, dests, {4, 2, 1, 8, 16})),
            "in.txt: at byte 40: offset 1 of node 1 is not in 2..5");
  EXPECT_EQ(read_error(galois_bytes(1, 4, ends, {1, 2, 9, 3, 0}, {4, 2, 1, 8, 16})),
            "in.txt: at byte 72: destination 9 of arc 2 is not a node (0..3)");
  EXPECT_EQ(read_error(galois_bytes(1, 4, {2, 3, 4, 4}, dests, {4, 2, 1, 8, 16})),
            "in.txt: at byte 56: the offsets end at 4, not at the 5 arcs");
  EXPECT_EQ(read_error(galois_bytes(1, 8, ends, dests, {}), Format::Galois),
            "in.txt: at byte 8: edge data of 8 bytes is not supported (0: unweighted, 4: 32-bit weights)");
  EXPECT_EQ(read_error(std::string("\x03\0\0\0\0\0\0\0", 8) + std::string(24, '\0'), Format::Galois),
            "in.txt: at byte 0: version 3 is not 1 or 2");
  EXPECT_EQ(read_error(std::string("\x01\0\0\0", 4), Format::Galois),
            "in.txt: at byte 0: file ends (4 bytes) inside the header or offsets");
}

TEST(Generators, RmatIsSeededAndSkewed) {
  RmatParams p;
  p.scale = 10;
  p.edge_factor = 16;
  p.permute = false;  // the recursion's labels: node 0 is the hub, the quadrants are halves of the ids
  const Graph a = rmat(p, 100, 7, {}), b = rmat(p, 100, 7, {}), c = rmat(p, 100, 8, {});
  EXPECT_EQ(a.nodes, 1024u);
  EXPECT_EQ(a.arcs(), 16384u);
  EXPECT_EQ(a.col, b.col);
  EXPECT_EQ(a.weight, b.weight);
  EXPECT_NE(a.col, c.col);
  // a = 0.57 puts most arcs in the upper-left quadrant: node 0's out-degree is
  // far above the mean of 16; a uniform graph's is not.
  EXPECT_GT(a.row[1] - a.row[0], 16u * 8);
  // The first recursion level puts a, b, c, d of the arcs in the four
  // quadrants (u low/high half, v low/high half); 16384 arcs: sd < 0.004.
  double quadrant[4] = {};
  for (std::uint32_t u = 0; u < a.nodes; ++u)
    for (auto k = a.row[u]; k < a.row[u + 1]; ++k) quadrant[2 * (u >= 512) + (a.col[k] >= 512)] += 1.0 / a.arcs();
  EXPECT_NEAR(quadrant[0], 0.57, 0.02);
  EXPECT_NEAR(quadrant[1], 0.19, 0.02);
  EXPECT_NEAR(quadrant[2], 0.19, 0.02);
  EXPECT_NEAR(quadrant[3], 0.05, 0.02);
  const Graph u = uniform(1024, 16384, 100, 7, {});
  std::uint32_t max_degree = 0;
  for (std::uint32_t i = 0; i < u.nodes; ++i) max_degree = std::max(max_degree, u.row[i + 1] - u.row[i]);
  EXPECT_LT(max_degree, 16u * 3);
  for (auto w : a.weight) {
    ASSERT_GE(w, 1u);
    ASSERT_LE(w, 100u);
  }
  p.d = 0.2;
  EXPECT_NE(error_of([&] { rmat(p, 100, 1, {}); }).find("a + b + c + d is 1.15, not 1"), std::string::npos);
}

TEST(Generators, GridIsAFourNeighbourMeshWithSymmetricWeights) {
  const Graph g = grid(4, 3, 50, 3, {});
  EXPECT_EQ(g.nodes, 12u);
  EXPECT_EQ(g.arcs(), 2u * (3 * 3 + 4 * 2));
  const Adj a = adjacency(g);
  for (std::uint32_t u = 0; u < g.nodes; ++u)
    for (auto [v, w] : a[u]) {
      const auto dx = std::abs(static_cast<int>(u % 4) - static_cast<int>(v % 4));
      const auto dy = std::abs(static_cast<int>(u / 4) - static_cast<int>(v / 4));
      EXPECT_EQ(dx + dy, 1);
      EXPECT_NE(std::find(a[v].begin(), a[v].end(), std::make_pair(u, w)), a[v].end());
    }
  EXPECT_EQ(bfs_levels(g, 0)[11], 5u);  // corner to corner: 3 + 2 hops
}

// Out-degree of every node, and the node of the largest (the first of equals).
std::vector<std::uint32_t> out_degrees(const Graph& g) {
  std::vector<std::uint32_t> d(g.nodes);
  for (std::uint32_t u = 0; u < g.nodes; ++u) d[u] = g.row[u + 1] - g.row[u];
  return d;
}

std::uint32_t hub(const Graph& g) {
  const auto d = out_degrees(g);
  return static_cast<std::uint32_t>(std::max_element(d.begin(), d.end()) - d.begin());
}

// Hops from `source` to the farthest node it reaches.
std::uint32_t depth(const Graph& g, std::uint32_t source) {
  std::uint32_t deepest = 0;
  for (auto l : bfs_levels(g, source))
    if (l != kUnreached) deepest = std::max(deepest, l);
  return deepest;
}

TEST(Generators, PermutedRmatIsTheUnpermutedRelabelled) {
  RmatParams p;
  p.scale = 10;
  p.edge_factor = 16;
  p.permute = false;
  const Graph plain = rmat(p, 100, 7, {});
  p.permute = true;
  const Graph a = rmat(p, 100, 7, {}), b = rmat(p, 100, 7, {}), c = rmat(p, 100, 8, {});
  const auto perm = rmat_permutation(10, 7);
  // A bijection of 0..1023 that moves (almost) every node.
  ASSERT_EQ(perm.size(), 1024u);
  std::vector<bool> seen(1024, false);
  std::size_t fixed = 0;
  for (std::uint32_t u = 0; u < 1024; ++u) {
    ASSERT_LT(perm[u], 1024u);
    EXPECT_FALSE(seen[perm[u]]) << "perm[" << u << "] = " << perm[u] << " twice";
    seen[perm[u]] = true;
    fixed += perm[u] == u;
  }
  EXPECT_LT(fixed, 8u);  // a random permutation fixes 1 node on average
  // The same arcs, weights and per-node arc order under the relabelling.
  const Adj pa = adjacency(plain), aa = adjacency(a);
  for (std::uint32_t u = 0; u < plain.nodes; ++u) {
    auto renamed = pa[u];
    for (auto& [v, w] : renamed) v = perm[v];
    ASSERT_EQ(aa[perm[u]], renamed) << "node " << u << " (" << perm[u] << " permuted)";
  }
  auto da = out_degrees(a), dp = out_degrees(plain);
  std::sort(da.begin(), da.end());
  std::sort(dp.begin(), dp.end());
  EXPECT_EQ(da, dp);  // the same degree multiset
  // Deterministic per seed, different between seeds (labels and arcs).
  EXPECT_EQ(a.col, b.col);
  EXPECT_EQ(a.row, b.row);
  EXPECT_EQ(a.weight, b.weight);
  EXPECT_NE(a.col, c.col);
  EXPECT_NE(perm, rmat_permutation(10, 8));
  // The hub is node 0 only without the permutation.
  EXPECT_EQ(hub(plain), 0u);
  EXPECT_EQ(hub(a), perm[0]);
  for (std::uint64_t seed = 1; seed <= 8; ++seed) EXPECT_NE(hub(rmat(p, 100, seed, {})), 0u) << "seed " << seed;
}

TEST(Sources, TypicalSourceHasTheMedianDegreeOfNodesWithArcs) {
  // Out-degrees, self-loops not counted: node 1: 1, nodes 2 and 3: 2 (3 also
  // has a self-loop), 4: 3, 5: 5; node 6 has only self-loops and 0, 7, 8, 9
  // nothing. Median of the nonzero ones (1 2 2 3 5): 2, so node 2 or 3; with
  // the zeros (0 0 0 0 0 1 2 2 3 5) it would be 0, with node 6's self-loops
  // counted it could be node 6.
  const std::string text =
      "p sp 10 16\na 2 1 1\na 3 1 1\na 3 4 1\na 4 1 1\na 4 5 1\na 4 4 1\na 5 1 1\na 5 2 1\na 5 3 1\n"
      "a 6 1 1\na 6 2 1\na 6 3 1\na 6 4 1\na 6 5 1\na 7 7 1\na 7 7 1\n";
  const Graph g = read_text(text, "median.gr", Format::Dimacs, {});
  std::set<std::uint32_t> picked;
  for (std::uint64_t seed = 0; seed < 64; ++seed) {
    const auto s = typical_source(g, seed);
    EXPECT_TRUE(s == 2 || s == 3) << "seed " << seed << ": node " << s;
    EXPECT_EQ(typical_source(g, seed), s);  // deterministic
    picked.insert(s);
  }
  EXPECT_EQ(picked.size(), 2u);  // the seed breaks the tie both ways
  // On R-MAT: a node of the median nonzero out-degree, not the hub.
  RmatParams p;
  p.scale = 12;
  p.edge_factor = 16;
  const Graph r = rmat(p, 100, 3, {});
  std::vector<std::uint32_t> nonzero;
  for (std::uint32_t u = 0; u < r.nodes; ++u) {
    std::uint32_t d = 0;
    for (auto k = r.row[u]; k < r.row[u + 1]; ++k) d += r.col[k] != u;
    if (d > 0) nonzero.push_back(d);
  }
  std::sort(nonzero.begin(), nonzero.end());
  const auto s = typical_source(r, 3);
  std::uint32_t ds = 0;
  for (auto k = r.row[s]; k < r.row[s + 1]; ++k) ds += r.col[k] != s;
  EXPECT_EQ(ds, nonzero[(nonzero.size() - 1) / 2]);
  EXPECT_LT(ds, 16u);  // below the mean: R-MAT's degrees are skewed
  // Edge cases: no arcs but self-loops gives node 0; no nodes is refused.
  EXPECT_EQ(typical_source(read_text("p sp 3 1\na 2 2 1\n", "loops.gr", Format::Dimacs, {}), 5), 0u);
  Graph empty;
  empty.row = {0};
  empty.origin = "empty";
  EXPECT_EQ(error_of([&] { typical_source(empty, 1); }), "empty: the graph has no nodes");
}

TEST(Generators, RoadIsConnectedSymmetricSparseAndDeep) {
  const Graph g = road(256, 256, 100, 3, {}), same = road(256, 256, 100, 3, {}), other = road(256, 256, 100, 4, {});
  ASSERT_EQ(g.nodes, 65536u);
  EXPECT_EQ(g.col, same.col);
  EXPECT_EQ(g.weight, same.weight);
  EXPECT_NE(g.col, other.col);
  const Adj a = adjacency(g);
  std::uint32_t max_degree = 0;
  for (std::uint32_t u = 0; u < g.nodes; ++u) {
    max_degree = std::max<std::uint32_t>(max_degree, a[u].size());
    for (auto [v, w] : a[u]) {
      // A lattice edge, present both ways with one weight, no self-loop.
      const auto dx = std::abs(static_cast<int>(u % 256) - static_cast<int>(v % 256));
      const auto dy = std::abs(static_cast<int>(u / 256) - static_cast<int>(v / 256));
      ASSERT_EQ(dx + dy, 1) << u << " -> " << v;
      ASSERT_NE(std::find(a[v].begin(), a[v].end(), std::make_pair(u, w)), a[v].end()) << v << " -> " << u;
      ASSERT_GE(w, 1u);
      ASSERT_LE(w, 100u);
    }
  }
  EXPECT_LE(max_degree, 4u);
  // Average out-degree: 2.75 expected (tree + 3/8 of the rest); DIMACS NY
  // 2.78, rome99 2.65.
  const double mean = static_cast<double>(g.arcs()) / g.nodes;
  EXPECT_GT(mean, 2.6);
  EXPECT_LT(mean, 2.9);
  // Connected, and deep: from a typical source the farthest node is hundreds
  // of hops away (the lattice's 256 x 256), where R-MAT's is a handful.
  const auto levels = bfs_levels(g, 0);
  EXPECT_EQ(std::count(levels.begin(), levels.end(), kUnreached), 0);
  const auto road_depth = depth(g, typical_source(g, 1));
  RmatParams p;
  p.scale = 16;
  p.edge_factor = 16;
  const Graph r = rmat(p, 100, 3, {});
  const auto rmat_depth = depth(r, typical_source(r, 1));
  EXPECT_GT(road_depth, 200u);
  EXPECT_LT(rmat_depth, 20u);
  EXPECT_GT(road_depth, 10 * rmat_depth);
  // Weights: rome99's lengths, so with max_weight = 12711 (its longest arc,
  // metres) the median is rome99's (267 m) and a few arcs are kilometres long.
  const Graph m = road(128, 128, 12711, 5, {});
  auto w = m.weight;
  std::sort(w.begin(), w.end());
  EXPECT_NEAR(w[w.size() / 2], 267.0, 25.0);
  EXPECT_NEAR(w[w.size() * 9 / 10], 1149.0, 120.0);  // rome99's 90% quantile
  EXPECT_LE(w.back(), 12711u);
  // The smallest lattices: one node, and two joined by their one edge.
  EXPECT_EQ(road(1, 1, 10, 1, {}).arcs(), 0u);
  EXPECT_EQ(road(2, 1, 10, 1, {}).arcs(), 2u);
}

// A million-node road graph through the DIMACS writer and reader, as a file.
TEST(Dimacs, AMillionNodeRoadGraphRoundTripsThroughAFile) {
  const Graph g = road(1024, 1024, 12711, 9, {});
  const auto path = std::filesystem::path(::testing::TempDir()) / "road_1m.gr";
  {
    std::ofstream f(path, std::ios::binary);
    f << write_dimacs(g);
    ASSERT_TRUE(f.good());
  }
  const auto t0 = std::chrono::steady_clock::now();
  const Graph back = read_file(path.string(), Format::Auto, {});
  const std::chrono::duration<double> took = std::chrono::steady_clock::now() - t0;
  std::filesystem::remove(path);
  std::cout << "read " << back.nodes << " nodes, " << back.arcs() << " arcs in " << took.count() << " s\n";
  EXPECT_EQ(back.nodes, 1048576u);
  EXPECT_EQ(back.id_base, 1u);
  EXPECT_EQ(back.row, g.row);
  EXPECT_EQ(back.col, g.col);
  EXPECT_EQ(back.weight, g.weight);
}

// The parameters of a workload "gparams" (graph_params.h): the generator
// chosen by name, R-MAT permuted by default, the estimates, the refusals.
const GraphParams kParams{"gparams"};

TEST(GraphParams, RmatIsPermutedByDefaultAndRoadIsAGenerator) {
  Config cfg;
  cfg.set("gparams.scale", "10", "t");
  const Graph permuted = kParams.load(cfg, 7);
  EXPECT_NE(hub(permuted), 0u);
  cfg.set("gparams.rmat.permute", "false", "t");
  const Graph plain = kParams.load(cfg, 7);
  EXPECT_EQ(hub(plain), 0u);
  EXPECT_EQ(hub(permuted), rmat_permutation(10, 7)[0]);
  EXPECT_EQ(error_of([&] {
              Config c = cfg;
              c.set("gparams.generator", "road", "t");
              kParams.load(c, 7);
            }),
            "gparams.rmat.permute (set by t) does not apply: the generator is road");
  Config road_cfg;
  road_cfg.set("gparams.generator", "road", "t");
  road_cfg.set("gparams.scale", "13", "t");
  const Graph g = kParams.load(road_cfg, 7);
  EXPECT_EQ(g.nodes, 8192u);
  EXPECT_EQ(g.col, road(128, 64, 100, 7, {}).col);  // width 2^ceil(13/2), height 2^floor(13/2)
  // The estimate bounds the graph's bytes (every lattice edge) within 1.5x.
  const std::uint64_t bytes = 4 * (g.row.size()) + 8 * g.arcs();
  EXPECT_GE(kParams.estimate_bytes(road_cfg), bytes);
  EXPECT_LT(kParams.estimate_bytes(road_cfg), bytes * 3 / 2);
  EXPECT_EQ(kParams.estimate_nodes(road_cfg), 8192u);
  road_cfg.set("gparams.edge_factor", "4", "t");
  EXPECT_EQ(error_of([&] { kParams.load(road_cfg, 7); }),
            "gparams.edge_factor (set by t) does not apply: the road generator makes lattice graphs of average "
            "out-degree 2.75");
}

TEST(References, DijkstraAgreesWithBellmanFordOnARandomGraph) {
  const Graph g = uniform(300, 1500, 1000, 11, {});
  const auto d = dijkstra(g, 5);
  std::vector<std::uint64_t> bf(g.nodes, ~0ull);
  bf[5] = 0;
  for (bool changed = true; changed;) {
    changed = false;
    for (std::uint32_t u = 0; u < g.nodes; ++u)
      if (bf[u] != ~0ull)
        for (auto k = g.row[u]; k < g.row[u + 1]; ++k)
          if (bf[u] + g.weight[k] < bf[g.col[k]]) {
            bf[g.col[k]] = bf[u] + g.weight[k];
            changed = true;
          }
  }
  std::size_t reached = 0;
  for (std::uint32_t i = 0; i < g.nodes; ++i) {
    EXPECT_EQ(d[i], bf[i] == ~0ull ? kUnreached : bf[i]) << "node " << i;
    reached += d[i] != kUnreached;
  }
  EXPECT_GT(reached, 200u);  // the comparison is not between two empty answers
}

// ---- the real graphs of ../shared/inputs (SOURCES.md) -------------------------

std::filesystem::path shared_input(const char* name) {
  return std::filesystem::path(FG_SOURCE_DIR) / ".." / "shared" / "inputs" / name;
}

#define REQUIRE_INPUT(path) \
  if (!std::filesystem::exists(path)) GTEST_SKIP() << (path) << " is not present"

TEST(SharedInputs, Rome99MatchesItsProvenance) {
  const auto path = shared_input("rome99.gr");
  REQUIRE_INPUT(path);
  const Graph g = read_file(path.string(), Format::Auto, {});
  EXPECT_EQ(g.nodes, 3353u);
  EXPECT_EQ(g.arcs(), 8870u);
  Options o;
  o.keep_parallel = false;
  const Graph d = read_file(path.string(), Format::Auto, o);
  EXPECT_EQ(d.arcs(), 8859u);  // 11 parallel pairs (SOURCES.md)
  EXPECT_EQ(d.dropped_parallel, 11u);
  EXPECT_EQ(*std::min_element(g.weight.begin(), g.weight.end()), 1u);
  EXPECT_EQ(*std::max_element(g.weight.begin(), g.weight.end()), 12711u);
  for (std::uint32_t u = 0; u < g.nodes; ++u) EXPECT_GT(g.row[u + 1], g.row[u]) << "node " << g.id_of(u);
}

TEST(SharedInputs, Test4DistancesAreTheHandWorkedOnes) {
  const auto path = shared_input("test4.gr");
  REQUIRE_INPUT(path);
  EXPECT_EQ(dijkstra(read_file(path.string(), Format::Auto, {}), 0), (std::vector<std::uint32_t>{0, 4, 2, 5}));
}

TEST(SharedInputs, MatrixMarketGraphsMatchTheirProvenance) {
  struct Case {
    const char* name;
    std::uint32_t nodes;
    std::uint64_t entries;
    bool weighted;
  };
  for (const Case c : {Case{"netscience.mtx", 1589, 2742, true}, Case{"karate.mtx", 34, 78, false},
                       Case{"dolphins.mtx", 62, 159, false}}) {
    const auto path = shared_input(c.name);
    if (!std::filesystem::exists(path)) GTEST_SKIP() << path << " is not present";
    const Graph g = read_file(path.string(), Format::Auto, {});
    EXPECT_EQ(g.nodes, c.nodes) << c.name;
    EXPECT_EQ(g.arcs(), 2 * c.entries) << c.name;  // symmetric, no diagonal
    EXPECT_EQ(g.weighted, c.weighted) << c.name;
  }
}

}  // namespace
}  // namespace fg::graph
