// SPDX-License-Identifier: Apache-2.0
// Memory system: latencies equal the configuration, bandwidth and atomic
// contention scale as they should, atomics are exact, writes invalidate.
// Every case elaborates its own GPU: ctest runs each in its own process.
#include <algorithm>
#include <array>
#include <cstring>
#include <numeric>
#include <random>
#include <set>
#include <vector>

#include <fmt/format.h>
#include <gtest/gtest.h>

#include "fg_test.h"
#include "mem/backing_store.h"
#include "mem/l1_cache.h"
#include "mem/memory_system.h"
#include "mem/sector.h"
#include "mem/tag_array.h"
#include "mem/tlb.h"
#include "sim/error.h"
#include "sim/stats.h"

namespace fg {
namespace {

using test::MemHarness;
using Qk = tlm_utils::tlm_quantumkeeper;

double ns(const sc_core::sc_time& t) { return t.to_seconds() * 1e9; }
double cfg_d(const Config& c, const char* k) { return std::get<double>(c.value(k)); }
double cfg_u(const Config& c, const char* k) { return double(std::get<std::uint64_t>(c.value(k))); }

// The L2 clock's period in ns, whole picoseconds as in fg::Clock.
double l2_period_ns(const Config& c) { return std::round(1e6 / cfg_d(c, "gpu.l2.clock")) / 1000.0; }

// Expected latencies written out from the configuration (not from the model).
struct Expected {
  double l1_hit, l2_hit, dram_miss;
  explicit Expected(const Config& c) {
    // Clock periods are whole picoseconds (700 MHz: 1429 ps), as in fg::Clock.
    double cu_ns = std::round(1e6 / cfg_d(c, "gpu.clock")) / 1000.0, l2_ns = l2_period_ns(c);
    l1_hit = cfg_u(c, "gpu.l1.hit_latency") * cu_ns;
    l2_hit = l1_hit + cfg_u(c, "gpu.l2.hit_latency") * l2_ns;
    double transfer = cfg_u(c, "gpu.line") * cfg_u(c, "gpu.dram.channels") / cfg_d(c, "gpu.dram.bandwidth");
    dram_miss = l2_hit + transfer + cfg_d(c, "gpu.dram.latency");
  }
};

class Latency : public ::testing::TestWithParam<const char*> {};

TEST_P(Latency, L1HitL2HitAndMissEqualTheConfiguredLatencies) {
  FG_REQUIRE_FRESH_KERNEL();
  // The gpu protocol's path (under moesi the other CU's read is a cache-to-cache transfer: MoesiTest).
  Config cfg = test::make_config(GetParam(), {"gpu.cus=2", "mem.coherence=gpu"});
  Expected e(cfg);
  MemHarness h(cfg);
  const std::uint64_t a = h.mem().allocate(4096);
  double miss = 0, hit = 0, other_cu = 0;
  h.run({[&](MemPort& p, Qk& qk) {
           std::uint32_t v;
           miss = ns(p.read(a, &v, 4, qk.get_local_time()) - qk.get_local_time());
           qk.inc(sc_core::sc_time(1, sc_core::SC_US));  // fill done long before
           hit = ns(p.read(a, &v, 4, qk.get_local_time()) - qk.get_local_time());
         },
         [&](MemPort& p, Qk& qk) {
           qk.inc(sc_core::sc_time(2, sc_core::SC_US));  // after CU0 filled the L2
           qk.sync();
           std::uint32_t v;
           other_cu = ns(p.read(a + 8, &v, 4, qk.get_local_time()) - qk.get_local_time());
         }});
  EXPECT_NEAR(hit, e.l1_hit, 0.01);
  EXPECT_NEAR(other_cu, e.l2_hit, 0.05);
  EXPECT_NEAR(miss, e.dram_miss, 0.05);
}

INSTANTIATE_TEST_SUITE_P(Presets, Latency, ::testing::Values("orr2014", "kim2014"));

// gpu.cu.ivall_keeps_local qualifies gpu.cu.fence_invalidates_l1. gh200 sets both; a user who turns the
// fences off turns its keep-local off with them. A user's keep-local without such fences, or a preset's
// without its own, is bad input (exit 2).
TEST(FenceInvalidation, KeepingLocalLinesFollowsTheFences) {
  EXPECT_TRUE(L1Cache::Params::from(test::make_config("gh200")).ivall_keeps_local);
  EXPECT_FALSE(
      L1Cache::Params::from(test::make_config("gh200", {"gpu.cu.fence_invalidates_l1=false"})).ivall_keeps_local);
  EXPECT_THROW(L1Cache::Params::from(test::make_config("orr2014", {"gpu.cu.ivall_keeps_local=true"})), UserError);
  Config preset_without_fences;
  preset_without_fences.apply_yaml("gpu:\n  cu:\n    ivall_keeps_local: true\n", "p.yaml", true);
  EXPECT_THROW(L1Cache::Params::from(preset_without_fences), UserError);
}

// mem.interleave=xor: lines at a stride that is a multiple of the bank count
// (the fork-join runtime's per-warp deques: 210 lines apart, 12 banks) all
// meet one bank under modulo and spread over every bank under the fold;
// consecutive lines stay spread evenly.
TEST(Interleave, TheFoldSpreadsStridedLinesOverEveryBank) {
  for (const std::uint64_t stride : {1ull, 12ull, 210ull, 384ull, 627ull}) {
    std::array<int, 12> modulo{}, fold{};
    for (std::uint64_t i = 0; i < 1200; ++i) {
      ++modulo[(1000 + i * stride) % 12];
      ++fold[interleave_fold(1000 + i * stride) % 12];
    }
    EXPECT_GT(*std::min_element(fold.begin(), fold.end()), 60) << "stride " << stride;
    EXPECT_LT(*std::max_element(fold.begin(), fold.end()), 140) << "stride " << stride;
    if (stride % 12 == 0) {
      EXPECT_EQ(*std::max_element(modulo.begin(), modulo.end()), 1200) << "stride " << stride;
    }
  }
}

// mem.magic (the worklist paper's magic memory, Sec. V-C): a cold read, a
// burst of 16 atomics to one line and another CU's read of what they wrote
// all take the L1 hit latency; the values are exact; the L2 and DRAM see
// nothing.
TEST(Magic, EveryAccessTakesTheL1HitLatencyWithoutMissesOrContention) {
  FG_REQUIRE_FRESH_KERNEL();
  Config cfg = test::make_config("kim2014", {"gpu.cus=2", "mem.magic=true"});
  Expected e(cfg);
  MemHarness h(cfg);
  const std::uint64_t a = h.mem().allocate(4096);
  double cold = 0, other_cu = 0;
  std::vector<double> atomics;
  std::vector<std::uint64_t> olds;
  std::uint32_t seen = 0;
  h.run({[&](MemPort& p, Qk& qk) {
           std::uint32_t v;
           cold = ns(p.read(a, &v, 4, qk.get_local_time()) - qk.get_local_time());
           for (unsigned k = 0; k < 16; ++k) {
             std::uint64_t old = 0;
             atomics.push_back(
                 ns(p.atomic(a + 64, AtomicOp::Add, 4, 1, 0, old, qk.get_local_time()) - qk.get_local_time()));
             olds.push_back(old);
           }
         },
         [&](MemPort& p, Qk& qk) {
           qk.inc(sc_core::sc_time(1, sc_core::SC_US));
           qk.sync();
           other_cu = ns(p.read(a + 64, &seen, 4, qk.get_local_time()) - qk.get_local_time());
         }});
  EXPECT_NEAR(cold, e.l1_hit, 0.01);
  EXPECT_NEAR(other_cu, e.l1_hit, 0.01);
  ASSERT_EQ(atomics.size(), 16u);
  for (unsigned k = 0; k < 16; ++k) {
    EXPECT_NEAR(atomics[k], e.l1_hit, 0.01) << "atomic " << k;
    EXPECT_EQ(olds[k], k);
  }
  EXPECT_EQ(seen, 16u);
  EXPECT_EQ(StatRegistry::global().sum_matching("gpu.l2.bank", ".reads"), 0.0);
  EXPECT_EQ(StatRegistry::global().sum_matching("gpu.l2.bank", ".atomics"), 0.0);
  EXPECT_EQ(StatRegistry::global().sum_matching("gpu.cu", ".l1.atomics"), 16.0);
}

TEST(Coherence, WriteFromOneCuMakesAnotherCusNextReadMiss) {
  FG_REQUIRE_FRESH_KERNEL();
  Config cfg = test::make_config("orr2014", {"gpu.cus=2"});
  MemHarness h(cfg);
  const std::uint64_t a = h.mem().allocate(256);
  std::uint32_t seen_before = 0, seen_after = 0;
  const auto step = sc_core::sc_time(1, sc_core::SC_US);
  h.run({[&](MemPort& p, Qk& qk) {  // CU A: read at 0, write at 2 us
           std::uint32_t v;
           p.read(a, &v, 4, qk.get_local_time());
           qk.inc(2 * step);
           qk.sync();
           std::uint32_t nv = 42;
           p.write(a, &nv, 4, qk.get_local_time());
         },
         [&](MemPort& p, Qk& qk) {  // CU B: read at 1 us (miss) and 1.5 us (hit), then at 3 us
           qk.inc(step);
           qk.sync();
           p.read(a, &seen_before, 4, qk.get_local_time());
           qk.inc(step / 2);
           std::uint32_t v;
           p.read(a, &v, 4, qk.get_local_time());
           qk.inc(step * 1.5);
           qk.sync();
           p.read(a, &seen_after, 4, qk.get_local_time());
         }});
  const auto& b = h.mem().l1(1);
  EXPECT_EQ(b.reads.value(), 3u);
  EXPECT_EQ(b.read_hits.value(), 1u);
  EXPECT_EQ(b.read_misses.value(), 2u);
  EXPECT_EQ(b.coherence_misses.value(), 1u);
  EXPECT_EQ(b.invalidations.value(), 1u);
  EXPECT_EQ(h.mem().l1(0).invalidations.value(), 0u);  // the writer keeps its copy
  EXPECT_EQ(seen_before, 0u);
  EXPECT_EQ(seen_after, 42u);
}

TEST(Port, AnInitiatorWhoseTimeGoesBackwardsIsAnInternalError) {
  FG_REQUIRE_FRESH_KERNEL();
  MemHarness h(test::make_config("orr2014", {"gpu.cus=1"}));
  const std::uint64_t a = h.mem().allocate(256);
  EXPECT_THROW(h.run({[&](MemPort& p, Qk& qk) {
    std::uint32_t v;
    p.read(a, &v, 4, qk.get_local_time() + sc_core::sc_time(10, sc_core::SC_NS));
    p.read(a, &v, 4, qk.get_local_time());  // 10 ns earlier than the previous request
  }}),
               std::logic_error);
}

// 16 atomics issued together by one agent, to 16 lines of one L2 bank or to
// one line: completion time of the last (ns after the first's).
double atomic_spread(bool same_line, unsigned interval) {
  MemHarness h(test::make_config("orr2014", {"gpu.cus=1", "mem.coherence=gpu",  // atomics at the L2
                                             "gpu.l2.atomic_interval=" + std::to_string(interval)}));
  const std::uint64_t base = h.mem().allocate(16 * 16 * 64 * 2);
  std::vector<double> done;
  h.run({[&](MemPort& p, Qk& qk) {
    std::uint64_t old = 0;
    p.atomic(base, AtomicOp::Add, 4, 1, 0, old, qk.get_local_time());  // bring the lines in first
    for (unsigned k = 1; k < 16; ++k) p.atomic(base + k * 16 * 64, AtomicOp::Add, 4, 1, 0, old, qk.get_local_time());
    qk.inc(sc_core::sc_time(1, sc_core::SC_US));
    qk.sync();
    for (unsigned k = 0; k < 16; ++k) {
      // orr2014 has 16 banks: lines 16 apart share a bank.
      const auto t = p.atomic(base + (same_line ? 0 : k * 16 * 64), AtomicOp::Add, 4, 1, 0, old, qk.get_local_time());
      done.push_back(t.to_seconds() * 1e9);
    }
  }});
  return *std::max_element(done.begin(), done.end()) - *std::min_element(done.begin(), done.end());
}

class AtomicUnit : public ::testing::TestWithParam<std::tuple<bool, unsigned, double>> {};

TEST_P(AtomicUnit, PipelinedAcrossLinesSerialisedOnOneLine) {
  FG_REQUIRE_FRESH_KERNEL();
  const auto [same, interval, want] = GetParam();
  // orr2014: 1 GHz L2, atomic latency 4 cycles. Different lines start one
  // interval apart; one line's atomics wait for each other's latency.
  EXPECT_NEAR(atomic_spread(same, interval), want, 0.01);
}

INSTANTIATE_TEST_SUITE_P(Orr2014, AtomicUnit,
                         ::testing::Values(std::make_tuple(false, 1u, 15.0), std::make_tuple(false, 4u, 60.0),
                                           std::make_tuple(true, 1u, 60.0), std::make_tuple(true, 4u, 60.0)));

// 64 read misses to 64 different lines issued together: with k MSHRs they go
// to the L2 k at a time. Returns the time the last fill arrived (ns after the
// issue); `waited` counts misses that waited for an MSHR themselves or behind
// one that did (the L1 is blocked meanwhile).
double miss_burst(unsigned mshrs, double& waited) {
  MemHarness h(test::make_config("orr2014", {"gpu.cus=1", "gpu.l1.mshrs=" + std::to_string(mshrs)}));
  const std::uint64_t base = h.mem().allocate(64 * 64);
  double last = 0;
  h.run({[&](MemPort& p, Qk& qk) {
    std::uint32_t v;
    for (unsigned k = 0; k < 64; ++k)
      last = std::max(last, ns(p.read(base + 64 * k, &v, 4, qk.get_local_time()) - qk.get_local_time()));
  }});
  const auto& l1 = h.mem().l1(0);
  waited = double(l1.mshr_stalls.value() + l1.stalls.value());
  return last;
}

TEST(Mshrs, ReadMissesBeyondTheMshrsWaitForOne) {
  FG_REQUIRE_FRESH_KERNEL();
  double waited = 0;
  const double last = miss_burst(8, waited);
  // 64 misses, 8 at a time: the 56 beyond the first 8 wait, and the last
  // fill comes a full miss (4 + 16 + 3.2 + 30 ns) and 7 more L2-to-DRAM round
  // trips after the issue.
  EXPECT_GE(waited, 56.0);
  EXPECT_GT(last, 53.2 + 7 * (16 + 3.2 + 30));
}

TEST(Mshrs, UnlimitedMshrsNeverStall) {
  FG_REQUIRE_FRESH_KERNEL();
  double waited = 0;
  const double last = miss_burst(0, waited);
  EXPECT_EQ(waited, 0.0);
  // Only DRAM's bandwidth spaces them: 64 lines x 3.2 ns after the first round trip.
  EXPECT_LT(last, 53.2 + 64 * 3.2 + 5);
}

// Back-pressure: a miss waiting for an MSHR blocks the L1, so a hit issued
// behind it waits too (GPGPU-Sim's load/store unit stalls on a reservation failure).
TEST(Backpressure, AHitBehindAMissWaitingForAnMshrWaits) {
  FG_REQUIRE_FRESH_KERNEL();
  MemHarness h(test::make_config("orr2014", {"gpu.cus=1", "gpu.l1.mshrs=1"}));
  const std::uint64_t a = h.mem().allocate(64 * 4);
  double first = 0, hit = 0;
  h.run({[&](MemPort& p, Qk& qk) {
    std::uint32_t v;
    p.read(a + 128, &v, 4, qk.get_local_time());  // warm line 2
    qk.inc(sc_core::sc_time(1, sc_core::SC_US));
    first = ns(p.read(a, &v, 4, qk.get_local_time()) - qk.get_local_time());  // miss: takes the MSHR
    p.read(a + 64, &v, 4, qk.get_local_time());                               // miss: waits for the MSHR, blocks the L1
    hit = ns(p.read(a + 128, &v, 4, qk.get_local_time()) - qk.get_local_time());
  }});
  EXPECT_GT(hit, first) << "the hit must wait until the blocked miss got its MSHR";
  EXPECT_EQ(h.mem().l1(0).stalls.value(), 1u);
  EXPECT_GE(h.mem().l1(0).stall_cycles.value(), 40u);
}

// n atomics to one line from each of `cus` CUs, one per ns each, in time
// order (each CU syncs before its atomic, as sim.sync_order makes CUs do; kim2014:
// atomics at the L2, 4-cycle unit at 700 MHz).
struct Flood {
  double atomic_wait_ns, makespan_ns;
  std::uint64_t l1_stalls, queue_full;
};
Flood atomic_flood(unsigned queue, unsigned cus, unsigned n) {
  MemHarness h(
      test::make_config("kim2014", {"gpu.cus=" + std::to_string(cus), "gpu.l2.queue=" + std::to_string(queue)}));
  const std::uint64_t a = h.mem().allocate(128);
  std::vector<MemHarness::Agent> agents;
  double last = 0;
  for (unsigned c = 0; c < cus; ++c)
    agents.push_back([&, n](MemPort& p, Qk& qk) {
      for (unsigned i = 0; i < n; ++i) {
        std::uint64_t old = 0;
        qk.inc(sc_core::sc_time(1, sc_core::SC_NS));
        qk.sync();
        last = std::max(last, ns(p.atomic(a, AtomicOp::Add, 4, 1, 0, old, qk.get_local_time())) +
                                  sc_core::sc_time_stamp().to_seconds() * 1e9);
      }
    });
  h.run(agents);
  std::uint32_t v = 0;
  h.mem().copy_out(&v, a, 4);
  EXPECT_EQ(v, cus * n) << "functional result";
  Flood f{};
  f.atomic_wait_ns = StatRegistry::global().mean_matching("gpu.l2.bank", ".atomic_queue_delay");
  f.makespan_ns = last;
  for (unsigned c = 0; c < cus; ++c) f.l1_stalls += h.mem().l1(c).stalls.value();
  f.queue_full = std::uint64_t(StatRegistry::global().sum_matching("gpu.l2.bank", ".queue_full"));
  return f;
}

// 4 CUs x 64 atomics on one line: the atomic unit serialises them (4 cycles
// each). Unbounded, the bank's backlog grows to all 256; with an 8-entry queue
// at most 8 wait at the bank and the L1s stall instead. The throughput (the
// unit) is the same.
TEST(Backpressure, AFullL2QueueStallsTheL1sInsteadOfQueueingWithoutLimit) {
  FG_REQUIRE_FRESH_KERNEL();
  const Flood f = atomic_flood(8, 4, 64);
  const double unit_ns = 4 * 1.429;
  EXPECT_LT(f.atomic_wait_ns, 8 * unit_ns + 1) << "at most 8 atomics ahead of any one at the bank";
  EXPECT_GT(f.l1_stalls, 200u);
  EXPECT_GT(f.queue_full, 200u);
  EXPECT_GT(f.makespan_ns, 256 * unit_ns);
  EXPECT_LT(f.makespan_ns, 256 * unit_ns + 400);
}

TEST(Backpressure, AnUnboundedL2QueueNeverStallsTheL1s) {
  FG_REQUIRE_FRESH_KERNEL();
  const Flood f = atomic_flood(0, 4, 64);
  const double unit_ns = 4 * 1.429;
  EXPECT_GT(f.atomic_wait_ns, 100 * unit_ns) << "the backlog grows with the flood";
  EXPECT_EQ(f.l1_stalls, 0u);
  EXPECT_EQ(f.queue_full, 0u);
  EXPECT_GT(f.makespan_ns, 256 * unit_ns);
  EXPECT_LT(f.makespan_ns, 256 * unit_ns + 400);
}

// 64 misses from one CU at once (orr2014: one DRAM channel, 3.2 ns per line).
struct DramFlood {
  double full, stall_cycles, queue_delay_ns;
};
DramFlood dram_flood(unsigned queue) {
  MemHarness h(test::make_config("orr2014", {"gpu.cus=1", "gpu.dram.queue=" + std::to_string(queue)}));
  const std::uint64_t base = h.mem().allocate(64 * 64);
  h.run({[&](MemPort& p, Qk& qk) {
    std::uint32_t v;
    for (unsigned k = 0; k < 64; ++k) p.read(base + 64 * k, &v, 4, qk.get_local_time());
  }});
  return {double(h.mem().dram().queue_full.value()),
          StatRegistry::global().sum_matching("gpu.l2.bank", ".dram_stall_cycles"), h.mem().dram().queue_delay.mean()};
}

// A full DRAM queue holds the L2's requests (their bank entries stay taken),
// counted as the banks' DRAM stall cycles.
TEST(Backpressure, AFullDramQueueStallsTheL2) {
  FG_REQUIRE_FRESH_KERNEL();
  const DramFlood f = dram_flood(2);
  EXPECT_GT(f.full, 50.0);
  EXPECT_GT(f.stall_cycles, 1000.0);
  EXPECT_LT(f.queue_delay_ns, 2 * 3.2 + 0.01) << "at most 2 ahead in the channel queue";
}

TEST(Backpressure, AnUnboundedDramQueueNeverStallsTheL2) {
  FG_REQUIRE_FRESH_KERNEL();
  const DramFlood f = dram_flood(0);
  EXPECT_EQ(f.full, 0.0);
  EXPECT_EQ(f.stall_cycles, 0.0);
  EXPECT_GT(f.queue_delay_ns, 20 * 3.2) << "the backlog grows with the flood";
}

TEST(Mshrs, AReadOfALineInFlightIsAMergeNotAHit) {
  FG_REQUIRE_FRESH_KERNEL();
  MemHarness h(test::make_config("orr2014", {"gpu.cus=1"}));
  const std::uint64_t a = h.mem().allocate(64);
  h.run({[&](MemPort& p, Qk& qk) {
    std::uint32_t v;
    p.read(a, &v, 4, qk.get_local_time());      // miss
    p.read(a + 4, &v, 4, qk.get_local_time());  // same line, fill in flight
    qk.inc(sc_core::sc_time(1, sc_core::SC_US));
    p.read(a + 8, &v, 4, qk.get_local_time());  // hit
  }});
  const auto& l1 = h.mem().l1(0);
  EXPECT_EQ(l1.read_misses.value(), 1u);
  EXPECT_EQ(l1.mshr_merges.value(), 1u);
  EXPECT_EQ(l1.read_hits.value(), 1u);
}

TEST(Atomics, EveryOperationIsExactIn32And64Bit) {
  FG_REQUIRE_FRESH_KERNEL();
  MemHarness h(test::make_config("orr2014", {"gpu.cus=1"}));
  const std::uint64_t a = h.mem().allocate(256);
  struct Case {
    AtomicOp op;
    unsigned size;
    std::uint64_t init, operand, compare, expect_new;
  };
  const std::vector<Case> cases = {
      {AtomicOp::Add, 4, 0xfffffffe, 3, 0, 1},  // 32-bit wraps
      {AtomicOp::Add, 8, 0xfffffffe, 3, 0, 0x100000001ull},
      {AtomicOp::Cas, 4, 7, 9, 7, 9},
      {AtomicOp::Cas, 4, 7, 9, 8, 7},  // compare fails: unchanged
      {AtomicOp::Cas, 8, 1ull << 40, 5, 1ull << 40, 5},
      {AtomicOp::Exch, 8, 11, 22, 0, 22},
      {AtomicOp::Min, 4, 5, 0xffffffff /* -1 */, 0, 0xffffffff},
      {AtomicOp::Max, 4, 5, 0xffffffff /* -1 */, 0, 5},
      {AtomicOp::UMin, 4, 5, 0xffffffff, 0, 5},
      {AtomicOp::UMax, 4, 5, 0xffffffff, 0, 0xffffffff},
      {AtomicOp::Min, 8, 5, ~0ull, 0, ~0ull},
      {AtomicOp::Max, 8, ~0ull, 3, 0, 3},
  };
  std::vector<std::uint64_t> olds(cases.size()), news(cases.size());
  h.run({[&](MemPort& p, Qk& qk) {
    for (std::size_t i = 0; i < cases.size(); ++i) {
      const auto& c = cases[i];
      std::uint64_t zero = 0;
      h.mem().copy_in(a, &zero, 8);
      h.mem().copy_in(a, &c.init, c.size);
      qk.set(p.atomic(a, c.op, c.size, c.operand, c.compare, olds[i], qk.get_local_time()));
      h.mem().copy_out(&news[i], a, 8);
    }
  }});
  for (std::size_t i = 0; i < cases.size(); ++i) {
    const auto& c = cases[i];
    std::uint64_t mask = c.size == 8 ? ~0ull : 0xffffffffull;
    EXPECT_EQ(olds[i], c.init & mask) << "case " << i << " " << to_string(c.op);
    EXPECT_EQ(news[i], c.expect_new) << "case " << i << " " << to_string(c.op);
  }
}

TEST(Atomics, AtomicInvalidatesEveryL1CopyButCountsOnlyOthersAsCoherence) {
  FG_REQUIRE_FRESH_KERNEL();
  MemHarness h(test::make_config("orr2014", {"gpu.cus=2", "mem.coherence=gpu"}));  // atomics at the L2
  const std::uint64_t a = h.mem().allocate(256);
  h.run({[&](MemPort& p, Qk& qk) {
           std::uint32_t v;
           p.read(a, &v, 4, qk.get_local_time());
           qk.inc(sc_core::sc_time(1, sc_core::SC_US));
           qk.sync();
           std::uint64_t old;
           p.atomic(a + 4, AtomicOp::Add, 4, 1, 0, old, qk.get_local_time());
           qk.inc(sc_core::sc_time(1, sc_core::SC_US));
           qk.sync();
           p.read(a, &v, 4, qk.get_local_time());  // misses: its own atomic invalidated the copy
         },
         [&](MemPort& p, Qk& qk) {
           std::uint32_t v;
           p.read(a, &v, 4, qk.get_local_time());
           qk.inc(sc_core::sc_time(2, sc_core::SC_US));
           qk.sync();
           p.read(a, &v, 4, qk.get_local_time());  // coherence miss: CU 0's atomic invalidated it
         }});
  const auto &l0 = h.mem().l1(0), &l1 = h.mem().l1(1);
  EXPECT_EQ(l0.invalidations.value(), 0u);
  EXPECT_EQ(l0.self_invalidations.value(), 1u);
  EXPECT_EQ(l0.read_misses.value(), 2u);
  EXPECT_EQ(l0.coherence_misses.value(), 0u);
  EXPECT_EQ(l1.invalidations.value(), 1u);
  EXPECT_EQ(l1.self_invalidations.value(), 0u);
  EXPECT_EQ(l1.coherence_misses.value(), 1u);
  // L2: 3 of 4 reads hit (the first fills the line); the atomic is not in
  // the read hit rate.
  const auto* rh = StatRegistry::global().find("gpu.l2.read_hit_rate");
  ASSERT_NE(rh, nullptr);
  EXPECT_DOUBLE_EQ(rh->scalar(), 0.75);
}

// k CUs CAS-increment one counter; each CAS uses the value the previous one
// returned (a lock-free counter). Successes serialize on the line.
double cas_makespan(int k, int iters, std::uint32_t& final_value, const std::string& coherence = "gpu",
                    std::uint64_t* transfers = nullptr, std::uint64_t* local_atomics = nullptr) {
  MemHarness h(test::make_config("orr2014", {"gpu.cus=" + std::to_string(k), "mem.coherence=" + coherence}));
  const std::uint64_t a = h.mem().allocate(256);
  std::vector<MemHarness::Agent> agents;
  for (int c = 0; c < k; ++c)
    agents.push_back([&](MemPort& p, Qk& qk) {
      std::uint64_t expected = 0;
      for (int done = 0; done < iters;) {
        std::uint64_t old;
        qk.set(p.atomic(a, AtomicOp::Cas, 4, expected + 1, expected, old, qk.get_local_time()));
        if (old == expected)
          ++done, ++expected;
        else
          expected = old;
        if (qk.need_sync()) qk.sync();
      }
    });
  h.run(agents);
  h.mem().copy_out(&final_value, a, 4);
  if (transfers) {
    *transfers = 0;
    for (int b = 0; b < 16; ++b)
      *transfers += static_cast<std::uint64_t>(
          StatRegistry::global().find(fmt::format("gpu.l2.bank{}.ownership_transfers", b))->scalar());
  }
  if (local_atomics) *local_atomics = h.mem().l1(0).local_atomics.value();
  return h.makespan_ns();
}

class CasContention : public ::testing::TestWithParam<int> {};

TEST_P(CasContention, KCusTakeAboutKTimesTheSingleCuTimeAndTheCountIsExact) {
  FG_REQUIRE_FRESH_KERNEL();
  const int k = GetParam(), iters = 200;
  // The single-CU time is analytic (orr2014, 1 GHz): every CAS is an L2 access
  // (16 cycles) plus the atomic unit (4 cycles); the first one also fetches the
  // line from DRAM (3.2 ns transfer + 30 ns).
  const double single = iters * (16 + 4) * 1.0 + 3.2 + 30.0;
  std::uint32_t final_value = 0;
  const double t = cas_makespan(k, iters, final_value);
  EXPECT_EQ(final_value, std::uint32_t(k * iters));
  if (k == 1) {
    EXPECT_NEAR(t, single, 1.0);
  } else {
    EXPECT_GT(t / single, 0.75 * k) << "k=" << k;
    EXPECT_LT(t / single, 1.25 * k) << "k=" << k;
  }
}

INSTANTIATE_TEST_SUITE_P(Cus, CasContention, ::testing::Values(1, 2, 4, 8));

// k CUs each stream `lines` distinct lines (all DRAM misses) with `outstanding`
// requests in flight.
double stream_makespan(int k, int lines, int outstanding, double* dram_util) {
  MemHarness h(test::make_config("orr2014", {"gpu.cus=" + std::to_string(k)}));
  const unsigned line = h.mem().line_size();
  std::vector<std::uint64_t> base(k);
  for (int c = 0; c < k; ++c) base[c] = h.mem().allocate(std::uint64_t(lines) * line);
  std::vector<MemHarness::Agent> agents;
  for (int c = 0; c < k; ++c)
    agents.push_back([&, c](MemPort& p, Qk& qk) {
      std::vector<unsigned char> buf(line);
      for (int i = 0; i < lines; i += outstanding) {
        auto issue = qk.get_local_time(), done = issue;
        for (int j = i; j < std::min(lines, i + outstanding); ++j)
          done = std::max(done, p.read(base[c] + std::uint64_t(j) * line, buf.data(), line, issue));
        qk.set(done);
        if (qk.need_sync()) qk.sync();
      }
    });
  h.run(agents);
  if (dram_util) *dram_util = h.mem().dram().utilization.scalar();
  return h.makespan_ns();
}

// ---- sectors (gpu.sector=32 on gh200: 32-byte sectors of 128-byte lines) ----

// A read brings in the sectors it touches: a later read of another sector of
// the line is a (sector) miss that costs an L2 round trip; reads of the
// sectors held hit. Without sectors (gpu.sector=0) the first read brings the
// whole line. Returns the latencies (ns) of reads of bytes 0, 32, 36 and 4 of
// a line, 1 us apart, and the L1's sector misses.
std::vector<double> sector_reads(const std::string& sector, double& sector_misses) {
  MemHarness h(test::make_config("gh200", {"gpu.cus=1", "gpu.sector=" + sector}));
  const std::uint64_t a = h.mem().allocate(4096);
  std::vector<double> lat;
  h.run({[&](MemPort& p, Qk& qk) {
    std::uint32_t v;
    for (const unsigned off : {0u, 32u, 36u, 4u}) {
      lat.push_back(ns(p.read(a + off, &v, 4, qk.get_local_time()) - qk.get_local_time()));
      qk.inc(sc_core::sc_time(1, sc_core::SC_US));
      qk.sync();
    }
  }});
  sector_misses = double(h.mem().l1(0).sector_misses.value());
  return lat;
}

TEST(Sectors, ASectorTheLineLacksIsAMissTheSectorsItHoldsHit) {
  FG_REQUIRE_FRESH_KERNEL();
  double sector_misses = 0;
  const auto lat = sector_reads("32", sector_misses);
  const double l1_hit = Expected(test::make_config("gh200", {})).l1_hit;
  EXPECT_EQ(sector_misses, 1.0);
  EXPECT_GT(lat[1], l1_hit + 100) << "byte 32 is in the line's second sector, not fetched by the read of byte 0";
  EXPECT_NEAR(lat[2], l1_hit, 0.01);
  EXPECT_NEAR(lat[3], l1_hit, 0.01);
}

TEST(Sectors, WithoutSectorsTheFirstReadBringsTheWholeLine) {
  FG_REQUIRE_FRESH_KERNEL();
  double sector_misses = 0;
  const auto lat = sector_reads("0", sector_misses);
  const double l1_hit = Expected(test::make_config("gh200", {})).l1_hit;
  EXPECT_EQ(sector_misses, 0.0);
  for (int i = 1; i < 4; ++i) EXPECT_NEAR(lat[i], l1_hit, 0.01) << i;
}

// A sector being fetched by a sector miss is pending: a read of it 1 ns later
// waits for that fill (a merge, not a hit), while a read of a sector the line
// already held hits at once.
TEST(Sectors, AReadOfAPendingSectorWaitsForItsFillAHeldOneDoesNot) {
  FG_REQUIRE_FRESH_KERNEL();
  MemHarness h(test::make_config("gh200", {"gpu.cus=1", "gpu.sector=32"}));
  const std::uint64_t a = h.mem().allocate(4096);
  double pending = 0, held = 0;
  h.run({[&](MemPort& p, Qk& qk) {
    std::uint32_t v;
    p.read(a, &v, 4, qk.get_local_time());  // sector 0
    qk.inc(sc_core::sc_time(1, sc_core::SC_US));
    qk.sync();
    const sc_core::sc_time t0 = qk.get_local_time();
    const double fill = ns(p.read(a + 32, &v, 4, t0) - t0);  // sector 1: a sector miss
    const sc_core::sc_time t1 = t0 + sc_core::sc_time(1, sc_core::SC_NS);
    held = ns(p.read(a + 4, &v, 4, t1) - t1);      // sector 0 (first: the L1 port takes a cycle per read)
    pending = ns(p.read(a + 36, &v, 4, t1) - t1);  // sector 1 again, its fill in flight
    pending -= fill - 1;                           // beyond the fill's completion
  }});
  const double l1_hit = Expected(test::make_config("gh200", {})).l1_hit;
  EXPECT_NEAR(held, l1_hit, 0.01);
  EXPECT_GE(pending, l1_hit - 0.01) << "the read of the pending sector returned before its fill";
  EXPECT_EQ(h.mem().l1(0).mshr_merges.value(), 1u);
  EXPECT_EQ(h.mem().l1(0).sector_misses.value(), 1u);
}

// gpu.l2.write_miss: a write that misses the L2 either fetches its line from
// DRAM first (fetch) or allocates it without a fetch, keeping the bytes it
// wrote (lazy, Accel-Sim's H100 L2); then a read of written bytes is an L2 hit
// and a read that needs another byte of the line fetches it from DRAM.
struct WriteMissTimes {
  double write, read_written, read_other;
};
WriteMissTimes write_miss_times(const char* policy) {
  // One partition: the bank of a line is then near (L2Partitions below).
  MemHarness h(
      test::make_config("gh200", {"gpu.cus=1", "gpu.l2.partitions=1", fmt::format("gpu.l2.write_miss={}", policy)}));
  const std::uint64_t a = h.mem().allocate(4096), b = a + 1024;
  WriteMissTimes t{};
  h.run({[&](MemPort& p, Qk& qk) {
    std::uint32_t v = 7;
    auto timed = [&](auto access) {
      qk.inc(sc_core::sc_time(2, sc_core::SC_US));  // after everything before it completed
      qk.sync();
      const sc_core::sc_time t0 = qk.get_local_time();
      return ns(access(t0) - t0);
    };
    t.write = timed([&](const sc_core::sc_time& t0) { return p.write(a, &v, 4, t0); });
    t.read_written = timed([&](const sc_core::sc_time& t0) { return p.read(a, &v, 4, t0, true); });
    timed([&](const sc_core::sc_time& t0) { return p.write(b, &v, 4, t0); });
    t.read_other = timed([&](const sc_core::sc_time& t0) { return p.read(b + 64, &v, 4, t0, true); });
  }});
  return t;
}

TEST(L2WriteMiss, FetchMakesAWriteMissWaitForDram) {
  FG_REQUIRE_FRESH_KERNEL();
  const Expected e(test::make_config("gh200", {}));
  const WriteMissTimes t = write_miss_times("fetch");
  EXPECT_GT(t.write, e.l2_hit + 100) << "the write miss fetched its line from DRAM";
  EXPECT_LT(t.read_written, e.l2_hit + 10) << "the line is in the L2 after the write";
  EXPECT_LT(t.read_other, e.l2_hit + 10);
}

TEST(L2WriteMiss, LazyAllocatesWithoutAFetchAndFetchesForAByteNotWritten) {
  FG_REQUIRE_FRESH_KERNEL();
  const Expected e(test::make_config("gh200", {}));
  const WriteMissTimes t = write_miss_times("lazy");
  EXPECT_LT(t.write, e.l2_hit + 10) << "no fetch on the write miss";
  EXPECT_LT(t.read_written, e.l2_hit + 10) << "the bytes written are in the L2";
  EXPECT_GT(t.read_other, e.l2_hit + 100) << "byte 64 was not written: the read fetches the line from DRAM";
}

// The lazy L2's fetches of lines allocated by writes, over gh200's 12 banks.
double lazy_fetches() {
  double n = 0;
  for (int i = 0; i < 12; ++i)
    if (const StatBase* s = StatRegistry::global().find(fmt::format("gpu.l2.bank{}.lazy_fetches", i))) n += s->scalar();
  return n;
}

// n random byte enables: runs of 1-12 enabled (0xff) or disabled bytes, one run in `odd` of a single other
// nonzero value.
std::vector<unsigned char> random_enables(std::mt19937_64& rng, unsigned n, unsigned odd) {
  auto pick = [&](unsigned k) { return static_cast<unsigned>(rng() % k); };
  std::vector<unsigned char> be(n);
  for (unsigned i = 0; i < n;) {
    const unsigned run = 1 + pick(12);
    const unsigned char v = pick(odd) == 0 ? static_cast<unsigned char>(1 + pick(254)) : (pick(2) ? 0xff : 0);
    for (unsigned k = 0; k < run && i < n; ++k) be[i++] = v;
  }
  return be;
}

// gpu.l2.write_miss=lazy with byte enables: a whole-line write keeps the
// bytes it enables and not its holes. A read of enabled bytes needs no fetch, a
// read of a hole fetches the line; a line with every byte enabled holds its
// data. The holes: a whole 8-byte word (bytes 96..103), one byte inside a word
// (byte 41), the last byte (127).
TEST(L2WriteMiss, LazyKeepsTheBytesAWriteEnablesNotItsHoles) {
  FG_REQUIRE_FRESH_KERNEL();
  MemHarness h(test::make_config("gh200", {"gpu.cus=1", "gpu.l2.partitions=1", "gpu.l2.write_miss=lazy"}));
  const std::uint64_t base = (h.mem().allocate(8192) / 128 + 1) * 128;
  const std::uint64_t word = base, byte = base + 1024, last = base + 2048, whole = base + 3072;
  std::vector<double> after;
  std::array<std::uint32_t, 3> got{};
  h.run({[&](MemPort& p, Qk& qk) {
    std::array<unsigned char, 128> data{}, be{};
    for (unsigned i = 0; i < 128; ++i) data[i] = static_cast<unsigned char>(i + 1);
    auto step = [&] {  // after everything before it completed
      qk.inc(sc_core::sc_time(2, sc_core::SC_US));
      qk.sync();
      return qk.get_local_time();
    };
    auto write = [&](std::uint64_t line, std::initializer_list<std::pair<unsigned, unsigned>> holes) {
      be.fill(0xff);
      for (auto [from, to] : holes)
        for (unsigned i = from; i < to; ++i) be[i] = 0;
      p.write(line, data.data(), 128, step(), be.data());
    };
    auto read = [&](std::uint64_t a) {
      std::uint32_t v = 0;
      p.read(a, &v, 4, step(), true);
      after.push_back(lazy_fetches());
      return v;
    };
    write(word, {{96, 104}});
    write(byte, {{41, 42}});
    write(last, {{127, 128}});
    write(whole, {});
    read(word + 92);             // bytes 92..95, enabled: 0 fetches
    read(word + 96);             // the word hole: 1
    read(byte + 36);             // 36..39: 1
    got[0] = read(byte + 40);    // 40..43 holds the hole at 41: 2
    read(last + 120);            // 2
    read(last + 124);            // 3
    got[1] = read(whole + 124);  // 3
    got[2] = read(word + 0);
  }});
  EXPECT_EQ(after, (std::vector<double>{0, 1, 1, 2, 2, 3, 3, 3}));
  EXPECT_EQ(got[0], 41u | 0u << 8 | 43u << 16 | 44u << 24) << "byte 41 was not written";
  EXPECT_EQ(got[1], 125u | 126u << 8 | 127u << 16 | 128u << 24);
  EXPECT_EQ(got[2], 1u | 2u << 8 | 3u << 16 | 4u << 24);
}

// The lazy L2's written-bytes mask against a byte reference: 60 fresh lines, each written once at a random offset
// and length with random enables (runs of enabled and disabled bytes, and single odd values, which the mask does
// not count as written), then read a word at a time in a random order. The first word read that holds a byte the
// mask lacks fetches the line (once); a word of bytes all written never does.
TEST(L2WriteMiss, LazyMarksExactlyTheBytesEnabledAtAnyOffset) {
  FG_REQUIRE_FRESH_KERNEL();
  MemHarness h(test::make_config("gh200", {"gpu.cus=1", "gpu.l2.partitions=1", "gpu.l2.write_miss=lazy"}));
  constexpr int kLines = 60;
  const std::uint64_t base = (h.mem().allocate(128 * (kLines + 1)) / 128 + 1) * 128;
  std::mt19937_64 rng(7);
  auto pick = [&](unsigned n) { return static_cast<unsigned>(rng() % n); };
  int checked = 0;
  h.run({[&](MemPort& p, Qk& qk) {
    auto step = [&] {
      qk.inc(sc_core::sc_time(2, sc_core::SC_US));
      qk.sync();
      return qk.get_local_time();
    };
    for (int line = 0; line < kLines; ++line) {
      const std::uint64_t at = base + 128ull * line;
      const unsigned off = pick(128), len = 1 + pick(128 - off);
      std::vector<unsigned char> data(len, 0x5a);
      const std::vector<unsigned char> be = random_enables(rng, len, 6);
      std::array<bool, 128> written{};
      for (unsigned i = 0; i < len; ++i) written[off + i] = be[i] == 0xff;
      p.write(at + off, data.data(), len, step(), be.data());
      std::array<unsigned, 32> order{};
      std::iota(order.begin(), order.end(), 0u);
      std::shuffle(order.begin(), order.end(), rng);
      bool fetched = false;
      const bool all = std::all_of(written.begin(), written.end(), [](bool b) { return b; });
      for (const unsigned w : order) {
        const double before = lazy_fetches();
        std::uint32_t v = 0;
        p.read(at + 4 * w, &v, 4, step(), true);
        const bool hole = !all && !(written[4 * w] && written[4 * w + 1] && written[4 * w + 2] && written[4 * w + 3]);
        EXPECT_EQ(lazy_fetches() - before, hole && !fetched ? 1.0 : 0.0)
            << "line " << line << " (" << len << " bytes at " << off << "), word " << w;
        fetched = fetched || hole;
        ++checked;
      }
    }
  }});
  EXPECT_EQ(checked, kLines * 32);
}

// The byte-enable fast paths (eight enables at a time) against a byte-by-byte
// reference, over random enables, lengths, offsets and enable periods, both
// where the store copies bytes and where a request's sectors are found.
TEST(ByteEnables, TheStoreAndTheSectorMaskAgreeWithAByteByByteReference) {
  std::mt19937_64 rng(36);
  auto pick = [&](unsigned n) { return static_cast<unsigned>(rng() % n); };
  BackingStore store(1 << 20);
  std::vector<unsigned char> ref(1 << 20, 0);
  for (int trial = 0; trial < 3000; ++trial) {
    const unsigned len = 1 + pick(300);
    const unsigned period = pick(2) ? len : 1 + pick(len);  // enables as long as the data, or repeating
    std::vector<unsigned char> be = random_enables(rng, period, 5);
    std::vector<unsigned char> src(len);
    for (auto& c : src) c = static_cast<unsigned char>(rng());
    const std::uint64_t addr = (1 << 16) - 200 + pick(400);  // across a page boundary of the store
    store.write(addr, src.data(), len, be.data(), period);
    for (unsigned i = 0; i < len; ++i)
      if (be[i % period]) ref[addr + i] = src[i];
    std::vector<unsigned char> out(len);
    store.read(addr, out.data(), len);
    ASSERT_TRUE(std::equal(out.begin(), out.end(), ref.begin() + static_cast<std::ptrdiff_t>(addr)))
        << "trial " << trial << ": " << len << " bytes at " << addr << ", enables every " << period;
    // Sectors::of reads the enables only when there is one per byte of a request within a line.
    const Sectors s{128, pick(2) ? 32u : 16u};
    const unsigned off = pick(128), n = std::min(len, 128 - off);
    tlm::tlm_generic_payload p;
    p.set_address(0x4000 + off);
    p.set_data_ptr(src.data());
    p.set_data_length(n);
    p.set_byte_enable_ptr(be.data());
    p.set_byte_enable_length(period);
    std::uint32_t want = 0;
    if (period >= n) {
      for (unsigned i = 0; i < n; ++i)
        if (be[i]) want |= s.span(off + i, 1);
      if (!want) want = s.span(off, 1);
    } else {
      want = s.span(off, n);
    }
    ASSERT_EQ(s.of(p, nullptr), want) << "trial " << trial << ": " << n << " bytes at line offset " << off;
    p.set_byte_enable_ptr(nullptr);
  }
}

// gpu.l2.partitions: two banks (modulo interleave: even lines in bank 0,
// partition 0; odd lines in bank 1, partition 1) and two CUs (CU i in
// partition i). CU0's read of an odd line crosses (far_latency more than its
// read of an even line), leaves a copy, so its next read is a near one; CU1's
// write drops the copy, so CU0's next read crosses again; CU0's atomics on
// the odd line cross every time, CU1's never. 100 cycles of gh200's L2 clock
// (1791 MHz: 558 ps) are 55.8 ns.
TEST(L2Partitions, AFarRequestCrossesAFarReadLeavesACopyAWriteDropsIt) {
  FG_REQUIRE_FRESH_KERNEL();
  const Config cfg = test::make_config("gh200", {"gpu.cus=2", "mem.interleave=modulo", "gpu.l2.banks=2",
                                                 "gpu.l2.partitions=2", "gpu.l2.far_latency=100"});
  const double far = 100 * l2_period_ns(cfg);
  MemHarness h(cfg);
  const std::uint64_t base = h.mem().allocate(4096);
  const std::uint64_t even = (base / 128 + 2 - (base / 128) % 2) * 128, odd = even + 128;
  double near_read = 0, far_read = 0, copy_read = 0, after_write = 0, far_atomic1 = 0, far_atomic2 = 0, near_atomic = 0;
  auto at = [](Qk& qk, int us) {  // at `us` microseconds, nothing in flight
    qk.set(sc_core::sc_time(us, sc_core::SC_US) - sc_core::sc_time_stamp());
    qk.sync();
    return qk.get_local_time();
  };
  h.run({[&](MemPort& p, Qk& qk) {
           std::uint32_t v;
           at(qk, 1);
           p.read(even, &v, 4, qk.get_local_time(), true);  // the even line into the L2
           sc_core::sc_time t = at(qk, 2);
           near_read = ns(p.read(even, &v, 4, t, true) - t);
           t = at(qk, 3);
           far_read = ns(p.read(odd, &v, 4, t, true) - t);
           t = at(qk, 4);
           copy_read = ns(p.read(odd, &v, 4, t, true) - t);
           t = at(qk, 6);
           after_write = ns(p.read(odd, &v, 4, t, true) - t);
           t = at(qk, 7);
           std::uint64_t old;
           far_atomic1 = ns(p.atomic(odd, AtomicOp::Add, 4, 1, 0, old, t) - t);
           t = at(qk, 8);
           far_atomic2 = ns(p.atomic(odd, AtomicOp::Add, 4, 1, 0, old, t) - t);
         },
         [&](MemPort& p, Qk& qk) {
           std::uint32_t v = 5;
           at(qk, 0);
           p.read(odd, &v, 4, qk.get_local_time(), true);  // the odd line into the L2, from its home partition
           sc_core::sc_time t = at(qk, 5);
           p.write(odd, &v, 4, t);
           t = at(qk, 9);
           std::uint64_t old;
           near_atomic = ns(p.atomic(odd, AtomicOp::Add, 4, 1, 0, old, t) - t);
         }});
  EXPECT_NEAR(far_read - near_read, far, 0.01);
  EXPECT_NEAR(copy_read, near_read, 0.01) << "the far read left a copy in CU0's partition";
  EXPECT_NEAR(after_write - near_read, far, 0.01) << "CU1's write dropped the copy";
  EXPECT_NEAR(far_atomic1 - near_atomic, far, 0.01);
  EXPECT_NEAR(far_atomic2 - near_atomic, far, 0.01) << "atomics execute at the home, copy or not";
  const StatRegistry& r = StatRegistry::global();
  EXPECT_EQ(r.find("gpu.l2.bank1.far")->scalar(), 4.0);
  EXPECT_EQ(r.find("gpu.l2.bank1.copy_hits")->scalar(), 1.0);
  EXPECT_EQ(r.find("gpu.l2.bank0.far")->scalar(), 0.0);
}

// One partition (every preset's but gh200's): no crossing, and no statistic.
TEST(L2Partitions, OnePartitionHasNoFarStatistics) {
  FG_REQUIRE_FRESH_KERNEL();
  MemHarness h(test::make_config("gh200", {"gpu.cus=2", "gpu.l2.partitions=1"}));
  EXPECT_EQ(StatRegistry::global().find("gpu.l2.bank0.far"), nullptr);
  EXPECT_EQ(StatRegistry::global().find("gpu.l2.bank0.copy_hits"), nullptr);
}

// gpu.l2.perturb (Alameldeen & Wood's perturbation): 40 L1-bypassing reads of
// one L2-resident line, each alone, take the same latency but for a whole
// number of L2 cycles from 0 to 8 that differs from read to read; the bank
// counts the cycles it added.
TEST(L2Perturb, EachResponseTakesAWholeNumberOfL2CyclesMoreUpToTheKey) {
  FG_REQUIRE_FRESH_KERNEL();
  const Config cfg = test::make_config("gh200", {"gpu.cus=1", "gpu.l2.perturb=8", "sim.seed=3"});
  const double period = l2_period_ns(cfg);
  MemHarness h(cfg);
  const std::uint64_t a = h.mem().allocate(4096);
  std::vector<double> lat;
  h.run({[&](MemPort& p, Qk& qk) {
    std::uint32_t v;
    p.read(a, &v, 4, qk.get_local_time(), true);  // the line into the L2
    for (int i = 1; i <= 40; ++i) {
      qk.set(sc_core::sc_time(i, sc_core::SC_US) - sc_core::sc_time_stamp());
      qk.sync();
      const sc_core::sc_time t = qk.get_local_time();
      lat.push_back(ns(p.read(a, &v, 4, t, true) - t));
    }
  }});
  ASSERT_EQ(lat.size(), 40u);
  const double lo = *std::min_element(lat.begin(), lat.end()), hi = *std::max_element(lat.begin(), lat.end());
  std::set<long> extras;
  double sum = 0;
  for (double l : lat) {
    const double k = (l - lo) / period;
    EXPECT_NEAR(k, std::round(k), 0.01) << l << " ns is not the fastest read's latency plus whole L2 cycles";
    extras.insert(std::lround(k));
    sum += std::round(k);
  }
  EXPECT_LE(hi - lo, 8 * period + 0.01);
  EXPECT_GE(extras.size(), 5u) << "40 draws of 0..8 cycles should give most of the values";
  double counted = 0;
  for (int b = 0; b < 12; ++b)
    counted += StatRegistry::global().find(fmt::format("gpu.l2.bank{}.perturb_cycles", b))->scalar();
  EXPECT_GE(counted, sum) << "the banks count every cycle they added (the first read's too)";
  EXPECT_LE(counted, sum + 41 * 8);
}

TEST(L2Perturb, OffByDefaultWithoutItsStatistic) {
  FG_REQUIRE_FRESH_KERNEL();
  MemHarness h(test::make_config("gh200", {"gpu.cus=1"}));
  EXPECT_EQ(StatRegistry::global().find("gpu.l2.bank0.perturb_cycles"), nullptr);
}

// Sectors::of, the sectors a request moves (32-byte sectors of a 128-byte
// line): the initiator's mask, else a coalesced atomic's lanes, else a
// write's byte enables, else the payload's span; without sectors, the line.
TEST(SectorMask, TheInitiatorsMaskTheAtomicsLanesTheByteEnablesElseTheSpan) {
  const Sectors s{128, 32};
  tlm::tlm_generic_payload p;
  std::array<unsigned char, 128> data{};
  p.set_data_ptr(data.data());
  p.set_address(0x1000 + 40);
  p.set_data_length(8);  // bytes 40..47: sector 1
  EXPECT_EQ(s.of(p, nullptr), 0b0010u);
  p.set_data_length(30);  // bytes 40..69: sectors 1 and 2
  EXPECT_EQ(s.of(p, nullptr), 0b0110u);
  MemExt ext;
  ext.sectors = 0b1001;
  EXPECT_EQ(s.of(p, &ext), 0b1001u) << "the initiator's mask";
  ext.sectors = 0;
  // A coalesced atomic at the line's address, its lanes at bytes 4..7 and 100..107.
  std::array<LaneAtomic, 2> lanes{};
  lanes[0].offset = 4;
  lanes[0].size = 4;
  lanes[0].op = AtomicOp::Add;
  lanes[1].offset = 100;
  lanes[1].size = 8;
  lanes[1].op = AtomicOp::Add;
  ext.op = AtomicOp::Add;
  ext.lanes = lanes.data();
  ext.n_lanes = 2;
  p.set_address(0x1000);
  p.set_data_length(128);
  EXPECT_EQ(s.of(p, &ext), 0b1001u) << "the lanes' sectors, not the payload's whole line";
  // A write of the whole line whose byte enables cover bytes 64..71 only.
  ext.op = AtomicOp::None;
  ext.lanes = nullptr;
  ext.n_lanes = 0;
  std::array<unsigned char, 128> be{};
  for (int i = 64; i < 72; ++i) be[i] = 0xff;
  p.set_byte_enable_ptr(be.data());
  p.set_byte_enable_length(128);
  EXPECT_EQ(s.of(p, &ext), 0b0100u) << "the enabled bytes' sector";
  EXPECT_EQ((Sectors{128, 0}).of(p, &ext), 1u) << "without sectors: the whole line";
  p.set_byte_enable_ptr(nullptr);
  p.set_byte_enable_length(0);
}

// 16 reads issued together (bypassing the L1, whose port takes no time here)
// to 16 lines of one L2 bank that a first pass brought into the L2: their
// completions are spaced by the bank port's occupancy per request (ns from
// the first to the last).
double l2_port_spread(const std::string& sector, unsigned bytes) {
  MemHarness h(
      test::make_config("gh200", {"gpu.cus=1", "gpu.l1.occupancy=0", "mem.interleave=modulo", "gpu.sector=" + sector}));
  const std::uint64_t line = 128, banks = 12;
  const std::uint64_t base = h.mem().allocate(16 * banks * line);
  std::vector<double> done;
  h.run({[&](MemPort& p, Qk& qk) {
    std::vector<unsigned char> buf(line);
    for (std::uint64_t k = 0; k < 16; ++k)
      p.read(base + k * banks * line, buf.data(), bytes, qk.get_local_time(), true);
    qk.inc(sc_core::sc_time(1, sc_core::SC_US));
    qk.sync();
    for (std::uint64_t k = 0; k < 16; ++k)
      done.push_back(ns(p.read(base + k * banks * line, buf.data(), bytes, qk.get_local_time(), true)));
  }});
  return *std::max_element(done.begin(), done.end()) - *std::min_element(done.begin(), done.end());
}

class SectorPort : public ::testing::TestWithParam<std::tuple<const char*, unsigned, double>> {};

TEST_P(SectorPort, AnL2BankIsBusyForTheSectorsARequestMoves) {
  FG_REQUIRE_FRESH_KERNEL();
  const auto [sector, bytes, cycles] = GetParam();
  // gh200: the port holds a 128-byte line 2 cycles of the 1791 MHz L2 (558 ps
  // each); one or two 32-byte sectors take one cycle, the least a request takes.
  EXPECT_NEAR(l2_port_spread(sector, bytes), 15 * cycles * l2_period_ns(test::make_config("gh200", {})), 0.02);
}

INSTANTIATE_TEST_SUITE_P(Gh200, SectorPort,
                         ::testing::Values(std::make_tuple("32", 8u, 1.0), std::make_tuple("32", 64u, 1.0),
                                           std::make_tuple("32", 128u, 2.0), std::make_tuple("0", 8u, 2.0)));

// 32 L1 hits issued together to 32 lines a first pass brought into the L1
// (gh200, one CU): their completions are spaced by the L1 port's hold per
// request (ns from the first to the last), the tag stage's gpu.l1.tags.
double l1_port_spread(const std::string& tags, const std::string& sector, unsigned bytes) {
  MemHarness h(test::make_config("gh200", {"gpu.cus=1", "gpu.l1.tags=" + tags, "gpu.sector=" + sector}));
  const std::uint64_t line = 128;
  const std::uint64_t base = h.mem().allocate(32 * line);
  std::vector<double> done;
  h.run({[&](MemPort& p, Qk& qk) {
    std::vector<unsigned char> buf(line);
    for (std::uint64_t k = 0; k < 32; ++k) p.read(base + k * line, buf.data(), line, qk.get_local_time());
    qk.inc(sc_core::sc_time(5, sc_core::SC_US));
    qk.sync();
    for (std::uint64_t k = 0; k < 32; ++k)
      done.push_back(ns(p.read(base + k * line, buf.data(), bytes, qk.get_local_time())));
  }});
  return *std::max_element(done.begin(), done.end()) - *std::min_element(done.begin(), done.end());
}

class L1Tags : public ::testing::TestWithParam<std::tuple<const char*, const char*, unsigned, double>> {};

TEST_P(L1Tags, AnL1AccessHoldsThePortItsSectorsShareAtLeastATagLookup) {
  FG_REQUIRE_FRESH_KERNEL();
  const auto [tags, sector, bytes, cycles] = GetParam();
  // gh200's L1 (1980 MHz, occupancy 1): with 4 tags a cycle a one-sector hit
  // holds the port a quarter cycle (a warp's 32 scattered 8-byte loads: 8
  // cycles, the H200's measured 8.0), a whole line a cycle; with 2 a
  // one-sector hit half a cycle (a tag lookup's); with 1 tag, or without
  // sectors, a cycle each.
  EXPECT_NEAR(l1_port_spread(tags, sector, bytes), 31 * cycles * 0.50505, 0.02);
}

INSTANTIATE_TEST_SUITE_P(Gh200, L1Tags,
                         ::testing::Values(std::make_tuple("4", "32", 8u, 0.25), std::make_tuple("4", "32", 64u, 0.5),
                                           std::make_tuple("4", "32", 128u, 1.0), std::make_tuple("2", "32", 8u, 0.5),
                                           std::make_tuple("1", "32", 8u, 1.0), std::make_tuple("4", "0", 8u, 1.0)));

class Bandwidth : public ::testing::TestWithParam<int> {};

TEST_P(Bandwidth, OnceDramSaturatesKStreamsTakeKTimesAsLong) {
  FG_REQUIRE_FRESH_KERNEL();
  const int k = GetParam(), lines = 2000;
  double util = 0;
  const double t = stream_makespan(k, lines, 16, &util);
  // Saturated: the bytes of all k streams at the configured 20 GB/s.
  const double bound = double(k) * lines * 64 / 20.0;
  EXPECT_GT(util, 0.9) << "DRAM should be saturated with " << k << " streams";
  EXPECT_GT(t, bound);
  EXPECT_LT(t, 1.1 * bound) << "k=" << k;
}

INSTANTIATE_TEST_SUITE_P(Streams, Bandwidth, ::testing::Values(2, 4, 8));

TEST(Bandwidth, BelowSaturationStreamsDoNotSlowEachOther) {
  FG_REQUIRE_FRESH_KERNEL();
  // One request in flight per CU: 64 B per ~53 ns = 1.2 GB/s each, 4.8 GB/s for
  // four, far below 20 GB/s. Four must take about as long as one would.
  const int lines = 500;
  const double t4 = stream_makespan(4, lines, 1, nullptr);
  const double one = lines * (4 + 16 + 3.2 + 30);
  EXPECT_GT(t4, one);
  EXPECT_LT(t4, 1.15 * one);
}

}  // namespace
}  // namespace fg

namespace fg {
namespace {

// ---- moesi (orr2014: Sec. 7, Table 2) ----

double stat_sum(const std::string& prefix, const std::string& suffix) {
  return StatRegistry::global().sum_matching(prefix, suffix);
}

// gpu.l1.local_write_back: a store to a local line the L1 holds stays there
// (the L2 sees no write, the store takes the L1's hit latency), a store to a
// global line it holds writes through; the dirty line goes to the L2 when the
// reads of two lines of its set evict it (a 1 KiB, 2-way L1 of 128-byte lines:
// 4 sets, lines 512 B apart share one), and the data read back is the
// stored. Without the option the local store writes through.
struct LocalStores {
  double l2_writes_after_stores = 0, l2_writes_after_evictions = 0, write_hits = -1, writebacks = -1;
  double local_store_ns = 0;
  std::uint32_t read_back = 0;
};
LocalStores local_stores(bool write_back) {
  MemHarness h(test::make_config("gh200", {"gpu.cus=1", "gpu.l1.size=1024", "gpu.l1.ways=2",
                                           fmt::format("gpu.l1.local_write_back={}", write_back)}));
  const std::uint64_t a = h.mem().allocate(8192), g = a + 4096;  // local [a, a + 4096), global g
  h.mem().add_local_window(a, 4096);
  LocalStores r;
  h.run({[&](MemPort& p, Qk& qk) {
    auto settle = [&] {
      qk.inc(sc_core::sc_time(2, sc_core::SC_US));
      qk.sync();
    };
    std::uint32_t v = 0, x = 42;
    p.read(a, &v, 4, qk.get_local_time());  // both lines held
    p.read(g + 128, &v, 4, qk.get_local_time());
    settle();
    const sc_core::sc_time t0 = qk.get_local_time();
    r.local_store_ns = ns(p.write(a, &x, 4, t0) - t0);
    p.write(g + 128, &x, 4, t0);
    settle();
    r.l2_writes_after_stores = stat_sum("gpu.l2.bank", ".writes");
    p.read(a + 512, &v, 4, qk.get_local_time());  // the set's two other lines: line a is the LRU
    p.read(a + 1024, &v, 4, qk.get_local_time());
    settle();
    r.l2_writes_after_evictions = stat_sum("gpu.l2.bank", ".writes");
    p.read(a, &r.read_back, 4, qk.get_local_time());
  }});
  const L1Cache& l1 = h.mem().l1(0);
  if (l1.write_hits) r.write_hits = double(l1.write_hits->value());
  if (l1.writebacks) r.writebacks = double(l1.writebacks->value());
  return r;
}

TEST(LocalWriteBack, ALocalStoreHitStaysInTheL1UntilItsLineIsEvicted) {
  FG_REQUIRE_FRESH_KERNEL();
  const LocalStores r = local_stores(true);
  const Expected e(test::make_config("gh200", {}));
  EXPECT_EQ(r.write_hits, 1.0);
  EXPECT_EQ(r.l2_writes_after_stores, 1.0) << "the global store alone reaches the L2";
  EXPECT_NEAR(r.local_store_ns, e.l1_hit, 0.01);
  EXPECT_EQ(r.writebacks, 1.0);
  EXPECT_EQ(r.l2_writes_after_evictions, 2.0) << "the evicted dirty line is written back";
  EXPECT_EQ(r.read_back, 42u);
}

TEST(LocalWriteBack, WithoutItALocalStoreWritesThrough) {
  FG_REQUIRE_FRESH_KERNEL();
  const LocalStores r = local_stores(false);
  const Expected e(test::make_config("gh200", {}));
  EXPECT_EQ(r.write_hits, -1.0) << "no such statistic without the option";
  EXPECT_EQ(r.l2_writes_after_stores, 2.0);
  EXPECT_GT(r.local_store_ns, e.l1_hit + 50) << "the store waits for the L2";
  EXPECT_EQ(r.l2_writes_after_evictions, 2.0);
  EXPECT_EQ(r.read_back, 42u);
}

// A fence's invalidation that drops local lines too (gpu.cu.ivall_keeps_local=false) writes a dirty one
// back first; one that keeps them (gh200's) writes nothing.
double fence_writebacks(bool keeps_local) {
  MemHarness h(test::make_config(
      "gh200", {"gpu.cus=1", "gpu.l1.local_write_back=true", fmt::format("gpu.cu.ivall_keeps_local={}", keeps_local)}));
  const std::uint64_t a = h.mem().allocate(4096);
  h.mem().add_local_window(a, 4096);
  h.run({[&](MemPort& p, Qk& qk) {
    std::uint32_t v = 0, x = 7;
    p.read(a, &v, 4, qk.get_local_time());
    qk.inc(sc_core::sc_time(2, sc_core::SC_US));
    qk.sync();
    p.write(a, &x, 4, qk.get_local_time());
    p.invalidate_l1(qk.get_local_time());
  }});
  return double(h.mem().l1(0).writebacks->value());
}

TEST(LocalWriteBack, AFenceThatDropsLocalLinesWritesADirtyOneBack) {
  FG_REQUIRE_FRESH_KERNEL();
  EXPECT_EQ(fence_writebacks(false), 1.0);
}

TEST(LocalWriteBack, AFenceThatKeepsLocalLinesWritesNothing) {
  FG_REQUIRE_FRESH_KERNEL();
  EXPECT_EQ(fence_writebacks(true), 0.0);
}

// The L2 evicting a line the L1 holds dirty (inclusion's back-invalidation) leaves it in the L1: a 4 KiB L2 of one
// bank, 2 ways, 16 sets (lines 2 KiB apart share one) evicts line a for the reads of two others; the L1 keeps its
// dirty copy (stat dirty_kept), so the next read of a is an L1 hit.
TEST(LocalWriteBack, AnL2EvictionKeepsADirtyLocalLine) {
  FG_REQUIRE_FRESH_KERNEL();
  MemHarness h(
      test::make_config("gh200", {"gpu.cus=1", "gpu.l1.local_write_back=true", "gpu.l2.size=4096", "gpu.l2.ways=2",
                                  "gpu.l2.banks=1", "gpu.l2.partitions=1", "mem.interleave=modulo"}));
  const std::uint64_t a = h.mem().allocate(16384);
  h.mem().add_local_window(a, 16384);
  double again = 0;
  h.run({[&](MemPort& p, Qk& qk) {
    auto settle = [&] {
      qk.inc(sc_core::sc_time(2, sc_core::SC_US));
      qk.sync();
    };
    std::uint32_t v = 0, x = 9;
    p.read(a, &v, 4, qk.get_local_time());
    settle();
    p.write(a, &x, 4, qk.get_local_time());  // dirty in the L1; the L2 does not see it
    settle();
    p.read(a + 2048, &v, 4, qk.get_local_time());
    settle();
    p.read(a + 4096, &v, 4, qk.get_local_time());  // the L2 evicts line a
    settle();
    const sc_core::sc_time t0 = qk.get_local_time();
    again = ns(p.read(a, &v, 4, t0) - t0);
  }});
  const L1Cache& l1 = h.mem().l1(0);
  EXPECT_EQ(l1.dirty_kept->value(), 1u);
  EXPECT_NEAR(again, Expected(test::make_config("gh200", {})).l1_hit, 0.01);
}

TEST(LocalWriteBack, NeedsTheGpuProtocol) {
  EXPECT_TRUE(L1Cache::Params::from(test::make_config("gh200", {"gpu.l1.local_write_back=true"})).local_write_back);
  EXPECT_THROW(L1Cache::Params::from(test::make_config("orr2014", {"gpu.l1.local_write_back=true"})), UserError);
}

TEST(Moesi, AReadOfALineAnotherL1OwnsIsACacheToCacheTransfer) {
  FG_REQUIRE_FRESH_KERNEL();
  MemHarness h(test::make_config("orr2014", {"gpu.cus=2"}));
  const std::uint64_t a = h.mem().allocate(256);
  double c2c = 0, l2 = 0;
  std::uint32_t seen = 0;
  h.run({[&](MemPort& p, Qk& qk) {  // CU 0 writes: read for ownership, then M
           std::uint32_t v = 7;
           p.write(a, &v, 4, qk.get_local_time());
         },
         [&](MemPort& p, Qk& qk) {
           qk.inc(sc_core::sc_time(1, sc_core::SC_US));
           qk.sync();
           c2c = ns(p.read(a, &seen, 4, qk.get_local_time()) - qk.get_local_time());  // from CU 0's L1
           qk.inc(sc_core::sc_time(1, sc_core::SC_US));
           qk.sync();
           l2 = ns(p.read(a + 64, &seen, 4, qk.get_local_time()) - qk.get_local_time());  // another line: L2 / DRAM
         }});
  EXPECT_EQ(stat_sum("gpu.l2.bank", ".c2c_transfers"), 1.0);
  // L1 tag (4) + directory (16) + forward to the owner and its data back (2 x 8 cycles).
  EXPECT_NEAR(c2c, 4 + 16 + 16, 0.01);
  EXPECT_GT(l2, c2c);  // the other line came from DRAM
}

TEST(Moesi, ProducerConsumerOnTwoCusCostsOneCacheToCacheTransferPerHandOff) {
  const auto path = (test::scratch_dir() / "pp.json").string();
  const auto r = test::run_fgsim(
      "run pingpong --preset orr2014 --quiet --set gpu.cus=2 --set pingpong.rounds=50 "
      "--stats " +
      path);
  ASSERT_EQ(r.code, 0) << r.err;
  const auto j = nlohmann::json::parse(test::slurp(path));
  double c2c = 0, own = 0;
  for (const auto& [k, v] : j["stats"].items()) {
    if (k.ends_with(".c2c_transfers")) c2c += v.get<double>();
    if (k.ends_with(".ownership_transfers")) own += v.get<double>();
  }
  EXPECT_EQ(c2c, 100.0);  // each of the 100 hand-offs: the consumer's read finds the producer's M/O line
  EXPECT_GE(own, 99.0);   // each producer write takes the line back
  EXPECT_LE(own, 101.0);
}

TEST(Moesi, RepeatedAtomicsByOneCuHitInItsL1) {
  FG_REQUIRE_FRESH_KERNEL();
  std::uint32_t final_value = 0;
  std::uint64_t transfers = 0, local = 0;
  const double t = cas_makespan(1, 200, final_value, "moesi", &transfers, &local);
  EXPECT_EQ(final_value, 200u);
  EXPECT_EQ(local, 199u);  // all but the first
  EXPECT_EQ(transfers, 0u);
  // 199 L1 atomics (4-cycle tag + 1-cycle RMW) after one read for ownership:
  // far below 200 L2 round trips (4000 ns under the gpu protocol).
  EXPECT_LT(t, 1200.0);
}

TEST(Moesi, AnEvictedModifiedLineIsReportedToTheDirectory) {
  FG_REQUIRE_FRESH_KERNEL();
  // orr2014 L1: 16 KiB, 16 ways, 64 B lines = 16 sets; lines 1 KiB apart share a set.
  MemHarness h(test::make_config("orr2014", {"gpu.cus=2"}));
  const std::uint64_t a = h.mem().allocate(64 * 1024);
  h.run({[&](MemPort& p, Qk& qk) {
           std::uint32_t v = 1;
           p.write(a, &v, 4, qk.get_local_time());                                               // M
           for (unsigned k = 1; k <= 16; ++k) p.read(a + 1024 * k, &v, 4, qk.get_local_time());  // evicts it
         },
         [&](MemPort& p, Qk& qk) {
           qk.inc(sc_core::sc_time(5, sc_core::SC_US));
           qk.sync();
           std::uint32_t v = 0;
           p.read(a, &v, 4, qk.get_local_time());
           EXPECT_EQ(v, 1u);
         }});
  EXPECT_EQ(stat_sum("gpu.l2.bank", ".puts"), 1.0);           // the write-back of the M line
  EXPECT_EQ(stat_sum("gpu.l2.bank", ".c2c_transfers"), 0.0);  // CU 1 gets it from the L2
}

TEST(Moesi, TheDirectoryHandlesOneTransactionPerLineAtATime) {
  FG_REQUIRE_FRESH_KERNEL();
  // CU 2 owns the line; CUs 0 and 1 ask for ownership at the same instant.
  // Each transfer takes two hops (16 ns); the second waits for the first.
  MemHarness h(test::make_config("orr2014", {"gpu.cus=3"}));
  const std::uint64_t a = h.mem().allocate(256);
  double done[2] = {0, 0};
  auto contender = [&](int i) {
    return [&, i](MemPort& p, Qk& qk) {
      qk.inc(sc_core::sc_time(1, sc_core::SC_US));
      qk.sync();
      std::uint64_t old = 0;
      done[i] = ns(p.atomic(a, AtomicOp::Add, 4, 1, 0, old, qk.get_local_time()));
    };
  };
  h.run({contender(0), contender(1), [&](MemPort& p, Qk& qk) {
           std::uint32_t v = 0;
           p.write(a, &v, 4, qk.get_local_time());
         }});
  EXPECT_GE(std::abs(done[0] - done[1]), 16.0) << done[0] << " " << done[1];
}

class MoesiCas : public ::testing::TestWithParam<int> {};

TEST_P(MoesiCas, ContendedCasMakesTheLineMigrateAndEachCasCostsMore) {
  FG_REQUIRE_FRESH_KERNEL();
  const int k = GetParam(), iters = 100;
  std::uint32_t final_value = 0;
  std::uint64_t transfers = 0;
  const double t = cas_makespan(k, iters, final_value, "moesi", &transfers);
  EXPECT_EQ(final_value, std::uint32_t(k * iters));
  // Per successful CAS, the time grows with k (the line migrates between
  // L1s, two hops per move, one transaction per line at a time) ...
  const double per_cas = t / (k * iters);
  EXPECT_GT(per_cas, 10.0) << "k=" << k;
  // ... and most successes needed the line from another L1.
  EXPECT_GT(double(transfers), 0.5 * k * iters) << "k=" << k;
}

INSTANTIATE_TEST_SUITE_P(Cus, MoesiCas, ::testing::Values(2, 4, 8));

// Address translation (gpu.tlb.*, mem/tlb.h; modelled with mem.coherence=gpu):
// bypassing reads at 1 us intervals, so every one reaches the L2 alone;
// orr2014's CUs run at 1 GHz (1 ns a cycle). Returns each read's latency (ns) and the L1's TLB counters.
struct TlbRun {
  std::vector<double> ns;
  std::uint64_t lookups = 0, misses = 0, walks = 0;
};
struct TlbRead {
  unsigned page, offset = 0;
  bool with_previous = false;  // issued with the read before it, not 1 us after
};
TlbRun tlb_reads(const std::vector<std::string>& sets, const std::vector<TlbRead>& reads) {
  std::vector<std::string> all = {"gpu.cus=1", "mem.coherence=gpu", "gpu.tlb.page=4096"};
  all.insert(all.end(), sets.begin(), sets.end());
  MemHarness h(test::make_config("orr2014", all));
  const std::uint64_t base = h.mem().allocate(8 * 4096, 4096);
  TlbRun r;
  h.run({[&](MemPort& p, Qk& qk) {
    std::uint32_t v;
    for (const TlbRead& x : reads) {
      if (!x.with_previous) qk.inc(sc_core::sc_time(1, sc_core::SC_US));
      r.ns.push_back(
          ns(p.read(base + 4096ull * x.page + x.offset, &v, 4, qk.get_local_time(), true) - qk.get_local_time()));
    }
  }});
  const auto& l1 = h.mem().l1(0);
  if (l1.tlb_lookups)
    r.lookups = l1.tlb_lookups->value(), r.misses = l1.tlb_misses->value(), r.walks = l1.tlb_walks->value();
  return r;
}
std::vector<TlbRead> pages(std::initializer_list<unsigned> ps) {
  std::vector<TlbRead> v;
  for (unsigned p : ps) v.push_back({p});
  return v;
}

TEST(Tlb, AnL1TlbMissCostsItsLatencyAndTheLeastRecentlyUsedPageLeaves) {
  FG_REQUIRE_FRESH_KERNEL();
  // Two entries; pages A A B C A: A misses, hits, B and C miss (C's evicts A, the least recently used), A misses.
  const TlbRun r =
      tlb_reads({"gpu.tlb.l1_entries=2", "gpu.tlb.l1_miss_latency=100"}, pages({0, 0, 1, 2, 0, 1, 0, 3, 0}));
  // ... then B (evicted by A: a miss), A (a hit: B did not evict it, as A was used after C), D (a miss, evicts C),
  // A (a hit: used after B).
  EXPECT_EQ(r.lookups, 9u);
  EXPECT_EQ(r.misses, 6u);
  EXPECT_EQ(r.walks, 0u);
  // The second and fifth reads of A both hit the L2: the fifth's L1 TLB miss is their difference, 100 cycles.
  EXPECT_NEAR(r.ns[4] - r.ns[1], 100.0, 0.01);
  EXPECT_NEAR(r.ns[6], r.ns[1], 0.01) << "a held translation costs nothing";
}

TEST(Tlb, AnL2TlbMissIsAWalk) {
  FG_REQUIRE_FRESH_KERNEL();
  // One L1 entry, two L2 entries: A A B A C B: A walks, hits, B walks, A misses the L1 TLB only, C walks (the L2
  // TLB's least recently used, B, leaves), B walks again.
  const TlbRun r = tlb_reads(
      {"gpu.tlb.l1_entries=1", "gpu.tlb.l1_miss_latency=100", "gpu.tlb.l2_entries=2", "gpu.tlb.walk_latency=300"},
      pages({0, 0, 1, 0, 2, 1}));
  EXPECT_EQ(r.lookups, 6u);
  EXPECT_EQ(r.misses, 5u);
  EXPECT_EQ(r.walks, 4u);
  EXPECT_NEAR(r.ns[3] - r.ns[1], 100.0, 0.01);        // A again: the L2 TLB held it
  EXPECT_NEAR(r.ns[5] - r.ns[1], 100.0 + 300, 0.01);  // B again (an L2 hit): a walk
}

TEST(Tlb, ATranslationOnItsWayIsWaitedForNotFetchedAgain) {
  FG_REQUIRE_FRESH_KERNEL();
  // One entry: A's lines 0 and 64 into the L2, A's line 0 again (held: the L2 hit's latency), B (A leaves), then
  // A's two lines together: the first misses, the second waits for that translation.
  const TlbRun r =
      tlb_reads({"gpu.tlb.l1_entries=1", "gpu.tlb.l1_miss_latency=100"}, {{0}, {0, 64}, {0}, {1}, {0}, {0, 64, true}});
  EXPECT_EQ(r.lookups, 6u);
  EXPECT_EQ(r.misses, 3u) << "the second read of the pair must not fetch the translation again";
  const double held = r.ns[2];
  EXPECT_NEAR(r.ns[4] - held, 100.0, 0.01);
  EXPECT_GE(r.ns[5], held + 100.0 - 0.01) << "the second read leaves once the translation is ready";
  EXPECT_LT(r.ns[5], held + 100.0 + 10.0);
}

TEST(Tlb, ItsKeysWithoutTranslationOrABadPageAreUserErrors) {
  for (const char* bad :
       {"gpu.tlb.walk_latency=5", "gpu.tlb.l2_entries=8", "gpu.tlb.l1_miss_latency=1", "gpu.tlb.page=4096"}) {
    const Config cfg = test::make_config("orr2014", {bad});
    EXPECT_THROW(TlbParams::from(cfg), UserError) << bad;
  }
  const Config odd = test::make_config("orr2014", {"gpu.tlb.l1_entries=4", "gpu.tlb.page=3000"});
  EXPECT_THROW(TlbParams::from(odd), UserError);
  const Config good = test::make_config("orr2014", {"gpu.tlb.l1_entries=4", "gpu.tlb.page=4096"});
  EXPECT_EQ(TlbParams::from(good).page, 4096u);
}

TEST(Tlb, WithMoesiCoherenceItIsAUserError) {
  FG_REQUIRE_FRESH_KERNEL();
  EXPECT_THROW(MemHarness(test::make_config("orr2014", {"gpu.cus=1", "gpu.tlb.l1_entries=4"})), UserError);
}

}  // namespace
}  // namespace fg
