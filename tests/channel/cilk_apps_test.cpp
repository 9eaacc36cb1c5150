// SPDX-License-Identifier: Apache-2.0
// sort and strassen on channel stacks (Orr et al. Sec. 7.1) and the
// conventional kernels of Table 4 (matmul, queens-flat): correct on 1 to 8
// CUs with and without yields (each workload also checks its result against
// the host every run: exit 0 only if equal), --input / --output, bad input,
// and the quantum.
#include <fmt/format.h>

#include <algorithm>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>
#include <vector>

#include "cilk_expect.h"
#include "fg_test.h"

namespace fg::test {
namespace {

// (CUs, channel capacity): 32768 is Table 3's width; 256 makes the
// 20,000-key recursion yield (1,024 base-case tasks).
class CilkSort : public ::testing::TestWithParam<std::tuple<int, int>> {};

TEST_P(CilkSort, SortsAndRestartsEveryYield) {
  const auto [cus, cap] = GetParam();
  const auto s = run_stats(
      fmt::format("sort --preset orr2014 --set gpu.cus={} --set sort.n=20000 --set sort.capacity={}", cus, cap));
  EXPECT_EQ(s["workload"]["results"]["keys"].get<int>(), 20000);
  EXPECT_EQ(s["workload"]["results"]["base_depth"].get<int>(), 5);  // 20000 -> 5000 -> ... -> 20
  // Table 3: all four kernels save 856 B + 16 s + 8 d + 2 c registers.
  expect_yields_restarted(s, cap != 32768, context_bytes(16, 8, 2));
  // Every CE produced was consumed, in all four stacks.
  EXPECT_EQ(stat(s, "channels.sort.5.produced"), 1024);
  EXPECT_EQ(stat(s, "channels.sort.5.consumed"), 1024);
}

INSTANTIATE_TEST_SUITE_P(Cus, CilkSort,
                         ::testing::Combine(::testing::Values(1, 2, 4, 8), ::testing::Values(32768, 256)),
                         cus_capacity_name);

TEST(CilkSort, PerLaneVariantSortsWithYields) {
  const auto s = run_stats(
      "sort --preset orr2014 --set gpu.cus=4 --set sort.n=20000 --set sort.capacity=256 --set "
      "channel.variant=per-lane");
  EXPECT_GT(stat(s, "yield.yields"), 0);
  EXPECT_EQ(stat(s, "yield.restarts"), stat(s, "yield.yields"));
}

// Table 3's 64-CE channels on one wavefront slot: 3,732 keys is the first
// input that yields, and the yielded merge needs 32 CEs of merge.5 while 34
// are in use, all done: freed a whole done-count block (64) at a time, that
// block would never fill. The aggregator closes it (data tail CASed to the
// block's end, the unallocated CEs skipped) and restarts the merge.
TEST(CilkSort, APartlyAllocatedDoneBlockIsClosedForAYieldedWavefront) {
  const auto s =
      run_stats("sort --preset orr2014 --set gpu.cus=1 --set gpu.cu.slots=1 --set sort.capacity=64 --set sort.n=3732");
  EXPECT_EQ(stat(s, "yield.yields"), 1);
  EXPECT_EQ(stat(s, "yield.restarts"), 1);
  EXPECT_GE(stat(s, "aggregator.blocks_closed"), 1);
  EXPECT_EQ(stat(s, "aggregator.ces_skipped"), 30 * stat(s, "aggregator.blocks_closed"));
  // Below it nothing yields and no block is closed.
  const auto below =
      run_stats("sort --preset orr2014 --set gpu.cus=1 --set gpu.cu.slots=1 --set sort.capacity=64 --set sort.n=3731");
  EXPECT_EQ(stat(below, "yield.yields"), 0);
  EXPECT_EQ(stat(below, "aggregator.blocks_closed"), 0);
}

// Sizes that are not powers of four, one-key and base-sized inputs, merge
// bases down to one key (cilksort) and a merge grain that does not divide the
// merges (pieces).
TEST(CilkSort, OddSizesAndMergeGrains) {
  for (const char* args : {"--set sort.n=1", "--set sort.n=2", "--set sort.n=64", "--set sort.n=65", "--set sort.n=259",
                           "--set sort.n=3001 --set sort.base=5", "--set sort.n=3001 --set sort.merge_base=1",
                           "--set sort.n=3001 --set sort.merge_base=2 --set sort.base=4",
                           "--set sort.n=3001 --set sort.algorithm=pieces --set sort.merge_chunk=7",
                           "--set sort.n=3001 --set sort.algorithm=pieces --set sort.base=5"}) {
    const ProcResult r = run_fgsim(std::string("run sort --preset orr2014 --quiet ") + args);
    EXPECT_EQ(r.code, 0) << args << ": " << r.err;
  }
}

// cilksort's merges split recursively: on 20,000 keys (base cases at depth 5)
// merge tasks run at levels below the continuations' (6 and deeper), every
// merge CE produced is consumed, and a merge of two quarters or halves whose
// smaller input has more than sort.merge_base keys spawns two merges, so
// there are more merge tasks than the 2 + 1 per continuation of a
// non-recursive merge. The pieces variant's merges stay at one level.
TEST(CilkSort, CilksortMergesSplitRecursively) {
  const auto s = run_stats("sort --preset orr2014 --set gpu.cus=4 --set sort.n=20000");
  double merges = 0, deepest = 0;
  for (const auto& [name, v] : s["stats"].items()) {
    const std::string prefix = "channels.merge.";
    if (name.rfind(prefix, 0) != 0 || name.size() < 9 || name.substr(name.size() - 9) != ".consumed") continue;
    const double n = v.get<double>();
    merges += n;
    EXPECT_EQ(n, stat(s, name.substr(0, name.size() - 9) + ".produced")) << name;
    if (n > 0) deepest = std::max(deepest, std::stod(name.substr(prefix.size())));
  }
  // 20000 -> 5000 -> 1250 -> 312 -> 78 -> 19: 341 continuations of each kind.
  EXPECT_GT(merges, 3.0 * 341);
  EXPECT_GE(deepest, 7);
  const auto p = run_stats("sort --preset orr2014 --set gpu.cus=4 --set sort.n=20000 --set sort.algorithm=pieces");
  EXPECT_FALSE(p["stats"].contains("channels.merge.6.produced"));  // levels 0-5 only
  EXPECT_GT(stat(p, "channels.merge.5.produced"), 0);
}

// Lines of stderr besides the three of ASan's fiber warning (the sanitizer
// build prints it when the error is thrown on the workload's SystemC thread).
int error_lines(const std::string& err) {
  std::istringstream in(err);
  int n = 0;
  for (std::string line; std::getline(in, line);)
    if (line.find("ASan is ignoring requested __asan_handle_no_return") == std::string::npos &&
        line != "False positive error reports may follow" &&
        line.rfind("For details see https://github.com/google/sanitizers/issues/189", 0) != 0)
      ++n;
  return n;
}

std::string write(const std::string& name, const std::string& text) {
  const std::string path = (scratch_dir() / name).string();
  std::ofstream(path) << text;
  return path;
}

TEST(CilkSort, InputKeysComeOutSortedOnePerLine) {
  std::string in;
  std::vector<long> keys;
  for (int i = 0; i < 3000; ++i) {
    const long k = (i * 7919L) % 2003 - 1000;  // duplicates and negatives
    keys.push_back(k);
    in += std::to_string(k) + (i % 100 == 0 ? "\n\n" : "\n");  // blank lines are skipped
  }
  in += "2147483647\n-2147483648\n  +5 \n";
  keys.insert(keys.end(), {2147483647L, -2147483648L, 5});
  const std::string input = write("keys.txt", in), out = (scratch_dir() / "sorted.txt").string();
  const ProcResult r =
      run_fgsim("run sort --preset orr2014 --quiet --set gpu.cus=2 --input " + input + " --output " + out);
  ASSERT_EQ(r.code, 0) << r.err;
  std::sort(keys.begin(), keys.end());
  std::string want;
  for (const long k : keys) want += std::to_string(k) + "\n";
  EXPECT_EQ(slurp(out), want);
}

TEST(CilkSort, BadInputIsExit2NamingTheLine) {
  struct Case {
    std::string text, want;
  } cases[] = {
      {"1\n2\nthree\n", "keys.txt:3: expected one integer, got 'three'"},
      {"1\n2 3\n", "keys.txt:2: expected one integer, got '2 3'"},
      {"4\n2147483648\n", "keys.txt:2: key '2147483648' is outside the 32-bit signed range"},
      {"99999999999999999999999\n", "keys.txt:1: key '99999999999999999999999' is outside"},
      {"\n\n", "keys.txt: no keys (sort.input)"},
  };
  for (const Case& c : cases) {
    const ProcResult r = run_fgsim("run sort --quiet --input " + write("keys.txt", c.text));
    EXPECT_EQ(r.code, 2) << c.text;
    EXPECT_NE(r.err.find(c.want), std::string::npos) << r.err;
    EXPECT_EQ(error_lines(r.err), 1) << r.err;  // one line
  }
  ProcResult r = run_fgsim("run sort --quiet --input /nonexistent/keys.txt");
  EXPECT_EQ(r.code, 2);
  EXPECT_NE(r.err.find("/nonexistent/keys.txt: input file (sort.input) does not exist"), std::string::npos) << r.err;
  // A key count given with an input file is not silently dropped.
  r = run_fgsim("run sort --quiet --set sort.n=10 --input " + write("keys.txt", "1\n"));
  EXPECT_EQ(r.code, 2);
  EXPECT_NE(r.err.find("sort.n (set by --set sort.n) does not apply: the keys come from"), std::string::npos) << r.err;
  r = run_fgsim("run sort --quiet --set sort.capacity=100");
  EXPECT_EQ(r.code, 2);
  EXPECT_NE(r.err.find("sort.capacity"), std::string::npos) << r.err;
}

// strassen: (CUs, capacity); 1024 makes the 256 x 256 recursion (4,096 base
// cases) yield.
class CilkStrassen : public ::testing::TestWithParam<std::tuple<int, int>> {};

TEST_P(CilkStrassen, MultipliesAndRestartsEveryYield) {
  const auto [cus, cap] = GetParam();
  const int n = cap == 8192 ? 128 : 256;
  const auto s = run_stats(fmt::format(
      "strassen --preset orr2014 --set gpu.cus={} --set strassen.n={} --set strassen.capacity={}", cus, n, cap));
  const double bases = (n / 16) * (n / 16) * (n / 16);
  EXPECT_EQ(stat(s, fmt::format("channels.strassen.{}.consumed", n == 128 ? 3 : 4)), bases);
  // Table 3: 856 B + 16 s + 6 d + 8 c registers.
  expect_yields_restarted(s, cap != 8192, context_bytes(16, 6, 8));
  // The base cases combine with atomic adds: 16 x 16 per base case, a
  // wavefront instruction for 64 base cases.
  double atomics = 0;
  for (int i = 0; i < cus; ++i) atomics += stat(s, fmt::format("gpu.cu{}.atomics_nr", i));
  EXPECT_GE(atomics, bases / 64 * 256);
}

INSTANTIATE_TEST_SUITE_P(Cus, CilkStrassen,
                         ::testing::Combine(::testing::Values(1, 2, 4, 8), ::testing::Values(8192, 1024)),
                         cus_capacity_name);

// Per-lane, the lanes that got their room keep it while their wavefront is
// parked (docs/channels.md): at 2,048 CEs the parked wavefronts' reservations
// leave too little for any of them, a deadlock (exit 3). Amortized, a
// wavefront reserves all of its request or nothing, and the same run ends.
TEST(CilkStrassen, PerLaneReservationsHeldWhileParkedCanDeadlock) {
  const std::string args =
      "run strassen --preset orr2014 --quiet --set strassen.n=256 --set strassen.capacity=2048 --set channel.variant=";
  ProcResult r = run_fgsim(args + "per-lane");
  EXPECT_EQ(r.code, 3) << r.err;
  EXPECT_NE(r.err.find("none can be restarted and no other consumer runs"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("channel 'strassen.4'"), std::string::npos) << r.err;
  r = run_fgsim(args + "amortized");
  EXPECT_EQ(r.code, 0) << r.err;
}

// Table 3: 587 wavefronts for 512 x 512, exactly the eight-product
// recursion's full wavefronts (1 + 1 + 1 + 8 + 64 + 512); at 64 x 64, 1 + 1 + 1.
TEST(CilkStrassen, WavefrontsAreTheRecursionsFullWavefronts) {
  const auto s = run_stats("strassen --preset orr2014 --set strassen.n=64");
  EXPECT_EQ(stat(s, "aggregator.wavefronts"), 3);
}

// strassen and matmul draw the same matrices from the seed: their --output
// files (C, one row per line) are the same.
TEST(CilkStrassen, OutputRowsEqualTheConventionalMatmuls) {
  const std::string a = (scratch_dir() / "s.txt").string(), b = (scratch_dir() / "m.txt").string();
  ProcResult r = run_fgsim("run strassen --preset orr2014 --quiet --set strassen.n=32 --seed 7 --output " + a);
  ASSERT_EQ(r.code, 0) << r.err;
  r = run_fgsim("run matmul --preset orr2014 --quiet --set matmul.n=32 --seed 7 --output " + b);
  ASSERT_EQ(r.code, 0) << r.err;
  const std::string got = slurp(a);
  EXPECT_EQ(got, slurp(b));
  EXPECT_EQ(std::count(got.begin(), got.end(), '\n'), 32);
  std::istringstream first(got.substr(0, got.find('\n')));
  int v = 0, count = 0;
  while (first >> v) ++count;
  EXPECT_EQ(count, 32);
}

TEST(CilkStrassen, BadSizesAreExit2NamingTheKey) {
  ProcResult r = run_fgsim("run strassen --quiet --set strassen.n=48");
  EXPECT_EQ(r.code, 2);
  EXPECT_NE(r.err.find("strassen.n=48: must be 16 times a power of two"), std::string::npos) << r.err;
  r = run_fgsim("run matmul --quiet --set matmul.n=48");
  EXPECT_EQ(r.code, 2);
  EXPECT_NE(r.err.find("matmul.n=48: must be a multiple of 32"), std::string::npos) << r.err;
}

// The AMD SDK sample's work-group shape: 8 x 8 work-items of 4 x 4 blocks,
// a 32 x 32 tile of C. Per step of four along k a wavefront issues 8 loads of
// A (two per row, each touching the lines of its 8 rows: 8 lines) and 8 of B
// (each over 8 consecutive 16-byte blocks: 2 lines), 80 line requests; at
// n = 64, 4 wavefronts x 16 steps. (A 1-D strip of 64 blocks would make
// 4 x 16 x 64 = 4,096.)
TEST(Matmul, WorkgroupsAreTheSdkSamplesTiles) {
  const auto s = run_stats("matmul --preset orr2014 --set gpu.cus=1 --set matmul.n=64");
  EXPECT_EQ(stat(s, "gpu.cu0.l1.reads"), 4 * 16 * (8 * 8 + 8 * 2));
}

TEST(Matmul, CorrectOnOneAndEightCus) {
  for (int cus : {1, 8}) {
    const auto s = run_stats(fmt::format("matmul --preset orr2014 --set gpu.cus={} --set matmul.n=64", cus));
    EXPECT_EQ(s["workload"]["results"]["wavefronts"].get<int>(), 4);  // 16 x 16 work-items
  }
}

// NQU as it runs: the left half of the first row doubled, for odd n a
// second pass for the middle column (a second launch), batches of `steps`
// boards each one launch of steps / 96 blocks whatever the boards; the
// compact kernel: every first-row column, one launch sized to the boards.
TEST(QueensFlat, CountsSolutions) {
  struct Case {
    const char* args;
    int solutions, rows, boards, launches;
  };
  for (const Case& c :
       {Case{"--set queens_flat.n=8", 92, 2, 21, 1},       // 4 left columns: 6+7+...
        Case{"--set queens_flat.n=9", 352, 2, 31, 2},      // + the middle column's pass
        Case{"--set queens_flat.n=4", 2, 2, 3, 1},         //
        Case{"--set queens_flat.n=13", 73712, 3, 553, 2},  // NQU's rule: 13 - 10 rows
        Case{"--set queens_flat.n=10 --set queens_flat.prefix_rows=3", 724, 3, 182, 1},
        Case{"--set queens_flat.n=10 --set queens_flat.prefix_rows=3 --set queens_flat.steps=96", 724, 3, 182,
             2},  // 182 boards in batches of 96
        Case{"--set queens_flat.n=8 --set queens_flat.style=compact --set queens_flat.prefix_rows=1", 92, 1, 8, 1},
        Case{"--set queens_flat.n=8 --set queens_flat.style=compact --set queens_flat.prefix_rows=3", 92, 3, 140, 1}}) {
    const auto s = run_stats(std::string("queens-flat --preset orr2014 ") + c.args);
    const auto& r = s["workload"]["results"];
    EXPECT_EQ(r["solutions"].get<int>(), c.solutions) << c.args;
    EXPECT_EQ(r["prefix_rows"].get<int>(), c.rows) << c.args;
    EXPECT_EQ(r["boards"].get<int>(), c.boards) << c.args;
    EXPECT_EQ(r["launches"].get<int>(), c.launches) << c.args;
    EXPECT_EQ(stat(s, "gpu.dispatcher.kernels"), c.launches) << c.args;
    if (std::string(c.args).find("compact") == std::string::npos) {
      const int per = std::string(c.args).find("steps=96") != std::string::npos ? 1 : 256;
      EXPECT_EQ(stat(s, "gpu.dispatcher.workgroups"), per * c.launches) << c.args;
    }
  }
  for (const auto& [args, msg] :
       {std::pair{"--set queens_flat.n=6 --set queens_flat.prefix_rows=6",
                  "queens_flat.prefix_rows=6: must be below "
                  "queens_flat.n=6"},
        {"--set queens_flat.steps=100", "queens_flat.steps=100: must be a multiple of 96"},
        {"--set queens_flat.n=14 --set queens_flat.prefix_rows=2", "NQU's stack holds 10 levels"}}) {
    const ProcResult r = run_fgsim(std::string("run queens-flat --quiet ") + args);
    EXPECT_EQ(r.code, 2) << args;
    EXPECT_NE(r.err.find(msg), std::string::npos) << r.err;
  }
}

// Merges, restarts and the continuations' gates synchronise through memory:
// checked against a one-cycle quantum, with yields.
TEST(CilkQuantum, SortAndStrassenWithYieldsDoNotDependOnTheQuantum) {
  for (const std::string base : {"sort --preset orr2014 --set gpu.cus=8 --set sort.n=20000 --set sort.capacity=256",
                                 "strassen --preset orr2014 --set gpu.cus=8 --set strassen.n=256 "
                                 "--set strassen.capacity=1024"}) {
    const auto one = run_stats(base + " --set sim.quantum=1");
    const auto dflt = run_stats(base + " --set sim.quantum=20");
    EXPECT_GT(stat(one, "yield.yields"), 0) << base;
    EXPECT_EQ(stat(one, "aggregator.run_ns"), stat(dflt, "aggregator.run_ns")) << base;
    EXPECT_EQ(stat(one, "yield.yields"), stat(dflt, "yield.yields")) << base;
  }
}

// gpu.cuN.wavefront_time (Table 3's cycles per wavefront): one sample per
// completed wavefront, between zero and the run. strassen's base cases are
// the longest wavefronts: the mean over all is at least the per-wavefront
// share of the total issue and memory time spent.
TEST(CilkStats, WavefrontTimeIsSampledPerWavefront) {
  const auto s = run_stats("strassen --preset orr2014 --set gpu.cus=1 --set strassen.n=64");
  const auto& w = s["stats"]["gpu.cu0.wavefront_time"];
  EXPECT_EQ(w["count"].get<double>(), stat(s, "gpu.cu0.wavefronts"));
  EXPECT_GT(w["mean"].get<double>(), 0.25 * stat(s, "aggregator.run_ns"));  // the base-case wavefront dominates
  EXPECT_LT(w["mean"].get<double>(), stat(s, "aggregator.run_ns"));
}

TEST(CilkStats, SortSameConfigSameStats) {
  expect_same_stats("sort --preset orr2014 --set gpu.cus=4 --set sort.n=20000 --set sort.capacity=256");
}

}  // namespace
}  // namespace fg::test
