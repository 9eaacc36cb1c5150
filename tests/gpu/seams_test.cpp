// SPDX-License-Identifier: Apache-2.0
// The seams mechanisms plug into: device-operation units defined outside the
// core (here, in this test), blocked and parked wavefronts, the front end; and
// the device operations the papers' runtimes need.
#include <algorithm>
#include <numeric>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "fg_test.h"
#include "gpu/compute_unit.h"
#include "gpu/dispatcher.h"
#include "gpu/op.h"
#include "sim/error.h"

namespace fg {
namespace {

using test::HostHarness;

// ---- a condition other wavefronts open: a mechanism in miniature ----

struct Gate {
  bool open = false;
  bool retry = false;         // wake blocked wavefronts to issue the wait again (not resume past it)
  std::uint32_t delay = 200;  // cycles group 1 sleeps before it opens
  std::uint32_t waits = 0;    // gate-wait instructions issued
  std::uint64_t spill = 0;
  std::vector<WaveHandle> blocked, parked;
};
Gate g_gate;

// Lanes pass if the gate is open; otherwise the wavefront blocks on it (or
// parks, its context going to g_gate.spill).
class GateWaitUnit final : public OpUnit {
 public:
  GateWaitUnit(const char* name, bool park) : OpUnit(name), park_(park) {}
  void issue(IssueContext& c) const override {
    ++g_gate.waits;
    if (g_gate.open) return;
    if (park_)
      g_gate.parked.push_back(c.park(g_gate.spill, "gate"));
    else
      g_gate.blocked.push_back(c.block("gate"));
  }

 private:
  bool park_;
};
// Opens the gate: blocked wavefronts wake, parked ones are restored into the
// opener's CU.
class GateOpenUnit final : public OpUnit {
 public:
  GateOpenUnit() : OpUnit("test_gate_open") {}
  void issue(IssueContext& c) const override {
    g_gate.open = true;
    for (auto& h : g_gate.blocked) h.cu->wake(h, c.issue(), !g_gate.retry);
    for (auto& h : g_gate.parked) c.cu().restore(h, c.issue());
    g_gate.blocked.clear();
    g_gate.parked.clear();
  }
};
const GateWaitUnit kGateBlock("test_gate_block", false);
const GateWaitUnit kGatePark("test_gate_park", true);
const GateOpenUnit kGateOpen;

OpAwaiter<void> gate_wait(Lane& l, bool park, Lane::Loc loc = Lane::Loc::current()) {
  return l.op(park ? static_cast<const OpUnit&>(kGatePark) : kGateBlock, loc, [](PendingOp&) {});
}
OpAwaiter<void> gate_open(Lane& l, Lane::Loc loc = Lane::Loc::current()) {
  return l.op(kGateOpen, loc, [](PendingOp&) {});
}

// Group 0 waits at the gate, group 1 opens it. Each lane records the slot it
// started in, the CU it ended in, the clock before the gate and at the end.
Task<> gate_kernel(Lane& l, std::uint64_t out, bool park) {
  const std::uint32_t slot0 = co_await l.slot_id();
  const std::uint64_t t0 = co_await l.clock();
  if (l.group_id() == 0) {
    co_await gate_wait(l, park);
  } else {
    co_await l.sleep(g_gate.delay);  // group 0 reaches the gate first, also on another CU
    co_await gate_open(l);
  }
  const std::uint32_t cu1 = co_await l.cu_id();
  const std::uint64_t t = co_await l.clock();
  const std::uint64_t base = out + 32ull * l.global_id();
  co_await l.store<std::uint32_t>(base, slot0);
  co_await l.store<std::uint32_t>(base + 4, cu1);
  co_await l.store<std::uint64_t>(base + 8, t);
  co_await l.store<std::uint32_t>(base + 16, l.global_id() + 7);
  co_await l.store<std::uint64_t>(base + 24, t0);
}

struct GateRun {
  std::vector<std::uint32_t> slot0, cu1, value;
  std::vector<std::uint64_t> t, t0;
};

GateRun run_gate(HostHarness*& hp, std::vector<std::string> sets, bool park, Gate gate = {}) {
  GateRun r;
  sets.push_back("gpu.frontend.launch_latency=0");
  hp = new HostHarness(test::make_config("orr2014", sets), [&r, park, gate](Host& host) {
    g_gate = gate;
    g_gate.spill = host.alloc(16384);
    const std::uint64_t out = host.alloc(32 * 128);
    KernelLaunch k{"gate", 128, 64, 8, 0, [=](Lane& l) { return gate_kernel(l, out, park); }};
    k.context = ContextSize{856, 2, 1, 1};
    host.run_kernel(k);
    for (std::uint32_t i = 0; i < 128; ++i) {
      r.slot0.push_back(host.download<std::uint32_t>(out + 32ull * i, 1)[0]);
      r.cu1.push_back(host.download<std::uint32_t>(out + 32ull * i + 4, 1)[0]);
      r.t.push_back(host.download<std::uint64_t>(out + 32ull * i + 8, 1)[0]);
      r.value.push_back(host.download<std::uint32_t>(out + 32ull * i + 16, 1)[0]);
      r.t0.push_back(host.download<std::uint64_t>(out + 32ull * i + 24, 1)[0]);
    }
  });
  hp->run();
  return r;
}

TEST(Blocking, AWavefrontBlockedOnAConditionRunsOnWhenWoken) {
  FG_REQUIRE_FRESH_KERNEL();
  HostHarness* h = nullptr;
  const GateRun r = run_gate(h, {"gpu.cus=1"}, false);
  ASSERT_EQ(r.value.size(), 128u);
  for (std::uint32_t i = 0; i < 128; ++i) EXPECT_EQ(r.value[i], i + 7);
  EXPECT_EQ(h->stat("gpu.cu0.blocks"), 1.0);
  EXPECT_EQ(h->stat("gpu.cu0.parks"), 0.0);
  EXPECT_GT(r.t[0], r.t0[64]);  // group 0 continued after group 1 reached the gate
}

TEST(Blocking, AWakeWithRetryIssuesTheOperationAgain) {
  FG_REQUIRE_FRESH_KERNEL();
  HostHarness* h = nullptr;
  Gate g;
  g.retry = true;
  const GateRun r = run_gate(h, {"gpu.cus=1"}, false, g);
  for (std::uint32_t i = 0; i < 128; ++i) EXPECT_EQ(r.value[i], i + 7);
  EXPECT_EQ(g_gate.waits, 2u);  // blocked once, then passed on the retry
  EXPECT_EQ(h->stat("gpu.cu0.blocks"), 1.0);
}

TEST(Parking, ARestoreRequestedWhileTheContextIsStillWrittenWaitsForIt) {
  FG_REQUIRE_FRESH_KERNEL();
  HostHarness* h = nullptr;
  Gate g;
  g.delay = 20;  // group 1 opens while group 0's context (30 lines) is still going to memory
  const GateRun r = run_gate(h, {"gpu.cus=2"}, true, g);
  for (std::uint32_t i = 0; i < 128; ++i) EXPECT_EQ(r.value[i], i + 7);
  EXPECT_EQ(h->stat("gpu.cu0.parks"), 1.0);
  EXPECT_EQ(h->stat("gpu.cu1.restores"), 1.0);
  EXPECT_GT(r.t[0], r.t0[64] + 30);  // restored after the write and the read of its context
}

TEST(Parking, AParkedWavefrontsSlotRunsAnotherAndTheParkedOneFinishesAfterwards) {
  FG_REQUIRE_FRESH_KERNEL();
  HostHarness* h = nullptr;
  const GateRun r = run_gate(h, {"gpu.cus=1", "gpu.cu.slots=1"}, true);
  ASSERT_EQ(r.value.size(), 128u);
  for (std::uint32_t i = 0; i < 128; ++i) EXPECT_EQ(r.value[i], i + 7) << i;
  // One slot: group 1 ran in the slot group 0 gave up, group 0 came back to it.
  EXPECT_EQ(r.slot0[0], 0u);
  EXPECT_EQ(r.slot0[64], 0u);
  EXPECT_GT(r.t[0], r.t[64]);
  EXPECT_EQ(h->stat("gpu.cu0.parks"), 1.0);
  EXPECT_EQ(h->stat("gpu.cu0.restores"), 1.0);
  // Channel paper Sec. 7: 856 B + s x 64 x 4 B + d x 64 x 8 B + c x 64 bits.
  const double bytes = 856 + 2 * 64 * 4 + 1 * 64 * 8 + 64 / 8;
  EXPECT_EQ(h->stat("gpu.cu0.park_bytes"), bytes);
  EXPECT_EQ(h->stat("gpu.cu0.restore_bytes"), bytes);
  EXPECT_GT(h->stat("gpu.cu0.park_time"), 0.0);
  EXPECT_GT(h->stat("gpu.cu0.restore_time"), 0.0);
  EXPECT_EQ(h->stat("gpu.cu0.wavefronts"), 2.0);
}

TEST(Parking, AOneWavefrontWorkgroupCanBeRestoredOnAnotherCu) {
  FG_REQUIRE_FRESH_KERNEL();
  HostHarness* h = nullptr;
  // Group 0 parks on cu0; group 1 runs on cu1 and restores it there, where it
  // waits for group 1 to free the only slot.
  const GateRun r = run_gate(h, {"gpu.cus=2", "gpu.cu.slots=1"}, true);
  for (std::uint32_t i = 0; i < 128; ++i) EXPECT_EQ(r.value[i], i + 7) << i;
  EXPECT_EQ(r.cu1[0], 1u);
  EXPECT_EQ(h->stat("gpu.cu0.parks"), 1.0);
  EXPECT_EQ(h->stat("gpu.cu1.restores"), 1.0);
  EXPECT_GT(r.t[0], r.t[64]);
}

TEST(Parking, AWavefrontOfALargerWorkgroupCannotBeRestoredOnAnotherCu) {
  FG_REQUIRE_FRESH_KERNEL();
  // Workgroups of 2 wavefronts: group 0 parks on cu0, group 1 (on cu1) asks
  // to restore it on cu1; its LDS and barrier stay on cu0, so that is a fault.
  HostHarness h(test::make_config("orr2014", {"gpu.cus=2", "gpu.frontend.launch_latency=0"}), [](Host& host) {
    g_gate = Gate{};
    g_gate.spill = host.alloc(65536);
    const std::uint64_t out = host.alloc(32 * 256);
    host.run_kernel({"gate", 256, 128, 8, 0, [=](Lane& l) { return gate_kernel(l, out, true); }});
  });
  try {
    h.run();
    FAIL() << "expected a SimFault";
  } catch (const SimFault& e) {
    EXPECT_NE(std::string(e.what()).find("can only be restored on"), std::string::npos) << e.what();
  }
}

TEST(UnitSeam, TwoUnitsWithOneNameAreRejected) {
  EXPECT_THROW(GateOpenUnit{}, std::logic_error);  // "test_gate_open" exists (kGateOpen)
}

TEST(Blocking, BlockedWithNoFreeSlotIsADeadlockThatNamesTheCondition) {
  FG_REQUIRE_FRESH_KERNEL();
  auto* h = new HostHarness(test::make_config("orr2014", {"gpu.cus=1", "gpu.cu.slots=1"}), [](Host& host) {
    g_gate = Gate{};
    const std::uint64_t out = host.alloc(32 * 128);
    host.run_kernel({"gate", 128, 64, 8, 0, [=](Lane& l) { return gate_kernel(l, out, false); }});
  });
  sc_core::sc_start();
  EXPECT_FALSE(sc_core::sc_pending_activity());
  const std::string d = h->top().diagnose();
  EXPECT_NE(d.find("1 wavefronts: 1 blocked on gate;"), std::string::npos) << d;
  EXPECT_NE(d.find("64 lanes test_gate_block at seams_test.cpp"), std::string::npos) << d;
  h->reap();  // the suspended threads' frames are freed (LeakSanitizer in tools/sanitize.sh)
}

Task<> all_block(Lane& l) { co_await gate_wait(l, false); }

TEST(Diagnosis, ManyBlockedWavefrontsAreSummarisedByKind) {
  FG_REQUIRE_FRESH_KERNEL();
  auto* h = new HostHarness(test::make_config("orr2014", {"gpu.cus=2"}), [](Host& host) {
    g_gate = Gate{};
    host.run_kernel({"blockers", 64 * 10, 128, 8, 0, [](Lane& l) { return all_block(l); }});
  });
  sc_core::sc_start();
  const std::string d = h->top().diagnose();
  EXPECT_EQ(d.rfind("10 wavefronts: 10 blocked on gate;", 0), 0u) << d;
  EXPECT_NE(d.find("... and 6 more"), std::string::npos) << d;
  EXPECT_EQ(std::count(d.begin(), d.end(), '\n'), 5) << d;  // 4 examples + the "more" line
  h->reap();
}

// ---- the example unit of docs/compute-unit.md, as written there ----

struct BumpStats : fg::UnitState {
  explicit BumpStats(const std::string& cu) : bumps(fg::StatGroup(cu), "bumps", "bump instructions", "") {}
  fg::Counter bumps;
};
class BumpUnit final : public fg::OpUnit {
 public:
  BumpUnit() : OpUnit("bump") {}
  void issue(fg::IssueContext& c) const override {
    std::uint64_t old = 0;
    const auto t = c.port().atomic(c.first().pending.addr, fg::AtomicOp::Add, 8, c.active(), 0, old,
                                   fg::IssueContext::local(c.issue()));
    std::uint64_t i = 0;
    c.for_each([&](fg::Lane& l) { l.pending.result = old + i++; });  // each lane its own ticket
    c.complete = std::max<fg::Tick>(c.complete, sc_core::sc_time_stamp().value() + t.value());
    ++c.state<BumpStats>().bumps;
  }
  std::unique_ptr<fg::UnitState> make_state(const std::string& cu) const override {
    return std::make_unique<BumpStats>(cu);
  }
};
const BumpUnit kBump;

fg::OpAwaiter<std::uint64_t> bump(fg::Lane& l, std::uint64_t addr, fg::Lane::Loc loc = fg::Lane::Loc::current()) {
  return l.op<std::uint64_t>(kBump, loc, [&](fg::PendingOp& o) { o.addr = addr; });
}

Task<> bump_kernel(Lane& l, std::uint64_t counter, std::uint64_t out) {
  const std::uint64_t ticket = co_await bump(l, counter);
  co_await l.store<std::uint64_t>(out + 8ull * l.global_id(), ticket);
}

TEST(UnitSeam, TheDocumentedExampleUnitWorks) {
  FG_REQUIRE_FRESH_KERNEL();
  std::vector<std::uint64_t> tickets;
  std::uint64_t counter = 0;
  HostHarness h(test::make_config("orr2014", {"gpu.cus=2"}), [&](Host& host) {
    const std::uint64_t c = host.upload(std::vector<std::uint64_t>{0}), out = host.alloc(8 * 256);
    host.run_kernel({"bump", 256, 64, 8, 0, [=](Lane& l) { return bump_kernel(l, c, out); }});
    tickets = host.download<std::uint64_t>(out, 256);
    counter = host.download<std::uint64_t>(c, 1)[0];
  });
  h.run();
  EXPECT_EQ(counter, 256u);
  std::sort(tickets.begin(), tickets.end());
  for (std::uint64_t i = 0; i < 256; ++i) EXPECT_EQ(tickets[i], i);
  EXPECT_EQ(h.stat("gpu.cu0.bumps") + h.stat("gpu.cu1.bumps"), 4.0);  // one per wavefront
}

// ---- device operations ----

double stat(const std::string& n) { return StatRegistry::global().find(n)->scalar(); }

// Cycles between two clock reads around `body`.
template <class F>
Task<> timed(Lane& l, std::uint64_t out, F body) {
  const std::uint64_t t0 = co_await l.clock();
  co_await body(l);
  const std::uint64_t t1 = co_await l.clock();
  if (l.lane_id() == 0) co_await l.store<std::uint64_t>(out, t1 - t0);
}

Task<> two_loads(Lane& l, std::uint64_t a, std::uint64_t b, std::uint64_t out) {
  const std::uint32_t x = co_await l.load<std::uint32_t>(a + 4ull * l.lane_id());
  const std::uint32_t y = co_await l.load<std::uint32_t>(b + 4ull * l.lane_id());
  co_await l.store<std::uint32_t>(out + 4ull * l.lane_id(), x + y);
}
Task<> two_async_loads(Lane& l, std::uint64_t a, std::uint64_t b, std::uint64_t out) {
  const auto pa = co_await l.load_async<std::uint32_t>(a + 4ull * l.lane_id());
  const auto pb = co_await l.load_async<std::uint32_t>(b + 4ull * l.lane_id());
  const std::uint32_t x = co_await l.wait(pa);
  const std::uint32_t y = co_await l.wait(pb);
  co_await l.store<std::uint32_t>(out + 4ull * l.lane_id(), x + y);
}

TEST(Ops, AsyncLoadsOverlapAndReturnTheirValues) {
  FG_REQUIRE_FRESH_KERNEL();
  std::uint64_t t_block = 0, t_async = 0;
  std::vector<std::uint32_t> got_b, got_a;
  HostHarness h(test::make_config("kim2014", {"gpu.cus=1"}), [&](Host& host) {
    std::vector<std::uint32_t> v(4096);
    std::iota(v.begin(), v.end(), 1u);
    const std::uint64_t d = host.upload(v), out = host.alloc(64 * 4 * 2), t = host.alloc(16);
    // Four distinct cold regions: no load hits another's line.
    host.run_kernel({"blocking", 32, 32, 8, 0,
                     [=](Lane& l) { return timed(l, t, [=](Lane& m) { return two_loads(m, d, d + 4096, out); }); }});
    host.run_kernel({"async", 32, 32, 8, 0, [=](Lane& l) {
                       return timed(l, t + 8,
                                    [=](Lane& m) { return two_async_loads(m, d + 8192, d + 12288, out + 256); });
                     }});
    t_block = host.download<std::uint64_t>(t, 1)[0];
    t_async = host.download<std::uint64_t>(t + 8, 1)[0];
    got_b = host.download<std::uint32_t>(out, 32);
    got_a = host.download<std::uint32_t>(out + 256, 32);
  });
  h.run();
  for (std::uint32_t i = 0; i < 32; ++i) {
    EXPECT_EQ(got_b[i], (i + 1) + (i + 1025));
    EXPECT_EQ(got_a[i], (i + 2049) + (i + 3073));
  }
  // Two DRAM misses in flight at once: well under the serial time, but wait
  // does wait for them (kim2014 DRAM: 100 cycles).
  EXPECT_LT(double(t_async), 0.7 * double(t_block)) << t_async << " vs " << t_block;
  EXPECT_GT(t_async, 100u);
  EXPECT_EQ(stat("gpu.cu0.loads"), 4.0);  // async loads count with the loads
}

Task<> bypass_twice(Lane& l, std::uint64_t a, std::uint64_t out) {
  const std::uint32_t x = co_await l.load_bypass<std::uint32_t>(a + 4ull * l.lane_id());
  const std::uint32_t y = co_await l.load_bypass<std::uint32_t>(a + 4ull * l.lane_id());
  co_await l.store_bypass<std::uint32_t>(out + 4ull * l.lane_id(), x + y);
}

TEST(Ops, BypassLoadsAreServedByTheL2AndNotAllocated) {
  FG_REQUIRE_FRESH_KERNEL();
  std::vector<std::uint32_t> got;
  // Under moesi the L1s are coherent and bypassing requests go through them.
  HostHarness h(test::make_config("orr2014", {"gpu.cus=1", "mem.coherence=gpu"}), [&](Host& host) {
    const std::uint64_t a = host.upload(std::vector<std::uint32_t>(64, 21)), out = host.alloc(256);
    host.run_kernel({"bypass", 16, 16, 8, 0, [=](Lane& l) { return bypass_twice(l, a, out); }});
    got = host.download<std::uint32_t>(out, 16);
  });
  h.run();
  for (auto v : got) EXPECT_EQ(v, 42u);
  EXPECT_EQ(stat("gpu.cu0.l1.bypass_reads"), 2.0);
  EXPECT_EQ(stat("gpu.cu0.l1.reads"), 0.0);
  EXPECT_EQ(stat("gpu.cu0.l1.hits"), 0.0);
}

// gh200 with 32-byte sectors: a warp's load asks for the sectors its lanes touch.
// 8 lanes read the first 32 bytes of a line (one sector), then the next 32
// (another): the second load is a sector miss; a third, of the first sector
// again, hits.
Task<> two_sectors(Lane& l, std::uint64_t a, std::uint64_t out) {
  const std::uint32_t x = co_await l.load<std::uint32_t>(a + 4ull * l.lane_id());
  const std::uint32_t y = co_await l.load<std::uint32_t>(a + 32 + 4ull * l.lane_id());
  const std::uint32_t z = co_await l.load<std::uint32_t>(a + 4ull * l.lane_id());
  co_await l.store<std::uint32_t>(out + 4ull * l.lane_id(), x + y + z);
}

TEST(Ops, ALoadAsksForTheSectorsItsLanesTouch) {
  FG_REQUIRE_FRESH_KERNEL();
  std::vector<std::uint32_t> got;
  HostHarness h(test::make_config("gh200", {"gpu.cus=1", "gpu.sector=32"}), [&](Host& host) {
    std::vector<std::uint32_t> v(64);
    for (std::uint32_t i = 0; i < 64; ++i) v[i] = i;
    const std::uint64_t a = host.upload(v), out = host.alloc(256);
    host.run_kernel({"sectors", 8, 8, 8, 0, [=](Lane& l) { return two_sectors(l, a, out); }});
    got = host.download<std::uint32_t>(out, 8);
  });
  h.run();
  for (std::uint32_t i = 0; i < 8; ++i) EXPECT_EQ(got[i], i + (i + 8) + i);
  EXPECT_EQ(stat("gpu.cu0.l1.reads"), 3.0);
  EXPECT_EQ(stat("gpu.cu0.l1.misses"), 2.0);
  EXPECT_EQ(stat("gpu.cu0.l1.sector_misses"), 1.0);
  EXPECT_EQ(stat("gpu.cu0.l1.hits"), 1.0);
}

TEST(Ops, NonReturningAtomicsDoNotHoldTheWavefrontButCount) {
  FG_REQUIRE_FRESH_KERNEL();
  std::uint64_t t_nr = 0, t_ret = 0, sum = 0;
  HostHarness h(test::make_config("orr2014", {"gpu.cus=1"}), [&](Host& host) {
    const std::uint64_t c = host.upload(std::vector<std::uint64_t>{0, 0}), t = host.alloc(16);
    host.run_kernel({"nr", 64, 64, 8, 0, [=](Lane& l) {
                       return timed(
                           l, t, [=](Lane& m) -> Task<> { co_await m.atomic_nr<std::uint64_t>(AtomicOp::Add, c, 1); });
                     }});
    host.run_kernel({"ret", 64, 64, 8, 0, [=](Lane& l) {
                       return timed(l, t + 8,
                                    [=](Lane& m) -> Task<> { co_await m.atomic_add<std::uint64_t>(c + 8, 1); });
                     }});
    t_nr = host.download<std::uint64_t>(t, 1)[0];
    t_ret = host.download<std::uint64_t>(t + 8, 1)[0];
    sum = host.download<std::uint64_t>(c, 1)[0];
  });
  h.run();
  EXPECT_EQ(sum, 64u);
  EXPECT_LT(t_nr, 10u);   // the issue only
  EXPECT_GT(t_ret, 30u);  // the atomics' round trip to the L2
  EXPECT_EQ(stat("gpu.cu0.atomics_nr"), 1.0);
}

TEST(Ops, AReleaseFenceWaitsForEarlierStores) {
  FG_REQUIRE_FRESH_KERNEL();
  std::uint64_t t_fence = 0, t_plain = 0;
  HostHarness h(test::make_config("orr2014", {"gpu.cus=1"}), [&](Host& host) {
    const std::uint64_t d = host.alloc(64 * 4096), t = host.alloc(16);
    host.run_kernel({"plain", 64, 64, 8, 0, [=](Lane& l) {
                       return timed(l, t, [=](Lane& m) -> Task<> {
                         co_await m.store<std::uint32_t>(d + 4096ull * m.lane_id(), 1u);
                       });
                     }});
    host.run_kernel({"fence", 64, 64, 8, 0, [=](Lane& l) {
                       return timed(l, t + 8, [=](Lane& m) -> Task<> {
                         co_await m.store<std::uint32_t>(d + 4096ull * m.lane_id() + 64, 1u);
                         co_await m.fence_release();
                       });
                     }});
    t_plain = host.download<std::uint64_t>(t, 1)[0];
    t_fence = host.download<std::uint64_t>(t + 8, 1)[0];
  });
  h.run();
  EXPECT_LT(t_plain, 10u);
  EXPECT_GT(t_fence, 200u);  // 64 lines to DRAM at 20 GB/s
}

// gpu.cu.fence_latency: either fence becomes a GPU-scope membar, its own
// round trip after the wavefront's stores are acknowledged.
TEST(Ops, AGpuScopeFenceCostsItsLatencyAfterTheStores) {
  FG_REQUIRE_FRESH_KERNEL();
  std::vector<std::uint64_t> t;
  HostHarness h(test::make_config("orr2014", {"gpu.cus=1", "gpu.cu.fence_latency=500"}), [&](Host& host) {
    const std::uint64_t d = host.alloc(64 * 4096), out = host.alloc(32);
    host.run_kernel({"release", 64, 64, 8, 0,
                     [=](Lane& l) { return timed(l, out, [](Lane& m) -> Task<> { co_await m.fence_release(); }); }});
    host.run_kernel({"acquire", 64, 64, 8, 0, [=](Lane& l) {
                       return timed(l, out + 8, [](Lane& m) -> Task<> { co_await m.fence_acquire(); });
                     }});
    host.run_kernel({"stored", 64, 64, 8, 0, [=](Lane& l) {
                       return timed(l, out + 16, [=](Lane& m) -> Task<> {
                         co_await m.store<std::uint32_t>(d + 4096ull * m.lane_id(), 1u);
                         co_await m.fence_release();
                       });
                     }});
    t = host.download<std::uint64_t>(out, 3);
  });
  h.run();
  EXPECT_GE(t[0], 500u);
  EXPECT_LT(t[0], 510u);
  EXPECT_GE(t[1], 500u);
  EXPECT_LT(t[1], 510u);
  EXPECT_GT(t[2], t[0] + 200);  // the stores' acknowledgement first (64 lines to DRAM)
}

// gpu.cu.fence_invalidates_l1: a GPU-scope fence (the H100's MEMBAR.SC.GPU
// with CCTL.IVALL), or an acquire load (ld.acquire.gpu: a strong load, then
// CCTL.IVALL), empties the CU's L1, so a line loaded before it misses after
// it; without the option the load after it hits. With
// gpu.cu.ivall_keeps_local the invalidation keeps the lines of memory
// registered as local (the wavefront's first array, `d`) and drops the others
// (its second, loaded too). The load after takes an L1 hit (4 cycles) or an L2
// round trip (over 20).
struct AfterSync {
  std::uint64_t cycles = 0;
  double dropped = -1, kept = -1;  // the stats, -1 where they do not exist
};
AfterSync load_after_sync(bool invalidate, bool acquire_load, bool keep_local = false, bool time_other = false) {
  AfterSync r;
  std::vector<std::string> sets = {"gpu.cus=1", "mem.coherence=gpu", "gpu.cu.fence_latency=100",
                                   std::string("gpu.cu.fence_invalidates_l1=") + (invalidate ? "true" : "false")};
  if (keep_local) sets.push_back("gpu.cu.ivall_keeps_local=true");
  HostHarness h(test::make_config("orr2014", sets), [&](Host& host) {
    const std::uint64_t d = host.alloc(4096), other = host.alloc(4096), flag = host.alloc(256), out = host.alloc(8);
    if (keep_local) host.memory().add_local_window(d, 4096);
    const std::uint64_t timed_base = time_other ? other : d;
    host.run_kernel({"sync", 64, 64, 8, 0, [=](Lane& l) -> Task<> {
                       co_await l.load<std::uint32_t>(d + 4ull * l.lane_id());
                       if (keep_local) co_await l.load<std::uint32_t>(other + 4ull * l.lane_id());
                       if (acquire_load)
                         co_await l.load_acquire<std::uint32_t>(flag);  // another line
                       else
                         co_await l.fence_acquire();
                       co_await timed(l, out, [=](Lane& m) -> Task<> {
                         co_await m.load<std::uint32_t>(timed_base + 4ull * m.lane_id());
                       });
                     }});
    r.cycles = host.download<std::uint64_t>(out, 1)[0];
  });
  h.run();
  if (const auto* s = StatRegistry::global().find("gpu.cu0.l1.fence_dropped")) r.dropped = s->scalar();
  if (const auto* s = StatRegistry::global().find("gpu.cu0.l1.fence_kept")) r.kept = s->scalar();
  return r;
}

TEST(Ops, AFenceThatInvalidatesTheL1MakesTheNextLoadMiss) {
  FG_REQUIRE_FRESH_KERNEL();
  const AfterSync r = load_after_sync(true, false);
  EXPECT_GT(r.cycles, 20u);
  EXPECT_GE(r.dropped, 1.0);  // at least the line the wavefront loaded
}

TEST(Ops, AFenceThatKeepsTheL1LetsTheNextLoadHit) {
  FG_REQUIRE_FRESH_KERNEL();
  const AfterSync r = load_after_sync(false, false);
  EXPECT_LT(r.cycles, 20u);
  EXPECT_EQ(r.dropped, -1.0);  // no such statistic without the option
}

TEST(Ops, AnAcquireLoadThatInvalidatesTheL1MakesTheNextLoadMiss) {
  FG_REQUIRE_FRESH_KERNEL();
  const AfterSync r = load_after_sync(true, true);
  EXPECT_GT(r.cycles, 20u);
  EXPECT_GE(r.dropped, 1.0);  // the data's line (the flag's load is a strong one, served by the L2)
}

TEST(Ops, AnAcquireLoadThatKeepsTheL1LetsTheNextLoadHit) {
  FG_REQUIRE_FRESH_KERNEL();
  const AfterSync r = load_after_sync(false, true);
  EXPECT_LT(r.cycles, 20u);
  EXPECT_EQ(r.dropped, -1.0);
}

TEST(Ops, AnInvalidationThatKeepsLocalMemoryLetsALocalLoadHit) {
  FG_REQUIRE_FRESH_KERNEL();
  const AfterSync r = load_after_sync(true, false, true, false);
  EXPECT_LT(r.cycles, 20u);
  EXPECT_GE(r.kept, 1.0);
}

TEST(Ops, AnInvalidationThatKeepsLocalMemoryDropsTheOtherLines) {
  FG_REQUIRE_FRESH_KERNEL();
  const AfterSync r = load_after_sync(true, false, true, true);
  EXPECT_GT(r.cycles, 20u);
  EXPECT_GE(r.kept, 1.0);
}

// gpu.cu.alu_latency: an alu instruction's result is ready that many cycles
// after issue, so a wavefront's dependent chain of n takes n x latency, while
// its SIMD is held only the instructions' SIMD time (here 1 cycle each) and
// another wavefront on it issues in between.
Task<> alu_chain_ends(Lane& l, std::uint64_t out) {
  co_await l.alu(10);
  const std::uint64_t end = co_await l.clock();
  if (l.lane_id() == 0) co_await l.store<std::uint64_t>(out + 8ull * l.group_id(), end);
}

TEST(Ops, AnAluChainWaitsItsLatencyWhileTheSimdServesOthers) {
  FG_REQUIRE_FRESH_KERNEL();
  std::vector<std::uint64_t> t;
  HostHarness h(
      test::make_config("orr2014", {"gpu.cus=1", "gpu.cu.simds=1", "gpu.cu.simd_width=64", "gpu.cu.alu_latency=4"}),
      [&](Host& host) {
        const std::uint64_t out = host.alloc(32);
        host.run_kernel({"one", 64, 64, 8, 0,
                         [=](Lane& l) { return timed(l, out, [](Lane& m) -> Task<> { co_await m.alu(10); }); }});
        host.run_kernel({"two", 128, 64, 8, 0, [=](Lane& l) { return alu_chain_ends(l, out + 8); }});
        t = host.download<std::uint64_t>(out, 3);
      });
  h.run();
  EXPECT_GE(t[0], 40u);  // 10 x 4 cycles, not 10 x 1
  EXPECT_LT(t[0], 45u);
  // Two wavefronts on the one SIMD: the second's chain starts once the first's
  // 10 SIMD cycles are over, not after its 40-cycle chain.
  const std::uint64_t apart = t[2] > t[1] ? t[2] - t[1] : t[1] - t[2];
  EXPECT_GE(apart, 9u);
  EXPECT_LT(apart, 20u);
}

// gpu.cu.fp64_latency: alu_fp64(n) is a chain of n dependent FP64
// instructions, each waiting that many cycles; alu(n) is not affected.
TEST(Ops, AnFp64ChainWaitsTheFp64Latency) {
  FG_REQUIRE_FRESH_KERNEL();
  std::vector<std::uint64_t> t;
  HostHarness h(
      test::make_config("orr2014", {"gpu.cus=1", "gpu.cu.simd_width=64", "gpu.cu.fp64_latency=8"}), [&](Host& host) {
        const std::uint64_t out = host.alloc(16);
        host.run_kernel({"fp64", 64, 64, 8, 0,
                         [=](Lane& l) { return timed(l, out, [](Lane& m) -> Task<> { co_await m.alu_fp64(10); }); }});
        host.run_kernel({"int", 64, 64, 8, 0,
                         [=](Lane& l) { return timed(l, out + 8, [](Lane& m) -> Task<> { co_await m.alu(10); }); }});
        t = host.download<std::uint64_t>(out, 2);
      });
  h.run();
  EXPECT_GE(t[0], 80u);  // 10 x 8 cycles
  EXPECT_LT(t[0], 85u);
  EXPECT_LT(t[1], 15u);  // 10 x 1 cycle
}

// gpu.cu.chain_latency: alu_chain(n) is a chain of n dependent integer
// instructions, each waiting that many cycles; alu(n) and alu_fp64(n) are not
// affected.
TEST(Ops, AnIntegerChainWaitsTheChainLatency) {
  FG_REQUIRE_FRESH_KERNEL();
  std::vector<std::uint64_t> t;
  HostHarness h(
      test::make_config("orr2014", {"gpu.cus=1", "gpu.cu.simd_width=64", "gpu.cu.chain_latency=6"}), [&](Host& host) {
        const std::uint64_t out = host.alloc(24);
        host.run_kernel({"chain", 64, 64, 8, 0,
                         [=](Lane& l) { return timed(l, out, [](Lane& m) -> Task<> { co_await m.alu_chain(10); }); }});
        host.run_kernel({"int", 64, 64, 8, 0,
                         [=](Lane& l) { return timed(l, out + 8, [](Lane& m) -> Task<> { co_await m.alu(10); }); }});
        host.run_kernel({"fp64", 64, 64, 8, 0, [=](Lane& l) {
                           return timed(l, out + 16, [](Lane& m) -> Task<> { co_await m.alu_fp64(10); });
                         }});
        t = host.download<std::uint64_t>(out, 3);
      });
  h.run();
  EXPECT_GE(t[0], 60u);  // 10 x 6 cycles
  EXPECT_LT(t[0], 65u);
  EXPECT_LT(t[1], 15u);  // 10 x 1 cycle
  EXPECT_LT(t[2], 15u);
}

// gpu.cu.static_stalls: alu_sched(n, cycles) is compiled code a lone
// wavefront takes `cycles` to issue (the compiler's stall counts), its SIMD
// held only the n instructions' SIMD time, so another wavefront on it
// issues in the stalls; off, it is alu(n).
Task<> sched_ends(Lane& l, std::uint64_t out) {
  co_await l.alu_sched(10, 70);
  const std::uint64_t end = co_await l.clock();
  if (l.lane_id() == 0) co_await l.store<std::uint64_t>(out + 8ull * l.group_id(), end);
}

TEST(Ops, AStaticScheduleTakesItsCyclesWhileTheSimdServesOthers) {
  FG_REQUIRE_FRESH_KERNEL();
  std::vector<std::uint64_t> t;
  HostHarness h(test::make_config("orr2014",
                                  {"gpu.cus=1", "gpu.cu.simds=1", "gpu.cu.simd_width=64", "gpu.cu.static_stalls=true"}),
                [&](Host& host) {
                  const std::uint64_t out = host.alloc(32);
                  host.run_kernel({"one", 64, 64, 8, 0, [=](Lane& l) {
                                     return timed(l, out, [](Lane& m) -> Task<> { co_await m.alu_sched(10, 70); });
                                   }});
                  host.run_kernel({"two", 128, 64, 8, 0, [=](Lane& l) { return sched_ends(l, out + 8); }});
                  t = host.download<std::uint64_t>(out, 3);
                });
  h.run();
  EXPECT_GE(t[0], 70u);  // its schedule, not 10 issue slots
  EXPECT_LT(t[0], 75u);
  const std::uint64_t apart = t[2] > t[1] ? t[2] - t[1] : t[1] - t[2];
  EXPECT_GE(apart, 9u);  // the second starts once the first's 10 SIMD cycles are over
  EXPECT_LT(apart, 20u);
}

TEST(Ops, WithoutStaticStallsAScheduleIsItsIssueSlots) {
  FG_REQUIRE_FRESH_KERNEL();
  std::vector<std::uint64_t> t;
  HostHarness h(test::make_config("orr2014", {"gpu.cus=1", "gpu.cu.simd_width=64"}), [&](Host& host) {
    const std::uint64_t out = host.alloc(8);
    host.run_kernel({"one", 64, 64, 8, 0,
                     [=](Lane& l) { return timed(l, out, [](Lane& m) -> Task<> { co_await m.alu_sched(10, 70); }); }});
    t = host.download<std::uint64_t>(out, 1);
  });
  h.run();
  EXPECT_GE(t[0], 10u);
  EXPECT_LT(t[0], 15u);
}

Task<> lds_count(Lane& l, std::uint64_t out) {
  const std::uint32_t old = co_await l.lds_atomic<std::uint32_t>(AtomicOp::Add, 0, 1u);
  co_await l.barrier();
  const std::uint32_t total = co_await l.lds_load<std::uint32_t>(0);
  co_await l.store<std::uint32_t>(out + 4ull * l.local_id(), old * 1000 + total);
}

TEST(Ops, LdsAtomicsGiveEveryLaneADistinctOldValue) {
  FG_REQUIRE_FRESH_KERNEL();
  std::vector<std::uint32_t> got;
  HostHarness h(test::make_config("orr2014", {"gpu.cus=1"}), [&](Host& host) {
    const std::uint64_t out = host.alloc(4 * 128);
    host.run_kernel({"ldsatomic", 128, 128, 8, 64, [=](Lane& l) { return lds_count(l, out); }});
    got = host.download<std::uint32_t>(out, 128);
  });
  h.run();
  std::vector<std::uint32_t> olds;
  for (auto v : got) {
    EXPECT_EQ(v % 1000, 128u);
    olds.push_back(v / 1000);
  }
  std::sort(olds.begin(), olds.end());
  for (std::uint32_t i = 0; i < 128; ++i) EXPECT_EQ(olds[i], i);
}

Task<> shuffle_kernel(Lane& l, std::uint64_t out, std::uint32_t shift) {
  const std::uint32_t v = co_await l.shuffle<std::uint32_t>(l.lane_id() * 10, (l.lane_id() + shift) % l.wave_size());
  co_await l.store<std::uint32_t>(out + 4ull * l.lane_id(), v);
}

TEST(Ops, ShuffleReadsTheLaneEachLaneNames) {
  FG_REQUIRE_FRESH_KERNEL();
  std::vector<std::uint32_t> got;
  HostHarness h(test::make_config("kim2014", {"gpu.cus=1"}), [&](Host& host) {
    const std::uint64_t out = host.alloc(4 * 32);
    host.run_kernel({"shuffle", 32, 32, 8, 0, [=](Lane& l) { return shuffle_kernel(l, out, 3); }});
    got = host.download<std::uint32_t>(out, 32);
  });
  h.run();
  for (std::uint32_t i = 0; i < 32; ++i) EXPECT_EQ(got[i], ((i + 3) % 32) * 10);
}

TEST(Ops, ShuffleFromAnInactiveLaneIsAFault) {
  FG_REQUIRE_FRESH_KERNEL();
  HostHarness h(test::make_config("kim2014", {"gpu.cus=1"}), [&](Host& host) {
    const std::uint64_t out = host.alloc(4 * 32);
    host.run_kernel({"shuffle", 16, 32, 8, 0, [=](Lane& l) { return shuffle_kernel(l, out, 20); }});
  });
  EXPECT_THROW(h.run(), SimFault);
}

TEST(Ops, SleepHoldsTheWavefrontForItsCycles) {
  FG_REQUIRE_FRESH_KERNEL();
  std::uint64_t t = 0;
  HostHarness h(test::make_config("orr2014", {"gpu.cus=1"}), [&](Host& host) {
    const std::uint64_t d = host.alloc(16);
    host.run_kernel({"sleep", 64, 64, 8, 0,
                     [=](Lane& l) { return timed(l, d, [](Lane& m) -> Task<> { co_await m.sleep(500); }); }});
    t = host.download<std::uint64_t>(d, 1)[0];
  });
  h.run();
  EXPECT_GE(t, 500u);
  EXPECT_LT(t, 520u);
}

// Each CU's cycle counter starts where gpu.cu.clock_start puts it: at 0 on
// every CU by default; seeded, at a value each CU draws from sim.seed (an SM's
// counter, not reset by a launch). One workgroup per CU reads its clock.
std::vector<std::uint64_t> clocks_on_two_cus(const std::vector<std::string>& sets) {
  std::vector<std::uint64_t> got;
  std::vector<std::string> all = {"gpu.cus=2", "gpu.cu.max_workgroups=1"};
  all.insert(all.end(), sets.begin(), sets.end());
  HostHarness h(test::make_config("orr2014", all), [&](Host& host) {
    const std::uint64_t d = host.alloc(32);
    host.run_kernel({"clocks", 128, 64, 8, 0, [=](Lane& l) -> Task<> {
                       const std::uint64_t t = co_await l.clock();
                       const std::uint32_t cu = co_await l.cu_id();
                       if (l.lane_id() == 0) co_await l.store<std::uint64_t>(d + 8ull * cu, t);
                     }});
    got = host.download<std::uint64_t>(d, 2);
  });
  h.run();
  return got;
}

TEST(Ops, EveryCusClockStartsAtZeroByDefault) {
  FG_REQUIRE_FRESH_KERNEL();
  const auto t = clocks_on_two_cus({});
  for (const std::uint64_t v : t) {
    EXPECT_GT(v, 0u);
    EXPECT_LT(v, 10000u);  // the launch's cycles
  }
}

TEST(Ops, ASeededClockStartDiffersFromCuToCu) {
  FG_REQUIRE_FRESH_KERNEL();
  const auto t = clocks_on_two_cus({"gpu.cu.clock_start=seeded", "sim.seed=7"});
  // Each CU's start is drawn below 2^48; both under 2^20 (or within a million
  // cycles of each other) has a chance of about 2^-28.
  for (const std::uint64_t v : t) {
    EXPECT_GT(v, 1u << 20);
    EXPECT_LT(v, (1ull << 48) + 10000u);
  }
  EXPECT_GT(t[0] > t[1] ? t[0] - t[1] : t[1] - t[0], 1000000u);
}

// ---- front end ----

Task<> spin(Lane& l, std::uint32_t n) {
  for (std::uint32_t k = 0; k < n; ++k) co_await l.alu(1);
}

TEST(FrontEnd, LaunchLatencyIsPartOfAKernelsTime) {
  FG_REQUIRE_FRESH_KERNEL();
  double ns = 0;
  HostHarness h(test::make_config("orr2014", {"gpu.cus=1"}), [&](Host& host) {
    ns = host.run_kernel({"tiny", 64, 64, 8, 0, [](Lane& l) { return spin(l, 1); }}).to_seconds() * 1e9;
  });
  h.run();
  EXPECT_GE(ns, 5000.0);  // orr2014: 5000 cycles at 1 GHz
  EXPECT_LT(ns, 5050.0);
}

// A long kernel with more workgroups than fit, then a one-workgroup kernel:
// when does the second start?
double second_start_ns(const std::string& policy) {
  double start = 0;
  HostHarness h(
      test::make_config("orr2014", {"gpu.cus=1", "gpu.frontend.launch_latency=0", "gpu.frontend.policy=" + policy}),
      [&](Host& host) {
        auto& d = host.dispatcher();
        // Workgroup g of a runs 20 + 10 g instructions: they complete one by one.
        KernelState& a = d.submit({"a", 64 * 80, 64, 8, 0, [](Lane& l) { return spin(l, 20 + 10 * l.group_id()); }});
        host.wait(sc_core::sc_time(100, sc_core::SC_NS));  // a has filled the CU
        SubmitOptions o;
        o.priority = 1;
        KernelState& b = d.submit({"b", 64, 64, 8, 0, [](Lane& l) { return spin(l, 1); }}, o);
        while (!a.finished) sc_core::wait(a.done);
        while (!b.finished) sc_core::wait(b.done);
        start = tick_to_ns(b.first_dispatch);
      });
  h.run();
  return start;
}

// 40 of a's 80 workgroups fit at once. Workgroup 0 (20 instructions, 40
// wavefronts sharing one issue per cycle) completes after about 800 ns; the
// 40th only after about 40 x 20 + ... >= 8000 ns.
TEST(FrontEnd, FifoBlocksALaterKernelBehindTheHead) {
  FG_REQUIRE_FRESH_KERNEL();
  // b waits until all of a is dispatched: after 40 of a's workgroups completed.
  EXPECT_GT(second_start_ns("fifo"), 8000.0);
}

TEST(FrontEnd, PriorityPolicyPlacesAnyKernelThatFits) {
  FG_REQUIRE_FRESH_KERNEL();
  // b has the higher priority: it takes the first slot that frees.
  const double t = second_start_ns("priority");
  EXPECT_GT(t, 100.0);
  EXPECT_LT(t, 1500.0);
}

TEST(FrontEnd, ACuAcceptsOneWorkgroupPerDispatchInterval) {
  FG_REQUIRE_FRESH_KERNEL();
  double ns = 0;
  HostHarness h(
      test::make_config("orr2014",
                        {"gpu.cus=1", "gpu.frontend.launch_latency=0", "gpu.frontend.dispatch_interval=100"}),
      [&](Host& host) {
        ns = host.run_kernel({"paced", 64 * 4, 64, 8, 0, [](Lane& l) { return spin(l, 1); }}).to_seconds() * 1e9;
      });
  h.run();
  EXPECT_GE(ns, 300.0);  // the 4th workgroup is placed 300 cycles after the 1st
  EXPECT_LT(ns, 330.0);
}

TEST(FrontEnd, WorkgroupsPerCuCap) {
  FG_REQUIRE_FRESH_KERNEL();
  HostHarness h(test::make_config("orr2014", {"gpu.cus=1", "gpu.cu.max_workgroups=3"}), [](Host& host) {
    host.run_kernel({"capped", 64 * 12, 64, 8, 0, [](Lane& l) { return spin(l, 20); }});
  });
  h.run();
  EXPECT_EQ(h.stat("gpu.cu0.peak_wavefronts"), 3.0);
}

TEST(FrontEnd, ResidentCapacityAndSubmitAtAnAgentsTimeWithCompletionTime) {
  FG_REQUIRE_FRESH_KERNEL();
  std::uint64_t cap_orr = 0;
  Tick first = 0, cb_end = 0, end = 0;
  HostHarness h(test::make_config("orr2014", {"gpu.cus=8"}), [&](Host& host) {
    auto& d = host.dispatcher();
    // 256 work-items = 4 wavefronts: 10 per CU by slots (16 registers fit 16).
    cap_orr = d.resident_capacity({"p", 0, 256, 16, 0, {}});
    SubmitOptions o;
    o.at = sc_core::sc_time_stamp().value() + 10'000'000;  // 10 us ahead of SystemC time
    o.on_done = [&](KernelState&, Tick t) { cb_end = t; };
    KernelState& k = d.submit({"later", 64, 64, 8, 0, [](Lane& l) { return spin(l, 1); }}, o);
    while (!k.finished) sc_core::wait(k.done);
    first = k.first_dispatch;
    end = k.end;
  });
  h.run();
  EXPECT_EQ(cap_orr, 80u);
  EXPECT_GE(first, Tick{10'000'000 + 5'000'000});  // at + launch latency
  EXPECT_EQ(cb_end, end);
  EXPECT_GT(end, first);
}

TEST(FrontEnd, PerKernelStatsInTheStatsJson) {
  const auto d = test::scratch_dir();
  const std::string stats = (d / "s.json").string();
  const auto r = test::run_fgsim(
      "run reduce --preset kim2014 --quiet --set gpu.cus=2 --set reduce.n=5000 "
      "--set kernel.group_size=128 --stats " +
      stats);
  ASSERT_EQ(r.code, 0) << r.err;
  const auto j = nlohmann::json::parse(test::slurp(stats));
  ASSERT_EQ(j["kernels"].size(), 1u);
  const auto& k = j["kernels"][0];
  EXPECT_EQ(k["name"], "reduce");
  EXPECT_EQ(k["workgroups"], 40);
  EXPECT_EQ(k["wavefronts"], 160);
  const double instrs = j["stats"]["gpu.cu0.wavefront_instructions"].get<double>() +
                        j["stats"]["gpu.cu1.wavefront_instructions"].get<double>();
  EXPECT_EQ(k["instructions"].get<double>(), instrs);
  EXPECT_GT(k["end_ns"].get<double>(), k["first_dispatch_ns"].get<double>());
}

}  // namespace
}  // namespace fg
