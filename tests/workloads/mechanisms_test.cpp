// SPDX-License-Identifier: Apache-2.0
// The cross-mechanism variants of issue 41: N-Queens on the software and
// hardware worklists and on persistent and cooperative kernels
// (cilk/queens_sched.cpp), BFS and SSSP on channels (graph/bfs_sssp.cpp).
// Every run checks its answer against the host (exit 0 only if equal); these
// tests add what the run itself cannot see: every preset and 1-8 CUs, the
// same output as the other versions, the books (boards made, CEs through the
// channel), each option, the keys that do not apply, and the faults.
#include <fmt/format.h>
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>
#include <string>
#include <tuple>

#include "fg_test.h"

namespace fg::test {
namespace {

// Boards of the 8x8 search with 4 base rows: rows 0..4 (1 + 8 + 42 + 140 + 344).
constexpr int kBoards8x4 = 535;

using QueensCase = std::tuple<const char*, const char*, int>;  // mechanism, preset, CUs
class QueensScheduled : public ::testing::TestWithParam<QueensCase> {};

// 92 solutions of 8x8, every board of the search made once.
TEST_P(QueensScheduled, CountsEverySolutionAndBoard) {
  const auto [mech, preset, cus] = GetParam();
  const auto s =
      run_stats(fmt::format("queens --preset {} --set gpu.cus={} --set queens.mechanism={} "
                            "--set queens.n=8 --set queens.base_rows=4",
                            preset, cus, mech));
  ASSERT_EQ(s["workload"]["checks"].size(), 1u);
  const auto& r = s["workload"]["results"];
  EXPECT_EQ(r["solutions"], 92);
  EXPECT_EQ(r["boards"], kBoards8x4);
  EXPECT_GT(r["kernel_ns"].get<double>(), 0);
  if (std::string(mech) == "swwl") {
    EXPECT_EQ(r["steps"], 5);  // one step per row 0..4
  }
  if (std::string(mech) == "hwwl") {
    EXPECT_EQ(s["stats"]["gpu.worklist.pushes"], kBoards8x4);  // the root and every child
    EXPECT_EQ(s["stats"]["gpu.worklist.pull_ids"], kBoards8x4);
  }
  // Work-stealing pools: the root starts in pool 0, so every other
  // workgroup's first boards are stolen.
  if (std::string(mech) == "persistent" || std::string(mech) == "coop") {
    EXPECT_GT(r["steals"].get<int>(), 0);
  }
}

INSTANTIATE_TEST_SUITE_P(Presets, QueensScheduled,
                         ::testing::Combine(::testing::Values("swwl", "hwwl", "persistent", "coop"),
                                            ::testing::Values("orr2014", "kim2014", "gh200"),
                                            ::testing::Values(1, 2, 4, 8)),
                         [](const auto& info) {
                           return fmt::format("{}_{}_{}cu", std::get<0>(info.param), std::get<1>(info.param),
                                              std::get<2>(info.param));
                         });

// The same output file as the channel version's; the software worklist's
// options; a cooperative kernel sharing the GPU with the graphics-like
// kernel; a pool too small is a diagnosed fault naming its key.
TEST(QueensScheduled, OutputsOptionsAndFaults) {
  const auto dir = scratch_dir();
  const std::string a = (dir / "a.txt").string(), b = (dir / "b.txt").string();
  ASSERT_EQ(run_fgsim("run queens --quiet --set queens.n=9 --set queens.base_rows=5 --output " + a).code, 0);
  for (const char* m : {"swwl", "hwwl", "persistent", "coop"}) {
    const auto r = run_fgsim(fmt::format(
        "run queens --quiet --set queens.n=9 --set queens.base_rows=5 --set queens.mechanism={} --output {}", m, b));
    ASSERT_EQ(r.code, 0) << m << r.err;
    EXPECT_EQ(slurp(b), slurp(a)) << m;
  }
  EXPECT_EQ(slurp(a), "352\n");
  for (const char* o :
       {"queens.swwl.push=chunk", "queens.swwl.push=aru", "queens.swwl.threads=100 --set queens.swwl.donate=true"}) {
    SCOPED_TRACE(o);
    const auto s =
        run_stats(fmt::format("queens --preset kim2014 --set queens.mechanism=swwl --set queens.n=8 "
                              "--set queens.base_rows=4 --set {}",
                              o));
    EXPECT_EQ(s["workload"]["results"]["solutions"], 92);
  }
  {
    const auto s = run_stats(
        "queens --preset kim2014 --set gpu.cus=4 --set queens.mechanism=coop --set queens.n=9 "
        "--set queens.base_rows=5 --set coop.graphics.load=heavy");
    EXPECT_EQ(s["workload"]["results"]["solutions"], 352);
    EXPECT_GE(s["workload"]["results"]["graphics_launches"].get<double>(), 1);
    EXPECT_LT(s["workload"]["results"]["active_mean"].get<double>(), 32);  // slots given to the graphics kernel
  }
  const auto r = run_fgsim(
      "run queens --quiet --set queens.mechanism=persistent --set queens.n=8 --set queens.base_rows=4 "
      "--set queens.pool_size=4 --set queens.groups=2");
  EXPECT_EQ(r.code, 3) << r.err;
  EXPECT_NE(r.err.find("larger than a board pool (4 IDs): raise queens.pool_size"), std::string::npos) << r.err;
}

// Keys of one version given to another: exit 2, one line, naming the key.
TEST(QueensScheduled, KeysOfOtherVersionsAreRefused) {
  for (const auto& [mech, key] :
       {std::pair{"swwl", "queens.capacity=1024"}, std::pair{"hwwl", "queens.groups=4"},
        std::pair{"coop", "queens.swwl.push=aru"}, std::pair{"swwl", "queens.cutoff=3"},
        std::pair{"forkjoin", "queens.base_rows=4"}, std::pair{"channels", "queens.pool_size=64"}}) {
    const auto r = run_fgsim(fmt::format("run queens --set queens.n=6 --set queens.mechanism={} --set {}", mech, key));
    EXPECT_EQ(r.code, 2) << mech << " " << key << r.err;
    EXPECT_EQ(error_lines(r.err), 1) << r.err;
    const std::string k = std::string(key).substr(0, std::string(key).find('='));
    EXPECT_NE(r.err.find(k), std::string::npos) << r.err;
  }
}

using FlowCase = std::tuple<const char*, const char*, const char*>;  // workload, generator, preset
class ChannelsGraph : public ::testing::TestWithParam<FlowCase> {};

// The distances equal the host's (the run's own check); every CE put in
// the frontier channel (the source's and every improving lane's) was
// consumed by a dispatched wavefront.
TEST_P(ChannelsGraph, DistancesEqualTheHostReference) {
  const auto [w, g, p] = GetParam();
  const std::string W = w;
  const auto j =
      run_stats(fmt::format("{} --preset {} --set gpu.cus=4 --set {}.mechanism=channels --set {}.generator={} "
                            "--set {}.scale=9",
                            W, p, W, W, g, W));
  ASSERT_EQ(j["workload"]["checks"].size(), 1u);
  const auto& r = j["workload"]["results"];
  EXPECT_GT(r["reached"].get<int>(), 100) << r.dump();
  EXPECT_GT(r["wavefronts"].get<int>(), 0);
  EXPECT_EQ(r["steps"], 1);
  const auto& st = j["stats"];
  const std::string ch = "channels." + W + "_frontier.";
  EXPECT_GE(st[ch + "produced"].get<double>(), r["reached"].get<double>() - 1) << "a CE per node reached, at least";
  EXPECT_EQ(st[ch + "consumed"], st[ch + "produced"]);
}

INSTANTIATE_TEST_SUITE_P(Generated, ChannelsGraph,
                         ::testing::Combine(::testing::Values("bfs", "sssp"), ::testing::Values("rmat", "grid", "road"),
                                            ::testing::Values("orr2014", "kim2014", "gh200")),
                         [](const ::testing::TestParamInfo<FlowCase>& i) {
                           return std::string(std::get<0>(i.param)) + "_" + std::get<1>(i.param) + "_" +
                                  std::get<2>(i.param);
                         });

// 1 to 8 CUs; the capacity applies to channels only; a channel far smaller
// than the search fills with every consumer parked in a talloc into it (the
// kernel node feeds its own channel: no consumer is left to free room), a
// deadlock the yield engine diagnoses (exit 3) naming the channel.
TEST(ChannelsGraph, CusKeysAndAFullChannel) {
  for (const char* cus : {"1", "2", "8"}) {
    const auto s = run_stats(
        std::string("sssp --preset orr2014 --set sssp.mechanism=channels --set sssp.scale=8 --set gpu.cus=") + cus);
    EXPECT_EQ(s["workload"]["checks"].size(), 1u) << cus;
  }
  auto r = run_fgsim("run bfs --set bfs.scale=6 --set bfs.mechanism=topo --set bfs.capacity=1024");
  EXPECT_EQ(r.code, 2) << r.err;
  EXPECT_EQ(error_lines(r.err), 1) << r.err;
  EXPECT_NE(r.err.find("bfs.capacity"), std::string::npos) << r.err;
  r = run_fgsim(
      "run bfs --preset orr2014 --set gpu.cus=4 --set bfs.mechanism=channels --set bfs.scale=10 "
      "--set bfs.capacity=1024");
  EXPECT_EQ(r.code, 3) << r.err;
  EXPECT_NE(r.err.find("'bfs_frontier' (1024 of 1024 CEs in use)"), std::string::npos) << r.err;
}

}  // namespace
}  // namespace fg::test

namespace fg::test {
namespace {

// The plain graphics co-runner (runtime/graphics.cpp): beside a workload
// that launches a kernel per level, the graphics kernel gets slots between
// and beside them and keeps within twice its period in the median; beside a
// persistent kernel that holds every slot to its end, its launch waits the
// whole run; its product is checked; its keys are refused where they do not
// apply.
TEST(GraphicsCoRunner, PeriodsBesideEachMechanism) {
  const std::string common = "bfs --preset kim2014 --set gpu.cus=4 --set bfs.scale=12 --set graphics.load=heavy ";
  for (const char* m : {"topo", "swwl"}) {
    SCOPED_TRACE(m);
    auto s = run_stats(common + "--set bfs.mechanism=" + m);
    const auto& t = s["workload"]["results"];
    EXPECT_EQ(s["workload"]["checks"].size(), 2u) << "the distances and the graphics product";
    EXPECT_GE(t["graphics_launches"].get<int>(), 2) << t.dump();
    EXPECT_LT(t["period_median_ns"].get<double>(), 2 * t["graphics_period_ns"].get<double>()) << t.dump();
  }
  // Beside a persistent kernel that holds every slot to its end the launch
  // submitted with it finds its first slot only when the kernel ends.
  auto pers = run_stats(common + "--set bfs.mechanism=persistent");
  const auto& p = pers["workload"]["results"];
  EXPECT_EQ(p["graphics_launches"], 0) << p.dump();
  EXPECT_GT(p["graphics_pending_wait_ns"].get<double>(), 0.99 * p["kernel_ns"].get<double>()) << p.dump();
  double bfs_end = 0, graphics_first = 0;
  for (const auto& k : pers["kernels"]) {
    if (k["name"] == "bfs-worklist") bfs_end = k["end_ns"].get<double>();
    if (k["name"] == "graphics") graphics_first = k["first_dispatch_ns"].get<double>();  // the last one
  }
  EXPECT_GT(bfs_end, 0);
  EXPECT_GE(graphics_first, bfs_end - 1000) << "the graphics launch was placed before the persistent kernel ended";
  // Nothing of it without the co-runner.
  auto alone = run_stats("bfs --preset kim2014 --set gpu.cus=4 --set bfs.scale=12 --set bfs.mechanism=topo");
  EXPECT_FALSE(alone["workload"]["results"].contains("graphics_launches"));
}

TEST(GraphicsCoRunner, KeysThatDoNotApplyAreRefused) {
  for (const auto& [args, what] :
       {std::pair{"bfs --set bfs.scale=6 --set graphics.share=half", "graphics.share (set by"},
        std::pair{"bfs --set bfs.scale=6 --set bfs.mechanism=coop --set graphics.load=light",
                  "builds the cooperative scheduler, whose graphics co-runner is coop.graphics.load"},
        std::pair{"bfs --set bfs.scale=6 --set graphics.load=light --set graphics.exec=80",
                  "is not less than the period"}}) {
    const auto r = run_fgsim(std::string("run ") + args);
    EXPECT_EQ(r.code, 2) << args << r.err;
    EXPECT_EQ(error_lines(r.err), 1) << r.err;
    EXPECT_NE(r.err.find(what), std::string::npos) << r.err;
  }
}

}  // namespace
}  // namespace fg::test
