// SPDX-License-Identifier: Apache-2.0
// The Pannotia applications of the cooperative-kernel paper (color, mis,
// p-sssp): correct in both versions on both presets and several CU counts,
// and the cooperative ones while sharing the GPU with a graphics-like kernel.
#include <string>
#include <tuple>

#include <fmt/format.h>
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "fg_test.h"

namespace fg {
namespace {

nlohmann::json run_json(const std::string& args) {
  const std::string path = (test::scratch_dir() / "s.json").string();
  const auto r = test::run_fgsim("run " + args + " --quiet --stats " + path);
  EXPECT_EQ(r.code, 0) << args << "\n" << r.err;
  return nlohmann::json::parse(test::slurp(path));
}

using Case = std::tuple<const char*, const char*, const char*, int>;  // workload, mechanism, preset, CUs
class Pannotia : public ::testing::TestWithParam<Case> {};

// Every run checks its result against the host (colouring proper and equal to
// the host's rounds, the set independent, maximal and equal, distances equal
// Dijkstra's): exit 0 means it held.
TEST_P(Pannotia, TheResultEqualsTheHostReference) {
  const auto [w, m, preset, cus] = GetParam();
  const std::string W = w;
  const auto j = run_json(
      fmt::format("{} --preset {} --set gpu.cus={} --set {}.mechanism={} --set {}.scale=9", W, preset, cus, W, m, W));
  ASSERT_EQ(j["workload"]["checks"].size(), 1u);
  EXPECT_GT(j["workload"]["results"]["kernel_ns"].get<double>(), 0);
}

INSTANTIATE_TEST_SUITE_P(Versions, Pannotia,
                         ::testing::Combine(::testing::Values("color", "mis", "p-sssp"),
                                            ::testing::Values("persistent", "coop"),
                                            ::testing::Values("orr2014", "kim2014"), ::testing::Values(1, 4)),
                         [](const auto& info) {
                           std::string s =
                               fmt::format("{}_{}_{}_{}cu", std::get<0>(info.param), std::get<1>(info.param),
                                           std::get<2>(info.param), std::get<3>(info.param));
                           for (char& c : s)
                             if (c == '-') c = '_';
                           return s;
                         });

// LonestarGPU's bfs and sssp as one persistent kernel (the paper's bfs and
// l-sssp): bfs.mechanism / sssp.mechanism persistent and coop.
using LsCase = std::tuple<const char*, const char*, const char*, int, const char*>;  // + generator
class Lonestar : public ::testing::TestWithParam<LsCase> {};
TEST_P(Lonestar, DistancesEqualTheHostReference) {
  const auto [w, m, preset, cus, gen] = GetParam();
  const std::string W = w;
  const auto j =
      run_json(fmt::format("{} --preset {} --set gpu.cus={} --set {}.mechanism={} --set {}.generator={} "
                           "--set {}.scale=9",
                           W, preset, cus, W, m, W, gen, W));
  ASSERT_EQ(j["workload"]["checks"].size(), 1u);
}
INSTANTIATE_TEST_SUITE_P(Versions, Lonestar,
                         ::testing::Combine(::testing::Values("bfs", "sssp"), ::testing::Values("persistent", "coop"),
                                            ::testing::Values("orr2014", "kim2014"), ::testing::Values(1, 4),
                                            ::testing::Values("rmat", "grid")),
                         [](const auto& info) {
                           return fmt::format("{}_{}_{}_{}cu_{}", std::get<0>(info.param), std::get<1>(info.param),
                                              std::get<2>(info.param), std::get<3>(info.param),
                                              std::get<4>(info.param));
                         });

// The prototype's priorities (node_value[i] = i / (n + 1), the paper's runs;
// color.priority=index, the default) sweep a grid numbered row by row from its
// last corner, one anti-diagonal per round: a 16 x 16 grid takes 31 colours
// and as many rounds of two barriers. The hashed priorities take a handful.
// Both colourings equal the host's replay of the same rule (exit 0).
TEST(Pannotia, ThePrototypesPrioritiesSweepAGridOneDiagonalPerRound) {
  const auto colours = [](const char* priority) {
    const auto j =
        run_json(fmt::format("color --preset orr2014 --set gpu.cus=2 --set color.mechanism=coop "
                             "--set color.generator=grid --set color.scale=8 --set color.priority={}",
                             priority));
    return j["workload"]["results"]["colours"].get<int>();
  };
  EXPECT_EQ(colours("index"), 31);
  EXPECT_LT(colours("hash"), 10);
  // mis with the index priorities: node 0 joins first, then the sweep goes on
  // from it; the set still equals the host's and is maximal (exit 0).
  const auto j = run_json(
      "mis --preset orr2014 --set gpu.cus=2 --set mis.mechanism=coop --set mis.generator=grid "
      "--set mis.scale=8");
  EXPECT_EQ(j["config"]["mis.priority"], "index");
}

// The cooperative versions give workgroups to a periodic graphics-like kernel
// (kills) and take them back (forks), and their results still hold.
TEST(Pannotia, CooperativeVersionsShareTheGpuWithAGraphicsKernel) {
  for (const char* w : {"color", "mis", "p-sssp", "bfs", "sssp"}) {
    const std::string W = w;
    // Long enough for several periods (bfs and sssp on R-MAT: few rounds).
    const int scale = W == "bfs" || W == "sssp" ? 13 : 10;
    const auto j =
        run_json(fmt::format("{} --preset orr2014 --set gpu.cus=2 --set {}.mechanism=coop --set {}.scale={} "
                             "--set coop.graphics.load=light --set coop.graphics.share=quarter "
                             "--set coop.graphics.scale=0.0005",
                             W, W, W, scale));
    EXPECT_EQ(j["workload"]["checks"].size(), 2u) << w;  // the workload's and the graphics kernel's
    EXPECT_GT(j["workload"]["results"]["graphics_launches"].get<double>(), 1) << w;
    EXPECT_GT(j["stats"]["coop.kills_accepted"].get<double>(), 0) << w;
    EXPECT_GT(j["stats"]["coop.workgroups_forked"].get<double>(), 0) << w;
    // The time wavefronts spent blocked in the runtime (barrier spins, calls
    // waiting for their workgroup): some, at most every wavefront the whole
    // kernel (orr2014: 64-wide, so two per 128-work-item workgroup).
    const double wait = j["stats"]["coop.wait_time"].get<double>();
    EXPECT_GT(wait, 0) << w;
    EXPECT_LT(wait, j["workload"]["results"]["kernel_ns"].get<double>() * 2 *
                        j["workload"]["results"]["groups"].get<double>())
        << w;
    EXPECT_EQ(wait, j["stats"]["tasks.coop.wait_ns"].get<double>()) << w;
  }
}

}  // namespace
}  // namespace fg
