// SPDX-License-Identifier: Apache-2.0
// The hardware worklist in the GPU model (systemc/worklist/): the ISA
// operations through the device-operation seam, the lane-to-bank mapping,
// conservation (every pushed work ID pulled exactly once, then DONE) under
// every redistribution scheme, the double-buffer swap, the overflow
// exception, and independence from the quantum.
#include <algorithm>
#include <string>
#include <vector>

#include <fmt/format.h>
#include <gtest/gtest.h>

#include "fg_test.h"
#include "gpu/dispatcher.h"
#include "sim/error.h"
#include "worklist/worklist.h"

namespace fg {
namespace {

using test::HostHarness;

// kim2014 with the hardware worklist built (the harness builds what
// gpu.mechanisms names) and `sets` after.
Config wl_config(std::vector<std::string> sets) {
  sets.insert(sets.begin(), "gpu.mechanisms=worklist");
  return test::make_config("kim2014", sets);
}
wl::Worklist& unit(Host& host) { return host.gpu().get<wl::Worklist>("test"); }

// Work-item i < n pushes base + 3 i (double-buffer mode): a pull that
// returned another value than a pushed one lands on a slot no push has.
Task<> push_kernel(Lane& l, std::uint32_t base, std::uint32_t n) {
  co_await wl::wl_cfg(l, true);
  if (l.global_id() < n) co_await wl::wl_push(l, base + 3 * l.global_id());
}

// Persistent pullers: count every ID pulled (hits[id] += 1); the loop pulls
// at its bottom (see workloads/graph/bfs_sssp.cpp). `first` records, per
// work-item, the first ID it pulled (or kDone).
Task<> pull_kernel(Lane& l, std::uint64_t hits, std::uint64_t first, std::uint32_t base) {
  std::uint32_t u = co_await wl::wl_pull(l);
  co_await l.store<std::uint32_t>(first + 4ull * l.global_id(), u);
  for (;;) {
    if (u == wl::kDone) break;
    if (u != wl::kWait) {
      co_await l.atomic_add<std::uint32_t>(hits + 4ull * (u - base), 1);
      co_await l.alu(20);  // some work per item
    }
    u = co_await wl::wl_pull(l);
  }
}

// pull_kernel on CU `cu` only (the other work-items end at once).
Task<> pull_on_cu(Lane& l, std::uint32_t cu, std::uint64_t hits, std::uint64_t first, std::uint32_t base) {
  const std::uint32_t mine = co_await l.cu_id();
  if (mine == cu) co_await pull_kernel(l, hits, first, base);
}

struct Result {
  std::vector<std::uint32_t> hits, first;
  double pull_ids = 0, pull_dones = 0, pushes = 0, pull_waits = 0;
  unsigned inside_after = 0;
  std::string where;  // the banks after the pushes
};

Result push_then_pull(std::vector<std::string> sets, std::uint32_t n, std::uint32_t push_items,
                      std::uint32_t pull_items) {
  Result r;
  sets.insert(sets.begin(), "gpu.cus=4");  // the caller's settings win
  auto* h = new HostHarness(wl_config(sets), [&](Host& host) {
    const std::uint32_t base = 1000;
    const std::uint64_t hits = host.upload(std::vector<std::uint32_t>(3 * n, 0));
    const std::uint64_t first = host.upload(std::vector<std::uint32_t>(pull_items, 0));
    wl::Worklist& w = unit(host);
    host.run_kernel({"push", push_items, 32, 4, 0, [=](Lane& l) { return push_kernel(l, base, n); }});
    EXPECT_EQ(w.work_inside(), n);
    r.where = w.where();
    w.kernel_done();  // swap: the pushed IDs become pullable
    host.run_kernel({"pull", pull_items, 32, 8, 0, [=](Lane& l) { return pull_kernel(l, hits, first, base); }});
    r.hits = host.download<std::uint32_t>(hits, 3 * n);
    r.first = host.download<std::uint32_t>(first, pull_items);
    r.inside_after = w.work_inside();
  });
  h->run();
  r.pull_ids = h->stat("gpu.worklist.pull_ids");
  r.pull_dones = h->stat("gpu.worklist.pull_dones");
  r.pushes = h->stat("gpu.worklist.pushes");
  return r;
}

class Conservation : public ::testing::TestWithParam<const char*> {};

TEST_P(Conservation, EveryPushedIdIsPulledOnceThenDone) {
  FG_REQUIRE_FRESH_KERNEL();
  // 900 IDs pushed by the first 900 of 2048 work-items (uneven: the last
  // wavefronts push nothing), pulled by 4 x 8 wavefronts of 32.
  const std::string scheme = GetParam();
  std::vector<std::string> sets = {"worklist.scheme=" + scheme};
  if (scheme.rfind("ideal", 0) != 0) sets.push_back("worklist.depth=128");  // the ideal worklists are infinite
  const Result r = push_then_pull(sets, 900, 2048, 4 * 8 * 32);
  ASSERT_EQ(r.hits.size(), 3 * 900u);
  std::uint32_t bad = 0;
  for (std::uint32_t i = 0; i < r.hits.size(); ++i) bad += r.hits[i] != (i % 3 == 0 ? 1u : 0u);
  EXPECT_EQ(bad, 0u) << "IDs not pulled exactly once";
  EXPECT_EQ(r.pull_ids, 900);
  EXPECT_EQ(r.pushes, 900);
  EXPECT_EQ(r.pull_dones, 4 * 8 * 32);  // every work-item ends with DONE
  EXPECT_EQ(r.inside_after, 0u);
}

// One core: a greedy core has no other core to give work to. The network
// used to take its donation anyway and hold it forever in the hub's input
// register (bfs and bh with gpu.cus=1 ended in a diagnosed livelock).
class OneCore : public ::testing::TestWithParam<const char*> {};

TEST_P(OneCore, EveryPushedIdIsPulledOnceThenDone) {
  FG_REQUIRE_FRESH_KERNEL();
  const Result r = push_then_pull({"gpu.cus=1", "worklist.depth=128", std::string("worklist.scheme=") + GetParam()},
                                  900, 2048, 8 * 32);
  std::uint32_t bad = 0;
  for (std::uint32_t i = 0; i < r.hits.size(); ++i) bad += r.hits[i] != (i % 3 == 0 ? 1u : 0u);
  EXPECT_EQ(bad, 0u) << "IDs not pulled exactly once";
  EXPECT_EQ(r.pull_ids, 900);
  EXPECT_EQ(r.pull_dones, 8 * 32);
  EXPECT_EQ(r.inside_after, 0u);
}

INSTANTIATE_TEST_SUITE_P(Schemes, OneCore, ::testing::Values("threshold", "lsorting", "gsorting"),
                         [](const auto& i) { return std::string(i.param); });

INSTANTIATE_TEST_SUITE_P(Schemes, Conservation,
                         ::testing::Values("none", "threshold", "lsorting", "gsorting", "magic", "ideal_fifo",
                                           "ideal_sorted"),
                         [](const auto& i) { return std::string(i.param); });

TEST(Banks, LaneIUsesBankIOfItsCore) {
  FG_REQUIRE_FRESH_KERNEL();
  // One wavefront of 32 on 16 banks pushes 1000 + 3 lane: lanes i and i + 16
  // share bank i, in lane order. Without redistribution the first pull of
  // lane i (one wavefront again, on the same CU) returns its bank's head.
  const Result r = push_then_pull({"worklist.scheme=none", "gpu.cus=1"}, 32, 32, 32);
  for (std::uint32_t i = 0; i < 16; ++i) {
    EXPECT_NE((r.where + ";")
                  .find("core 0 lane " + std::to_string(i) + " push side: " + std::to_string(1000 + 3 * i) + ", " +
                        std::to_string(1000 + 3 * (i + 16)) + ";"),
              std::string::npos)
        << "bank " << i << ": " << r.where;
    EXPECT_EQ(r.first[i], 1000 + 3 * i) << "lane " << i;
    EXPECT_EQ(r.first[i + 16], 1000 + 3 * (i + 16)) << "lane " << i + 16;
  }
}

// Lanes 16..23 pull while lanes 0..15 are elsewhere (sleeping, then pushing)
// and the only pullable ID (pushed before by lane 9) is in bank 9: the pull
// gets WAIT on all its lanes, but the wavefront must not block, since the
// lanes it would hold are the ones that pull bank 9.
Task<> diverged_kernel(Lane& l, std::uint64_t hits) {
  const std::uint32_t lane = l.lane_id();
  if (lane >= 24) co_return;
  std::uint32_t u = wl::kWait;
  if (lane >= 16) {
    u = co_await wl::wl_pull(l);
  } else {
    co_await l.sleep(200);
    co_await wl::wl_push(l, 2000 + lane);  // to the push side: pulled in a later kernel
  }
  for (;;) {
    if (u == wl::kDone) break;
    if (u != wl::kWait) co_await l.atomic_add<std::uint32_t>(hits, 1);
    u = co_await wl::wl_pull(l);
  }
}

Task<> push_lane9(Lane& l) {
  co_await wl::wl_cfg(l, true);
  if (l.lane_id() == 9) co_await wl::wl_push(l, 1009);
}

TEST(Wait, APartlyDivergedWavefrontIsNotBlocked) {
  FG_REQUIRE_FRESH_KERNEL();
  std::uint32_t pulled = 0;
  bool finished = false;
  HostHarness h(wl_config({"gpu.cus=1", "worklist.scheme=none"}), [&](Host& host) {
    const std::uint64_t hits = host.upload(std::vector<std::uint32_t>(1, 0));
    host.run_kernel({"push9", 32, 32, 4, 0, [](Lane& l) { return push_lane9(l); }});
    unit(host).kernel_done();
    host.run_kernel({"diverged", 32, 32, 8, 0, [=](Lane& l) { return diverged_kernel(l, hits); }});
    pulled = host.download<std::uint32_t>(hits, 1)[0];
    finished = true;
  });
  h.run();
  EXPECT_TRUE(finished) << "the kernel did not finish";
  EXPECT_EQ(pulled, 1u);
  EXPECT_EQ(h.top().find<wl::Worklist>()->work_inside(), 16u);  // the 16 pushes wait on the push side
  // Work left in the unit when a run ends is a fault (the mechanism's end-of-run check).
  try {
    h.top().end_of_run();
    ADD_FAILURE() << "no end-of-run fault with 16 work IDs inside";
  } catch (const SimFault& e) {
    EXPECT_NE(std::string(e.what()).find("worklist: the run ended with work left: 16 work IDs"), std::string::npos)
        << e.what();
  }
  if (!finished) h.reap();
}

TEST(Deadlock, WorkNoRedistributionCanBringIsADiagnosedDeadlock) {
  FG_REQUIRE_FRESH_KERNEL();
  // Scheme none on 2 cores: 32 IDs pushed on one core, pulled by a
  // wavefront on the other; its banks never get
  // work (WAIT), nobody pulls the IDs: with blocking waiters the unit
  // settles and sleeps, and the run ends without events instead of spinning.
  auto* h =
      new HostHarness(wl_config({"gpu.cus=2", "worklist.scheme=none", "worklist.waiters=block"}), [&](Host& host) {
        const std::uint64_t hits = host.upload(std::vector<std::uint32_t>(64, 0));
        const std::uint64_t first = host.upload(std::vector<std::uint32_t>(64, 0));
        // Workgroup 0 (CU 0) pushes, workgroup 1 (CU 1) does not; then only
        // the workgroup on CU 1 pulls.
        host.run_kernel({"push", 64, 32, 4, 0, [=](Lane& l) { return push_kernel(l, 1000, 32); }});
        unit(host).kernel_done();
        host.run_kernel({"pull", 64, 32, 8, 0, [=](Lane& l) { return pull_on_cu(l, 1, hits, first, 1000); }});
      });
  sc_core::sc_start();
  EXPECT_FALSE(sc_core::sc_pending_activity());  // no events left: the driver reports a deadlock
  const std::string d = h->top().diagnose();
  EXPECT_NE(d.find("blocked on wlpull"), std::string::npos) << d;
  EXPECT_NE(d.find("worklist: 32 work IDs: core 0 lane"), std::string::npos) << d;  // where the work is
  EXPECT_GT(h->top().find<wl::Worklist>()->work_inside(), 0u);
  h->reap();
}

// The same with spinning waiters (the default): the wavefront pulls WAIT
// again and again; the unit ends the run as a livelock, naming where the work is.
TEST(Livelock, SpinningOnWorkNoPullCanReachIsADiagnosedFault) {
  FG_REQUIRE_FRESH_KERNEL();
  auto* h = new HostHarness(wl_config({"gpu.cus=2", "worklist.scheme=none"}), [&](Host& host) {
    const std::uint64_t hits = host.upload(std::vector<std::uint32_t>(64, 0));
    const std::uint64_t first = host.upload(std::vector<std::uint32_t>(64, 0));
    host.run_kernel({"push", 64, 32, 4, 0, [=](Lane& l) { return push_kernel(l, 1000, 32); }});
    unit(host).kernel_done();
    host.run_kernel({"pull", 64, 32, 8, 0, [=](Lane& l) { return pull_on_cu(l, 1, hits, first, 1000); }});
  });
  try {
    h->run();
    ADD_FAILURE() << "no livelock fault";
  } catch (const SimFault& e) {
    const std::string w = e.what();
    EXPECT_NE(w.find("worklist: livelock: every lane of the kernel has pulled WAIT for"), std::string::npos) << w;
    EXPECT_NE(w.find("32 work IDs: core 0 lane"), std::string::npos) << w;
  }
  EXPECT_GT(h->stat("gpu.worklist.wait_spins"), 1000);  // it did spin
  EXPECT_EQ(h->stat("gpu.worklist.wait_blocks"), 0);
  h->reap();
}

// Spinning waiters (Sec. IV-C): a wavefront whose lanes all got WAIT pulls
// again, each time an instruction and a pull of every lane; blocked, it
// waits in the unit. 200 IDs pushed on core 0 only: core 1's wavefronts
// wait until redistribution brings some. The same work either way.
Task<> push_on_cu0(Lane& l, std::uint32_t n) {
  co_await wl::wl_cfg(l, true);
  const std::uint32_t cu = co_await l.cu_id();
  if (cu != 0) co_return;
  for (std::uint32_t k = 0; k < 8; ++k)
    if (l.global_id() * 8 + k < n) co_await wl::wl_push(l, 1000 + 3 * (l.global_id() * 8 + k));
}

class Waiters : public ::testing::TestWithParam<const char*> {};

TEST_P(Waiters, SpinningPullsAgainBlockingWaitsInTheUnit) {
  FG_REQUIRE_FRESH_KERNEL();
  const bool spin = std::string(GetParam()) == "spin";
  std::vector<std::uint32_t> hits;
  auto* h = new HostHarness(
      wl_config({"gpu.cus=2", "worklist.scheme=lsorting", std::string("worklist.waiters=") + GetParam()}),
      [&](Host& host) {
        const std::uint64_t d = host.upload(std::vector<std::uint32_t>(3 * 200, 0));
        const std::uint64_t first = host.upload(std::vector<std::uint32_t>(512, 0));
        host.run_kernel({"push", 64, 32, 4, 0, [=](Lane& l) { return push_on_cu0(l, 200); }});
        unit(host).kernel_done();
        host.run_kernel({"pull", 512, 32, 8, 0, [=](Lane& l) { return pull_kernel(l, d, first, 1000); }});
        hits = host.download<std::uint32_t>(d, 3 * 200);
      });
  h->run();
  ASSERT_EQ(hits.size(), 600u);
  for (std::uint32_t i = 0; i < 600; ++i) EXPECT_EQ(hits[i], i % 3 == 0 ? 1u : 0u) << i;
  EXPECT_EQ(h->stat("gpu.worklist.pull_ids"), 200);
  const double spins = h->stat("gpu.worklist.wait_spins"), blocks = h->stat("gpu.worklist.wait_blocks");
  const double waits = h->stat("gpu.worklist.pull_waits");
  const double instrs = h->stat("gpu.cu0.wavefront_instructions") + h->stat("gpu.cu1.wavefront_instructions");
  if (spin) {
    EXPECT_GT(spins, 0);
    EXPECT_EQ(blocks, 0);
    EXPECT_GE(waits, 32 * spins);  // every spin is a pull of each of the wavefront's 32 lanes
    EXPECT_GT(instrs, spins);      // and an instruction
  } else {
    EXPECT_GT(blocks, 0);
    EXPECT_EQ(spins, 0);
    EXPECT_LT(instrs, 3 * 200 + 16 * 2 * 8 * 4);  // no pull again while blocked: a few per ID and wavefront
  }
  h->reap();
}

INSTANTIATE_TEST_SUITE_P(Modes, Waiters, ::testing::Values("spin", "block"),
                         [](const auto& i) { return std::string(i.param); });

// Single-buffer mode: DONE only when no thread holds work (Sec. III-C). The
// thread that pulls the seed ID 5000 works on it for 400 cycles, then pushes
// 24 more and raises a flag in memory; everyone pulls until DONE, counts
// what it pulled, and after DONE reads the flag. Had a thread got DONE while
// the list was empty but the seed's thread was still working, it would have
// left before the flag was raised.
Task<> push_seed(Lane& l) {
  co_await wl::wl_cfg(l, false);
  if (l.global_id() == 0) co_await wl::wl_push(l, 5000);
}

Task<> seed_kernel(Lane& l, std::uint64_t counts, std::uint64_t flag, std::uint64_t seen) {
  std::uint32_t got = 0;
  std::uint32_t u = co_await wl::wl_pull(l);
  for (;;) {
    if (u == wl::kDone) break;
    if (u != wl::kWait) {
      ++got;
      if (u == 5000) {
        co_await l.sleep(400);
        for (std::uint32_t k = 1; k <= 24; ++k) co_await wl::wl_push(l, 5000 + k);
        co_await l.store<std::uint32_t>(flag, 1);
      }
    }
    u = co_await wl::wl_pull(l);
  }
  co_await l.store<std::uint32_t>(counts + 4ull * l.global_id(), got);
  const std::uint32_t f = co_await l.load<std::uint32_t>(flag);
  co_await l.store<std::uint32_t>(seen + 4ull * l.global_id(), f);
}

// The seed kernel, then 128 threads of seed_kernel in single-buffer mode;
// their pull counts and what each read of the flag after its DONE.
void run_seed_kernels(Host& host, std::vector<std::uint32_t>& counts, std::vector<std::uint32_t>& seen) {
  const std::uint64_t c = host.upload(std::vector<std::uint32_t>(128, 0));
  const std::uint64_t flag = host.upload(std::vector<std::uint32_t>(1, 0));
  const std::uint64_t s = host.upload(std::vector<std::uint32_t>(128, 0));
  host.run_kernel({"seed", 32, 32, 4, 0, [](Lane& l) { return push_seed(l); }});
  unit(host).kernel_done();
  host.run_kernel({"work", 128, 32, 8, 0, [=](Lane& l) { return seed_kernel(l, c, flag, s); }});
  unit(host).kernel_done();
  counts = host.download<std::uint32_t>(c, 128);
  seen = host.download<std::uint32_t>(s, 128);
}

TEST(SingleBuffer, DoneWaitsForTheThreadsThatHoldWork) {
  FG_REQUIRE_FRESH_KERNEL();
  std::vector<std::uint32_t> counts, seen;
  HostHarness h(wl_config({"gpu.cus=1"}), [&](Host& host) { run_seed_kernels(host, counts, seen); });
  h.run();
  ASSERT_EQ(counts.size(), 128u);
  std::uint32_t total = 0, early = 0;
  for (auto n : counts) total += n;
  for (auto f : seen) early += f == 0;
  EXPECT_EQ(total, 25u);  // every ID once
  EXPECT_EQ(early, 0u) << "threads got DONE while the seed's thread still held work";
  EXPECT_EQ(h.top().find<wl::Worklist>()->work_inside(), 0u);
  EXPECT_GT(h.stat("gpu.worklist.done_holds"), 0);
  EXPECT_EQ(h.stat("gpu.worklist.pull_dones"), 128);
}

// Fig. 8's time series (worklist.activity_interval): the same kernel sampled
// every 20 cycles. While the seed's thread works, it is the one active
// thread and the other 127 wait; every thread ends DONE; no sample counts more
// threads than the kernel has.
TEST(ActivitySeries, CountsTheThreadsThatHoldWaitAndAreDone) {
  FG_REQUIRE_FRESH_KERNEL();
  const Config cfg = wl_config({"gpu.cus=1", "worklist.activity_interval=20"});
  const auto threads =
      std::get<std::uint64_t>(cfg.value("gpu.cu.slots")) * std::get<std::uint64_t>(cfg.value("gpu.cu.wavefront_width"));
  std::vector<std::uint32_t> counts, seen;
  HostHarness h(cfg, [&](Host& host) { run_seed_kernels(host, counts, seen); });
  h.run();
  auto series = [](const char* n) {
    auto* st = dynamic_cast<const Series*>(StatRegistry::global().find(std::string("gpu.worklist.") + n));
    EXPECT_NE(st, nullptr) << n;
    return st ? st->samples() : std::vector<std::uint64_t>{};
  };
  const auto act = series("active_threads"), wait = series("waiting_threads"), done = series("done_threads");
  ASSERT_EQ(act.size(), wait.size());
  ASSERT_EQ(act.size(), done.size());
  ASSERT_GT(act.size(), 20u);  // the 400 cycles of work alone are 20 samples
  EXPECT_EQ(h.stat("gpu.worklist.hw_threads"), static_cast<double>(threads));  // 1 CU
  unsigned one_working = 0, all_done = 0;
  for (std::size_t k = 0; k < act.size(); ++k) {
    EXPECT_LE(act[k] + wait[k] + done[k], 128u) << "sample " << k;
    EXPECT_LE(act[k], 25u) << "sample " << k;  // 25 IDs in all
    one_working += act[k] == 1 && wait[k] == 127 && done[k] == 0;
    all_done += done[k] == 128;
  }
  EXPECT_GE(one_working, 15u) << "the seed's 400 cycles: one active thread, 127 waiting";
  EXPECT_GE(all_done, 1u) << "every thread ends DONE before the kernel ends";
  EXPECT_EQ(act.back() + wait.back(), 0u);  // after DONE nothing holds work or waits
}

// A kernel's end clears its threads from the series: between two runs of the
// kernels above, a sample counts no thread at all.
TEST(ActivitySeries, AKernelsEndClearsItsThreads) {
  FG_REQUIRE_FRESH_KERNEL();
  std::vector<std::uint32_t> counts, seen;
  // Sampled every cycle: between the first run's end and the second run's
  // first pull there are only a few cycles (the second seed kernel).
  HostHarness h(wl_config({"gpu.cus=1", "worklist.activity_interval=1"}), [&](Host& host) {
    run_seed_kernels(host, counts, seen);
    run_seed_kernels(host, counts, seen);
  });
  h.run();
  std::vector<std::uint64_t> total;
  for (const char* n : {"active_threads", "waiting_threads", "done_threads"}) {
    auto* st = dynamic_cast<const Series*>(StatRegistry::global().find(std::string("gpu.worklist.") + n));
    ASSERT_NE(st, nullptr) << n;
    total.resize(st->samples().size());
    for (std::size_t k = 0; k < total.size(); ++k) total[k] += st->samples()[k];
  }
  // first thread counted, then a gap with none, then the second run's threads
  const auto first = std::find_if(total.begin(), total.end(), [](auto v) { return v != 0; });
  const auto gap = std::find(first, total.end(), 0u);
  const auto second = std::find_if(gap, total.end(), [](auto v) { return v != 0; });
  EXPECT_NE(second, total.end()) << "no sample between the two runs counts zero threads";
}

TEST(Overflow, APushToAFullBankIsTheHardwareException) {
  FG_REQUIRE_FRESH_KERNEL();
  // Depth 4 double-buffered: 2 entries per side; one wavefront of 32 lanes on
  // 16 banks pushes 2 per bank (fits), a second wavefront 2 more (does not).
  try {
    push_then_pull({"worklist.depth=4", "gpu.cus=1"}, 64, 64, 32);
    FAIL() << "no exception";
  } catch (const SimFault& e) {
    EXPECT_NE(std::string(e.what()).find("worklist overflow: a push of work ID"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("(2 entries per side in double-buffer mode"), std::string::npos) << e.what();
  }
}

// ---- the virtualization unit (hvu.h) -----------------------------------------

Task<> virt_init(Lane& l, std::uint64_t overflow, std::uint64_t entries, bool dbl) {
  co_await wl::wl_init(l, overflow, entries);
  co_await wl::wl_cfg(l, dbl);
}
Task<> virt_push(Lane& l, std::uint32_t base, std::uint32_t n) {
  if (l.global_id() < n) co_await wl::wl_push(l, base + 3 * l.global_id());
}

struct VirtResult : Result {
  double spills = 0, refills = 0, stores = 0, loads = 0, written = 0, read = 0, reservations = 0, waits = 0;
};

// n IDs pushed through 4-entry banks into an overflow buffer of `entries`
// per core, then pulled; single or double-buffer mode.
VirtResult virt_push_then_pull(std::vector<std::string> sets, std::uint32_t n, std::uint64_t entries, bool dbl) {
  VirtResult r;
  sets.insert(sets.begin(), {"gpu.cus=4", "worklist.depth=4"});
  auto* h = new HostHarness(wl_config(sets), [&](Host& host) {
    const std::uint32_t base = 1000, pull_items = 4 * 8 * 32;
    const std::uint64_t hits = host.upload(std::vector<std::uint32_t>(3 * n, 0));
    const std::uint64_t first = host.upload(std::vector<std::uint32_t>(pull_items, 0));
    const std::uint64_t overflow = host.alloc(4 * entries * 4);
    wl::Worklist& w = unit(host);
    host.run_kernel({"init", 1, 32, 4, 0, [=](Lane& l) { return virt_init(l, overflow, entries, dbl); }});
    host.run_kernel({"push", 2048, 32, 4, 0, [=](Lane& l) { return virt_push(l, base, n); }});
    EXPECT_EQ(w.work_inside(), n);
    r.where = w.where();
    w.kernel_done();
    host.run_kernel({"pull", pull_items, 32, 8, 0, [=](Lane& l) { return pull_kernel(l, hits, first, base); }});
    r.hits = host.download<std::uint32_t>(hits, 3 * n);
    r.inside_after = w.work_inside();
  });
  h->run();
  r.pull_ids = h->stat("gpu.worklist.pull_ids");
  r.pull_dones = h->stat("gpu.worklist.pull_dones");
  r.pushes = h->stat("gpu.worklist.pushes");
  r.spills = h->stat("gpu.worklist.hvu.spills");
  r.refills = h->stat("gpu.worklist.hvu.refills");
  r.stores = h->stat("gpu.worklist.hvu.spill_stores");
  r.loads = h->stat("gpu.worklist.hvu.refill_loads");
  r.written = h->stat("gpu.worklist.hvu.bytes_written");
  r.read = h->stat("gpu.worklist.hvu.bytes_read");
  r.reservations = h->stat("gpu.worklist.hvu.reservations");
  r.waits = h->stat("gpu.worklist.hvu.refill_waits");
  return r;
}

class Virtualization : public ::testing::TestWithParam<std::tuple<bool, const char*>> {};

// 900 IDs into 4 cores x 16 banks x 4 entries (256, or 128 per round): most
// spill, every one comes back exactly once, then DONE everywhere.
TEST_P(Virtualization, SpilledIdsArePulledOnceThenDone) {
  FG_REQUIRE_FRESH_KERNEL();
  const auto [dbl, refill] = GetParam();
  const VirtResult r = virt_push_then_pull({std::string("worklist.refill=") + refill}, 900, 1024, dbl);
  std::uint32_t bad = 0;
  for (std::uint32_t i = 0; i < r.hits.size(); ++i) bad += r.hits[i] != (i % 3 == 0 ? 1u : 0u);
  EXPECT_EQ(bad, 0u) << "IDs not pulled exactly once";
  EXPECT_EQ(r.pull_ids, 900);
  EXPECT_EQ(r.pushes, 900);
  EXPECT_EQ(r.pull_dones, 4 * 8 * 32);
  EXPECT_EQ(r.inside_after, 0u);
  EXPECT_GE(r.spills, 900 - (dbl ? 128 : 256));
  EXPECT_EQ(r.refills, r.spills);
  EXPECT_EQ(r.written, 4 * r.spills);
  EXPECT_EQ(r.read, 4 * r.spills);
  EXPECT_LT(r.stores, r.spills);  // some stores coalesce several spills
  EXPECT_GT(r.loads, 0);
  EXPECT_LT(r.loads, r.spills / 4);  // loads bring a wavefront's or a core's banks' worth
  // Interval refills reserve an entry per bank in single-buffer mode only.
  if (std::string(refill) == "interval" && !dbl)
    EXPECT_GT(r.reservations, 0);
  else
    EXPECT_EQ(r.reservations, 0);
  EXPECT_NE(r.where.find("overflow buffer"), std::string::npos) << r.where;
}

INSTANTIATE_TEST_SUITE_P(Modes, Virtualization,
                         ::testing::Combine(::testing::Bool(), ::testing::Values("interval", "on_demand")),
                         [](const auto& i) {
                           return std::string(std::get<0>(i.param) ? "Double" : "Single") +
                                  (std::string(std::get<1>(i.param)) == "interval" ? "Interval" : "OnDemand");
                         });

// Sec. III-D: "coalesces up to a warp's worth of pushes" per store. A
// wavefront's 32 pushes reach 16 banks in two cycles (lanes i and i + 16
// share bank i): buffered across cycles they go out as one store of 32, one
// cycle's spills at a time (the ablation) as two of 16 at least.
class HvuCoalescing : public ::testing::TestWithParam<const char*> {};

TEST_P(HvuCoalescing, AWarpsWorthOfSpillsPerStore) {
  FG_REQUIRE_FRESH_KERNEL();
  const bool warp = std::string(GetParam()) == "warp";
  const VirtResult r = virt_push_then_pull({std::string("worklist.hvu_coalesce=") + GetParam()}, 900, 1024, true);
  ASSERT_EQ(r.pull_ids, 900);
  ASSERT_GT(r.spills, 500);
  EXPECT_EQ(r.written, 4 * r.spills);
  if (warp) {
    EXPECT_LE(r.stores, r.spills / 24) << r.spills << " spills";
  } else {
    EXPECT_GE(r.stores, r.spills / 16) << r.spills << " spills";
  }
}

INSTANTIATE_TEST_SUITE_P(Modes, HvuCoalescing, ::testing::Values("warp", "cycle"),
                         [](const auto& i) { return std::string(i.param); });

// On demand, several refill loads in flight per core (Sec. III-D: "as many
// virtualization requests as there is space in the load-store unit"), up to
// worklist.hvu_refills; 1 (the ablation) keeps one at a time.
class HvuRefills : public ::testing::TestWithParam<const char*> {};

TEST_P(HvuRefills, OnDemandLoadsInFlight) {
  FG_REQUIRE_FRESH_KERNEL();
  const std::string n = GetParam();
  const VirtResult r = virt_push_then_pull({"worklist.refill=on_demand", "worklist.hvu_refills=" + n}, 900, 1024, true);
  ASSERT_EQ(r.pull_ids, 900);
  ASSERT_GT(r.loads, 8);
  const double peak = StatRegistry::global().find("gpu.worklist.hvu.peak_loads")->scalar();
  if (n == "1") {
    EXPECT_EQ(peak, 1);
  } else {
    EXPECT_GT(peak, 1);
    EXPECT_LE(peak, std::stod(n));
  }
}

INSTANTIATE_TEST_SUITE_P(Limits, HvuRefills, ::testing::Values("1", "8"),
                         [](const auto& i) { return std::string("max") + i.param; });

// Sec. III-D: the unit's requests go through each core's load/store unit
// ("injects virtualization requests into the load-store unit ... to be issued
// just like any other memory access"): its refill loads are the reads that
// bypass the cores' L1s. worklist.hvu_path=l2 (the ablation) sends them
// straight to the L2: no L1 sees them.
class HvuPath : public ::testing::TestWithParam<const char*> {};

TEST_P(HvuPath, RefillsGoThroughTheCoresLoadStorePath) {
  FG_REQUIRE_FRESH_KERNEL();
  const bool lsu = std::string(GetParam()) == "lsu";
  const VirtResult r = virt_push_then_pull({std::string("worklist.hvu_path=") + GetParam()}, 900, 1024, true);
  ASSERT_EQ(r.pull_ids, 900);
  ASSERT_GT(r.loads, 8);
  double bypass = 0;
  for (int k = 0; k < 4; ++k)
    bypass += StatRegistry::global().find(fmt::format("gpu.cu{}.l1.bypass_reads", k))->scalar();
  if (lsu) {
    EXPECT_GE(bypass, r.loads);      // a load is one line request or more
    EXPECT_LE(bypass, 3 * r.loads);  // a warp's worth of IDs (128 B) spans at most three 64 B lines
  } else {
    EXPECT_EQ(bypass, 0);
  }
}

INSTANTIATE_TEST_SUITE_P(Paths, HvuPath, ::testing::Values("lsu", "l2"),
                         [](const auto& i) { return std::string(i.param); });

// Sec. III-D, interval refills: "As many virtualization requests can be
// injected as there are free entries in the load-store unit's internal
// queue": from an interval check on, a load a cycle while every bank has
// room and the queue a free entry. With an interval longer than a load's
// round trip, one per interval (the ablation) never has two in flight.
class HvuIntervalLoads : public ::testing::TestWithParam<std::tuple<bool, const char*>> {};

TEST_P(HvuIntervalLoads, AsManyAsTheQueueHasRoomFor) {
  FG_REQUIRE_FRESH_KERNEL();
  const auto [dbl, mode] = GetParam();
  const VirtResult r = virt_push_then_pull(
      {"worklist.interval=5000", std::string("worklist.hvu_interval_loads=") + mode, "worklist.depth=16"}, 2000, 2048,
      dbl);
  ASSERT_EQ(r.pull_ids, 2000);
  ASSERT_GT(r.loads, 4);
  const double peak = StatRegistry::global().find("gpu.worklist.hvu.peak_loads")->scalar();
  if (std::string(mode) == "one")
    EXPECT_LE(peak, 2) << r.loads << " loads";  // an interval load and a tail loaded on demand
  else
    EXPECT_GE(peak, 4) << r.loads << " loads";
}

INSTANTIATE_TEST_SUITE_P(Modes, HvuIntervalLoads,
                         ::testing::Combine(::testing::Bool(), ::testing::Values("queue", "one")), [](const auto& i) {
                           return std::string(std::get<0>(i.param) ? "Double" : "Single") + std::get<1>(i.param);
                         });

// Double-buffer mode has no reservations: an interval load goes out only
// while every bank's pull side has room for it beside the IDs already on
// their way to it, so the loads in flight never exceed a side's entries
// (2-entry sides here; without counting the loads in flight, a burst would
// fill the load/store queue).
TEST(HvuIntervalLoadsDouble, LoadsInFlightFitTheBanks) {
  FG_REQUIRE_FRESH_KERNEL();
  const VirtResult r =
      virt_push_then_pull({"worklist.interval=5000", "worklist.hvu_interval_loads=queue"}, 2000, 2048, true);
  ASSERT_EQ(r.pull_ids, 2000);
  ASSERT_GT(r.loads, 4);
  EXPECT_LE(StatRegistry::global().find("gpu.worklist.hvu.peak_loads")->scalar(), 2) << r.loads << " loads";
}

TEST(Virtualization, AFullOverflowBufferIsTheHardwareException) {
  FG_REQUIRE_FRESH_KERNEL();
  try {
    virt_push_then_pull({}, 900, 16, false);
    FAIL() << "no exception";
  } catch (const SimFault& e) {
    EXPECT_NE(std::string(e.what()).find("overflow buffer full (16 entries"), std::string::npos) << e.what();
  }
}

// ---- the limit studies (model only) ----------------------------------------

// One wavefront pushes base + 3 (31 - lane): descending in lane order.
Task<> push_descending(Lane& l, std::uint32_t base) {
  co_await wl::wl_cfg(l, true);
  co_await wl::wl_push(l, base + 3 * (31 - l.lane_id()));
}

Result descending_then_pull(const std::string& scheme) {
  Result r;
  auto* h = new HostHarness(wl_config({"gpu.cus=1", "worklist.scheme=" + scheme}), [&](Host& host) {
    const std::uint64_t hits = host.upload(std::vector<std::uint32_t>(3 * 32, 0));
    const std::uint64_t first = host.upload(std::vector<std::uint32_t>(32, 0));
    host.run_kernel({"push", 32, 32, 4, 0, [=](Lane& l) { return push_descending(l, 1000); }});
    unit(host).kernel_done();
    host.run_kernel({"pull", 32, 32, 8, 0, [=](Lane& l) { return pull_kernel(l, hits, first, 1000); }});
    r.first = host.download<std::uint32_t>(first, 32);
  });
  h->run();
  r.pull_ids = h->stat("gpu.worklist.pull_ids");
  r.pull_waits = h->stat("gpu.worklist.pull_waits");
  return r;
}

// The ideal FIFO worklist hands the IDs out in push order (the 32 pushes of
// one cycle in lane order); the sorted one smallest first. All 32 lanes get
// an ID in the same cycle: no bank port, no WAIT.
TEST(Ideal, FifoInPushOrder) {
  FG_REQUIRE_FRESH_KERNEL();
  const Result fifo = descending_then_pull("ideal_fifo");
  for (std::uint32_t i = 0; i < 32; ++i) EXPECT_EQ(fifo.first[i], 1000 + 3 * (31 - i)) << "lane " << i;
  EXPECT_EQ(fifo.pull_waits, 0);
  EXPECT_EQ(fifo.pull_ids, 32);
}

TEST(Ideal, SortedSmallestIdFirst) {
  FG_REQUIRE_FRESH_KERNEL();
  const Result sorted = descending_then_pull("ideal_sorted");
  for (std::uint32_t i = 0; i < 32; ++i) EXPECT_EQ(sorted.first[i], 1000 + 3 * i) << "lane " << i;
  EXPECT_EQ(sorted.pull_waits, 0);
}

// Magic levels the banks across cores every cycle: work pushed on core 0 and
// pulled on core 1 only all reaches core 1 (with scheme none the same run is
// the diagnosed deadlock above).
TEST(Magic, WorkPushedOnOneCoreIsPulledOnTheOther) {
  FG_REQUIRE_FRESH_KERNEL();
  std::vector<std::uint32_t> hits;
  bool finished = false;
  auto* h = new HostHarness(wl_config({"gpu.cus=2", "worklist.scheme=magic"}), [&](Host& host) {
    const std::uint64_t hit = host.upload(std::vector<std::uint32_t>(3 * 32, 0));
    const std::uint64_t first = host.upload(std::vector<std::uint32_t>(64, 0));
    host.run_kernel({"push", 64, 32, 4, 0, [=](Lane& l) { return push_kernel(l, 1000, 32); }});
    unit(host).kernel_done();
    host.run_kernel({"pull", 64, 32, 8, 0, [=](Lane& l) { return pull_on_cu(l, 1, hit, first, 1000); }});
    hits = host.download<std::uint32_t>(hit, 3 * 32);
    finished = true;
  });
  h->run();
  ASSERT_TRUE(finished);
  for (std::uint32_t i = 0; i < 3 * 32; ++i) EXPECT_EQ(hits[i], i % 3 == 0 ? 1u : 0u) << "slot " << i;
  EXPECT_EQ(h->top().find<wl::Worklist>()->work_inside(), 0u);
}

}  // namespace
}  // namespace fg
