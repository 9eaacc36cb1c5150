// SPDX-License-Identifier: Apache-2.0
// The cooperative-kernel paper's octree workload (workloads/coop/octree.cpp)
// in both versions: the host's checks pass on both presets at 1, 2 and 4 CUs
// and both versions build the same tree; the cooperative version gives
// workgroups to a periodic graphics-like kernel and takes them back; a pool
// too small is a simulated fault naming the pool; above resident capacity the
// persistent version deadlocks at its grid barrier and the cooperative one
// finishes.
#include <string>
#include <tuple>

#include <fmt/format.h>
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "fg_test.h"

namespace fg {
namespace {

using test::run_fgsim;
using test::slurp;

// The number of host checks octree records on a passing run.
constexpr std::size_t kChecks = 8;

struct OctreeRun {
  int code = -1;
  std::string err, output;
  nlohmann::json stats;
};

OctreeRun octree(const std::string& args, const std::string& tag) {
  const auto dir = test::scratch_dir();
  const std::string stats = (dir / (tag + ".json")).string(), out = (dir / (tag + ".txt")).string();
  const auto r = run_fgsim(fmt::format("run octree {} --quiet --stats {} --output {}", args, stats, out));
  OctreeRun o;
  o.code = r.code;
  o.err = r.err;
  if (r.code == 0) {
    o.stats = nlohmann::json::parse(slurp(stats));
    o.output = slurp(out);
  }
  return o;
}

class OctreeOnPreset : public ::testing::TestWithParam<std::tuple<const char*, int>> {};

// Both versions pass every check and give the same leaves (the tree is
// determined by the particles, whatever the schedule).
TEST_P(OctreeOnPreset, BothVersionsBuildTheHostsTree) {
  const auto [preset, cus] = GetParam();
  const std::string common = fmt::format("--preset {} --set gpu.cus={} --set octree.particles=4000", preset, cus);
  const OctreeRun plain = octree(common + " --set octree.mechanism=persistent", "persistent");
  const OctreeRun coop = octree(common + " --set octree.mechanism=coop", "coop");
  ASSERT_EQ(plain.code, 0) << plain.err;
  ASSERT_EQ(coop.code, 0) << coop.err;
  for (const OctreeRun* r : {&plain, &coop}) {
    EXPECT_EQ(r->stats["workload"]["checks"].size(), kChecks);
    const auto& res = r->stats["workload"]["results"];
    EXPECT_EQ(res["particles"], 4000);
    EXPECT_GT(res["tasks"].get<int>(), 1);
    EXPECT_EQ(res["pools"], res["groups"]);
  }
  EXPECT_FALSE(plain.output.empty());
  EXPECT_EQ(plain.output, coop.output) << "the two versions built different trees";
  // The cooperative version, alone on the GPU, is never asked for workgroups
  // back; workgroup 0 asks to fork at the top of every iteration.
  EXPECT_EQ(test::stat(coop.stats, "coop.kills_accepted"), 0);
  EXPECT_GT(test::stat(coop.stats, "coop.forks_requested"), 0);
  EXPECT_GT(test::stat(coop.stats, "coop.kills_offered"), 0);
}

INSTANTIATE_TEST_SUITE_P(Octree, OctreeOnPreset,
                         ::testing::Combine(::testing::Values("orr2014", "kim2014"), ::testing::Values(1, 2, 4)),
                         [](const auto& info) {
                           return fmt::format("{}_{}cu", std::get<0>(info.param), std::get<1>(info.param));
                         });

// Sharing the GPU with the light graphics load (Sec. 5.2; P 70 ms, E 3 ms
// scaled by 0.0005 to 35 us and 1.5 us, so that the kernel of about 0.2-0.3 ms
// sees several periods): workgroups die at offer_kill for the graphics kernel
// and come back by request_fork; the tree is still right.
TEST(Octree, TheCooperativeVersionSharesTheGpuWithGraphics) {
  for (const char* preset : {"orr2014", "kim2014"}) {
    const OctreeRun r = octree(fmt::format("--preset {} --set gpu.cus=4 --set octree.mechanism=coop "
                                           "--set octree.particles=10000 --set coop.graphics.load=light "
                                           "--set coop.graphics.scale=0.0005",
                                           preset),
                               preset);
    ASSERT_EQ(r.code, 0) << preset << "\n" << r.err;
    EXPECT_EQ(r.stats["workload"]["checks"].size(), kChecks + 1) << preset;  // and the graphics kernel's
    EXPECT_GE(r.stats["workload"]["results"]["graphics_launches"].get<int>(), 4) << preset;
    EXPECT_GT(test::stat(r.stats, "coop.kills_accepted"), 0) << preset;
    EXPECT_GT(test::stat(r.stats, "coop.workgroups_forked"), 0) << preset;
  }
}

// Pools of one task cannot hold the tree's cells: a simulated fault naming
// the pool and the key, never a wrong tree.
TEST(Octree, AFullPoolIsAFaultNamingThePool) {
  for (const char* mechanism : {"persistent", "coop"}) {
    const auto r =
        run_fgsim(fmt::format("run octree --preset kim2014 --set gpu.cus=1 --set octree.particles=3000 "
                              "--set octree.pool_size=1 --set octree.mechanism={} --quiet",
                              mechanism));
    EXPECT_EQ(r.code, 3) << mechanism << "\n" << r.err;
    EXPECT_NE(r.err.find("task pool"), std::string::npos) << r.err;
    EXPECT_NE(r.err.find("is full (1 of 1 tasks)"), std::string::npos) << r.err;
    EXPECT_NE(r.err.find("octree.pool_size"), std::string::npos) << r.err;
  }
}

// Occupancy-bound execution (Sec. 2): one workgroup above resident capacity
// and the persistent version's grid barrier never completes; the cooperative
// version runs the workgroups that fit.
TEST(Octree, AboveCapacityOnlyTheCooperativeVersionFinishes) {
  const std::string common = "--preset kim2014 --set gpu.cus=2 --set octree.particles=2000 --set octree.groups=17";
  const auto plain = run_fgsim("run octree " + common + " --quiet");
  EXPECT_EQ(plain.code, 3) << plain.err;
  EXPECT_NE(plain.err.find("deadlock"), std::string::npos) << plain.err;
  EXPECT_NE(plain.err.find("grid barrier 'octree'"), std::string::npos) << plain.err;
  const OctreeRun coop = octree(common + " --set octree.mechanism=coop", "coop");
  ASSERT_EQ(coop.code, 0) << coop.err;
  EXPECT_EQ(coop.stats["workload"]["results"]["groups"], 17);
  EXPECT_EQ(coop.stats["workload"]["results"]["active"], 16);  // kim2014: 8 workgroups of 128 per CU
  EXPECT_EQ(coop.stats["workload"]["results"]["pools"], 17);
}

}  // namespace
}  // namespace fg
