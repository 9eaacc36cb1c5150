// SPDX-License-Identifier: Apache-2.0
// The cooperative-kernel paper's game workload (workloads/coop/game.cpp,
// connect-four look-ahead by work stealing) in both versions: the host's
// checks pass on both presets at 1, 2 and 4 CUs with the seven values of the
// rules' test vector; the cooperative version gives workgroups to a periodic
// graphics-like kernel and takes them back; a pool too small is a simulated
// fault naming the pool.
#include <string>
#include <tuple>
#include <vector>

#include <fmt/format.h>
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "fg_test.h"

namespace fg {
namespace {

using test::run_fgsim;
using test::slurp;

// The values of the computer's seven moves by our rules (textbook minimax,
// docs/cooperative.md) at the default look-ahead of 5, and the nodes of that
// tree: the host's minimax computes them on every run; here they are pinned.
const std::vector<int> kValuesDepth5{3, 5, 666, 6, 6, 666, 666};
constexpr int kNodesDepth5 = 13957;

struct GameRun {
  int code = -1;
  std::string err;
  std::vector<std::string> lines;  // --output
  nlohmann::json stats;
};

GameRun game(const std::string& args) {
  const auto dir = test::scratch_dir();
  const std::string stats = (dir / "s.json").string(), out = (dir / "out.txt").string();
  const auto r = run_fgsim(fmt::format("run game {} --quiet --stats {} --output {}", args, stats, out));
  GameRun g;
  g.code = r.code;
  g.err = r.err;
  if (r.code == 0) {
    g.stats = nlohmann::json::parse(slurp(stats));
    std::string line;
    for (char c : slurp(out)) {
      if (c != '\n') {
        line += c;
        continue;
      }
      g.lines.push_back(line);
      line.clear();
    }
  }
  return g;
}

using Case = std::tuple<std::string, std::string, int>;  // mechanism, preset, CUs
class Game : public ::testing::TestWithParam<Case> {};

// Exit 0 means both host checks held: the seven values equal the host's
// minimax, and every node the kernel created is in the host's tree, answered
// by all its children and valued as the host values it.
TEST_P(Game, TheValuesEqualTheHostMinimax) {
  const auto [m, preset, cus] = GetParam();
  const GameRun g = game(fmt::format("--preset {} --set gpu.cus={} --set game.mechanism={}", preset, cus, m));
  ASSERT_EQ(g.code, 0) << g.err;
  const auto& res = g.stats["workload"]["results"];
  EXPECT_EQ(g.stats["workload"]["checks"].size(), 2u);
  EXPECT_EQ(res["values"].get<std::vector<int>>(), kValuesDepth5);
  EXPECT_EQ(res["nodes"].get<int>(), kNodesDepth5);
  EXPECT_EQ(res["depth"].get<int>(), 5);
  EXPECT_GT(res["kernel_ns"].get<double>(), 0);
  ASSERT_EQ(g.lines.size(), 7u);  // --output: one value per line
  for (std::size_t i = 0; i < 7; ++i) EXPECT_EQ(g.lines[i], std::to_string(kValuesDepth5[i])) << i;
}

INSTANTIATE_TEST_SUITE_P(Versions, Game,
                         ::testing::Combine(::testing::Values(std::string("persistent"), std::string("coop")),
                                            ::testing::Values(std::string("orr2014"), std::string("kim2014")),
                                            ::testing::Values(1, 2, 4)),
                         [](const auto& info) {
                           return fmt::format("{}_{}_{}cu", std::get<0>(info.param), std::get<1>(info.param),
                                              std::get<2>(info.param));
                         });

// One move deep, the values are the seven boards' own evaluations; they are
// the prototype's expected vector for look-ahead 6 (its propagation kept the
// level-1 nodes' own values: docs/cooperative.md).
TEST(Game, OneMoveDeepTheValuesAreTheBoardsOwn) {
  for (const char* m : {"persistent", "coop"}) {
    const GameRun g =
        game(fmt::format("--preset orr2014 --set gpu.cus=1 --set game.depth=1 --set game.mechanism={}", m));
    ASSERT_EQ(g.code, 0) << g.err;
    EXPECT_EQ(g.stats["workload"]["results"]["values"].get<std::vector<int>>(),
              (std::vector<int>{0, 1, 666, 2, 2, 0, 0}))
        << m;
    EXPECT_EQ(g.stats["workload"]["results"]["nodes"].get<int>(), 7) << m;
  }
}

// Sharing the GPU with a light graphics load (P 70 ms, E 3 ms, times 0.001:
// a period of 70 us against a kernel of about 0.6 ms on orr2014 and 1.1 ms on
// kim2014): workgroups die at offer_kill for the graphics kernel and come back
// through workgroup 0's request_fork, and the result still holds.
class GameShared : public ::testing::TestWithParam<std::string> {};
TEST_P(GameShared, TheCooperativeVersionSharesTheGpuWithLightGraphics) {
  const GameRun g =
      game(fmt::format("--preset {} --set gpu.cus=4 --set game.mechanism=coop "
                       "--set coop.graphics.load=light --set coop.graphics.scale=0.001",
                       GetParam()));
  ASSERT_EQ(g.code, 0) << g.err;
  EXPECT_EQ(g.stats["workload"]["checks"].size(), 3u);  // the game's two and the graphics kernel's
  EXPECT_EQ(g.stats["workload"]["results"]["values"].get<std::vector<int>>(), kValuesDepth5);
  EXPECT_GE(g.stats["workload"]["results"]["graphics_launches"].get<double>(), 4);
  EXPECT_GT(test::stat(g.stats, "coop.kills_accepted"), 0);
  EXPECT_GT(test::stat(g.stats, "coop.workgroups_forked"), 0);
}
INSTANTIATE_TEST_SUITE_P(Presets, GameShared, ::testing::Values(std::string("orr2014"), std::string("kim2014")),
                         [](const auto& info) { return info.param; });

// A pool too small: the push that finds every pool full is a simulated fault
// naming the pool, how full it is and the key; so is a seeding that does not
// fit.
TEST(Game, AFullPoolIsASimulatedFault) {
  for (const char* m : {"persistent", "coop"}) {
    const GameRun g =
        game(fmt::format("--preset orr2014 --set gpu.cus=1 --set game.mechanism={} --set game.groups=2 "
                         "--set game.pool_size=4",
                         m));
    EXPECT_EQ(g.code, 3) << m;
    EXPECT_NE(g.err.find("task pool "), std::string::npos) << g.err;
    EXPECT_NE(g.err.find("is full (4 of 4 tasks, game.pool_size)"), std::string::npos) << g.err;
    EXPECT_NE(g.err.find("raise game.pool_size"), std::string::npos) << g.err;
  }
  const GameRun s = game("--preset kim2014 --set gpu.cus=1 --set game.groups=1 --set game.pool_size=3");
  EXPECT_EQ(s.code, 3);
  EXPECT_NE(s.err.find("task pool 0 is full (3 of 3 tasks, game.pool_size) while seeding"), std::string::npos) << s.err;
}

}  // namespace
}  // namespace fg
