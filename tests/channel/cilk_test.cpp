// SPDX-License-Identifier: Apache-2.0
// Cilk on channel stacks (Orr et al. Sec. 5) and wavefront yield (Secs. 6,
// 7): fib on 1 to 8 CUs with and without yields, the yield statistics'
// books, restarts on the CU that yielded, the faults, and the quantum.
#include <fmt/format.h>

#include <nlohmann/json.hpp>

#include "cilk_expect.h"
#include "fg_test.h"

namespace fg::test {
namespace {

// Table 3: fib's pre-spawn kernel saves 856 B + 16 s x 64 x 4 B + 8 d x 64 x
// 8 B + 2 c x 64 bits.
constexpr double kFibContext = context_bytes(16, 8, 2);

// (CUs, channel capacity): 32768 is Table 3's width (no yields at n = 18),
// 256 makes the recursion yield.
class CilkFib : public ::testing::TestWithParam<std::tuple<int, int>> {};

TEST_P(CilkFib, CorrectAndEveryYieldRestartedOnItsCu) {
  const auto [cus, cap] = GetParam();
  // The workload checks fib(18) against the host (exit 0 only if equal).
  const auto s =
      run_stats(fmt::format("fib --preset orr2014 --set gpu.cus={} --set fib.n=18 --set fib.capacity={}", cus, cap));
  EXPECT_EQ(s["workload"]["results"]["fib"].get<int>(), 2584);
  const double yields = stat(s, "yield.yields");
  expect_yields_restarted(s, cap != 32768, kFibContext);
  EXPECT_EQ(stat(s, "aggregator.restart_contexts"), yields);
  EXPECT_EQ(stat(s, "aggregator.restarts"), yields);
  EXPECT_EQ(stat(s, "yield.restore_bytes"), yields * kFibContext);
  if (yields > 0) {
    EXPECT_GT(stat(s, "yield.save_ns"), 0);
    EXPECT_GT(stat(s, "yield.restore_ns"), 0);
  }
  for (int i = 0; i < cus; ++i)  // restored where it yielded (Sec. 6)
    EXPECT_EQ(stat(s, fmt::format("gpu.cu{}.parks", i)), stat(s, fmt::format("gpu.cu{}.restores", i))) << "cu" << i;
  EXPECT_EQ(stat(s, "aggregator.wavefronts"), stat(s, "gpu.dispatcher.workgroups"));
}

INSTANTIATE_TEST_SUITE_P(Cus, CilkFib, ::testing::Combine(::testing::Values(1, 2, 4, 8), ::testing::Values(32768, 256)),
                         cus_capacity_name);

TEST(CilkFib, Table3InputIsCorrectWithTheDocumentedWavefrontCount) {
  const auto s = run_stats("fib --preset orr2014");
  EXPECT_EQ(s["workload"]["results"]["fib"].get<int>(), 46368);
  // Table 3: 2,192 wavefronts (measured: 2,192). How many partial
  // wavefronts a level gets depends on timing: within 1%.
  EXPECT_NEAR(stat(s, "aggregator.wavefronts"), 2192, 22);
}

TEST(CilkFib, PerLaneVariantYieldsAndIsCorrect) {
  const auto s = run_stats(
      "fib --preset orr2014 --set gpu.cus=4 --set fib.n=14 --set fib.capacity=256 --set "
      "channel.variant=per-lane");
  EXPECT_EQ(s["workload"]["results"]["fib"].get<int>(), 377);
  EXPECT_EQ(stat(s, "yield.restarts"), stat(s, "yield.yields"));
}

TEST(CilkFib, NarrowerChannelsYieldMore) {
  const std::string base = "fib --preset orr2014 --set gpu.cus=8 --set fib.n=20 --set fib.capacity=";
  const auto wide = run_stats(base + "1024");
  const auto narrow = run_stats(base + "256");
  EXPECT_GT(stat(narrow, "yield.yields"), stat(wide, "yield.yields"));
  EXPECT_GT(stat(narrow, "aggregator.run_ns"), stat(wide, "aggregator.run_ns"));
}

// queens: counts against the known values (the workload also checks its
// host search); with narrow channels the recursion yields.
class CilkQueens : public ::testing::TestWithParam<std::tuple<int, int>> {};

TEST_P(CilkQueens, CountsSolutionsAndRestartsEveryYield) {
  const auto [cus, cap] = GetParam();
  const auto s = run_stats(fmt::format(
      "queens --preset orr2014 --set gpu.cus={} --set queens.n=9 --set queens.base_rows=4 --set queens.capacity={}",
      cus, cap));
  EXPECT_EQ(s["workload"]["results"]["solutions"].get<int>(), 352);
  // Table 3's Queens context: 856 B + 16 s + 8 d + 3 c registers = 9,072 B
  // (the paper's worst case) for the pre-spawn kernel, the only one that yields.
  expect_yields_restarted(s, cap != 16384, 9072);
}

INSTANTIATE_TEST_SUITE_P(Cus, CilkQueens,
                         ::testing::Combine(::testing::Values(1, 2, 4, 8), ::testing::Values(16384, 256)),
                         cus_capacity_name);

TEST(CilkQueens, OutputFileHoldsTheCount) {
  const std::string out = (scratch_dir() / "q.txt").string();
  const ProcResult r = run_fgsim("run queens --preset orr2014 --quiet --set queens.n=8 --output " + out);
  EXPECT_EQ(r.code, 0) << r.err;
  EXPECT_EQ(slurp(out), "92\n");
}

// Two done-count blocks: a wavefront asks up to 128 CEs at once, and a block
// half allocated and done was never freed (a yield deadlock, exit 3, until
// 2026-11-28). The aggregator now closes such a block for the yielded
// wavefront, and the run ends with every yield restarted.
TEST(CilkFib, ChannelsTwoBlocksWideEndByClosingPartlyAllocatedBlocks) {
  const auto s = run_stats("fib --preset orr2014 --set fib.n=20 --set fib.capacity=128");
  EXPECT_GT(stat(s, "yield.yields"), 0);
  EXPECT_EQ(stat(s, "yield.restarts"), stat(s, "yield.yields"));
  EXPECT_GT(stat(s, "aggregator.blocks_closed"), 0);
  EXPECT_GT(stat(s, "aggregator.ces_skipped"), 0);
  EXPECT_LT(stat(s, "aggregator.ces_skipped"), 64 * stat(s, "aggregator.blocks_closed"));
}

// Table 3's 64-CE channels past the inputs that need no yield: a wavefront
// whose spawns exceed the whole channel (fib(12) asks 84 CEs, queens 10x10
// 72, sort of 4,121 keys 256 in sort.4, strassen 128x128 512) spawns in
// rounds of lanes that fit, each round published before the next can yield
// (chan::in_rounds); until 2026-11-28 these were exit 3, "the request alone
// exceeds it". One CU with one wavefront slot, as Table 3 measures.
TEST(CilkRounds, SpawnsAboveTheChannelGoInRounds) {
  for (const char* args :
       {"fib --set fib.capacity=64 --set fib.n=12", "fib --set fib.capacity=64 --set fib.n=16",
        "queens --set queens.capacity=64 --set queens.n=10", "sort --set sort.capacity=64 --set sort.n=4121",
        "strassen --set strassen.capacity=64 --set strassen.n=128"}) {
    const auto s = run_stats(std::string(args) + " --preset orr2014 --set gpu.cus=1 --set gpu.cu.slots=1");
    EXPECT_GT(stat(s, "yield.yields"), 0) << args;
    EXPECT_EQ(stat(s, "yield.restarts"), stat(s, "yield.yields")) << args;
  }
  // With yield off, such a request is still the fault it was.
  const ProcResult r =
      run_fgsim("run fib --preset orr2014 --set fib.capacity=64 --set fib.n=12 --set yield.enabled=false");
  EXPECT_EQ(r.code, 3) << r.err;
  EXPECT_NE(r.err.find("the request alone exceeds it"), std::string::npos) << r.err;
}

// Eight CUs on 64-CE channels: sort's continuation levels fill with published
// continuations while a yielded sort_sync waits for room in merge_sync. A
// yielded continuation publishes nothing until restarted, so the level's
// published merge_syncs (whole: their merges are done) are dispatched; they
// were held back until 2026-11-28, a yield deadlock (exit 3).
TEST(CilkRounds, SortOnEightCusWithNarrowChannelsEnds) {
  const auto s = run_stats("sort --preset orr2014 --set gpu.cus=8 --set sort.capacity=64 --set sort.n=100000");
  EXPECT_GT(stat(s, "yield.yields"), 0);
  EXPECT_EQ(stat(s, "yield.restarts"), stat(s, "yield.yields"));
}

TEST(CilkFaults, AFullChannelWithYieldOffIsExit3) {
  const ProcResult r =
      run_fgsim("run fib --preset orr2014 --set fib.n=20 --set fib.capacity=256 --set yield.enabled=false");
  EXPECT_EQ(r.code, 3) << r.err;
  EXPECT_NE(r.err.find("is full"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("turn yield on (yield.enabled)"), std::string::npos) << r.err;
}

// Exit 3 "the request alone exceeds it" until 2026-11-28; with yield on
// such spawns now go in rounds (CilkRounds below).
TEST(CilkFaults, ARequestLargerThanTheChannelIsSplitWithYield) {
  const auto s = run_stats("fib --preset orr2014 --set fib.n=20 --set fib.capacity=64");
  EXPECT_GT(stat(s, "yield.yields"), 0);
  EXPECT_EQ(stat(s, "yield.restarts"), stat(s, "yield.yields"));
}

TEST(CilkFaults, AFullRestartChannelIsExit3NamingTheKey) {
  // One entry: the second yield before the aggregator's next pass finds it full.
  const ProcResult r =
      run_fgsim("run fib --preset orr2014 --set fib.n=18 --set fib.capacity=256 --set yield.restart_capacity=1");
  EXPECT_EQ(r.code, 3) << r.err;
  EXPECT_NE(r.err.find("yield: the restart channel is full (1 restart contexts the aggregator has not read; "
                       "yield.restart_capacity=1)"),
            std::string::npos)
      << r.err;
}

// The aggregator writes the restart channel's head back as it reads, so a
// ring of three entries carries ten times as many yields.
TEST(CilkFib, TheRestartChannelIsReusedAsTheAggregatorReadsIt) {
  const auto s = run_stats("fib --preset orr2014 --set fib.n=20 --set fib.capacity=256 --set yield.restart_capacity=3");
  EXPECT_GE(stat(s, "yield.yields"), 30);
  EXPECT_EQ(stat(s, "yield.restarts"), stat(s, "yield.yields"));
}

// --trace: one span per yield (yield to restart) on the aggregator's
// "yielded wavefronts" track, and the firmware's restart work on its track.
TEST(CilkTrace, EveryYieldIsASpanFromYieldToRestart) {
  const std::string trace = (scratch_dir() / "t.json").string();
  const std::string stats = (scratch_dir() / "s.json").string();
  const ProcResult r = run_fgsim("run fib --preset orr2014 --quiet --set fib.n=18 --set fib.capacity=256 --trace " +
                                 trace + " --stats " + stats);
  ASSERT_EQ(r.code, 0) << r.err;
  const auto t = nlohmann::json::parse(slurp(trace));
  const auto s = nlohmann::json::parse(slurp(stats));
  const auto& ev = t.is_object() ? t["traceEvents"] : t;
  int yielded = 0, restart = 0;
  bool track = false;
  for (const auto& e : ev) {
    const std::string n = e.value("name", "");
    if (n == "yielded") {
      ++yielded;
      EXPECT_GT(e.value("dur", 0.0), 0.0);
    }
    if (n == "restart") ++restart;
    if (n == "thread_name" && e["args"].value("name", "") == "yielded wavefronts") track = true;
  }
  EXPECT_TRUE(track);
  EXPECT_GT(stat(s, "yield.yields"), 0);
  EXPECT_EQ(yielded, stat(s, "yield.yields"));
  EXPECT_GT(restart, 0);
}

TEST(CilkFaults, BadYieldAndCapacityValuesAreExit2NamingTheKey) {
  ProcResult r = run_fgsim("run fib --preset orr2014 --set yield.restart_capacity=0");
  EXPECT_EQ(r.code, 2);
  EXPECT_NE(r.err.find("yield.restart_capacity"), std::string::npos) << r.err;
  r = run_fgsim("run fib --preset orr2014 --set fib.capacity=100");
  EXPECT_EQ(r.code, 2);
  EXPECT_NE(r.err.find("fib.capacity"), std::string::npos) << r.err;
}

// Yields and restarts synchronise through memory (the restart channel):
// checked against a one-cycle quantum.
TEST(CilkQuantum, FibWithYieldsOnEightCusDoesNotDependOnTheQuantum) {
  const std::string base =
      "fib --preset orr2014 --set gpu.cus=8 --set fib.n=18 --set fib.capacity=256 --set sim.quantum=";
  const auto one = run_stats(base + "1");
  const auto dflt = run_stats(base + "20");
  EXPECT_GT(stat(one, "yield.yields"), 0);
  EXPECT_EQ(stat(one, "aggregator.run_ns"), stat(dflt, "aggregator.run_ns"));
  EXPECT_EQ(stat(one, "yield.yields"), stat(dflt, "yield.yields"));
}

// Sec. 8.2.1's measurement: the GPU's time blocked on the aggregator split by
// what the firmware was doing. The parts add up to the whole; with a done
// count of 1 (a block freed per CE) freeing takes a larger share of the stall
// than with 256; with yields, restarting takes some of it.
TEST(CilkStats, StallTimeSplitsByFirmwareActivity) {
  auto parts = [](const nlohmann::json& s) {
    double sum = 0;
    for (const char* k : {"poll", "dispatch", "free", "restart", "check", "other"})
      sum += stat(s, fmt::format("aggregator.gpu_blocked_{}_ns", k));
    return sum;
  };
  const std::string base = "fib --preset orr2014 --set gpu.cus=4 --set fib.n=16";
  const auto one = run_stats(base + " --set channel.done_count=1");
  const auto wide = run_stats(base + " --set channel.done_count=256");
  const auto yields = run_stats("fib --preset orr2014 --set gpu.cus=4 --set fib.n=18 --set fib.capacity=256");
  for (const auto* s : {&one, &wide, &yields}) {
    EXPECT_GT(stat(*s, "aggregator.gpu_blocked_ns"), 0);
    EXPECT_NEAR(parts(*s), stat(*s, "aggregator.gpu_blocked_ns"), 1e-6 * stat(*s, "aggregator.gpu_blocked_ns"));
  }
  auto free_share = [](const nlohmann::json& s) {
    return stat(s, "aggregator.gpu_blocked_free_ns") / stat(s, "aggregator.gpu_blocked_ns");
  };
  EXPECT_GT(free_share(one), free_share(wide));
  EXPECT_GT(stat(yields, "yield.yields"), 0);
  EXPECT_GT(stat(yields, "aggregator.gpu_blocked_restart_ns"), 0);
}

// Fig. 17 both ways: CAS attempts per lane (channels.*.cas_attempts) and
// wavefront CAS instructions (gpu.cuN.atomics_cas). Amortized, one lane CASes
// per instruction: the two are equal. Per lane, the lanes of a wavefront CAS
// in one instruction: fewer instructions than attempts.
TEST(CilkStats, CasCountedPerLaneAndPerInstruction) {
  auto totals = [](const nlohmann::json& s) {
    double attempts = 0, instructions = 0;
    for (const auto& [k, v] : s["stats"].items()) {
      if (k.rfind("channels.", 0) == 0 && k.size() > 13 && k.substr(k.size() - 13) == ".cas_attempts")
        attempts += v.get<double>();
      if (k.rfind("gpu.cu", 0) == 0 && k.size() > 12 && k.substr(k.size() - 12) == ".atomics_cas")
        instructions += v.get<double>();
    }
    return std::pair{attempts, instructions};
  };
  const std::string base = "fib --preset orr2014 --set gpu.cus=2 --set fib.n=14 --set channel.variant=";
  const auto [am_attempts, am_instr] = totals(run_stats(base + "amortized"));
  EXPECT_GT(am_attempts, 0);
  EXPECT_EQ(am_instr, am_attempts);
  const auto [pl_attempts, pl_instr] = totals(run_stats(base + "per-lane"));
  EXPECT_GT(pl_instr, 0);
  EXPECT_LT(pl_instr, pl_attempts / 4);
}

// The level scheduler's compiled costs come on top of the default
// scheduler's (tools/firmware): with every aggregator.*_instructions at 0 the
// firmware still executes 17 per pass and 50 per channel polled, besides one
// per store.
TEST(CilkStats, TheLevelSchedulersPredicateCostsItsCompiledInstructions) {
  std::string args = "fib --preset orr2014 --set gpu.cus=2 --set fib.n=10";
  for (const char* k : {"pass", "poll", "dispatch", "free", "restart", "check"})
    args += fmt::format(" --set aggregator.{}_instructions=0", k);
  const auto s = run_stats(args);
  double polls = 0;
  for (const auto& [k, v] : s["stats"].items())
    if (k.rfind("channels.", 0) == 0 && k.size() > 6 && k.substr(k.size() - 6) == ".polls") polls += v.get<double>();
  EXPECT_GT(polls, 0);
  EXPECT_EQ(stat(s, "aggregator.instructions"),
            17 * stat(s, "aggregator.passes") + 50 * polls + stat(s, "aggregator.stores"));
}

TEST(CilkStats, SameConfigSameStats) {
  expect_same_stats("fib --preset orr2014 --set gpu.cus=4 --set fib.n=16 --set fib.capacity=256");
}

}  // namespace
}  // namespace fg::test
