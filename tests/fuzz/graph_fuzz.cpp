// SPDX-License-Identifier: Apache-2.0
// libFuzzer harness of the graph readers (workloads/inputs/graph.cpp): DIMACS
// .gr, Galois binary .gr, Matrix Market, SNAP, and format detection.
// Properties: no crash, hang or leak (libFuzzer, ASan, UBSan); every
// rejection is a UserError with one bounded line of printable UTF-8 text
// (binary input escaped, never echoed); every
// accepted graph is a well-formed CSR (offsets rising to the arc count,
// destinations in range, one weight per arc, ids that map back to their
// node), and the host BFS and Dijkstra run on it.
//
// Input: byte 0 picks the format (low 3 bits: auto, dimacs, galois, mtx,
// snap) and the options (bit 3: drop parallel arcs, bit 4: drop self-loops,
// bit 5: symmetrize, bit 6: weight scale 1000); the rest is the file.
//
// Build and run: tools/fuzz.sh (make fuzz); CI runs a short campaign.
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>

#include "inputs/graph.h"
#include "sim/error.h"

namespace {

using namespace fg;

[[noreturn]] void fail(const char* what, std::uint64_t a = 0, std::uint64_t b = 0) {
  std::fprintf(stderr, "property violated: %s (%llu, %llu)\n", what, static_cast<unsigned long long>(a),
               static_cast<unsigned long long>(b));
  std::abort();
}

void check_message(const std::string& m) {
  if (m.size() > 4096) fail("message longer than 4096 bytes", m.size());
  for (std::size_t i = 0; i < m.size();) {
    const std::size_t n = printable_utf8(m, i);
    if (n == 0) {
      std::fprintf(stderr, "control byte or byte that is not UTF-8 (0x%02x) in message: %s\n",
                   static_cast<unsigned char>(m[i]), shown(m, 300).c_str());
      std::abort();
    }
    i += n;
  }
}

void check_graph(const graph::Graph& g) {
  if (g.row.size() != std::size_t{g.nodes} + 1) fail("row size", g.row.size(), g.nodes);
  if (g.row[0] != 0) fail("row[0]", g.row[0]);
  for (std::uint32_t u = 0; u < g.nodes; ++u)
    if (g.row[u + 1] < g.row[u]) fail("falling offsets", u);
  if (g.row.back() != g.col.size()) fail("last offset", g.row.back(), g.col.size());
  if (g.weight.size() != g.col.size()) fail("weights", g.weight.size(), g.col.size());
  for (auto v : g.col)
    if (v >= g.nodes) fail("destination out of range", v, g.nodes);
  if (!g.ids.empty() && g.ids.size() != g.nodes) fail("id table", g.ids.size(), g.nodes);
  for (std::uint32_t u = 0; u < g.nodes; ++u) {
    const auto n = g.node_of(g.id_of(u));
    if (!n || *n != u) fail("id does not map back", u);
  }
  if (g.nodes > 0) {
    const auto lv = graph::bfs_levels(g, 0);
    if (lv[0] != 0) fail("bfs source");
    try {
      const auto d = graph::dijkstra(g, 0);
      for (std::uint32_t u = 0; u < g.nodes; ++u)
        if ((d[u] == graph::kUnreached) != (lv[u] == graph::kUnreached)) fail("bfs and dijkstra disagree on reach", u);
    } catch (const UserError& e) {
      check_message(e.what());  // distances beyond 32 bits
    }
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  if (size == 0) return 0;
  const unsigned sel = data[0];
  const graph::Format formats[] = {graph::Format::Auto, graph::Format::Dimacs, graph::Format::Galois,
                                   graph::Format::Mtx, graph::Format::Snap};
  const graph::Format f = formats[(sel & 7) % 5];
  graph::Options o;
  o.keep_parallel = !(sel & 8);
  o.keep_self_loops = !(sel & 16);
  o.symmetrize = (sel & 32) != 0;
  o.weight_scale = (sel & 64) ? 1000.0 : 1.0;
  o.max_nodes = 1u << 16;  // the limit itself is tested; a fuzz input should not spend a second allocating
  o.max_arcs = 1u << 20;
  const std::string text(reinterpret_cast<const char*>(data + 1), size - 1);
  try {
    check_graph(graph::read_text(text, "fuzz.gr", f, o));
  } catch (const UserError& e) {
    check_message(e.what());
  }
  return 0;
}
