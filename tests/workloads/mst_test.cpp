// SPDX-License-Identifier: Apache-2.0
// mst through fgsim: every mechanism on generated graphs and both presets
// passes its host check (a spanning forest with the host Kruskal's weight;
// the workload exits 3 otherwise); a disconnected file with ties and its
// exact --output; the output of a generated graph; the hardware worklist's
// two backends agree; swwl's Table II options (runtime/swwl.h) give the same
// forest, each with its effect; bad input is exit 2 naming the key.
#include <algorithm>
#include <cctype>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <tuple>
#include <vector>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "fg_test.h"

namespace fg {
namespace {

using test::preset_arg;
using test::run_fgsim;
using test::run_json;

using Case = std::tuple<const char*, const char*, const char*>;  // mechanism, generator, preset
class MstWorkload : public ::testing::TestWithParam<Case> {};

TEST_P(MstWorkload, SpanningForestWithTheHostKruskalsWeight) {
  const auto [m, g, p] = GetParam();
  const std::string M = m;
  auto j = run_json("run mst" + preset_arg(p) + " --set gpu.cus=4 --set mst.mechanism=" + M +
                    " --set mst.generator=" + g + " --set mst.scale=9");
  ASSERT_FALSE(j.is_null());
  EXPECT_EQ(j["run"]["status"], "ok");
  ASSERT_EQ(j["workload"]["checks"].size(), 1u);
  const auto& r = j["workload"]["results"];
  EXPECT_EQ(r["nodes"], 512);
  EXPECT_EQ(r["forest_edges"].get<int>() + r["components"].get<int>(), 512) << r.dump();
  EXPECT_GT(r["forest_edges"].get<int>(), 400) << r.dump();
  EXPECT_GT(r["rounds"].get<int>(), 2) << r.dump();  // several Boruvka rounds, the last one finding nothing
  EXPECT_GT(r["kernel_ns"].get<double>(), 0);
  if (M == "topo") {
    // Every node in every kernel: min, hook and compress, then the last min.
    EXPECT_EQ(r["kernels"].get<int>(), 3 * r["rounds"].get<int>() - 2);
    EXPECT_EQ(r["work_items"].get<int>(), 512 * r["kernels"].get<int>());
  } else {
    // Data-driven: fewer work-items than topo's, at least the first round's
    // every node (swwl; hwwl: plus the persistent threads).
    EXPECT_EQ(r["kernels"].get<int>(), 2 * r["rounds"].get<int>() - 1);
    EXPECT_GE(r["work_items"].get<int>(), 512);
  }
  if (M == "swwl") {
    EXPECT_LT(r["work_items"].get<int>(), 512 * (3 * r["rounds"].get<int>() - 2));
    // Each forest edge was some root's minimum, whose root was pushed.
    EXPECT_GE(r["pushes"].get<int>(), r["forest_edges"].get<int>());
  }
  if (M == "hwwl") {
    const auto& st = j["stats"];
    EXPECT_GE(st["gpu.worklist.pushes"].get<int>(), r["forest_edges"].get<int>());
    EXPECT_EQ(st["gpu.worklist.pull_ids"], st["gpu.worklist.pushes"]);
  } else {
    EXPECT_FALSE(j["stats"].contains("gpu.worklist.pushes"));
  }
}

INSTANTIATE_TEST_SUITE_P(Generated, MstWorkload,
                         ::testing::Combine(::testing::Values("topo", "swwl", "hwwl"),
                                            ::testing::Values("rmat", "grid"), ::testing::Values("kim2014", "default")),
                         [](const ::testing::TestParamInfo<Case>& i) {
                           return std::string(std::get<0>(i.param)) + "_" + std::get<1>(i.param) + "_" +
                                  std::get<2>(i.param);
                         });

// Three components ({1, 2, 3}; {4, 5, 6, 7} with five edges of one weight;
// node 8 alone with a self-loop), parallel arcs in both directions. The
// weight-5 ties are broken by edge id ((u, v) order), so the forest is the
// same for every mechanism: 1-3 (the lighter of the two arcs), 2-3, and 4's
// three edges.
const char* kDisconnected =
    "c three components\n"
    "p sp 8 11\n"
    "a 1 2 4\n"
    "a 2 1 4\n"
    "a 2 3 1\n"
    "a 3 1 2\n"
    "a 1 3 7\n"
    "a 6 7 5\n"
    "a 5 6 5\n"
    "a 4 6 5\n"
    "a 7 4 5\n"
    "a 4 5 5\n"
    "a 8 8 3\n";

class MstDisconnected : public ::testing::TestWithParam<const char*> {};

TEST_P(MstDisconnected, ForestAndOutputFile) {
  const auto d = test::scratch_dir();
  const std::string in = (d / "three.gr").string(), out = (d / "forest.txt").string();
  std::ofstream(in) << kDisconnected;
  auto j = run_json(std::string("run mst --preset kim2014 --set gpu.cus=2 --set mst.mechanism=") + GetParam() +
                    " --input " + in + " --output " + out);
  ASSERT_FALSE(j.is_null());
  const auto& r = j["workload"]["results"];
  EXPECT_EQ(r["nodes"], 8);
  EXPECT_EQ(r["edges"], 8);  // 1-2, 1-3, 2-3, 4-5, 4-6, 4-7, 5-6, 6-7; the self-loop is none
  EXPECT_EQ(r["components"], 3);
  EXPECT_EQ(r["forest_edges"], 5);
  EXPECT_EQ(r["weight"], 18);
  EXPECT_EQ(test::slurp(out), "18\n1 3 2\n2 3 1\n4 5 5\n4 6 5\n4 7 5\n");
}

INSTANTIATE_TEST_SUITE_P(Mechanisms, MstDisconnected, ::testing::Values("topo", "swwl", "hwwl"));

// A sparse uniform graph (one arc per node) falls apart into many
// components; every mechanism gives the host's forest.
TEST(MstGenerated, SparseUniformGraphIsAForestOfManyComponents) {
  for (const std::string m : {"topo", "swwl", "hwwl"}) {
    auto j = run_json("run mst --preset kim2014 --set gpu.cus=4 --set mst.mechanism=" + m +
                      " --set mst.generator=uniform --set mst.edge_factor=1 --set mst.scale=9");
    ASSERT_FALSE(j.is_null()) << m;
    const auto& r = j["workload"]["results"];
    EXPECT_EQ(j["run"]["status"], "ok") << m;
    EXPECT_GT(r["components"].get<int>(), 20) << m << " " << r.dump();
    EXPECT_EQ(r["forest_edges"].get<int>() + r["components"].get<int>(), 512) << m;
  }
}

// --output on a generated graph: the weight first, then one "u v w" line per
// forest edge, u < v, sorted, the weights summing to the first line.
TEST(MstOutput, WeightThenSortedEdges) {
  const std::string out = (test::scratch_dir() / "forest.txt").string();
  auto j = run_json(
      "run mst --preset kim2014 --set gpu.cus=4 --set mst.mechanism=hwwl --set mst.generator=grid "
      "--set mst.scale=8 --output " +
      out);
  ASSERT_FALSE(j.is_null());
  const auto& r = j["workload"]["results"];
  std::istringstream in(test::slurp(out));
  std::uint64_t weight = 0, sum = 0, lines = 0;
  in >> weight;
  EXPECT_EQ(weight, r["weight"].get<std::uint64_t>());
  std::uint64_t u = 0, v = 0, w = 0, pu = 0, pv = 0;
  while (in >> u >> v >> w) {
    EXPECT_LT(u, v);
    if (lines) {
      EXPECT_TRUE(pu < u || (pu == u && pv < v)) << u << " " << v;
    }
    pu = u, pv = v, sum += w, ++lines;
  }
  EXPECT_EQ(lines, 255u);  // a grid is connected: nodes - 1 edges
  EXPECT_EQ(sum, weight);
}

// The hardware worklist's golden model and its Verilated RTL give the same
// run (the paper's machine: kim2014's 4 cores, 32-entry banks that spill).
TEST(MstHardwareWorklist, ModelAndRtlBackendsAgree) {
  const std::string base =
      "run mst --preset kim2014 --set gpu.cus=4 --set mst.mechanism=hwwl --set mst.scale=9 --set worklist.backend=";
  auto a = run_json(base + "model"), b = run_json(base + "rtl");
  ASSERT_FALSE(a.is_null());
  ASSERT_FALSE(b.is_null());
  EXPECT_EQ(a["workload"]["results"], b["workload"]["results"]);
  for (const char* k :
       {"gpu.worklist.pushes", "gpu.worklist.pull_ids", "gpu.worklist.pull_waits", "gpu.worklist.hvu.spills"})
    EXPECT_EQ(a["stats"][k], b["stats"][k]) << k;
  EXPECT_GT(a["stats"]["gpu.worklist.hvu.spills"].get<int>(), 0);
}

// Table II's software options on swwl (Sec. II-D, runtime/swwl.h): each run
// passes the host check with the same forest, rounds and pushes as the
// default push (atomic) with the same threads; aru (one atomic add per list
// per workgroup) and chunk (one per list per work-item) cut the L2 atomics
// by at least a quarter of the pushes (the count atomics); threads=N
// launches N work-items in every kernel, min and hook; donating donates in
// both kernels.
class MstSoftwareOptions : public ::testing::TestWithParam<const char*> {};

TEST_P(MstSoftwareOptions, HostForestAndTheOptionsEffect) {
  const std::string opts = GetParam();
  const std::string base = "run mst --preset kim2014 --set gpu.cus=4 --set mst.mechanism=swwl --set mst.scale=10";
  std::string sets, ref_sets;  // the options; the same without the push option
  std::uint64_t threads = 0;
  for (std::string o = opts; !o.empty();) {
    const auto comma = o.find(',');
    const std::string kv = o.substr(0, comma);
    sets += " --set mst.swwl." + kv;
    if (kv.rfind("push=", 0) != 0) ref_sets += " --set mst.swwl." + kv;
    if (kv.rfind("threads=", 0) == 0) threads = std::stoull(kv.substr(8));
    o = comma == std::string::npos ? "" : o.substr(comma + 1);
  }
  auto j = run_json(base + sets), a = run_json(base + ref_sets);
  ASSERT_FALSE(j.is_null());
  ASSERT_FALSE(a.is_null());
  EXPECT_EQ(j["run"]["status"], "ok");
  ASSERT_EQ(j["workload"]["checks"].size(), 1u);
  const auto &r = j["workload"]["results"], &ra = a["workload"]["results"];
  for (const char* k : {"weight", "forest_edges", "components", "rounds", "kernels", "pushes"})
    EXPECT_EQ(r[k], ra[k]) << k << " " << opts;
  if (threads) {
    EXPECT_EQ(r["work_items"].get<std::uint64_t>(), threads * r["kernels"].get<std::uint64_t>()) << r.dump();
  } else {
    EXPECT_EQ(r["work_items"], ra["work_items"]);
  }
  if (opts.find("push=") != std::string::npos) {
    EXPECT_LT(j["stats"]["gpu.l2.atomics"].get<double>(),
              a["stats"]["gpu.l2.atomics"].get<double>() - 0.25 * r["pushes"].get<double>())
        << opts;
  }
  if (opts.find("donate") != std::string::npos) {
    EXPECT_GT(r["donated"].get<int>(), 0) << r.dump();  // min's (hook has no estimate to donate by)
  } else {
    EXPECT_FALSE(r.contains("donated")) << r.dump();
  }
}

INSTANTIATE_TEST_SUITE_P(Sec2, MstSoftwareOptions,
                         ::testing::Values("push=aru", "threads=256", "threads=256,push=chunk", "threads=256,push=aru",
                                           "threads=256,donate=true", "threads=256,donate=true,push=chunk"),
                         [](const ::testing::TestParamInfo<const char*>& i) { return test::options_name(i); });

// Bad input: one line naming the key, exit 2.
TEST(MstBadInput, KeysThatDoNotApplyAreExit2NamingTheKey) {
  struct Bad {
    std::string args, message;
  };
  const std::vector<Bad> bad{
      {"--set mst.hwwl.overflow=8",
       "mst.hwwl.overflow (set by --set mst.hwwl.overflow) does not apply: mst.mechanism is topo, not hwwl"},
      {"--set mst.mechanism=swwl --set worklist.depth=64", "worklist.depth"},
      {"--set mst.generator=grid --set mst.edge_factor=4", "mst.edge_factor"},
      {"--set mst.mechanism=bogus", "mst.mechanism"},
      // swwl's options: swwl only; donating and chunking need more than one
      // item per work-item.
      {"--set mst.swwl.push=aru",
       "mst.swwl.push (set by --set mst.swwl.push) does not apply: mst.mechanism is topo, not swwl"},
      {"--set mst.mechanism=hwwl --set mst.swwl.threads=64",
       "mst.swwl.threads (set by --set mst.swwl.threads) does not apply: mst.mechanism is hwwl, not swwl"},
      {"--set mst.mechanism=swwl --set mst.swwl.donate=true",
       "mst.swwl.donate (set by --set mst.swwl.donate): work donating needs mst.swwl.threads > 0"},
      {"--set mst.mechanism=swwl --set mst.swwl.push=chunk",
       "mst.swwl.push (set by --set mst.swwl.push): work chunking needs mst.swwl.threads > 0"},
  };
  for (const auto& c : bad) {
    auto r = run_fgsim("run mst --set mst.scale=6 " + c.args + " --quiet");
    EXPECT_EQ(r.code, 2) << c.args << "\n" << r.err;
    EXPECT_NE(r.err.find(c.message), std::string::npos) << c.args << "\n" << r.err;
    EXPECT_EQ(test::error_lines(r.err), 1) << c.args << "\n" << r.err;
  }
  // A graph file with no nodes.
  const std::string in = (test::scratch_dir() / "empty.gr").string();
  std::ofstream(in) << "p sp 0 0\n";
  auto r = run_fgsim("run mst --input " + in + " --quiet");
  EXPECT_EQ(r.code, 2) << r.err;
}

}  // namespace
}  // namespace fg
