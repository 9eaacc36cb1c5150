// SPDX-License-Identifier: Apache-2.0
// Fork-join on a persistent kernel (GTaP; workloads/runtime/forkjoin.cpp):
// every fork-join workload correct on the three presets at 1-8 CUs (each run
// also checks its result against the host: exit 0 only if equal); the
// runtime's books (payload traffic, batches, steals, queues) against what the
// runs must have done; the baselines, EPAQ, block workers and both
// termination rules; faults and bad input; the trace; determinism and the
// quantum.
#include <fmt/format.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <cstddef>
#include <fstream>
#include <nlohmann/json.hpp>
#include <numeric>
#include <set>
#include <string>
#include <tuple>
#include <vector>

#include "fg_test.h"
#include "gpu/host.h"
#include "runtime/forkjoin.h"
#include "sim/stats.h"
#include "top/gpu_top.h"

namespace fg::test {
namespace {

// A field of a distribution statistic.
double dist(const nlohmann::json& s, const std::string& name, const char* field) {
  return s["stats"].at(name).at(field).get<double>();
}

// A per-CU statistic summed over the CUs (`suffix`: e.g. ".stores").
double cu_sum(const nlohmann::json& s, const std::string& suffix) {
  double sum = 0;
  for (const auto& [k, v] : s["stats"].items())
    if (k.rfind("gpu.cu", 0) == 0 && k.size() > suffix.size() && k.ends_with(suffix) && v.is_number())
      sum += v.get<double>();
  return sum;
}

// Small versions of every fork-join run (name, arguments).
const std::vector<std::pair<const char*, const char*>> kRuns = {
    {"fib", "fib --set fib.mechanism=forkjoin --set fib.n=12"},
    {"queens", "queens --set queens.mechanism=forkjoin --set queens.n=7 --set queens.cutoff=3"},
    {"cilksort", "sort --set sort.mechanism=forkjoin --set sort.n=3000"},
    {"mergesort", "sort --set sort.mechanism=forkjoin --set sort.algorithm=mergesort --set sort.n=1500"},
    {"tree_full", "tree --set tree.depth=6 --set tree.mem_ops=8 --set tree.compute_iters=8"},
    {"tree_pruned", "tree --set tree.shape=pruned --set tree.depth=8 --set tree.mem_ops=8 --set tree.compute_iters=8"},
    {"tree_block",
     "tree --set tree.depth=5 --set tree.mem_ops=16 --set tree.compute_iters=16 --set forkjoin.workers=block "
     "--set forkjoin.group_size=64"},
    {"fj_sum", "fj-sum --set fj-sum.n=3000"},
    {"tree_scaling",
     "tree --set tree.body=scaling --set tree.depth=5 --set tree.mem_ops=16 --set tree.compute_iters=16 --set "
     "forkjoin.workers=block --set forkjoin.group_size=48"},
};

class ForkJoinOnPreset : public ::testing::TestWithParam<std::tuple<const char*, int>> {};

// Every workload passes its host check, and the runtime ran every task it
// created once to its end (finished = created; one start per task plus one
// per resumption).
TEST_P(ForkJoinOnPreset, EveryWorkloadIsCorrect) {
  const auto [preset, cus] = GetParam();
  for (const auto& [name, args] : kRuns) {
    SCOPED_TRACE(name);
    const auto s = run_stats(fmt::format("{} --preset {} --set gpu.cus={}", args, preset, cus));
    ASSERT_EQ(s["workload"]["checks"].size(), 1u);
    const double created = stat(s, "forkjoin.spawned") + 1;
    EXPECT_EQ(stat(s, "forkjoin.finished"), created);
    EXPECT_EQ(stat(s, "forkjoin.started"), created + stat(s, "forkjoin.resumed"));
    EXPECT_EQ(stat(s, "tasks.forkjoin.created"), created);
  }
}

INSTANTIATE_TEST_SUITE_P(Presets, ForkJoinOnPreset,
                         ::testing::Combine(::testing::Values("orr2014", "kim2014", "gh200"),
                                            ::testing::Values(1, 2, 4, 8)),
                         [](const auto& info) {
                           return fmt::format("{}_{}cu", std::get<0>(info.param), std::get<1>(info.param));
                         });

// The fork-join answers are the channel versions' (same host reference).
TEST(ForkJoin, ResultsAndOutputsMatchTheChannelVersions) {
  const auto dir = scratch_dir();
  for (const auto& [wl, n] : {std::pair{"fib", "fib.n=15"}, std::pair{"queens", "queens.n=8"}}) {
    const std::string a = (dir / "a.txt").string(), b = (dir / "b.txt").string();
    ASSERT_EQ(run_fgsim(fmt::format("run {} --quiet --set {} --output {}", wl, n, a)).code, 0);
    ASSERT_EQ(
        run_fgsim(fmt::format("run {} --quiet --set {} --set {}.mechanism=forkjoin --output {}", wl, n, wl, b)).code,
        0);
    EXPECT_EQ(slurp(a), slurp(b)) << wl;
    EXPECT_FALSE(slurp(a).empty());
  }
  // Sort: keys from a file, out sorted one per line.
  const std::string in = (dir / "keys.txt").string(), out = (dir / "sorted.txt").string();
  {
    std::ofstream f(in);
    f << "5\n-3\n+7\n0\n-3\n2147483647\n-2147483648\n12\n";
  }
  for (const char* alg : {"cilksort", "mergesort"}) {
    const auto r = run_fgsim(fmt::format(
        "run sort --quiet --set sort.mechanism=forkjoin --set sort.algorithm={} --input {} --output {}", alg, in, out));
    ASSERT_EQ(r.code, 0) << r.err;
    EXPECT_EQ(slurp(out), "-2147483648\n-3\n-3\n0\n5\n7\n12\n2147483647\n") << alg;
  }
}

// The payload books: a spawn stores the child's payload, every start or
// resumption loads its task's, every taskwait with children stores it (one
// per resumption), a finishing task stores its 8-byte result and a parent
// reads each child's. fib's record: 16 bytes.
// The payload (16 B in both programs): stored at every spawn (the
// arguments) and loaded at every start; a result stored at every finish and
// loaded by the parent. A taskwait that names nothing (the example fj-sum)
// stores the whole payload and its resumption loads it back; fib's names
// GTaP's fields: a and b stored (8 B), nothing loaded back.
TEST(ForkJoin, PayloadTrafficIsChargedAtEverySpillAndReload) {
  for (const bool named : {false, true}) {
    const auto s = run_stats(named ? "fib --preset kim2014 --set fib.mechanism=forkjoin --set fib.n=10"
                                   : "fj-sum --preset kim2014 --set fj-sum.n=177 --set fj-sum.grain=1");
    const double spawned = stat(s, "forkjoin.spawned"), started = stat(s, "forkjoin.started"),
                 resumed = stat(s, "forkjoin.resumed"), finished = stat(s, "forkjoin.finished");
    EXPECT_EQ(spawned, named ? 176 : 352);  // fib(10) makes 2 fib(11) - 1 = 177 tasks; 177 leaves 353
    EXPECT_EQ(resumed, named ? 88 : 176);   // every task with children waits once
    const double spill = named ? 8 : 16, reload = named ? 0 : 16;
    EXPECT_EQ(stat(s, "forkjoin.payload_bytes"),
              16 * (spawned + started - resumed) + (spill + reload) * resumed + 8 * (finished + spawned));
    EXPECT_GT(stat(s, "forkjoin.frame_bytes"), 0);
  }
}

// A run whose root task does all the work on one lane (its input below the
// cutoffs, one worker): the root alone, no task spawned.
nlohmann::json one_lane(const std::string& args) {
  const auto s = run_stats(args + " --preset gh200 --set forkjoin.groups=1");
  EXPECT_EQ(stat(s, "forkjoin.spawned"), 0);  // the root alone
  return s;
}

// Serial recursion (forkjoin/serial.h): every invocation saves its frame to
// the lane's local-memory stack and its return waits for the restores. A
// root below the cutoff computes fib(12) serially on one lane: F(13) = 233
// invocations, so 100 cycles more per L1 hit make the run at least 233 x 100
// cycles longer (the stores do not wait).
TEST(ForkJoin, SerialRecursionWaitsForEveryFramesRestore) {
  auto ns = [](int hit) {
    const auto s = one_lane(fmt::format(
        "fib --set fib.mechanism=forkjoin --set fib.n=12 --set fib.cutoff=20 --set gpu.l1.hit_latency={}", hit));
    return s["workload"]["results"]["kernel_ns"].get<double>();
  };
  const double cycle_ns = 1000.0 / 1980;
  EXPECT_GE(ns(130) - ns(30), 233 * 100 * cycle_ns);
}

// fib_sequential as clang -O3 and ptxas compile it (forkjoin/serial.h, fib.cpp):
// one call in a loop, so fib(n) makes F(n+1) invocations, F(n) of them with
// calls; every invocation, a leaf too, stores its 6-word frame (4 bytes a
// lane) and its return loads all 6, in flight together, and waits once.
// fib(14) has 377 invocations more than fib(12), 233 of them with calls
// more, and 377 calls more; nothing else differs on one lane. Instructions:
// an invocation 7 + 6 stores + 6 loads + a wait + 5; one with calls 2 more;
// a call 9.
TEST(ForkJoin, SerialRecursionSavesAndRestoresTheWholeFrame) {
  auto run = [](int n) {
    const auto s = one_lane(fmt::format("fib --set fib.mechanism=forkjoin --set fib.n={} --set fib.cutoff=20", n));
    return std::tuple{stat(s, "gpu.cu0.l1.writes"), stat(s, "gpu.cu0.l1.reads"),
                      stat(s, "gpu.cu0.wavefront_instructions")};
  };
  const auto [w12, r12, i12] = run(12);
  const auto [w14, r14, i14] = run(14);
  EXPECT_EQ(w14 - w12, 6 * 377);
  EXPECT_EQ(r14 - r12, 6 * 377);
  EXPECT_EQ(i14 - i12, 377 * (7 + 6 + 6 + 1 + 5) + 233 * 2 + 377 * 9);
}

// fib_sequential's static schedule (ptxas's stall counts, fib.cpp): per
// invocation the prologue's 7 instructions besides its stores take 40
// cycles, the epilogue's 3 before its last restore 22, the return 6: 57
// more than their issue slots (the stack pointer's add issues in the
// restores' shadow); per call 5 in 15 and 4 in 18, 24 more; an invocation
// with calls enters its loop, 2 in 8, 6 more. fib(14) against fib(12): 377
// invocations, 233 with calls, 377 calls more.
TEST(ForkJoin, SerialCodeFollowsItsCompiledSchedule) {
  auto ns = [](int n, bool stalls) {
    const auto s = one_lane(
        fmt::format("fib --set fib.mechanism=forkjoin --set fib.n={} --set fib.cutoff=20 --set gpu.cu.static_stalls={}",
                    n, stalls));
    return s["workload"]["results"]["kernel_ns"].get<double>();
  };
  const double extra = (ns(14, true) - ns(14, false)) - (ns(12, true) - ns(12, false));
  const double want = (377 * 57 + 233 * 6 + 377 * 24) * 1000.0 / 1980;
  EXPECT_NEAR(extra, want, 0.01 * want);
}

// mergesort_rec_device as compiled (sort.cpp): every invocation, a one-key
// range too, stores its 14-word frame; every level of the recursion merges
// its keys into the scratch array and copies them back (a store each way).
// 128 keys below the cutoff on one lane: 255 invocations and 7 levels; 64
// keys: 127 and 6.
TEST(ForkJoin, MergesortsSerialCodeStoresEveryFrameAndKey) {
  auto writes = [](int n) {
    const auto s = one_lane(fmt::format(
        "sort --set sort.mechanism=forkjoin --set sort.algorithm=mergesort --set sort.n={} --set sort.cutoff=128", n));
    return stat(s, "gpu.cu0.l1.writes");
  };
  EXPECT_EQ(writes(128) - writes(64), 14 * (255 - 127) + 2 * (128 * 7 - 64 * 6));
}

// cilksort's base case as compiled (sort.cpp, network_sort): the keys in a
// local array as wide as sort.cutoff_sort; every compare-exchange loads
// both keys from it and issues both (predicated) stores. 20 keys on one
// lane: a width of 64 has 32 more array slots to fill and 672 - 240
// exchanges more than one of 32 (21 passes of 32 against 15 of 16).
TEST(ForkJoin, CilksortsNetworkWorksInLocalMemory) {
  auto run = [](int width) {
    const auto s =
        one_lane(fmt::format("sort --set sort.mechanism=forkjoin --set sort.n=20 --set sort.cutoff_sort={}", width));
    return std::pair{stat(s, "gpu.cu0.l1.writes"), stat(s, "gpu.cu0.l1.reads")};
  };
  const auto [w32, r32] = run(32);
  const auto [w64, r64] = run(64);
  EXPECT_EQ(w64 - w32, 32 + 2 * (672 - 240));
  EXPECT_EQ(r64 - r32, 2 * (672 - 240));
}

// A sort.cutoff_sort that is not a power of two: the network is as wide as
// the next one (GTaP's cutoffs are powers of two), and the keys sorted.
TEST(ForkJoin, CilksortsNetworkRoundsItsWidthUp) {
  for (int w : {6, 48, 100}) {
    const auto s = run_stats(fmt::format(
        "sort --preset gh200 --set sort.mechanism=forkjoin --set sort.n=1000 --set sort.cutoff_sort={}", w));
    EXPECT_EQ(s["workload"]["checks"].size(), 1u) << w;
  }
}

// What the compiled code's static schedule (gpu.cu.static_stalls) adds to
// the kernel time (ns) of the run `args` (gh200).
double stall_ns(const std::string& args) {
  double ns[2];
  for (bool stalls : {false, true}) {
    const auto s = run_stats(fmt::format("{} --preset gh200 --set gpu.cu.static_stalls={}", args, stalls));
    ns[stalls] = s["workload"]["results"]["kernel_ns"].get<double>();
  }
  return ns[1] - ns[0];
}
// A tree of depth 1 on one block worker of 32 lanes, 3 tasks one after the
// other, with `loads` loads and `iters` iterations per task and the body
// `body` (tree.body).
std::string block_tree(const std::string& body, int loads, int iters) {
  return fmt::format(
      "tree --set tree.body={} --set tree.depth=1 --set tree.mem_ops={} --set tree.compute_iters={} --set "
      "forkjoin.workers=block --set forkjoin.group_size=32 --set forkjoin.groups=1",
      body, loads, iters);
}
// Fig. 3's tree body (tree.body=scaling).
double scaling_stall_ns(int loads, int iters) { return stall_ns(block_tree("scaling", loads, iters)); }
constexpr double kGh200CycleNs = 1000.0 / 1980;

// Each iteration of the tree body's chain is the paper's mix_fma, two
// dependent double FMAs with the loop's counter, test and branch: 5
// instructions a lone warp takes 23 cycles to issue (ptxas's schedule), 18
// more than their issue slots. 100 iterations a lane against 1: 99 x 18
// cycles more per task, 3 tasks.
TEST(ForkJoin, TheScalingTreesChainFollowsItsCompiledSchedule) {
  const double extra = scaling_stall_ns(32, 3200) - scaling_stall_ns(32, 32);
  EXPECT_NEAR(extra, 3 * 99 * 18 * kGh200CycleNs, 0.01 * 3 * 99 * 18 * kGh200CycleNs);
}

// GTaP's index is a remainder by the input's size, a runtime value: per load
// (block version) 10 dependent instructions in 64 cycles, the value's
// address 1 in 6, the sum and the back-edge 2 in 11: 68 cycles more than
// their issue slots (the 2 instructions in the index load's shadow, 6
// cycles, wait for the load anyway). 10 loads a lane against 1: 9 x 68
// cycles more per task, 3 tasks.
TEST(ForkJoin, TheScalingTreesIndexFollowsItsCompiledSchedule) {
  const double extra = scaling_stall_ns(320, 32) - scaling_stall_ns(32, 32);
  EXPECT_NEAR(extra, 3 * 9 * 68 * kGh200CycleNs, 0.01 * 3 * 9 * 68 * kGh200CycleNs);
}

// Figs. 7-9's tree body (tree.body=work).
double work_stall_ns(int loads, int iters) { return stall_ns(block_tree("work", loads, iters)); }

// A load step of GTaP's block program: the index's xorshift and address, 6
// instructions in 29 cycles, the load, the loop's counters in its shadow (4
// in 6, hidden by the load), the add waiting for the value and the back-edge
// (2 in 17): 38 cycles more than their issue slots. 10 loads a lane against
// 1: 9 x 38 cycles more per task, 3 tasks.
TEST(ForkJoin, TheTreeBodysLoadStepFollowsItsCompiledSchedule) {
  const double extra = work_stall_ns(320, 32) - work_stall_ns(32, 32);
  EXPECT_NEAR(extra, 3 * 9 * 38 * kGh200CycleNs, 0.01 * 3 * 9 * 38 * kGh200CycleNs);
}

// A multiply-add step (the xorshift, I2F, DFMA, xor and the counters): 17
// instructions in 41 cycles, 24 more than their issue slots.
TEST(ForkJoin, TheTreeBodysMultiplyAddStepFollowsItsCompiledSchedule) {
  const double extra = work_stall_ns(32, 320) - work_stall_ns(32, 32);
  EXPECT_NEAR(extra, 3 * 9 * 24 * kGh200CycleNs, 0.01 * 3 * 9 * 24 * kGh200CycleNs);
}

// Figs. 7-9's block body: ptxas puts a BSSY/BSYNC pair around each of its
// loops, so lanes that leave a loop early wait at its exit for the others
// (docs/forkjoin.md "Reconvergence"). The model has no explicit meeting there:
// the warp's order (deeper path, then earlier site) gives the same. One warp
// of 32 lanes, 3 tasks: with 8 loads a task lanes 0-7 load and lanes 8-31
// take the loop's zero-trip exit (1 instruction, once a task); what follows
// the loop issues once for the warp, as with 32 loads (one a lane). With 8
// multiply-add steps, lanes 8-31 skip the preheader and the loop, which lanes
// 0-7 issue as with 32. On 64 lanes (two warps), 40 loads and steps against
// 64: the second warp's lanes 40-63 take the exit, once a task.
TEST(ForkJoin, TheTreeBodysLanesLeavingALoopEarlyWaitAtItsExit) {
  auto issued = [](int loads, int iters, int lanes) {
    const auto s = run_stats(
        fmt::format("{} --preset gh200 --set forkjoin.group_size={}", block_tree("work", loads, iters), lanes));
    return cu_sum(s, ".wavefront_instructions");
  };
  EXPECT_EQ(issued(8, 32, 32) - issued(32, 32, 32), 3);
  EXPECT_EQ(issued(32, 8, 32), issued(32, 32, 32));
  EXPECT_EQ(issued(40, 40, 64) - issued(64, 64, 64), 3);
}

// The full tree's thread program's multiply-add loop, unrolled 4 times: 45
// instructions in 84 cycles per 4 steps, 39 more than their issue slots.
// Depth 1 on one warp of 32 thread workers: two waves (the leaves together,
// then the root), 400 steps a task against 4: 2 x 100 x 39 cycles more.
TEST(ForkJoin, TheFullTreesThreadProgramsUnrolledStepsFollowTheirCompiledSchedule) {
  auto stall = [](int iters) {
    return stall_ns(fmt::format(
        "tree --set tree.depth=1 --set tree.mem_ops=4 --set tree.compute_iters={} --set forkjoin.groups=1", iters));
  };
  const double extra = stall(404) - stall(4);
  EXPECT_NEAR(extra, 2 * 100 * 39 * kGh200CycleNs, 0.01 * 2 * 100 * 39 * kGh200CycleNs);
}

// The full tree's thread program has no `#pragma unroll 1`: its load loop,
// unrolled 4 times, has 4 loads in flight, where the pruned tree's has one.
// Depth 1 on one warp of 32 thread workers, both trees two waves of tasks
// (the leaves together on their lanes, then the root): the time a load adds is about a quarter of the pruned
// tree's (0.26; two loads in flight would make it half); without the
// unrolling (tree.unroll=none) about the same as the pruned tree's.
TEST(ForkJoin, TheFullTreesThreadProgramHasFourLoadsInFlight) {
  auto per_load = [](const std::string& shape, const std::string& unroll = "compiled") {
    double ns[2];
    for (int i = 0; i < 2; ++i) {
      const auto s = run_stats(
          fmt::format("tree --preset gh200 --set tree.shape={} --set tree.depth=1 --set tree.mem_ops={} --set "
                      "tree.compute_iters=0 --set forkjoin.groups=1 --set tree.unroll={}",
                      shape, i ? 404 : 4, unroll));
      ns[i] = s["workload"]["results"]["kernel_ns"].get<double>();
    }
    return (ns[1] - ns[0]) / 400;
  };
  const double full = per_load("full"), pruned = per_load("pruned");
  EXPECT_GT(pruned, 0);
  EXPECT_LT(full, 0.35 * pruned) << full << " " << pruned;
  // The ablation tree.unroll=none: one load in flight, as the pruned tree's.
  const double none = per_load("full", "none");
  EXPECT_GT(none, 0.9 * pruned) << none << " " << pruned;
  EXPECT_LT(none, 1.1 * pruned) << none << " " << pruned;
}

// Batches: one worker runs up to a warp of tasks per iteration, publishes
// what it does not keep and pops it back; nobody steals. A batch is what the
// last one generated (kept) or, when it generated nothing, a pop: as the
// recursion unwinds, leaves resume half as many parents, so fib's batches
// average about half a warp (GTaP's rule: the deque is not touched while
// kept tasks remain).
TEST(ForkJoin, OneWarpRunsBatchesOfUpToAWarp) {
  const auto s = run_stats("fib --preset kim2014 --set fib.mechanism=forkjoin --set fib.n=14 --set forkjoin.groups=1");
  EXPECT_EQ(dist(s, "forkjoin.batch_tasks", "max"), 32);
  EXPECT_GT(dist(s, "forkjoin.batch_tasks", "mean"), 12);
  EXPECT_GT(stat(s, "forkjoin.kept"), 0);
  EXPECT_GT(stat(s, "forkjoin.published"), 0);
  EXPECT_EQ(stat(s, "forkjoin.popped"), stat(s, "forkjoin.published") + 1);  // and the root
  EXPECT_EQ(stat(s, "forkjoin.steal_tries"), 0);
  EXPECT_EQ(stat(s, "forkjoin.started"), stat(s, "forkjoin.kept") + stat(s, "forkjoin.popped"));
}

// With many workers the tasks spread by stealing: what was published was
// popped or stolen, and more workers finish sooner.
TEST(ForkJoin, WorkersStealAndScale) {
  const std::string base = "fib --preset gh200 --set fib.mechanism=forkjoin --set fib.n=18";
  const auto one = run_stats(base + " --set forkjoin.groups=2");
  const auto many = run_stats(base + " --set forkjoin.groups=64");
  for (const auto* s : {&one, &many}) {
    EXPECT_GT(stat(*s, "forkjoin.steals"), 0);
    EXPECT_GE(stat(*s, "forkjoin.stolen"), stat(*s, "forkjoin.steals"));
    EXPECT_EQ(stat(*s, "forkjoin.popped") + stat(*s, "forkjoin.stolen"), stat(*s, "forkjoin.published") + 1);
  }
  EXPECT_LT(many["workload"]["results"]["kernel_ns"].get<double>(),
            0.5 * one["workload"]["results"]["kernel_ns"].get<double>());
}

// GTaP's victim (forkjoin.victim=clock): xorshift32 of the clock's low 32
// bits plus the worker times 2654435761 (thread workers) or 1234 (block
// workers), modulo the workers, the successor on itself. Values worked by
// hand (1, 0: 1 ^ 1<<13 = 0x2001, ^ 0x2001<<5 = 0x42021, % 64 = 33) and in
// Python from the formula of runtime/common/gtap_runtime_common.cuh.
TEST(ForkJoin, TheClockVictimIsGtapsXorshiftOfTheClock) {
  EXPECT_EQ(fj::clock_victim(1, 0, 64, false), 33u);
  EXPECT_EQ(fj::clock_victim((1ull << 32) + 1, 0, 64, false), 33u);  // clock64's low 32 bits
  EXPECT_EQ(fj::clock_victim(0, 0, 64, false), 1u);                  // itself: the next worker
  EXPECT_EQ(fj::clock_victim(0, 1, 64, false), 17u);
  EXPECT_EQ(fj::clock_victim(123456789, 5, 512, false), 298u);
  EXPECT_EQ(fj::clock_victim(123456789, 5, 132, true), 84u);
  EXPECT_EQ(fj::clock_victim(7, 3, 4, true), 2u);
}

// The clock's victim makes the run the seed's no more (fib draws nothing
// from it); the stream ablation's victims are the seed's.
TEST(ForkJoin, OnlyTheStreamVictimDependsOnTheSeed) {
  const std::string base =
      "fib --preset gh200 --set fib.mechanism=forkjoin --set fib.n=18 --set forkjoin.groups=64 --set forkjoin.victim=";
  const auto ns = [](const nlohmann::json& s) { return s["workload"]["results"]["kernel_ns"].get<double>(); };
  const auto c1 = run_stats(base + "clock --set sim.seed=1"), c2 = run_stats(base + "clock --set sim.seed=2");
  EXPECT_GT(stat(c1, "forkjoin.steal_tries"), 0);
  EXPECT_EQ(ns(c1), ns(c2));
  EXPECT_EQ(stat(c1, "forkjoin.steal_tries"), stat(c2, "forkjoin.steal_tries"));
  const auto s1 = run_stats(base + "stream --set sim.seed=1"), s2 = run_stats(base + "stream --set sim.seed=2");
  EXPECT_NE(stat(s1, "forkjoin.steal_tries"), stat(s2, "forkjoin.steal_tries"));
}

// fib 18 on 64 warps with `settings`, at seeds 1, 2 and 1 again.
struct SeedRuns {
  nlohmann::json s1, s2, again;
};
SeedRuns fib_at_seeds(const std::string& settings) {
  const std::string base = "fib --preset gh200 --set fib.mechanism=forkjoin --set fib.n=18 --set forkjoin.groups=64 " +
                           settings + " --set sim.seed=";
  return {run_stats(base + "1"), run_stats(base + "2"), run_stats(base + "1")};
}

// With the CUs' cycle counters started where the seed puts them
// (gpu.cu.clock_start=seeded), GTaP's clock victim differs by seed, as a
// GPU's runs do; one seed still gives one run.
TEST(ForkJoin, ASeededClockStartMakesTheClockVictimTheSeeds) {
  const auto [c1, c2, again] = fib_at_seeds("--set gpu.cu.clock_start=seeded");
  EXPECT_NE(stat(c1, "forkjoin.steal_tries"), stat(c2, "forkjoin.steal_tries"));
  EXPECT_EQ(stat(c1, "forkjoin.steal_tries"), stat(again, "forkjoin.steal_tries"));
  EXPECT_EQ(c1["workload"]["results"]["kernel_ns"], again["workload"]["results"]["kernel_ns"]);
}

// A perturbed L2 (gpu.l2.perturb, Alameldeen & Wood) makes a run the seed's
// even with the zero-start clock victim: the steals' race goes otherwise at
// another seed, and one seed still gives one run.
TEST(ForkJoin, APerturbedL2MakesTheRunTheSeeds) {
  const auto [c1, c2, again] = fib_at_seeds("--set gpu.l2.perturb=4");
  EXPECT_NE(stat(c1, "forkjoin.steal_tries"), stat(c2, "forkjoin.steal_tries"));
  EXPECT_NE(c1["workload"]["results"]["kernel_ns"], c2["workload"]["results"]["kernel_ns"]);
  EXPECT_EQ(stat(c1, "forkjoin.steal_tries"), stat(again, "forkjoin.steal_tries"));
  EXPECT_EQ(c1["workload"]["results"]["kernel_ns"], again["workload"]["results"]["kernel_ns"]);
  EXPECT_GT(stat(c1, "gpu.l2.bank0.perturb_cycles"), 0);
}

// The baselines (Sec. 6.1): one global queue (no steals), per-warp Chase-Lev
// deques with single pops and steals; both correct.
TEST(ForkJoin, GlobalQueueAndChaseLevBaselines) {
  for (const char* wl :
       {"fib --set fib.mechanism=forkjoin --set fib.n=14", "sort --set sort.mechanism=forkjoin --set sort.n=2000"}) {
    const auto gq = run_stats(fmt::format("{} --preset gh200 --set forkjoin.groups=16 --set forkjoin.queue=gq", wl));
    EXPECT_EQ(stat(gq, "forkjoin.steal_tries"), 0) << wl;
    EXPECT_GT(stat(gq, "forkjoin.popped"), 0) << wl;
    const auto cl = run_stats(fmt::format("{} --preset gh200 --set forkjoin.groups=16 --set forkjoin.queue=cl", wl));
    EXPECT_GT(stat(cl, "forkjoin.stolen"), 0) << wl;
    EXPECT_EQ(stat(cl, "forkjoin.lock_fails"), 0) << wl;  // Chase-Lev thieves take no lock
  }
}

// EPAQ (Sec. 4.4): the spawns' and taskwaits' hints fill the queues the
// programs name (fib: 0 above the cutoff, 1 below, 2 continuations).
TEST(ForkJoin, ExecutionPathQueuesGetTheTasksTheirHintsName) {
  const auto s = run_stats(
      "fib --preset gh200 --set fib.mechanism=forkjoin --set fib.n=16 --set fib.cutoff=6 --set forkjoin.queues=3 "
      "--set forkjoin.groups=8");
  const double q0 = stat(s, "forkjoin.queue0_tasks"), q1 = stat(s, "forkjoin.queue1_tasks"),
               q2 = stat(s, "forkjoin.queue2_tasks");
  // Tasks with n >= 6 spawn; those below compute serially. fib(16) with
  // cutoff 6: 2 fib(12) - 1 = 287 spawning tasks... counted by the host.
  std::uint64_t above = 0, below = 0;
  auto count = [&](auto&& self, int n, bool root) -> void {
    if (!root) (n >= 6 ? above : below) += 1;
    if (n < 2 || n < 6) return;
    self(self, n - 1, false);
    self(self, n - 2, false);
  };
  count(count, 16, true);
  EXPECT_EQ(q0, above);
  EXPECT_EQ(q1, below);
  EXPECT_EQ(q2, above + 1);  // every spawning task's continuation, the root's too
  const auto one = run_stats(
      "fib --preset gh200 --set fib.mechanism=forkjoin --set fib.n=16 --set fib.cutoff=6 --set forkjoin.groups=8");
  EXPECT_EQ(stat(one, "forkjoin.queue0_tasks"), above + below + above + 1);
  for (const char* wl : {"queens --set queens.mechanism=forkjoin --set queens.n=8 --set forkjoin.queues=2",
                         "sort --set sort.mechanism=forkjoin --set sort.n=3000 --set forkjoin.queues=3"}) {
    const auto q = run_stats(fmt::format("{} --preset gh200", wl));
    EXPECT_GT(stat(q, "forkjoin.queue0_tasks"), 0) << wl;
    EXPECT_GT(stat(q, "forkjoin.queue1_tasks"), 0) << wl;
  }
}

// Block workers: one task per workgroup; a task started once per start of
// the workgroup (not per lane); both runtimes' deques.
TEST(ForkJoin, BlockWorkersRunOneTaskPerWorkgroup) {
  const auto s = run_stats(
      "tree --preset gh200 --set tree.depth=6 --set tree.mem_ops=64 --set tree.compute_iters=64 --set "
      "forkjoin.workers=block --set forkjoin.group_size=64");
  EXPECT_EQ(s["workload"]["results"]["tasks"].get<int>(), 127);
  EXPECT_EQ(stat(s, "forkjoin.finished"), 127);
  EXPECT_EQ(dist(s, "forkjoin.batch_tasks", "max"), 1);
  // The jan2026 runtime's block deques are the warps' locked ones (thieves
  // meet at victims' locks); the feb2026 runtime's are Chase-Lev (no lock).
  EXPECT_GT(stat(s, "forkjoin.lock_fails"), 0);
  const auto cl = run_stats(
      "tree --preset gh200 --set tree.depth=6 --set tree.mem_ops=64 --set tree.compute_iters=64 --set "
      "forkjoin.workers=block --set forkjoin.group_size=64 --set forkjoin.runtime=feb2026");
  EXPECT_EQ(stat(cl, "forkjoin.finished"), 127);
  EXPECT_EQ(dist(cl, "forkjoin.batch_tasks", "max"), 1);
  EXPECT_EQ(stat(cl, "forkjoin.lock_fails"), 0);
  EXPECT_GT(stat(cl, "forkjoin.steal_tries"), 0);
  // The block workers' baseline: one global queue, a task per claim.
  const auto gq = run_stats(
      "tree --preset gh200 --set tree.depth=6 --set tree.mem_ops=64 --set tree.compute_iters=64 --set "
      "forkjoin.workers=block --set forkjoin.group_size=64 --set forkjoin.queue=gq");
  EXPECT_EQ(stat(gq, "forkjoin.finished"), 127);
  EXPECT_EQ(stat(gq, "forkjoin.steal_tries"), 0);
  EXPECT_GT(stat(gq, "forkjoin.popped"), 0);
  EXPECT_EQ(stat(gq, "forkjoin.popped") + stat(gq, "forkjoin.kept"), stat(gq, "forkjoin.started"));
}

// A block task's lanes decide together whether its taskwait has children to
// wait for: they read the count as the barrier after the taskwait releases
// them all at once. They used to read it after the compiled runtime's step
// that follows the barrier (forkjoin.code=compiled, gh200's), and thread 0's
// suspend resets the count: a warp held up in that step (behind other blocks'
// compute on its SIMD) read 0, ran on past the taskwait, and its finished
// frame was resumed when the task came back, a crash (the validation page's
// Fig. 7c at D 12 and 4,096 compute iterations, with gpu.l2.clock=1791 and
// gpu.l1.tags=4 set on gh200, 2026-12-02; at the page's one-cycle quantum and
// at this 20 ns). Every task must finish, with the tree's checked result.
// The race needs that timing: a later change of the model may stop this run
// meeting it, and the fault on resuming a finished task is then the guard.
TEST(ForkJoin, ABlockTasksWarpsDecideItsTaskwaitTogether) {
  const auto r = run_fgsim(
      "run tree --quiet --preset gh200 --seed 1 --set forkjoin.groups=125 --set forkjoin.group_size=64 "
      "--set tree.input_log2=19 --set forkjoin.runtime=feb2026 --set tree.depth=12 --set forkjoin.workers=block "
      "--set tree.compute_iters=4096 --set gpu.l2.clock=1791 --set gpu.l2.hit_latency=217 "
      "--set gpu.l2.far_latency=199 --set gpu.l1.tags=4 --stats -");
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_EQ(stat(nlohmann::json::parse(r.out), "forkjoin.finished"), 8191);
}

// Both termination rules end every run with every task done.
TEST(ForkJoin, BothTerminationRulesFinishEveryTask) {
  for (const char* t : {"all", "first"}) {
    const auto s = run_stats(
        fmt::format("tree --preset kim2014 --set tree.depth=7 --set tree.mem_ops=4 --set tree.compute_iters=4 --set "
                    "forkjoin.terminate={}",
                    t));
    EXPECT_EQ(stat(s, "forkjoin.finished"), 255) << t;
  }
}

// A pool or deque too small is a simulated fault naming the key to raise.
TEST(ForkJoinFault, AFullPoolOrDequeNamesItsParameter) {
  auto r = run_fgsim(
      "run fib --quiet --preset kim2014 --set fib.mechanism=forkjoin --set fib.n=18 --set forkjoin.groups=1 "
      "--set forkjoin.max_tasks_per_warp=64");
  EXPECT_EQ(r.code, 3) << r.err;
  EXPECT_NE(r.err.find("forkjoin.max_tasks_per_warp"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("task pool of warp 0 is full"), std::string::npos) << r.err;
  r = run_fgsim(
      "run fib --quiet --preset kim2014 --set fib.mechanism=forkjoin --set fib.n=18 --set forkjoin.groups=1 "
      "--set forkjoin.max_tasks_per_warp=4096 --set forkjoin.queues=8 --set fib.cutoff=2");
  EXPECT_EQ(r.code, 3) << r.err;
  EXPECT_NE(r.err.find("deque of warp 0"), std::string::npos) << r.err;
}

// Bad runtime parameters: exit 2, one line, naming the key.
TEST(ForkJoinBadInput, RefusedWithTheKey) {
  const std::vector<std::pair<std::string, std::string>> cases = {
      {"fib --set fib.mechanism=forkjoin --set forkjoin.queues=2 --set forkjoin.queue=gq", "forkjoin.queues"},
      {"fib --set fib.mechanism=forkjoin --set forkjoin.backoff_min=100 --set forkjoin.backoff_max=50",
       "forkjoin.backoff_min"},
      {"fib --set fib.mechanism=forkjoin --set forkjoin.workers=block", "forkjoin.workers"},
      {"fib --set fib.mechanism=forkjoin --set forkjoin.assume_no_taskwait=on", "forkjoin.assume_no_taskwait"},
      {"queens --set queens.mechanism=forkjoin --set forkjoin.terminate=first", "forkjoin.terminate"},
      {"fib --set fib.cutoff=4", "fib.cutoff"},
      {"fib --set fib.mechanism=forkjoin --set fib.capacity=512", "fib.capacity"},
      {"sort --set sort.mechanism=forkjoin --set sort.algorithm=pieces", "sort.algorithm"},
      {"sort --set sort.algorithm=mergesort", "sort.algorithm"},
      {"sort --set sort.merge_chunk=7", "sort.merge_chunk"},
      {"sort --set sort.algorithm=pieces --set sort.merge_base=32", "sort.merge_base"},
      {"sort --set sort.mechanism=forkjoin --set sort.merge_base=32", "sort.merge_base"},
      {"sort --set sort.mechanism=forkjoin --set sort.cutoff=64", "sort.cutoff"},
      {"sort --set sort.mechanism=forkjoin --set sort.merge_chunk=64", "sort.merge_chunk"},
      {"fib --set fib.mechanism=forkjoin --set forkjoin.groups=100000", "forkjoin.groups"},
      {"tree --set forkjoin.queue=cl --set forkjoin.workers=block", "forkjoin.queue"},
      {"fib --set fib.mechanism=forkjoin --set forkjoin.runtime=mar2026", "forkjoin.runtime"},
      {"fib --set gpu.cu.fence_latency=-5", "gpu.cu.fence_latency"},
      {"fib --set fib.mechanism=forkjoin --set forkjoin.gq_commit=ordered", "forkjoin.gq_commit"},
      // A partial warp of thread workers (it hung, or ended with tasks unfinished).
      {"fib --set fib.mechanism=forkjoin --set forkjoin.group_size=16", "forkjoin.group_size"},
      {"tree --set tree.depth=4 --set forkjoin.group_size=48", "forkjoin.group_size"},
      // A 1 + 1 merge spawned itself until the pool was full.
      {"sort --set sort.mechanism=forkjoin --set sort.cutoff_merge=2", "sort.cutoff_merge"},
      // Settings of what the run does not have.
      {"fib --set fib.mechanism=forkjoin --set forkjoin.queue=gq --set forkjoin.backoff=exp", "forkjoin.backoff"},
      {"fib --set fib.mechanism=forkjoin --set forkjoin.queue=cl --set forkjoin.backoff=exp", "forkjoin.backoff"},
      {"tree --set forkjoin.workers=block --set forkjoin.runtime=feb2026 --set forkjoin.backoff=exp",
       "forkjoin.backoff"},
      {"fib --set fib.mechanism=forkjoin --set forkjoin.max_tasks_per_block=64", "forkjoin.max_tasks_per_block"},
      {"tree --set forkjoin.workers=block --set forkjoin.max_tasks_per_warp=64", "forkjoin.max_tasks_per_warp"},
      {"fib --set fib.mechanism=forkjoin --set forkjoin.queue=gq --set forkjoin.victim=stream", "forkjoin.victim"},
      {"tree --set forkjoin.workers=block --set forkjoin.queue=gq --set forkjoin.victim=clock", "forkjoin.victim"},
      // A record smaller than the program's arguments (they were cut).
      {"fib --set fib.mechanism=forkjoin --set forkjoin.payload=8", "forkjoin.payload"},
  };
  for (const auto& [args, key] : cases) {
    const auto r = run_fgsim("run " + args + " --quiet");
    EXPECT_EQ(r.code, 2) << args << ": " << r.err;
    EXPECT_NE(r.err.find(key), std::string::npos) << args << ": " << r.err;
    EXPECT_EQ(test::error_lines(r.err), 1) << args << ": " << r.err;
  }
}

// gh200's hashed interleaving (mem.interleave=xor) spreads the deques'
// metadata over the L2 banks; line mod banks puts every warp's deque words
// (a stride of 210 lines with three queues) on two of its twelve banks.
TEST(ForkJoin, HashedInterleavingSpreadsTheDequesOverTheBanks) {
  auto atomics = [](const std::string& interleave) {
    const auto s = run_stats(
        "fib --preset gh200 --set fib.mechanism=forkjoin --set fib.n=16 --set forkjoin.queues=3 --set "
        "forkjoin.groups=64 --set mem.interleave=" +
        interleave);
    std::vector<double> v;
    for (int b = 0; b < 12; ++b) v.push_back(stat(s, fmt::format("gpu.l2.bank{}.atomics", b)));
    return v;
  };
  // Two banks take most atomics under modulo (the deques' lock and count
  // words); the fold leaves no bank above a fifth of them.
  auto busiest = [](const std::vector<double>& v) {
    return *std::max_element(v.begin(), v.end()) / std::accumulate(v.begin(), v.end(), 0.0);
  };
  EXPECT_GT(busiest(atomics("modulo")), 0.3);
  EXPECT_LT(busiest(atomics("xor")), 0.2);
}

// Worker activity as Perfetto tracks: every worker that ran tasks has "run"
// spans on its track.
TEST(ForkJoin, TraceHasATrackPerWorker) {
  const std::string path = (scratch_dir() / "t.json").string();
  const auto r = run_fgsim(
      "run fib --quiet --preset gh200 --set fib.mechanism=forkjoin --set fib.n=12 --set forkjoin.groups=4 --trace " +
      path);
  ASSERT_EQ(r.code, 0) << r.err;
  const auto t = nlohmann::json::parse(slurp(path));
  int tracks = 0, runs = 0;
  for (const auto& e : t["traceEvents"]) {
    if (e["ph"] == "M" && e["name"] == "thread_name" && e["args"]["name"].get<std::string>().rfind("warp ", 0) == 0)
      ++tracks;
    if (e["ph"] == "X" && e["name"].get<std::string>().rfind("run ", 0) == 0) ++runs;
  }
  EXPECT_EQ(tracks, 4);
  EXPECT_GT(runs, 4);
}

// A run's trace events (empty when the run fails).
nlohmann::json trace_of(const std::string& args) {
  const std::string path = (scratch_dir() / "spans.json").string();
  const auto r = run_fgsim("run " + args + " --quiet --trace " + path);
  EXPECT_EQ(r.code, 0) << r.err;
  if (r.code) return nlohmann::json::array();
  return nlohmann::json::parse(slurp(path))["traceEvents"];
}

// forkjoin.globals=packed puts gq's head, tail and alloc and the termination words in one line, as ptxas lays
// out GTaP's __device__ globals: the head's CAS, the all-finished flag's exchange and the polling loads of head
// and tail all go to one L2 bank (its trace track); with a line each (lines) the polling reads spread over the
// words' banks, so the head's bank reads less than half as often.
TEST(ForkJoin, PackedGlobalsShareOneLine) {
  auto per_bank = [](const std::string& layout) {
    const auto t = trace_of(
        "fib --preset gh200 --set fib.mechanism=forkjoin --set fib.n=10 --set forkjoin.groups=8 --set "
        "forkjoin.queue=gq --set forkjoin.terminate=all --set forkjoin.globals=" +
        layout);
    std::map<std::pair<int, int>, std::string> names;
    for (const auto& e : t)
      if (e["ph"] == "M" && e["name"] == "thread_name")
        names[{e["pid"].get<int>(), e["tid"].get<int>()}] = e["args"]["name"].get<std::string>();
    std::map<std::string, std::map<std::string, int>> ops;  // bank track -> span name -> count
    for (const auto& e : t) {
      if (e["ph"] != "X") continue;
      const auto it = names.find({e["pid"].get<int>(), e["tid"].get<int>()});
      if (it != names.end() && it->second.rfind("gpu.l2.bank", 0) == 0) ++ops[it->second][e["name"].get<std::string>()];
    }
    return ops;
  };
  auto with = [](const auto& ops, const std::string& op) {
    std::vector<std::string> v;
    for (const auto& [bank, n] : ops)
      if (n.count(op)) v.push_back(bank);
    return v;
  };
  const auto packed = per_bank("packed"), lines = per_bank("lines");
  const auto cas = with(packed, "cas"), exch = with(packed, "exch");
  ASSERT_EQ(cas.size(), 1u);
  ASSERT_EQ(exch.size(), 1u);
  EXPECT_EQ(exch, cas);
  // The polling loads of head and tail: every other bank reads less than a third as often (here 2,436 reads
  // against at most 171; with the tail a line away its bank would read about as often as the head's).
  const int hot = packed.at(cas[0]).at("read");
  for (const auto& [bank, n] : packed)
    if (bank != cas[0] && n.count("read")) {
      EXPECT_LT(3 * n.at("read"), hot) << bank;
    }
  const auto lcas = with(lines, "cas");
  ASSERT_EQ(lcas.size(), 1u);
  ASSERT_EQ(with(lines, "exch").size(), 1u);
  EXPECT_LT(2 * lines.at(lcas[0]).at("read"), hot);  // here 978 against 2,436
}

// The durations (ns) of a run's trace spans named `name` (or "run N").
std::vector<double> spans(const std::string& args, const std::string& name) {
  std::vector<double> out;
  for (const auto& e : trace_of(args))
    if (e["ph"] == "X" && e["name"].get<std::string>().rfind(name, 0) == 0)
      out.push_back(e["dur"].get<double>() * 1000.0);
  return out;
}

// L2 round trips in a time `at(hit)` (ns) measured at an L2 hit latency: how
// much longer it is when gh200's hit latency (217 cycles of its 1791 MHz L2)
// is raised by 1,000, in units of 1,000 L2 cycles.
template <class F>
double raised_latency_trips(F&& at) {
  return (at(1217) - at(217)) / (1000 * 1000.0 / 1791);
}

// L2 round trips on the path of a run's execution `index` (of `count`
// "run 1" spans, one worker on gh200): how much longer it takes when the L2
// hit latency is raised by 1,000 cycles, in units of 1,000 cycles. The
// runtime's memory operations alone (forkjoin.code=free unless `args` sets
// it): gh200's compiled code adds its `__device__` pointers' loads and
// register saves (ATaskStartIsThreeDependentRoundTrips counts them once).
double round_trips(const std::string& args, std::size_t index, std::size_t count) {
  return raised_latency_trips([&](int hit) {
    const char* code = args.find("forkjoin.code=") == std::string::npos ? " --set forkjoin.code=free" : "";
    const auto s =
        spans(fmt::format("{}{} --preset gh200 --set forkjoin.groups=1 --set gpu.l2.hit_latency={}", args, code, hit),
              "run ");
    EXPECT_EQ(s.size(), count) << args;
    return s.size() == count ? s[index] : 0.0;
  });
}

// One worker's trace spans (name, start and duration in ns), in order.
struct Span {
  std::string name;
  double ts = 0, dur = 0;
};
std::vector<Span> track_spans(const std::string& args, const std::string& worker) {
  const auto trace = trace_of(args);
  std::vector<Span> out;
  std::set<std::pair<int, int>> mine;
  for (const auto& e : trace)
    if (e["ph"] == "M" && e["name"] == "thread_name" && e["args"]["name"] == worker)
      mine.insert({e["pid"].get<int>(), e["tid"].get<int>()});
  for (const auto& e : trace)
    if (e["ph"] == "X" && mine.count({e["pid"].get<int>(), e["tid"].get<int>()}))
      out.push_back({e["name"].get<std::string>(), e["ts"].get<double>() * 1000.0, e["dur"].get<double>() * 1000.0});
  std::stable_sort(out.begin(), out.end(), [](const Span& a, const Span& b) { return a.ts < b.ts; });
  return out;
}

// L2 round trips of a thief's first steal (gh200, the hit latency raised by
// 1,000 cycles): its `find` span before its first task run or, with `after`,
// from that span's end to the run (the stolen ids' loads and the steal's end).
// The runtime's memory operations alone (forkjoin.code=free), as round_trips.
double steal_round_trips(const std::string& args, const std::string& worker, bool after) {
  return raised_latency_trips([&](int hit) {
    const auto s = track_spans(
        fmt::format("{} --preset gh200 --set forkjoin.code=free --set gpu.l2.hit_latency={}", args, hit), worker);
    for (std::size_t i = 1; i < s.size(); ++i)
      if (s[i].name.rfind("run ", 0) == 0 && s[i - 1].name == "find")
        return after ? s[i].ts - (s[i - 1].ts + s[i - 1].dur) : s[i - 1].dur;
    ADD_FAILURE() << worker << " stole nothing: " << args;
    return 0.0;
  });
}

// A steal does not wait for the stolen task's id where GTaP's does not: a
// Chase-Lev steal (feb2026 block workers) has the id's load and the CAS on
// top in flight together (top, bottom, then both: 3 round trips); a locked
// deque's steal (jan2026) stores the victim's new head while the ids load
// (block: lock, count, CAS, head, then the id with the head's store: 5; a
// warp's, whose lanes load the ids after the leader's claim: the head's store
// alone, about one round trip, where waiting for the ids made it two).
TEST(ForkJoin, AStealDoesNotWaitForTheStolenIds) {
  const std::string block =
      "tree --set tree.depth=1 --set forkjoin.workers=block --set forkjoin.group_size=64 "
      "--set forkjoin.groups=2 --set forkjoin.runtime=";
  EXPECT_NEAR(steal_round_trips(block + "feb2026", "block 1", false), 3.0, 0.1);
  EXPECT_NEAR(steal_round_trips(block + "jan2026", "block 1", false), 5.0, 0.1);
  EXPECT_LT(
      steal_round_trips("fib --set fib.mechanism=forkjoin --set fib.n=12 --set forkjoin.groups=2", "warp 1", true),
      1.2);
}

// A task's start is three round trips one after another (the header and the
// function pointer; the state, in the task function; the arguments): the
// root of fib(1), alone on one warp, takes 3 L2 hit latencies more when the
// hit latency is raised, no more, no fewer. GTaP's compiled code (gh200's
// forkjoin.code) adds two: the registers its task function saved, reloaded
// at the return from the L2 (the saves missed the L1 and wrote through
// without allocating, with or without gpu.l1.local_write_back), and the
// headers' `__device__` pointer ahead of the header, whose line the pop's
// queue pointer brought but not its sector (one round trip fewer with whole
// lines, gpu.sector=0).
TEST(ForkJoin, ATaskStartIsThreeDependentRoundTrips) {
  const std::string fib1 = "fib --set fib.mechanism=forkjoin --set fib.n=1";
  EXPECT_NEAR(round_trips(fib1, 0, 1), 3.0, 0.1);
  EXPECT_NEAR(round_trips(fib1 + " --set forkjoin.code=compiled", 0, 1), 5.0, 0.1);
  EXPECT_NEAR(round_trips(fib1 + " --set forkjoin.code=compiled --set gpu.l1.local_write_back=on", 0, 1), 5.0, 0.1);
  EXPECT_NEAR(round_trips(fib1 + " --set forkjoin.code=compiled --set gpu.sector=0", 0, 1), 4.0, 0.1);
}

// A spawn-only program (queens: no taskwait). The jan2026 runtime still loads
// the state at the start and bumps and checks generations at the finish: the
// child of queens(1) takes 4 round trips with whole lines (pointer, state; its
// parent's generation; the release's atomic on the id list; its arguments
// share a line with the root's and hit the L1). The feb2026 runtime skips the
// state and the generations but fences after the task, which waits for the
// finish's stores: 3 (pointer, release, fence) with an L1 that fences leave
// (gpu.cu.fence_invalidates_l1=false); with gh200's, whose fences empty it
// (CCTL.IVALL), the root's fence drops the arguments' line: 4. With gh200's
// 32-byte sectors the arguments are in a sector of that line the root did not
// read: one round trip more in jan2026, none more in feb2026.
TEST(ForkJoin, TheJanRuntimeKeepsJoinMetadataForSpawnOnlyPrograms) {
  auto trips = [](const char* runtime, int sector, bool ivall = true) {
    return round_trips(fmt::format("queens --set queens.mechanism=forkjoin --set queens.n=1 "
                                   "--set forkjoin.runtime={} --set gpu.sector={} --set gpu.cu.fence_invalidates_l1={}",
                                   runtime, sector, ivall),
                       1, 2);
  };
  EXPECT_NEAR(trips("jan2026", 0), 4.0, 0.1);
  EXPECT_NEAR(trips("feb2026", 0, false), 3.0, 0.1);
  EXPECT_NEAR(trips("feb2026", 0), 4.0, 0.1);
  EXPECT_NEAR(trips("jan2026", 32), 5.0, 0.1);
  EXPECT_NEAR(trips("feb2026", 32), 4.0, 0.1);
}

// GTaP's __gtap_spawn_task: the jan2026 runtime (84591ae) stores the
// function, state, queue, parent, its generation and both child counts at
// every spawn; the feb2026 one (14669e9) the function, the parent and its
// generation (the state and counts only for a recycled id, none here). From
// fib(2) to fib(3) on one warp (2 more spawns, 1 more resumption, 2 more
// released children), jan2026 adds 4 x 2 more header stores, 3 more stores of
// a generated id (in global memory, where feb2026 keeps them in LDS: the two
// children and the resumed parent) and 1 more queue store at the taskwait;
// feb2026 adds 2 more valid flags of released ids: 10 more stores in all.
TEST(ForkJoin, TheJanRuntimeWritesTheWholeHeaderAtEverySpawn) {
  auto stores = [](const char* runtime, int n) {
    const auto s =
        run_stats(fmt::format("fib --preset gh200 --set forkjoin.code=free --set fib.mechanism=forkjoin --set "
                              "fib.n={} --set forkjoin.groups=1 --set forkjoin.runtime={}",
                              n, runtime));
    EXPECT_EQ(s["stats"]["forkjoin.recycled"].get<double>(), 0);
    return cu_sum(s, ".stores");
  };
  const double jan = stores("jan2026", 3) - stores("jan2026", 2);
  const double feb = stores("feb2026", 3) - stores("feb2026", 2);
  EXPECT_EQ(jan - feb, 10);
}

// A starting task's header copy (GTaP's worker loop: the generation, the
// parent and its generation, and the total child count unless the program
// is spawn-only, one L2 load each, one load instruction a batch) is made for
// spawn-only programs too in the jan2026 runtime (84591ae): N-Queens run
// spawn-only loads the same headers as run with taskwait metadata, less the
// total count, one load a batch.
TEST(ForkJoin, TheJanRuntimeCopiesASpawnOnlyTasksHeader) {
  auto run = [](const char* nowait) {
    const auto s =
        run_stats(fmt::format("queens --preset gh200 --set forkjoin.code=free --set queens.mechanism=forkjoin --set "
                              "queens.n=5 --set forkjoin.groups=1 --set forkjoin.assume_no_taskwait={}",
                              nowait));
    return std::pair{cu_sum(s, ".loads"), s["stats"]["forkjoin.batches"].get<double>()};
  };
  const auto [spawn_only, batches] = run("auto");
  const auto [with_metadata, batches_too] = run("off");
  ASSERT_EQ(batches, batches_too);
  EXPECT_EQ(with_metadata - spawn_only, batches);
}

// The header's size is GTaP's struct TaskHeader's: block headers have no
// queue field, so the pruned tree's (3 children) is 40 B where a thread
// task's is 48 B, in both runtimes.
TEST(ForkJoin, BlockHeadersHaveNoQueueField) {
  auto record = [](const char* workers, const char* runtime) {
    const auto s =
        run_stats(fmt::format("tree --preset gh200 --set tree.shape=pruned --set tree.depth=6 --set "
                              "tree.mem_ops=1 --set tree.compute_iters=1 --set forkjoin.workers={} --set "
                              "forkjoin.runtime={} --set forkjoin.groups=2",
                              workers, runtime));
    return s["stats"]["tasks.forkjoin.peak_storage_bytes"].get<double>() /
           s["stats"]["forkjoin.records_peak"].get<double>();
  };
  for (const char* runtime : {"jan2026", "feb2026"}) {
    EXPECT_EQ(record("thread", runtime) - record("block", runtime), 8) << runtime;
  }
}

// Where each field of a task header sits: fj::header_layout against the
// compiler's own layout of GTaP's struct TaskHeader, written here field by
// field (types and order from 84591ae and 14669e9,
// runtime/{thread,block}/gtap_runtime_*.cuh; a function pointer, then
// uint16_t generation/state/queue_idx, int parent_tid, uint16_t
// parent_generation, the int child ids and the two int counts).
namespace hdr_mirror {
using Fp = void (*)();
template <int M>
struct JanThread {
  Fp func;
  std::uint16_t generation, state, queue_idx;
  int parent_tid;
  std::uint16_t parent_generation;
  int child_ids[M];
  int total_child_count, waiting_child_count;
};
template <int M>
struct FebThread {
  Fp func;
  std::uint16_t generation, state, queue_idx;
  int parent_tid;
  std::uint16_t parent_generation;
  int total_child_count, waiting_child_count;
  int child_ids[M];
};
template <int M>
struct JanBlock {
  Fp func;
  std::uint16_t generation, state;
  int parent_tid;
  std::uint16_t parent_generation;
  int child_ids[M];
  int total_child_count, waiting_child_count;
};
template <int M>
struct FebBlock {
  Fp func;
  std::uint16_t generation, state;
  int parent_tid;
  std::uint16_t parent_generation;
  int total_child_count, waiting_child_count;
  int child_ids[M];
};
// GTAP_ASSUME_NO_TASKWAIT: jan2026's child_ids[0] (a zero-length array, a
// GNU extension in GTaP's source) adds no bytes; as a struct without it.
struct JanThreadSpawnOnly {
  Fp func;
  std::uint16_t generation, state, queue_idx;
  int parent_tid;
  std::uint16_t parent_generation;
};
struct JanBlockSpawnOnly {
  Fp func;
  std::uint16_t generation, state;
  int parent_tid;
  std::uint16_t parent_generation;
};
struct FebThreadSpawnOnlyQueues {
  Fp func;
  std::uint16_t queue_idx;
};
struct FebSpawnOnly {
  Fp func;
};
}  // namespace hdr_mirror

#define FG_EXPECT_FIELD(L, S, field, member) EXPECT_EQ((L).field, offsetof(S, member)) << #S " " #member
#define FG_EXPECT_NO_FIELD(L, S, field) EXPECT_EQ((L).field, fj::kHeaderNoField) << #S " " #field

template <class S, bool Queue>
void expect_full_header(const fj::HeaderLayout& l) {
  FG_EXPECT_FIELD(l, S, gen, generation);
  FG_EXPECT_FIELD(l, S, state, state);
  if constexpr (Queue) {
    FG_EXPECT_FIELD(l, S, queue, queue_idx);
  } else {
    FG_EXPECT_NO_FIELD(l, S, queue);
  }
  FG_EXPECT_FIELD(l, S, parent, parent_tid);
  FG_EXPECT_FIELD(l, S, pgen, parent_generation);
  FG_EXPECT_FIELD(l, S, total, total_child_count);
  FG_EXPECT_FIELD(l, S, waiting, waiting_child_count);
  FG_EXPECT_FIELD(l, S, children, child_ids);
  EXPECT_EQ(l.bytes, sizeof(S)) << "sizeof";
}

template <int M>
void expect_headers_with_children() {
  SCOPED_TRACE(fmt::format("GTAP_MAX_CHILD_TASKS {}", M));
  using namespace hdr_mirror;
  expect_full_header<JanThread<M>, true>(fj::header_layout(false, false, false, M, 1));
  expect_full_header<FebThread<M>, true>(fj::header_layout(true, false, false, M, 1));
  expect_full_header<JanBlock<M>, false>(fj::header_layout(false, true, false, M, 1));
  expect_full_header<FebBlock<M>, false>(fj::header_layout(true, true, false, M, 1));
}

TEST(ForkJoin, HeaderFieldsSitWhereCPutsGTaPsStruct) {
  expect_headers_with_children<1>();
  expect_headers_with_children<2>();
  expect_headers_with_children<3>();
  expect_headers_with_children<4>();
  expect_headers_with_children<10>();
  using namespace hdr_mirror;
  for (const std::uint32_t queues : {1u, 3u}) {
    SCOPED_TRACE(fmt::format("spawn-only, {} queues", queues));
    const fj::HeaderLayout jt = fj::header_layout(false, false, true, 4, queues);
    FG_EXPECT_FIELD(jt, JanThreadSpawnOnly, gen, generation);
    FG_EXPECT_FIELD(jt, JanThreadSpawnOnly, state, state);
    FG_EXPECT_FIELD(jt, JanThreadSpawnOnly, queue, queue_idx);
    FG_EXPECT_FIELD(jt, JanThreadSpawnOnly, parent, parent_tid);
    FG_EXPECT_FIELD(jt, JanThreadSpawnOnly, pgen, parent_generation);
    EXPECT_EQ(jt.bytes, sizeof(JanThreadSpawnOnly));
    const fj::HeaderLayout jb = fj::header_layout(false, true, true, 4, queues);
    FG_EXPECT_FIELD(jb, JanBlockSpawnOnly, gen, generation);
    FG_EXPECT_FIELD(jb, JanBlockSpawnOnly, parent, parent_tid);
    FG_EXPECT_FIELD(jb, JanBlockSpawnOnly, pgen, parent_generation);
    FG_EXPECT_NO_FIELD(jb, JanBlockSpawnOnly, queue);
    EXPECT_EQ(jb.bytes, sizeof(JanBlockSpawnOnly));
    for (const fj::HeaderLayout& l : {jt, jb}) {
      FG_EXPECT_NO_FIELD(l, spawn_only, total);
      FG_EXPECT_NO_FIELD(l, spawn_only, waiting);
      FG_EXPECT_NO_FIELD(l, spawn_only, children);
    }
    const fj::HeaderLayout ft = fj::header_layout(true, false, true, 4, queues);
    if (queues > 1) {
      FG_EXPECT_FIELD(ft, FebThreadSpawnOnlyQueues, queue, queue_idx);
      EXPECT_EQ(ft.bytes, sizeof(FebThreadSpawnOnlyQueues));
    } else {
      FG_EXPECT_NO_FIELD(ft, FebSpawnOnly, queue);
      EXPECT_EQ(ft.bytes, sizeof(FebSpawnOnly));
    }
    const fj::HeaderLayout fb = fj::header_layout(true, true, true, 4, queues);
    EXPECT_EQ(fb.bytes, sizeof(FebSpawnOnly));
    for (const fj::HeaderLayout& l : {ft, fb}) {
      FG_EXPECT_NO_FIELD(l, FebSpawnOnly, gen);
      FG_EXPECT_NO_FIELD(l, FebSpawnOnly, state);
      FG_EXPECT_NO_FIELD(l, FebSpawnOnly, parent);
      FG_EXPECT_NO_FIELD(l, FebSpawnOnly, pgen);
      FG_EXPECT_NO_FIELD(l, FebSpawnOnly, total);
      FG_EXPECT_NO_FIELD(l, FebSpawnOnly, waiting);
      FG_EXPECT_NO_FIELD(l, FebSpawnOnly, children);
    }
  }
}
#undef FG_EXPECT_FIELD
#undef FG_EXPECT_NO_FIELD

// A recycled id (a worker's own range used up: queens 7 on one warp with 256
// records, 296 of its allocations) is read from the list alone, except by the
// feb2026 runtime's thread workers, which first load (acquire) its valid flag:
// raising the L2 hit latency, recycling adds more round trips to the feb2026
// run (24) than to the jan2026 one (16).
TEST(ForkJoin, OnlyTheFebThreadWorkersLoadAValidFlagPerRecycledId) {
  auto trips = [](const char* runtime, int pool) {
    return raised_latency_trips([&](int hit) {
      const auto s = run_stats(
          fmt::format("queens --preset gh200 --set queens.mechanism=forkjoin --set queens.n=7 --set forkjoin.groups=1 "
                      "--set forkjoin.runtime={} --set forkjoin.max_tasks_per_warp={} --set gpu.l2.hit_latency={}",
                      runtime, pool, hit));
      EXPECT_EQ(s["stats"]["forkjoin.recycled"].get<double>() > 0, pool < 1000);
      return s["kernels"][0]["end_ns"].get<double>();
    });
  };
  const double jan = trips("jan2026", 256) - trips("jan2026", 20000);
  const double feb = trips("feb2026", 256) - trips("feb2026", 20000);
  EXPECT_GT(jan, 0.5);
  EXPECT_GT(feb, jan + 4);
}

// fib(1)'s one task run on one warp of gh200 (its "run " span, ns), with `sets` added; gh200's fence latency
// (280 cycles at 1980 MHz, ns).
double fib1_run(const std::string& sets) {
  const auto s =
      spans("fib --preset gh200 --set fib.mechanism=forkjoin --set fib.n=1 --set forkjoin.groups=1 " + sets, "run ");
  return s.empty() ? 0.0 : s[0];
}
constexpr double kFenceNs = 280 * 1000.0 / 1980;

// forkjoin.runtime=feb2026 (the runtime of Figs. 7-8): a fence after the
// task, at least gh200's fence latency (280 cycles) later.
TEST(ForkJoin, TheAfterTaskFenceCostsAFence) {
  EXPECT_GE(fib1_run("--set forkjoin.runtime=feb2026") - fib1_run("--set forkjoin.runtime=jan2026"), kFenceNs);
}

// The feb2026 runtime's thread workers release a finishing parent's children
// to their own pool, so each child's id load overlaps the list's atomic (one
// round trip a child where the owner's pool, which needs the id first, takes
// two). fib(2)'s resumption (the fourth execution of fib(3) on one warp)
// releases two children: raising the L2 hit latency lengthens it by more than
// one round trip less than in the jan2026 runtime, although its after-task
// fence waits for the releases' stores (about one round trip more). With an L1
// that fences leave (gpu.cu.fence_invalidates_l1=false): with gh200's, which
// they empty, the feb2026 runtime's resumption also pays for the lines its
// fence dropped (11.0 round trips against jan2026's 10.5).
TEST(ForkJoin, TheFebRuntimeReleasesIdsToTheReleasingWarp) {
  auto trips = [](const char* runtime) {
    return round_trips(fmt::format("fib --set fib.mechanism=forkjoin --set fib.n=3 --set forkjoin.runtime={} --set "
                                   "gpu.cu.fence_invalidates_l1=false",
                                   runtime),
                       3, 5);
  };
  EXPECT_LT(trips("feb2026"), trips("jan2026") - 0.5);
}

// GTaP's block workers push after every task, also with nothing to publish:
// the Chase-Lev deque's bottom and top (feb2026) or the locked deque's head
// (jan2026), an L2 round trip; a fence (280 cycles on gh200); a barrier and
// the bottom's store or the count's add. Every push of a block-worker run
// takes at least the round trip and the fence.
TEST(ForkJoin, BlockWorkersPushAfterEveryTask) {
  for (const char* runtime : {"jan2026", "feb2026"}) {
    SCOPED_TRACE(runtime);
    const auto s = spans(fmt::format("tree --preset gh200 --set tree.depth=1 --set forkjoin.workers=block --set "
                                     "forkjoin.group_size=64 --set forkjoin.groups=1 --set forkjoin.runtime={}",
                                     runtime),
                         "push");
    ASSERT_EQ(s.size(), 4u);  // root, two leaves, the root resumed
    for (double ns : s) EXPECT_GE(ns, (274 + 280) * 1000.0 / 1980);
  }
}

// A block worker meets at GTaP's barriers (84591ae and 14669e9,
// runtime/block/gtap_runtime_block.cuh): one before the loop; per task
// iteration, after the search (also with a kept task), after thread 0's
// reset, after the header's copy, after the task and in the push (5); per
// fruitless search 2; a taskwait's (the jan2026 programs' own, the feb2026
// runtime's) and in feb2026 one at every task's end. The full tree's tasks
// have no barrier of their own.
TEST(ForkJoin, BlockWorkersMeetAtGtapsBarriers) {
  for (const char* rt : {"jan2026", "feb2026"}) {
    SCOPED_TRACE(rt);
    const auto s = run_stats(
        fmt::format("tree --preset gh200 --set tree.depth=5 --set tree.mem_ops=16 --set tree.compute_iters=16 --set "
                    "forkjoin.workers=block --set forkjoin.group_size=64 --set forkjoin.runtime={}",
                    rt));
    double barriers = 0;
    for (const auto& [k, v] : s["stats"].items())
      if (k.ends_with(".barriers")) barriers += v.get<double>();
    const double groups = s["workload"]["results"]["workers"].get<double>();
    const double inner = 31, tasks = 63;
    ASSERT_EQ(stat(s, "forkjoin.finished"), tasks);
    const double want = groups + 5 * stat(s, "forkjoin.batches") + 2 * stat(s, "forkjoin.idle_iterations") + inner +
                        (std::string(rt) == "feb2026" ? tasks : 0);
    EXPECT_EQ(barriers, want);
  }
}

TEST(ForkJoin, SameConfigSameStats) {
  const std::string args =
      "sort --preset gh200 --set sort.mechanism=forkjoin --set sort.n=2000 --set forkjoin.groups=32";
  auto a = run_stats(args), b = run_stats(args);
  a.erase("host"), b.erase("host");
  EXPECT_EQ(a.dump(), b.dump());
}

// One-cycle quantum: every workload stays correct (the times, tabulated in
// docs/forkjoin.md by tools/forkjoin_quantum.py, move by a few percent).
TEST(ForkJoinQuantum, CorrectAtAOneCycleQuantum) {
  for (const auto& [name, args] : kRuns) {
    SCOPED_TRACE(name);
    const auto s = run_stats(fmt::format("{} --preset gh200 --set sim.quantum=0.505", args));
    EXPECT_EQ(s["workload"]["checks"].size(), 1u);
  }
}

// A run's warp stores (summed over the CUs), batches and kernel time: what forkjoin.code changes.
std::tuple<double, double, double> code_run(const std::string& args) {
  const auto s = run_stats(args);
  return {cu_sum(s, ".stores"), s["stats"]["forkjoin.batches"].get<double>(),
          s["workload"]["results"]["kernel_ns"].get<double>()};
}

// forkjoin.code=compiled (docs/forkjoin-sass.md): GTaP's task function is a
// call through a register that saves its callee-saved registers in local
// memory and restores them before it returns: 16 words a lane in the jan2026
// runtime, 15 in feb2026. On one warp every batch's lanes call it together,
// so the warp stores that many words more per batch than with
// forkjoin.code=free, and the run takes longer (the instructions' stalls and
// the pointers' loads); the result is the same.
TEST(ForkJoin, TheCompiledRuntimeSavesTheTaskFunctionsRegistersAtEveryCall) {
  auto run = [](const char* runtime, const char* code) {
    return code_run(
        fmt::format("fib --preset gh200 --set fib.mechanism=forkjoin --set fib.n=9 --set forkjoin.groups=1 "
                    "--set forkjoin.runtime={} --set forkjoin.code={}",
                    runtime, code));
  };
  for (const auto& [runtime, words] : {std::pair{"jan2026", 16.0}, std::pair{"feb2026", 15.0}}) {
    const auto [free_stores, free_batches, free_ns] = run(runtime, "free");
    const auto [stores, batches, ns] = run(runtime, "compiled");
    ASSERT_EQ(batches, free_batches) << runtime;
    EXPECT_EQ(stores - free_stores, words * batches) << runtime;
    EXPECT_GT(ns, free_ns * 1.1) << runtime;
  }
}

// Block workers (docs/forkjoin-sass.md section C): every warp of the block runs the task function, so a block of
// 64 threads stores 2 x 15 words more per task in both runtimes (jan2026's locked deques, feb2026's Chase-Lev).
TEST(ForkJoin, TheCompiledBlockRuntimeSavesEveryWarpsRegisters) {
  auto run = [](const char* runtime, const char* code) {
    return code_run(
        fmt::format("tree --preset gh200 --set tree.depth=5 --set forkjoin.workers=block --set "
                    "forkjoin.groups=1 --set forkjoin.group_size=64 --set forkjoin.runtime={} --set "
                    "forkjoin.code={}",
                    runtime, code));
  };
  for (const char* runtime : {"jan2026", "feb2026"}) {
    const auto [free_stores, free_batches, free_ns] = run(runtime, "free");
    const auto [stores, batches, ns] = run(runtime, "compiled");
    ASSERT_EQ(batches, free_batches) << runtime;
    EXPECT_EQ(stores - free_stores, 2 * 15 * batches) << runtime;
    EXPECT_GT(ns, free_ns * 1.05) << runtime;
  }
}

// gq's publish (forkjoin.gq_commit): ordered waits for the tail to reach its batch's base when an earlier batch
// has not committed yet (it happens in these runs); unordered never waits, and its runs are still correct (a
// claimed slot not yet stored would be a fault, exit 3: none here).
TEST(ForkJoin, OnlyTheOrderedGlobalQueueWaitsToCommit) {
  for (const int n : {14, 16}) {
    const std::string args = fmt::format(
        "fib --preset gh200 --set fib.mechanism=forkjoin --set fib.n={} --set forkjoin.groups=16 --set "
        "forkjoin.queue=gq --set forkjoin.gq_commit=",
        n);
    EXPECT_GT(stat(run_stats(args + "ordered"), "forkjoin.commit_waits"), 0) << n;
    EXPECT_EQ(stat(run_stats(args + "unordered"), "forkjoin.commit_waits"), 0) << n;
    // The default (auto) is unordered for thread workers: the same run.
    EXPECT_EQ(run_stats(args + "auto")["workload"], run_stats(args + "unordered")["workload"]) << n;
  }
  // ... and ordered for block workers (their gq not compiled; unordered races at a one-cycle quantum): a depth-8
  // tree on 16 workgroups waits 130 times by default.
  const std::string tree =
      "tree --preset gh200 --set tree.depth=8 --set forkjoin.workers=block --set forkjoin.group_size=32 --set "
      "forkjoin.groups=16 --set forkjoin.queue=gq";
  EXPECT_GT(stat(run_stats(tree), "forkjoin.commit_waits"), 0);
  EXPECT_EQ(stat(run_stats(tree + " --set forkjoin.gq_commit=unordered"), "forkjoin.commit_waits"), 0);
}

// ececf4e's baselines fence after every task call (rows G4f and C5f), as the feb2026 runtime does and jan2026's
// work stealing does not: with the runtime's code free, one task's run is a fence longer on gq and cl than on ws.
TEST(ForkJoin, TheBaselinesFenceAfterTheirTasks) {
  auto run = [](const char* queue) {
    return fib1_run(fmt::format("--set forkjoin.code=free --set forkjoin.queue={}", queue));
  };
  const double ws = run("ws");
  EXPECT_GE(run("gq") - ws, kFenceNs);
  EXPECT_GE(run("cl") - ws, kFenceNs);
}

// forkjoin.code=compiled charges the baselines their own rows (docs/forkjoin-sass.md D). fib(1) on one warp runs
// one task: a search that finds the root, the task, an empty push, a search that finds nothing, the termination
// check. Compiled less free, less the memory operations compiled adds (the pointers' loads, the registers'
// saves), is the rows' instructions on that path; the rows the queues share (task start, the task function, push
// head) cancel against work stealing's, so the difference to ws is that of the rows each runs alone.
TEST(ForkJoin, TheCompiledBaselinesIssueTheirMeasuredRows) {
  auto rows = [](const char* queue) {
    auto run = [&](const char* code) {
      const auto s =
          run_stats(fmt::format("fib --preset gh200 --set fib.mechanism=forkjoin --set fib.n=1 --set "
                                "forkjoin.groups=1 --set forkjoin.queue={} --set forkjoin.code={}",
                                queue, code));
      return cu_sum(s, ".wavefront_instructions") - cu_sum(s, ".loads") - cu_sum(s, ".stores");
    };
    return run("compiled") - run("free");
  };
  // ws (table A): PopBatch 2 (36 + a shuffle's 10), the found head 1b (32 + 7), after the call 6b and 6c (16), an
  // empty PopBatch 2b (21 + 10), the idle framing 1c (29), the termination check 5 (23 + 7 + 10), 5b (13), 5c (7);
  // and the lanes' meeting before the function's return (under `free` only gq and cl meet there, for their fence):
  // the root's lane and the 31 idle ones arrive apart, an issue each (2), which the rows' trampolines also count.
  const double ws = 46 + 39 + 16 + 31 + 29 + 40 + 13 + 7 + 2;
  // gq: G2 (65), G1 + G3 + G7 with G3's trampoline (17: G3 less the `lane<count` guard row 6 holds), G4f (11), G2b
  // (50), G1 + G7 (6), G6 (39), G6b, G6c.
  const double gq = 65 + 17 + 11 + 50 + 6 + 39 + 13 + 2;
  // cl: two searches' entries C2e (9) and exits C2x (1); the root popped as the last item, C2l (34), after which
  // GTaP's loop pops again and finds the deque empty, C2b with its broadcast of the -1 (24); C1 + C4 + C8 (12); C5f
  // (11); the second search's empty pop C2b (24); C1 + C8 (6); C7 (38), C7b, C7c.
  const double cl = 2 * (9 + 1) + 34 + 24 + 12 + 11 + 24 + 6 + 38 + 13 + 6;
  const double ws_rows = rows("ws");
  EXPECT_EQ(rows("gq") - ws_rows, gq - ws);
  EXPECT_EQ(rows("cl") - ws_rows, cl - ws);
}

// The fence after the task function is issued once per warp, after its lanes reconverge at the call's return
// (rows 6b of feb2026, G4f, C5f): fib(3) on one warp runs five batches, the second of which diverges (fib(2)
// suspends at its taskwait, fib(1) finishes); every child is kept, so nothing is published. gq and feb2026's work
// stealing fence once a batch (a fence per divergent group would make it six); cl also fences in each pop: the
// root's (the deque's last item), the pop after it that finds the deque empty (GTaP's loop stops only at -1), and
// the idle search's empty pop.
TEST(ForkJoin, TheFenceAfterTheCallIsOncePerWarp) {
  auto fences = [](const char* set) {
    const auto s = run_stats(fmt::format(
        "fib --preset gh200 --set fib.mechanism=forkjoin --set fib.n=3 --set forkjoin.groups=1 --set {}", set));
    EXPECT_EQ(s["stats"]["forkjoin.batches"].get<double>(), 5);
    EXPECT_EQ(s["stats"]["forkjoin.published"].get<double>(), 0);
    return cu_sum(s, ".l1.fence_invalidations");
  };
  EXPECT_EQ(fences("forkjoin.queue=gq"), 5);
  EXPECT_EQ(fences("forkjoin.runtime=feb2026"), 5);
  EXPECT_EQ(fences("forkjoin.queue=cl"), 5 + 3);
  // Block workers: a full tree of depth 3 on one workgroup of two warps runs 22 batches (15 tasks, 7
  // resumptions), and each warp fences in every push. The block global queue (ececf4e's
  // gtap_runtime_block_gq.cuh) also fences after the call, once per warp, though thread 0 alone finishes a task.
  auto block = [](const char* queue) {
    const auto s =
        run_stats(fmt::format("tree --preset gh200 --set tree.depth=3 --set forkjoin.workers=block --set "
                              "forkjoin.group_size=64 --set forkjoin.groups=1 --set forkjoin.queue={}",
                              queue));
    EXPECT_EQ(s["stats"]["forkjoin.batches"].get<double>(), 22);
    return cu_sum(s, ".l1.fence_invalidations");
  };
  EXPECT_EQ(block("ws"), 2 * 22);
  EXPECT_EQ(block("gq"), 2 * 22 + 2 * 22);
}

// The task function's return (its registers restored, the epilogue) is the warp's, once its lanes reconverge:
// fib(3) on one warp (jan2026, compiled: 16 registers saved and restored a lane), whose second batch's lanes leave
// by two paths. The compiled code reads the L1 136 times more than the free one: 5 batches' restores, 16 each, and
// 56 loads of the `__device__` pointers. A return per group of lanes made it 152.
TEST(ForkJoin, TheTaskFunctionReturnsOncePerWarp) {
  auto reads = [](const char* code) {
    const auto s = run_stats(fmt::format(
        "fib --preset gh200 --set fib.mechanism=forkjoin --set fib.n=3 --set forkjoin.groups=1 --set forkjoin.code={}",
        code));
    EXPECT_EQ(s["stats"]["forkjoin.batches"].get<double>(), 5);
    return cu_sum(s, ".l1.reads");
  };
  EXPECT_EQ(reads("compiled") - reads("free"), 5 * 16 + 56);
}

// cl's pop of a deque never pushed to (bottom 0) is GTaP's whole pop, as for any empty deque (rows C2b, C3c):
// bottom - 1 stored, a fence that waits for it, top loaded, bottom restored. fib(9) on two warps: warp 1 steals,
// runs and keeps its children (it never publishes), so its first search after a push pops an empty deque whose
// bottom is 0 (then fails one steal). That search takes three L2 round trips more than a search after an idle
// iteration (no pop, the same failed steal): the bottom's load, the store's before the fence, top's load.
TEST(ForkJoin, AChaseLevPopOfANeverPushedDequeIsTheWholePop) {
  auto searches = [](int hit) {
    const auto s = track_spans(fmt::format("fib --preset gh200 --set fib.mechanism=forkjoin --set fib.n=9 --set "
                                           "forkjoin.groups=2 --set forkjoin.queue=cl --set forkjoin.code=free "
                                           "--set gpu.l2.hit_latency={}",
                                           hit),
                               "warp 1");
    double after_push = -1, after_idle = -1;
    for (std::size_t i = 1; i < s.size(); ++i) {
      if (s[i].name != "find") continue;
      if (s[i - 1].name == "push" && after_push < 0) after_push = s[i].dur;
      if (s[i - 1].name == "idle") after_idle = after_idle < 0 ? s[i].dur : std::min(after_idle, s[i].dur);
    }
    EXPECT_GE(after_push, 0) << "warp 1 never searched after a push";
    EXPECT_GE(after_idle, 0) << "warp 1 never searched after an idle iteration";
    return after_push - after_idle;
  };
  EXPECT_NEAR(raised_latency_trips(searches), 3.0, 0.01);
}

// ---- reconvergence (runtime/forkjoin.h, "Reconvergence") ----

// A warp's lanes run the cases of GTaP's state machine as different code: a
// fresh leaf's work and a continuation's work, though the same C++ here, are
// two passes when they share a batch. One warp: the root spawns B and Y1; B
// spawns a leaf X, Y1 spawns Y2; X's finish makes B resumable while Y2
// spawns the leaf Z, so the next batch (the kept tasks) holds B's
// continuation and the fresh Z, both at the work. The work is one alu of
// kWork instructions: the run issues it 3 times (X; B and Z apart), 2 if the
// lanes merged across states.
constexpr std::uint64_t kWork = 1000000;
fj::Fn<void> mix_task(fj::Ctx& t, std::uint32_t kind) {
  if (kind == 0 || kind == 3 || kind == 4) {  // the root, Y1, Y2: spawn and wait, no work
    if (kind == 0) co_await t.spawn(mix_task, 1u);
    co_await t.spawn(mix_task, kind == 0 ? 3u : kind == 3 ? 4u : 2u);
    co_await t.taskwait();
    co_return;
  }
  if (kind == 1) {  // B: its leaf, then its work after the taskwait
    co_await t.spawn(mix_task, 2u);
    co_await t.taskwait();
  }
  co_await t.lane().alu(kWork);  // X and Z (fresh leaves), B (its continuation)
}

TEST(ForkJoin, ALeafAndAContinuationRunTheirWorkApart) {
  FG_REQUIRE_FRESH_KERNEL();
  std::uint64_t instructions = 0;
  test::HostHarness h(
      test::make_config("gh200", {"gpu.mechanisms=forkjoin", "forkjoin.groups=1", "forkjoin.code=free"}),
      [](Host& host) {
        fj::Program p;
        p.name = "mix";
        fj::run(host, p, mix_task, 0u);
      });
  h.run();
  for (int i = 0; i < h.top().cus(); ++i) instructions += h.top().cu(i).wavefront_instructions.value();
  // The batches as planned: {root}, {B, Y1}, {X, Y2}, {B's continuation, Z}, {Y2}, {Y1}, {root}.
  EXPECT_EQ(h.stat("forkjoin.batches"), 7);
  EXPECT_NEAR(h.stat("forkjoin.batch_tasks"), 10.0 / 7, 1e-9);
  EXPECT_EQ(instructions / kWork, 3u);
}

// GTaP's compiler inlines the finish at each return: two leaves of one batch
// that return by different co_returns run two copies of it, by one the same
// copy once. The root spawns two leaves (kept: one batch); `split` sends the
// second to the earlier co_return. The runs differ by one finish of a leaf,
// issued for one lane (its instructions: under 60); 0 if the lanes merged.
fj::Fn<std::uint64_t> ret_task(fj::Ctx& t, std::uint32_t kind, std::uint32_t split) {
  if (kind == 0) {
    const fj::Child a = co_await t.spawn(ret_task, 1u, split);
    const fj::Child b = co_await t.spawn(ret_task, 2u, split);
    co_await t.taskwait();
    const std::uint64_t x = co_await t.result<std::uint64_t>(a);
    const std::uint64_t y = co_await t.result<std::uint64_t>(b);
    co_return x + y;
  }
  co_await t.lane().alu(1);
  if (split && kind == 2) co_return 2;
  co_return kind;
}

// The instructions of each run, one kernel after the other in one GPU.
std::vector<double> ret_instructions() {
  std::vector<double> runs;
  test::HostHarness h(
      test::make_config("gh200", {"gpu.mechanisms=forkjoin", "forkjoin.groups=1", "forkjoin.code=free"}),
      [&runs](Host& host) {
        auto total = [] {
          double sum = 0;
          for (int i = 0;; ++i) {
            const StatBase* st = StatRegistry::global().find(fmt::format("gpu.cu{}.wavefront_instructions", i));
            if (!st) return sum;
            sum += st->scalar();
          }
        };
        double before = total();
        for (std::uint32_t split : {0u, 1u}) {
          fj::Program p;
          p.name = "returns";
          const fj::RunInfo r = fj::run(host, p, ret_task, 0u, split);
          EXPECT_EQ(r.root_result, 3u);
          runs.push_back(total() - before);
          before = total();
        }
      });
  h.run();
  return runs;
}

TEST(ForkJoin, LeavesThatReturnByDifferentReturnsFinishApart) {
  FG_REQUIRE_FRESH_KERNEL();
  const std::vector<double> runs = ret_instructions();
  ASSERT_EQ(runs.size(), 2u);
  EXPECT_GT(runs[1], runs[0]);
  EXPECT_LT(runs[1] - runs[0], 60);
}

}  // namespace
}  // namespace fg::test
