// SPDX-License-Identifier: Apache-2.0
// bfs and sssp through fgsim: every variant on every generator and both
// presets passes its host check (the workload compares every distance with
// a host BFS / Dijkstra and exits 3 otherwise); the shared real graphs when
// present; the --output format; the source in the input's numbering.
#include <cctype>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <string>
#include <tuple>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "fg_test.h"

namespace fg {
namespace {

using test::run_fgsim;
using test::run_json;

using Case = std::tuple<const char*, const char*, const char*, const char*>;  // workload, variant, generator, preset
class GraphWorkload : public ::testing::TestWithParam<Case> {};

TEST_P(GraphWorkload, DistancesEqualTheHostReference) {
  const auto [w, v, g, p] = GetParam();
  const std::string W = w;
  auto j = run_json("run " + W + " --preset " + p + " --set gpu.cus=4 --set " + W + ".mechanism=" + v + " --set " + W +
                    ".generator=" + g + " --set " + W + ".scale=9" +
                    (std::string(v) == "hwwl" ? " --set worklist.depth=1024" : ""));
  ASSERT_FALSE(j.is_null());
  EXPECT_EQ(j["run"]["status"], "ok");
  ASSERT_EQ(j["workload"]["checks"].size(), 1u);
  const auto& r = j["workload"]["results"];
  EXPECT_EQ(r["nodes"], 512);
  // Not a trivial graph: the source reaches a good part of it in several steps.
  EXPECT_GT(r["reached"].get<int>(), 100) << r.dump();
  EXPECT_GT(r["steps"].get<int>(), 2) << r.dump();
  if (std::string(v) == "swwl") {
    // Every reached node but the source was pushed at least once.
    EXPECT_GE(r["pushes"].get<int>(), r["reached"].get<int>() - 1);
  } else if (std::string(v) == "hwwl") {
    // Through the hardware worklist: every reached node pushed (the source
    // by the init kernel) and pulled as a work ID; bfs exactly once.
    const auto& st = j["stats"];
    EXPECT_GE(st["gpu.worklist.pushes"].get<int>(), r["reached"].get<int>());
    EXPECT_EQ(st["gpu.worklist.pull_ids"], st["gpu.worklist.pushes"]);
    if (W == "bfs") {
      EXPECT_EQ(st["gpu.worklist.pushes"], r["reached"]);
    }
    EXPECT_GT(st["gpu.worklist.cycles"].get<double>(), 0);
  } else {
    EXPECT_EQ(r["work_items"].get<int>(), 512 * r["steps"].get<int>());  // topology-driven: every node every step
  }
}

INSTANTIATE_TEST_SUITE_P(Generated, GraphWorkload,
                         ::testing::Combine(::testing::Values("bfs", "sssp"), ::testing::Values("topo", "swwl", "hwwl"),
                                            ::testing::Values("rmat", "grid", "uniform"),
                                            ::testing::Values("orr2014", "kim2014")),
                         [](const ::testing::TestParamInfo<Case>& i) {
                           return std::string(std::get<0>(i.param)) + "_" + std::get<1>(i.param) + "_" +
                                  std::get<2>(i.param) + "_" + std::get<3>(i.param);
                         });

// bfs / sssp as spawn-only tasks on the fork-join runtime (issue 41): the
// host's distances on the three presets and several graph kinds, every task
// run once it is created, at least a task per reached node that has arcs
// (label-correcting: a node may run again), one persistent kernel.
using FjCase = std::tuple<const char*, const char*, const char*>;  // workload, generator, preset
class ForkJoinGraph : public ::testing::TestWithParam<FjCase> {};

TEST_P(ForkJoinGraph, DistancesEqualTheHostReference) {
  const auto [w, g, p] = GetParam();
  const std::string W = w;
  auto j = run_json("run " + W + " --preset " + p + " --set gpu.cus=4 --set " + W + ".mechanism=forkjoin --set " + W +
                    ".generator=" + g + " --set " + W + ".scale=9");
  ASSERT_FALSE(j.is_null());
  EXPECT_EQ(j["run"]["status"], "ok");
  ASSERT_EQ(j["workload"]["checks"].size(), 1u);
  const auto& r = j["workload"]["results"];
  const auto& st = j["stats"];
  EXPECT_GT(r["reached"].get<int>(), 100) << r.dump();
  EXPECT_EQ(st["tasks.forkjoin.run"], st["tasks.forkjoin.created"]);
  EXPECT_GE(st["tasks.forkjoin.run"].get<double>(), r["reached"].get<double>() / 2) << st.dump();
  EXPECT_EQ(r["steps"], 1);
}

INSTANTIATE_TEST_SUITE_P(Generated, ForkJoinGraph,
                         ::testing::Combine(::testing::Values("bfs", "sssp"), ::testing::Values("rmat", "grid", "road"),
                                            ::testing::Values("orr2014", "kim2014", "gh200")),
                         [](const ::testing::TestParamInfo<FjCase>& i) {
                           return std::string(std::get<0>(i.param)) + "_" + std::get<1>(i.param) + "_" +
                                  std::get<2>(i.param);
                         });

// From 1 to 8 CUs, with and without the plain load before the atomic.
TEST(ForkJoinGraph, OneToEightCusWithAndWithoutTheCheck) {
  for (const char* cus : {"1", "2", "8"})
    for (const char* check : {"true", "false"}) {
      auto j = run_json(std::string("run sssp --preset kim2014 --set sssp.mechanism=forkjoin --set sssp.scale=8 ") +
                        "--set gpu.cus=" + cus + " --set sssp.check_first=" + check);
      ASSERT_FALSE(j.is_null()) << cus << " " << check;
      EXPECT_EQ(j["run"]["status"], "ok") << cus << " " << check;
    }
  // The worklist's and the persistent kernels' keys do not apply.
  for (const char* k : {"bfs.hwwl.overflow=8", "bfs.groups=4", "bfs.swwl.push=aru"}) {
    const auto r = run_fgsim(std::string("run bfs --preset kim2014 --set bfs.scale=6 --set bfs.mechanism=forkjoin ") +
                             "--set " + k);
    EXPECT_EQ(r.code, 2) << k;
    EXPECT_EQ(test::error_lines(r.err), 1) << r.err;
  }
}

// Single-buffer mode (Sec. V-C, Fig. 8): one persistent kernel whose pushes
// go to the list it pulls. The host's distances come out only if no thread
// gets DONE while another still holds a work ID (it may push more): the unit
// answers WAIT then (done_holds). 32-entry banks: the virtualization unit
// spills and refills in single-buffer mode too.
using SingleCase = std::tuple<const char*, const char*, const char*>;  // workload, generator, scheme
class SingleBuffer : public ::testing::TestWithParam<SingleCase> {};

TEST_P(SingleBuffer, DistancesEqualTheHostReference) {
  const auto [w, g, s] = GetParam();
  const std::string W = w;
  auto j = run_json("run " + W + " --preset kim2014 --set gpu.cus=4 --set " + W + ".mechanism=hwwl --set " + W +
                    ".hwwl.buffer=single --set " + W + ".generator=" + g + " --set " + W +
                    ".scale=9 --set worklist.scheme=" + s);
  ASSERT_FALSE(j.is_null());
  EXPECT_EQ(j["run"]["status"], "ok");
  const auto& r = j["workload"]["results"];
  const auto& st = j["stats"];
  EXPECT_GT(r["reached"].get<int>(), 100) << r.dump();
  EXPECT_EQ(r["steps"], 1);  // one kernel
  EXPECT_GE(st["gpu.worklist.pushes"].get<int>(), r["reached"].get<int>());
  EXPECT_EQ(st["gpu.worklist.pull_ids"], st["gpu.worklist.pushes"]);
  EXPECT_GT(st["gpu.worklist.done_holds"].get<double>(), 0);
  // Every hardware thread ends with DONE (kim2014: 48 wavefronts of 32 per CU).
  EXPECT_EQ(st["gpu.worklist.pull_dones"].get<int>(), 4 * 48 * 32);
}

INSTANTIATE_TEST_SUITE_P(Hwwl, SingleBuffer,
                         ::testing::Combine(::testing::Values("bfs", "sssp"), ::testing::Values("rmat", "grid"),
                                            ::testing::Values("lsorting", "none", "ideal_fifo")),
                         [](const ::testing::TestParamInfo<SingleCase>& i) {
                           return std::string(std::get<0>(i.param)) + "_" + std::get<1>(i.param) + "_" +
                                  std::get<2>(i.param);
                         });

// The software worklist's options (Sec. II): every combination gives the
// host's distances; chunk (WCH) and aru (ARU) use fewer atomic instructions
// than one per push; donating (WDO) moves items between work-items.
double atomics(const nlohmann::json& st) {
  double n = 0;
  for (const auto& [k, v] : st.items())
    if (k.rfind("gpu.cu", 0) == 0 && k.find(".l1.") == std::string::npos && k.size() > 8 &&
        k.compare(k.size() - 8, 8, ".atomics") == 0)
      n += v.get<double>();
  return n;
}

using SwCase = std::tuple<const char*, const char*>;  // workload, options
class SoftwareOptions : public ::testing::TestWithParam<SwCase> {};

TEST_P(SoftwareOptions, DistancesEqualTheHostReference) {
  const auto [w, opts] = GetParam();
  const std::string W = w,
                    base = "run " + W + " --preset kim2014 --set " + W + ".mechanism=swwl --set " + W + ".scale=10";
  std::string sets;
  for (std::string o = opts; !o.empty();) {
    const auto comma = o.find(',');
    sets += " --set " + W + ".swwl." + o.substr(0, comma);
    o = comma == std::string::npos ? "" : o.substr(comma + 1);
  }
  auto j = run_json(base + sets);
  ASSERT_FALSE(j.is_null());
  EXPECT_EQ(j["run"]["status"], "ok");
  const auto& r = j["workload"]["results"];
  EXPECT_GT(r["reached"].get<int>(), 100);
  if (W == "bfs") {
    EXPECT_EQ(r["pushes"].get<int>(), r["reached"].get<int>() - 1);
  }
  const std::string o = opts;
  if (o.find("donate") != std::string::npos) {
    EXPECT_GT(r["donated"].get<int>(), 0);
  }
  if (o.find("push=") != std::string::npos && o.find("threads") == std::string::npos) {
    // Against one atomic add per push: fewer atomic instructions, by at
    // least a tenth of the pushes.
    auto a = run_json(base);
    ASSERT_FALSE(a.is_null());
    EXPECT_LT(atomics(j["stats"]), atomics(a["stats"]) - 0.1 * r["pushes"].get<double>()) << o;
  }
}

// WDO compares a work-item's estimate with its workgroup's average exactly
// (mine * live work-items against the total): a work-item whose share is a
// single item never gives it away (another lane would do the same work), and
// a short list, whose total is below the workgroup's size, is not shuffled
// through the LDS (an average rounded down to 0 made every work-item donate
// everything). bfs at scale 10 on 1,024 work-items has at most one item per
// work-item; on 256 it has several.
TEST(SoftwareOptionsDonation, OnlyWorkItemsAboveTheAverageWithMoreThanOneItemDonate) {
  const std::string base =
      "run bfs --preset kim2014 --set bfs.mechanism=swwl --set bfs.scale=10 --set bfs.swwl.donate=true "
      "--set bfs.swwl.threads=";
  auto one = run_json(base + "1024"), several = run_json(base + "256");
  ASSERT_FALSE(one.is_null());
  ASSERT_FALSE(several.is_null());
  EXPECT_EQ(one["workload"]["results"]["donated"].get<int>(), 0);
  EXPECT_GT(several["workload"]["results"]["donated"].get<int>(), 0);
}

INSTANTIATE_TEST_SUITE_P(Sec2, SoftwareOptions,
                         ::testing::Combine(::testing::Values("bfs", "sssp"),
                                            ::testing::Values("push=chunk", "push=aru", "threads=1024",
                                                              "threads=256,donate=true",
                                                              "threads=128,donate=true,push=aru")),
                         [](const ::testing::TestParamInfo<SwCase>& i) {
                           return test::options_name(std::string(std::get<0>(i.param)) + "_" + std::get<1>(i.param));
                         });

// <w>.alu: lonestar charges, besides what none issues, LonestarGPU's
// instructions between the memory operations (docs/worklists.md, "ALU work
// per arc"). On the two-node graph 1 <-> 2 from node 1, each step runs one
// wavefront with one node at work, so the difference in wavefront
// instructions is exactly the charges: two steps (node 1, whose arc
// improves node 2; then node 2, whose arc improves nothing), each with the
// per-node charge and one arc (sssp: the arc charge replaces none's one add).
//   bfs topo   2 x 38 (every work-item's) + 2 x 23 + 3              = 125
//   sssp topo  2 x 37 + 2 x (40 - 1) + 2                           = 154
//   bfs swwl   2 x 47 (a work-item's first item) + 2 x 27 + 1 + 7  = 156
//   sssp swwl  2 x 47 + 2 x (46 - 1) + 2 + 7                       = 193
//   bfs hwwl   2 x 13 + 2 x 27 + 1                                 = 81
//   sssp hwwl  2 x 13 + 2 x (46 - 1) + 2                           = 118
using AluCase = std::tuple<const char*, const char*, int>;  // workload, mechanism, instructions added
class AluCharge : public ::testing::TestWithParam<AluCase> {};

// A DIMACS file of the two-node graph 1 <-> 2 in this test's scratch directory.
std::string pair_graph() {
  const auto in = test::scratch_dir() / "pair.gr";
  std::ofstream(in) << "p sp 2 2\na 1 2 1\na 2 1 1\n";
  return in.string();
}

// The wavefront instructions `<w>.alu=lonestar` adds to the run `base` (of workload w).
long alu_added(const std::string& w, const std::string& base) {
  auto on = run_json(base), off = run_json(base + " --set " + w + ".alu=none");
  EXPECT_FALSE(on.is_null() || off.is_null()) << base;
  if (on.is_null() || off.is_null()) return -1;
  EXPECT_EQ(on["config"][w + ".alu"], "lonestar");
  EXPECT_EQ(on["workload"]["results"]["steps"], off["workload"]["results"]["steps"]);
  long n = 0;
  for (const auto& k : on["kernels"]) n += k["instructions"].get<long>();
  for (const auto& k : off["kernels"]) n -= k["instructions"].get<long>();
  return n;
}

TEST_P(AluCharge, LonestarAddsItsCountsPerNodeArcImprovementAndPush) {
  const auto [w, v, added] = GetParam();
  const std::string W = w;
  EXPECT_EQ(alu_added(W, "run " + W + " --preset kim2014 --input " + pair_graph() + " --set " + W + ".source=1 --set " +
                             W + ".mechanism=" + v),
            added)
      << W << " " << v;
}

INSTANTIATE_TEST_SUITE_P(Kernels, AluCharge,
                         ::testing::Values(AluCase{"bfs", "topo", 125}, AluCase{"sssp", "topo", 154},
                                           AluCase{"bfs", "swwl", 156}, AluCase{"sssp", "swwl", 193},
                                           AluCase{"bfs", "hwwl", 81}, AluCase{"sssp", "hwwl", 118}),
                         [](const ::testing::TestParamInfo<AluCase>& i) {
                           return std::string(std::get<0>(i.param)) + "_" + std::get<1>(i.param);
                         });

// A work-item's further items cost LonestarGPU's pull less than its first
// (21 against 47): one work-item (`swwl.threads=1`) on the star 1 <-> 2, 1 <-> 3
// from node 1: step 0 node 1 (47, two arcs that improve: 2 x (27 + 1 + 7));
// step 1 nodes 2 and 3 (47 + 21, an arc each that improves nothing: 2 x 27).
TEST(AluCharge, FurtherItemsOfAWorkItemCostLess) {
  const auto in = test::scratch_dir() / "star.gr";
  std::ofstream(in) << "p sp 3 4\na 1 2 1\na 1 3 1\na 2 1 1\na 3 1 1\n";
  EXPECT_EQ(alu_added("bfs", "run bfs --preset kim2014 --input " + in.string() +
                                 " --set bfs.source=1 --set bfs.mechanism=swwl --set bfs.swwl.threads=1"),
            47 + 2 * (27 + 1 + 7) + 47 + 21 + 2 * 27);
}

// The split between the charges: bfs topo on the star 1 <-> 2, 3, 4 from node
// 1: level 0 one wavefront's node charge (38) and node 1's three arcs, each
// improving (3 x (23 + 3)); level 1 the node charge and one converged arc of
// nodes 2, 3 and 4 that improves nothing (23): 177 (a wrong split with the
// same sum on the pair graph, e.g. arc 22 and improved 5, gives 179). And
// the push charge applies to every push option: bfs swwl with WCH on the
// pair graph adds what atomic pushes add (156).
TEST(AluCharge, SplitBetweenNodeArcAndImprovementAndEveryPushOption) {
  const auto star = test::scratch_dir() / "star.gr";
  std::ofstream(star) << "p sp 4 6\na 1 2 1\na 1 3 1\na 1 4 1\na 2 1 1\na 3 1 1\na 4 1 1\n";
  EXPECT_EQ(alu_added("bfs", "run bfs --preset kim2014 --input " + star.string() +
                                 " --set bfs.source=1 --set bfs.mechanism=topo"),
            38 + 3 * (23 + 3) + 38 + 23);
  EXPECT_EQ(alu_added("bfs", "run bfs --preset kim2014 --input " + pair_graph() +
                                 " --set bfs.source=1 --set bfs.mechanism=swwl --set bfs.swwl.push=chunk"),
            2 * 47 + 2 * 27 + 1 + 7);
}

// <w>.alu does not apply to the cooperative-kernel paper's kernels.
TEST(AluCharge, NotForThePersistentKernels) {
  const auto r =
      run_fgsim("run bfs --preset kim2014 --set bfs.scale=6 --set bfs.mechanism=persistent --set bfs.alu=none");
  EXPECT_EQ(r.code, 2);
  EXPECT_EQ(test::error_lines(r.err), 1) << r.err;
  EXPECT_NE(r.err.find("bfs.alu"), std::string::npos) << r.err;
}

// <w>.check_first (the paper's Fig. 1 `if (check(nodes[neighbor]))`, and
// LonestarGPU's kernels): every kernel with an atomic on a neighbour's
// distance reads it first and sends the atomic only when it may change it.
// Both settings give the host's distances; the check sends fewer than half
// the atomics to the L2 (each kernel is covered: bfs and sssp, swwl, hwwl in
// both modes, sssp topo), and the results (pushes, steps) are unchanged where
// the atomics decide them.
using CheckCase = std::tuple<const char*, const char*>;  // workload, variant settings
class CheckFirst : public ::testing::TestWithParam<CheckCase> {};

TEST_P(CheckFirst, FewerAtomicsSameDistances) {
  const auto [w, v] = GetParam();
  const std::string W = w, base = "run " + W + " --preset kim2014 --set " + W + ".scale=10 " + v;
  auto on = run_json(base), off = run_json(base + " --set " + W + ".check_first=false");
  ASSERT_FALSE(on.is_null());
  ASSERT_FALSE(off.is_null());
  EXPECT_EQ(on["config"][W + ".check_first"], true);
  EXPECT_EQ(off["config"][W + ".check_first"], false);
  for (const auto* j : {&on, &off}) {
    EXPECT_EQ((*j)["run"]["status"], "ok");
    EXPECT_EQ((*j)["workload"]["checks"].size(), 1u);
  }
  const double a_on = on["stats"]["gpu.l2.atomics"].get<double>(), a_off = off["stats"]["gpu.l2.atomics"].get<double>();
  EXPECT_LT(a_on, 0.5 * a_off) << v;
  EXPECT_LT(atomics(on["stats"]), atomics(off["stats"])) << v;
  const auto &r_on = on["workload"]["results"], &r_off = off["workload"]["results"];
  EXPECT_EQ(r_on["reached"], r_off["reached"]);
  if (W == "bfs" && std::string(v).find("single") == std::string::npos) {
    // bfs by levels: a node is pushed exactly once either way.
    EXPECT_EQ(r_on["steps"], r_off["steps"]) << v;
    if (r_on.contains("pushes")) {
      EXPECT_EQ(r_on["pushes"], r_off["pushes"]) << v;
    }
  }
}

INSTANTIATE_TEST_SUITE_P(
    Kernels, CheckFirst,
    ::testing::Values(CheckCase{"bfs", "--set bfs.mechanism=swwl"}, CheckCase{"bfs", "--set bfs.mechanism=hwwl"},
                      CheckCase{"bfs", "--set bfs.mechanism=hwwl --set bfs.hwwl.buffer=single"},
                      CheckCase{"sssp", "--set sssp.mechanism=topo"}, CheckCase{"sssp", "--set sssp.mechanism=swwl"},
                      CheckCase{"sssp", "--set sssp.mechanism=hwwl"},
                      CheckCase{"sssp", "--set sssp.mechanism=hwwl --set sssp.hwwl.buffer=single"}),
    [](const ::testing::TestParamInfo<CheckCase>& i) {
      std::string n = std::string(std::get<0>(i.param)) + std::get<1>(i.param);
      std::string out;
      for (char c : n)
        if (std::isalnum(static_cast<unsigned char>(c))) out += c;
      return out;
    });

// The limit-study worklists (model only): correct distances, every pushed
// ID pulled; the ideal worklists (unlimited bandwidth, one list) never WAIT
// while work is on the pull side, so they return far fewer WAITs than the
// banked worklist without redistribution.
using LimitCase = std::tuple<const char*, const char*>;  // workload, scheme
class LimitStudy : public ::testing::TestWithParam<LimitCase> {};

TEST_P(LimitStudy, DistancesEqualTheHostReference) {
  const auto [w, s] = GetParam();
  const std::string W = w, S = s;
  const std::string depth = S == "magic" ? " --set worklist.depth=1024" : "";
  auto j = run_json("run " + W + " --preset kim2014 --set " + W + ".mechanism=hwwl --set " + W +
                    ".scale=9 --set worklist.scheme=" + S + depth);
  ASSERT_FALSE(j.is_null());
  EXPECT_EQ(j["run"]["status"], "ok");
  const auto& st = j["stats"];
  EXPECT_EQ(st["gpu.worklist.pull_ids"], st["gpu.worklist.pushes"]);
  EXPECT_GT(j["workload"]["results"]["reached"].get<int>(), 100);
  auto none = run_json("run " + W + " --preset kim2014 --set " + W + ".mechanism=hwwl --set " + W +
                       ".scale=9 --set worklist.scheme=none --set worklist.depth=1024");
  ASSERT_FALSE(none.is_null());
  EXPECT_LT(st["gpu.worklist.pull_waits"].get<double>(), 0.2 * none["stats"]["gpu.worklist.pull_waits"].get<double>())
      << S << " against none";
}

INSTANTIATE_TEST_SUITE_P(Schemes, LimitStudy,
                         ::testing::Combine(::testing::Values("bfs", "sssp"),
                                            ::testing::Values("magic", "ideal_fifo", "ideal_sorted")),
                         [](const ::testing::TestParamInfo<LimitCase>& i) {
                           return std::string(std::get<0>(i.param)) + "_" + std::get<1>(i.param);
                         });

// gsorting (model only): the global ranking's runs give the host reference's
// distances (checked by the workload on every run) and pull every pushed ID.
TEST(LimitStudyGsorting, DistancesEqualTheHostReference) {
  for (const char* w : {"bfs", "sssp"}) {
    const std::string W = w;
    auto j = run_json("run " + W + " --preset kim2014 --set " + W + ".mechanism=hwwl --set " + W +
                      ".scale=9 --set worklist.scheme=gsorting --set worklist.depth=1024");
    ASSERT_FALSE(j.is_null());
    EXPECT_EQ(j["run"]["status"], "ok") << W;
    EXPECT_EQ(j["config"]["worklist.scheme"], "gsorting");
    EXPECT_EQ(j["stats"]["gpu.worklist.pull_ids"], j["stats"]["gpu.worklist.pushes"]) << W;
    EXPECT_GT(j["workload"]["results"]["reached"].get<int>(), 100) << W;
  }
}

// The worklist unit's fast-forward (docs/worklists.md) skips the cycles in
// which nothing can move instead of stepping them: the same run with it off
// must give the same statistics, byte for byte (host and the switch's own
// config line and the count of skipped cycles aside). These two runs spill (32-entry banks) and use two
// schemes with redistribution ticks and interval / on-demand refills.
// (hwwl::System::skip itself is checked against stepping in HwwlSkip.*.)
TEST(HardwareWorklist, FastForwardGivesTheSameStatistics) {
  for (const char* args : {"sssp --set sssp.scale=9 --set worklist.scheme=threshold",
                           "bfs --set bfs.scale=10 --set worklist.scheme=gsorting --set worklist.refill=on_demand"}) {
    const std::string a = args, w = a.substr(0, a.find(' '));
    nlohmann::json j[2];
    for (int ff = 0; ff < 2; ++ff) {
      j[ff] = run_json("run " + a + " --preset kim2014 --set " + w +
                       ".mechanism=hwwl --set worklist.fast_forward=" + (ff ? "true" : "false"));
      ASSERT_FALSE(j[ff].is_null());
      j[ff].erase("host");
      j[ff]["config"].erase("worklist.fast_forward");
      if (ff) {
        EXPECT_GT(j[ff]["stats"]["gpu.worklist.skipped_cycles"].get<double>(), 0) << a;
      }
      j[ff]["stats"].erase("gpu.worklist.skipped_cycles");
      // SystemC synchronisations of the CUs (a count of host events, not of
      // simulated time): the unit's requests into the load/store paths go a
      // delta cycle after its step, and a CU resumed in that delta may find
      // itself in step with SystemC time where it was ahead (sssp at scale 9:
      // 34,532 against 34,533 on cu0; every time and count is the same).
      for (const char* section : {"stats", "totals"})
        for (auto& [k, v] : j[ff][section].items())
          if (k.size() > 12 && k.compare(k.size() - 12, 12, ".order_syncs") == 0) v = nullptr;
    }
    EXPECT_GT(j[0]["stats"]["gpu.worklist.hvu.spills"].get<double>(), 0) << a;
    EXPECT_EQ(j[0].dump(1), j[1].dump(1)) << a;
  }
}

// Rules 3 and 4 of the fast-forward (docs/worklists.md): once the banks'
// counts have not moved for a window of input-free cycles, neither a
// redistribution tick nor a network hop moves anything until the next input,
// even while the virtualization unit holds work or the network holds a
// blocked ID (still); and refills refused in such a cycle stay refused until
// a count changes (stuck refills). bfs at 16 cores (scale 12: still cycles,
// the network often holding a blocked ID) and at 8 (scale 13: 1,053 cycles
// with refills stuck at full banks), both spilling. Skipping a tick or a hop
// too early (a window of 2 cycles, or none), or taking refills as stuck
// after a cycle that was not quiet, changes the unit's cycles, pulls and the
// kernel time here. Every statistic and the results are compared. At scale
// 14 on 16 cores, requests submitted at the very picosecond of a cycle's
// sample time went into that cycle when the unit had slept (it was woken by
// them) and into the next when it was stepping: 418 statistics differed,
// the kernel time by 0.34%, until such a request was given to the next
// cycle either way. Blocking waiters: with spinning ones (the default) the
// unit has requests nearly every cycle and these rules rarely apply.
TEST(HardwareWorklist, StillAndStuckRulesSkipOnlyCyclesInWhichNothingMoves) {
  for (const char* args : {"--set gpu.cus=16 --set bfs.scale=12", "--set gpu.cus=8 --set bfs.scale=13",
                           "--set gpu.cus=16 --set bfs.scale=14"}) {
    nlohmann::json j[2];
    for (int ff = 0; ff < 2; ++ff) {
      j[ff] = run_json(std::string("run bfs --preset kim2014 --set bfs.mechanism=hwwl --set worklist.waiters=block ") +
                       args + " --set worklist.fast_forward=" + (ff ? "true" : "false"));
      ASSERT_FALSE(j[ff].is_null());
    }
    EXPECT_GT(j[0]["stats"]["gpu.worklist.hvu.spills"].get<double>(), 0) << args;
    // Most cycles are skipped (93-94% here; 98.7% and 97.6% before interval
    // refills went on while the queue had room: the unit steps those cycles;
    // rule 2 alone skipped 90% then).
    EXPECT_GT(j[1]["stats"]["gpu.worklist.skipped_cycles"].get<double>(),
              0.9 * j[1]["stats"]["gpu.worklist.cycles"].get<double>())
        << args;
    int differ = 0;
    for (auto it = j[0]["stats"].begin(); it != j[0]["stats"].end(); ++it)
      if (it.key() != "gpu.worklist.skipped_cycles" && it.value().dump() != j[1]["stats"][it.key()].dump() &&
          differ++ < 5)
        ADD_FAILURE() << args << ": " << it.key() << " " << it.value().dump() << " (fast-forward) vs "
                      << j[1]["stats"][it.key()].dump();
    EXPECT_EQ(differ, 0) << args << ": statistics that differ";
    EXPECT_EQ(j[0]["workload"].dump(1), j[1]["workload"].dump(1)) << args;
  }
}

// The worklist's loose-timing bridge: its behaviour must not depend on the
// quantum by more than 5% against a one-cycle quantum (kim2014: 700 MHz,
// 1.4286 ns). Seed 1 at 5, 20 and 100 ns: before wavefronts blocked on the
// worklist held their CU to the next cycle edge, sssp was +11.3% at 5 ns
// here; tools/wl_quantum.py sweeps more seeds and quanta (docs/worklists.md).
TEST(HardwareWorklist, KernelTimeWithin5PercentOfAOneCycleQuantum) {
  for (const char* w : {"bfs", "sssp"}) {
    const std::string W = w;
    std::vector<double> ns;
    for (const char* q : {"1.4286", "5", "20", "100"}) {
      auto j = run_json("run " + W + " --preset kim2014 --set " + W + ".mechanism=hwwl --set " + W +
                        ".scale=9 --set worklist.depth=1024 --seed 1 --set sim.quantum=" + q);
      ASSERT_FALSE(j.is_null());
      ns.push_back(j["workload"]["results"]["kernel_ns"].get<double>());
    }
    for (std::size_t i = 1; i < ns.size(); ++i)
      EXPECT_NEAR(ns[i] / ns[0], 1.0, 0.05) << W << ": " << ns[i] << " ns vs " << ns[0] << " ns at one cycle";
  }
}

// The same for the single-buffered kernels (sssp seed 3, 32-entry banks):
// +24.7% at 5 ns and +30.9% at 50 ns while a CU could issue less than a cycle
// after its last issue when it had slept to the quantum's end in between
// (IssueBandwidth in core_test.cpp); identical at every quantum since.
TEST(HardwareWorklist, SingleBufferedKernelTimeWithin5PercentOfAOneCycleQuantum) {
  std::vector<double> ns;
  for (const char* q : {"1.4286", "5", "50"}) {
    auto j = run_json(std::string("run sssp --preset kim2014 --set sssp.mechanism=hwwl --set sssp.scale=9 ") +
                      "--set worklist.depth=32 --set sssp.hwwl.buffer=single --seed 3 --set sim.quantum=" + q);
    ASSERT_FALSE(j.is_null());
    ns.push_back(j["workload"]["results"]["kernel_ns"].get<double>());
  }
  for (std::size_t i = 1; i < ns.size(); ++i)
    EXPECT_NEAR(ns[i] / ns[0], 1.0, 0.05) << ns[i] << " ns vs " << ns[0] << " ns at one cycle";
}

// mem.magic: bfs with the hardware worklist spilling to its overflow buffer
// (8-entry banks) is correct, and no request reaches the L2's banks or the
// DRAM, the virtualization unit's spills and refills included (they go to the
// L2 directly); it finishes sooner than with the real memory system.
// gpu.worklist.coreN.*: each ID counted at the core whose lane pushed it
// (spilled or not) and at the core whose lane pulled it; the cores add up to
// the unit's totals, and IDs do move between cores (at 32 entries; with 8 no
// core is ever greedy at threshold 5, docs/worklists.md); greedy_cycles: a
// core that gave work away was greedy, and with 8 entries none ever is.
TEST(HardwareWorklist, PerCoreCountsAddUpAndShowWorkMovingBetweenCores) {
  auto j = run_json("run bfs --preset kim2014 --set bfs.mechanism=hwwl --set bfs.scale=13");
  ASSERT_FALSE(j.is_null());
  const auto& st = j["stats"];
  double pushes = 0, spills = 0, pulls = 0, moved = 0;
  for (int c = 0; c < 4; ++c) {
    const std::string k = "gpu.worklist.core" + std::to_string(c) + ".";
    ASSERT_TRUE(st.contains(k + "pushes")) << k;
    const double pu = st[k + "pushes"].get<double>(), sp = st[k + "spills"].get<double>(),
                 pl = st[k + "pull_ids"].get<double>();
    EXPECT_LE(sp, pu) << k;
    // IDs leave a core only through the network, which takes them only from
    // a core whose global greedy bit is set.
    if (pl < pu) {
      EXPECT_GT(st[k + "greedy_cycles"].get<double>(), 0) << k << " gave work away, never greedy";
    }
    pushes += pu, spills += sp, pulls += pl, moved += std::abs(pl - pu);
  }
  EXPECT_FALSE(st.contains("gpu.worklist.core4.pushes"));
  EXPECT_EQ(pushes, st["gpu.worklist.pushes"].get<double>());
  EXPECT_EQ(spills, st["gpu.worklist.hvu.spills"].get<double>());
  EXPECT_EQ(pulls, st["gpu.worklist.pull_ids"].get<double>());
  EXPECT_GT(spills, 0);
  EXPECT_GT(moved, 0);
  // 8-entry banks (4 per side, double-buffered) never exceed threshold 5: no
  // core is greedy, nothing crosses cores, each core pulls what it pushed.
  auto k = run_json("run bfs --preset kim2014 --set bfs.mechanism=hwwl --set bfs.scale=10 --set worklist.depth=8");
  ASSERT_FALSE(k.is_null());
  for (int c = 0; c < 4; ++c) {
    const std::string p = "gpu.worklist.core" + std::to_string(c) + ".";
    EXPECT_EQ(k["stats"][p + "pushes"].get<double>(), k["stats"][p + "pull_ids"].get<double>()) << p;
    EXPECT_EQ(k["stats"][p + "greedy_cycles"].get<double>(), 0) << p;
  }
}

TEST(HardwareWorklist, MagicMemoryServesEveryAccessAtTheL1) {
  const std::string base =
      "run bfs --preset kim2014 --set bfs.mechanism=hwwl --set bfs.scale=10 --set worklist.depth=8";
  auto real = run_json(base);
  auto magic = run_json(base + " --set mem.magic=true");
  ASSERT_FALSE(real.is_null());
  ASSERT_FALSE(magic.is_null());
  const auto& st = magic["stats"];
  EXPECT_GT(st["gpu.worklist.hvu.spills"].get<double>(), 0);
  EXPECT_GT(st["gpu.worklist.hvu.refills"].get<double>(), 0);
  double l2 = 0, dram = 0;
  for (auto it = st.begin(); it != st.end(); ++it) {
    if (!it.value().is_number()) continue;
    const std::string k = it.key();
    if (k.rfind("gpu.l2.bank", 0) == 0 && (k.ends_with(".reads") || k.ends_with(".writes") || k.ends_with(".atomics")))
      l2 += it.value().get<double>();
    if (k.rfind("gpu.dram", 0) == 0 && (k.ends_with(".reads") || k.ends_with(".writes")))
      dram += it.value().get<double>();
  }
  EXPECT_EQ(l2, 0.0);
  EXPECT_EQ(dram, 0.0);
  EXPECT_LT(magic["workload"]["results"]["kernel_ns"].get<double>(),
            real["workload"]["results"]["kernel_ns"].get<double>());
}

std::filesystem::path shared_input(const char* name) {
  return std::filesystem::path(FG_SOURCE_DIR) / ".." / "shared" / "inputs" / name;
}

TEST(GraphInputs, Test4GivesTheHandWorkedDistancesInTheInputsNumbering) {
  const auto in = shared_input("test4.gr");
  if (!std::filesystem::exists(in)) GTEST_SKIP() << in << " is not present";
  for (const char* v : {"topo", "swwl"}) {
    const auto out = test::scratch_dir() / (std::string(v) + ".txt");
    auto r = run_fgsim("run sssp --preset kim2014 --input " + in.string() + " --set sssp.mechanism=" + v +
                       " --set sssp.source=1 --output " + out.string() + " --quiet");
    ASSERT_EQ(r.code, 0) << r.err;
    EXPECT_EQ(test::slurp(out.string()), "1 0\n2 4\n3 2\n4 5\n") << v;  // SOURCES.md
  }
}

TEST(GraphInputs, UnreachableNodesAreAWordAndTheSourceIsAnInputId) {
  const auto dir = test::scratch_dir();
  const auto in = (dir / "g.txt").string(), out = (dir / "out.txt").string();
  std::ofstream(in) << "# SNAP-like, sparse ids\n100 200\n200 300\n300 100\n400 100\n";
  auto r = run_fgsim("run bfs --input " + in + " --set bfs.source=200 --set bfs.mechanism=swwl --output " + out +
                     " --quiet");
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_EQ(test::slurp(out), "100 2\n200 0\n300 1\n400 unreachable\n");
}

TEST(GraphInputs, Rome99BothWorkloadsBothVariants) {
  const auto in = shared_input("rome99.gr");
  if (!std::filesystem::exists(in)) GTEST_SKIP() << in << " is not present";
  for (const char* w : {"bfs", "sssp"})
    for (const char* v : {"topo", "swwl"}) {
      auto j = run_json(std::string("run ") + w + " --preset kim2014 --input " + in.string() + " --set " + w +
                        ".mechanism=" + v);
      ASSERT_FALSE(j.is_null());
      EXPECT_EQ(j["workload"]["results"]["reached"], 3353) << w << " " << v;  // strongly connected (SOURCES.md)
    }
}

TEST(GraphInputs, MatrixMarketGraphs) {
  for (const char* name : {"netscience.mtx", "karate.mtx", "dolphins.mtx"}) {
    const auto in = shared_input(name);
    if (!std::filesystem::exists(in)) GTEST_SKIP() << in << " is not present";
    for (const char* w : {"bfs", "sssp"}) {
      auto j = run_json(std::string("run ") + w + " --preset orr2014 --input " + in.string() + " --set " + w +
                        ".mechanism=swwl --set " + w + ".source=2");
      ASSERT_FALSE(j.is_null()) << name;
      EXPECT_GT(j["workload"]["results"]["reached"].get<int>(), 3) << name;
    }
  }
}

// magic is the bound of the banked worklist (Sec. IV-D: "an idealized
// redistribution scheme that evenly distributes work across cores ignoring
// bandwidth constraints"), spilling through the virtualization unit like
// every scheme: never slower than none, threshold or lsorting, on R-MAT (a
// typical-degree source), the grid and road graphs, bfs and sssp, the paper's
// 32-entry banks and 8-entry ones (which spill). Before it levelled its push sides and
// spilled, magic stopped with "worklist overflow" at 32 entries and ran
// 3-15% behind lsorting with infinite banks. Where it loses on larger R-MAT
// graphs with infinite banks (docs/worklists.md: L1 locality at 2^18 nodes,
// SIMT packing at 2^14 with ideal memory) it bounds delivery, not kernel time.
class MagicBound : public ::testing::TestWithParam<const char*> {};

TEST_P(MagicBound, MagicIsNeverSlowerThanARealisticScheme) {
  const std::string args = GetParam(), w = args.substr(0, args.find(' '));
  double magic = 0;
  for (const char* scheme : {"magic", "lsorting", "threshold", "none"}) {
    const auto j =
        run_json("run " + args + " --preset kim2014 --set " + w + ".mechanism=hwwl --set worklist.scheme=" + scheme);
    ASSERT_FALSE(j.is_null()) << args << " " << scheme;
    const double t = j["workload"]["results"]["kernel_ns"].get<double>();
    if (std::string(scheme) == "magic") {
      magic = t;
      if (args.find("worklist.depth") != std::string::npos) {
        EXPECT_GT(j["stats"]["gpu.worklist.hvu.spills"].get<double>(), 0) << args << ": meant to spill";
      }
    } else {
      EXPECT_LE(magic, t) << args << ": magic " << magic << " ns, " << scheme << " " << t << " ns";
    }
  }
}

INSTANTIATE_TEST_SUITE_P(Graphs, MagicBound,
                         ::testing::Values("bfs --set bfs.scale=11", "sssp --set sssp.scale=10",
                                           // other R-MAT graphs (seeds), the paper's 32-entry banks
                                           "bfs --set bfs.scale=12 --set sim.seed=2",
                                           "bfs --set bfs.scale=12 --set sim.seed=3",
                                           "bfs --set bfs.scale=11 --set worklist.depth=8",
                                           "sssp --set sssp.scale=10 --set worklist.depth=8",
                                           "bfs --set bfs.generator=grid --set bfs.scale=12",
                                           "bfs --set bfs.generator=road --set bfs.scale=12",
                                           "sssp --set sssp.generator=road --set sssp.scale=11"),
                         [](const auto& i) {
                           std::string n;
                           for (char c : std::string(i.param))
                             if (std::isalnum(static_cast<unsigned char>(c))) n += c;
                           return n;
                         });

}  // namespace
}  // namespace fg
