// SPDX-License-Identifier: Apache-2.0
// Compute units: SIMT engine, divergence, coalescing, barriers, occupancy,
// scaling. Each case elaborates one GPU (ctest: one process per case).
#include <cmath>

#include <gtest/gtest.h>

#include "fg_test.h"
#include "forkjoin/serial.h"
#include "gpu/compute_unit.h"
#include "gpu/host.h"
#include "sim/error.h"
#include "sim/stats.h"

namespace fg {
namespace {

using test::HostHarness;

Task<> strided_load(Lane& l, std::uint64_t base, std::uint32_t stride) {
  co_await l.load<std::uint32_t>(base + std::uint64_t{l.global_id()} * stride);
}

class Coalescing : public ::testing::TestWithParam<std::pair<std::uint32_t, double>> {};

TEST_P(Coalescing, LineRequestsPerWavefrontLoad) {
  FG_REQUIRE_FRESH_KERNEL();
  const auto [stride, want] = GetParam();
  HostHarness h(test::make_config("orr2014", {"gpu.cus=1"}), [stride = stride](Host& host) {
    const std::uint64_t base = host.alloc(64 * 64 * 4);
    host.run_kernel({"strided", 64, 64, 8, 0, [=](Lane& l) { return strided_load(l, base, stride); }});
  });
  h.run();
  EXPECT_DOUBLE_EQ(h.stat("gpu.cu0.reqs_per_load"), want);
}

INSTANTIATE_TEST_SUITE_P(Strides, Coalescing,
                         ::testing::Values(std::make_pair(4u, 4.0), std::make_pair(64u, 64.0),
                                           std::make_pair(8u, 8.0)));

Task<> half_long(Lane& l, std::uint32_t work) {
  if (l.lane_id() % 2 == 0)
    for (std::uint32_t k = 0; k < work; ++k) co_await l.alu(1);
  co_await l.alu(1);
}

TEST(Divergence, HalfTheLanesOnALongBranchGiveHalfUtilization) {
  FG_REQUIRE_FRESH_KERNEL();
  HostHarness h(test::make_config("orr2014", {"gpu.cus=1"}), [](Host& host) {
    host.run_kernel({"half", 64 * 40, 64, 8, 0, [](Lane& l) { return half_long(l, 100); }});
  });
  h.run();
  const auto& util = h.top().cu(0).simd_utilization;
  // Per wavefront: 100 instructions at 32/64 lanes, then the join at 64/64.
  EXPECT_NEAR(util.mean(), (100 * 0.5 + 1.0) / 101, 1e-9);
  EXPECT_EQ(util.buckets()[5], 40u * 100);  // 0.5 falls in [0.5, 0.6)
  EXPECT_EQ(util.count(), 40u * 101);
  EXPECT_EQ(h.stat("gpu.cu0.divergent_issues"), 40.0 * 100);
  // Reconvergence: the final alu issues once per wavefront with all 64 lanes.
  EXPECT_EQ(util.buckets()[9], 40u);
}

// Lanes at one site in different frames (Lane::path; workloads/forkjoin/
// serial.h) issue apart; with no path they meet again.
Task<> two_frames(Lane& l, std::uint32_t work) {
  l.path = 1 + l.lane_id() % 2;
  for (std::uint32_t k = 0; k < work; ++k) co_await l.alu(1);
  l.path = 0;
  co_await l.alu(1);
}

TEST(Divergence, LanesInDifferentFramesIssueApart) {
  FG_REQUIRE_FRESH_KERNEL();
  HostHarness h(test::make_config("orr2014", {"gpu.cus=1"}), [](Host& host) {
    host.run_kernel({"frames", 64 * 40, 64, 8, 0, [](Lane& l) { return two_frames(l, 100); }});
  });
  h.run();
  const auto& util = h.top().cu(0).simd_utilization;
  // Per wavefront: 100 instructions twice at 32/64 lanes, then the join at 64/64.
  EXPECT_EQ(util.count(), 40u * 201);
  EXPECT_EQ(util.buckets()[5], 40u * 200);
  EXPECT_EQ(util.buckets()[9], 40u);
}

// A helper serving two compiled regions (forkjoin/serial.h enter_region):
// lanes at its one site issue apart when they come from different regions,
// together from the same one.
Task<> helper(Lane& l, std::uint32_t work) {
  for (std::uint32_t k = 0; k < work; ++k) co_await l.alu(1);
}
Task<> two_regions(Lane& l, std::uint32_t work, std::uint32_t regions) {
  const std::uint32_t frame = fj::enter_region(l, 1 + l.lane_id() % regions);
  co_await helper(l, work);
  l.path = frame;
  co_await l.alu(1);
}

TEST(Divergence, LanesFromDifferentRegionsOfAHelperIssueApart) {
  FG_REQUIRE_FRESH_KERNEL();
  HostHarness h(test::make_config("orr2014", {"gpu.cus=1"}), [](Host& host) {
    host.run_kernel({"regions", 64 * 40, 64, 8, 0, [](Lane& l) { return two_regions(l, 100, 2); }});
    host.run_kernel({"region", 64 * 40, 64, 8, 0, [](Lane& l) { return two_regions(l, 100, 1); }});
  });
  h.run();
  const auto& util = h.top().cu(0).simd_utilization;
  // Per wavefront of the first kernel: the helper twice at 32/64 lanes, then
  // the join; of the second: the helper and the join at 64/64.
  EXPECT_EQ(util.buckets()[5], 40u * 200);
  EXPECT_EQ(util.buckets()[9], 40u + 40u * 101);
}

// Lanes in a deeper frame issue first (Lane::path's top byte), as a
// reconvergence stack runs its innermost entry: the odd lanes, back in the
// outer frame at an earlier site, wait there for the even ones, and the two
// halves issue that site together.
Task<> deeper_first(Lane& l, std::uint32_t work) {
  for (std::uint32_t k = 0;; ++k) {
    if (k == work || l.lane_id() % 2) {
      l.path = (1u << Lane::kDepthShift) | 7;
      co_await l.alu(1);
      break;
    }
    l.path = (2u << Lane::kDepthShift) | 5;
    co_await l.alu(1);
  }
  l.path = 0;
  co_await l.alu(1);
}

TEST(Divergence, LanesInDeeperFramesIssueFirst) {
  FG_REQUIRE_FRESH_KERNEL();
  HostHarness h(test::make_config("orr2014", {"gpu.cus=1"}), [](Host& host) {
    host.run_kernel({"deeper", 64 * 40, 64, 8, 0, [](Lane& l) { return deeper_first(l, 100); }});
  });
  h.run();
  const auto& util = h.top().cu(0).simd_utilization;
  // Per wavefront: the inner loop at 32/64 lanes, then the outer frame's
  // operation and the join at 64/64 (the earlier site first: 3 at 32/64).
  EXPECT_EQ(util.count(), 40u * 102);
  EXPECT_EQ(util.buckets()[5], 40u * 100);
  EXPECT_EQ(util.buckets()[9], 40u * 2);
}

// Lanes that leave a loop at different trips meet at its convergence point
// and go on together, though the code after the loop is at an earlier site
// (a helper above it): the loop's body runs one level deeper (Lane::path),
// so the lanes that left wait for the rest. Without the deeper body the lanes
// that left after one trip would run the helper first, alone (the meeting's
// and the helper's sites are both earlier than the loop's operation).
Task<> helper_above(Lane& l) {
  co_await l.alu(1);
  co_await l.alu(1);
}
Task<> op_below(Lane& l);  // below both kernels: the loops' operation is at a later site than the meetings
Task<> loop_then_helper(Lane& l, std::uint32_t work) {
  const std::uint32_t outer = fj::enter_body(l);
  const std::uint32_t trips = l.lane_id() % 2 ? 1 : work;
  for (std::uint32_t k = 0; k < trips; ++k) co_await op_below(l);
  co_await fj::leave(l, outer);
  co_await helper_above(l);
}

TEST(Divergence, LanesThatLeaveALoopMeetAtItsConvergencePoint) {
  FG_REQUIRE_FRESH_KERNEL();
  HostHarness h(test::make_config("orr2014", {"gpu.cus=1"}), [](Host& host) {
    host.run_kernel({"converge", 64 * 40, 64, 8, 0, [](Lane& l) { return loop_then_helper(l, 100); }});
  });
  h.run();
  const auto& util = h.top().cu(0).simd_utilization;
  // Per wavefront: the first trip at 64/64, 99 at 32/64, the meeting (no
  // instruction) and the helper's two at 64/64. Without the deeper body: the
  // helper twice at 32/64 (103 at 32/64, 1 at 64/64).
  EXPECT_EQ(util.buckets()[5], 40u * 99);
  EXPECT_EQ(util.buckets()[9], 40u * 3);
  EXPECT_EQ(h.top().cu(0).wavefront_instructions.value(), 40u * 102);
}

// The meeting itself (Lane::converge) matters where a deeper construct
// follows at once: lanes that leave the first loop early would otherwise go
// straight into the second loop's body, at the same depth as the first's,
// and run it alone (its site is earlier than op_below's). Odd lanes: 1 trip of the first
// loop, even lanes 100; then every lane 2 trips of the second.
Task<> second_body(Lane& l) { co_await l.alu(1); }
Task<> two_loops(Lane& l, std::uint32_t work, bool meet) {
  std::uint32_t outer = fj::enter_body(l);
  const std::uint32_t trips = l.lane_id() % 2 ? 1 : work;
  for (std::uint32_t k = 0; k < trips; ++k) co_await op_below(l);
  if (meet) {
    co_await fj::leave(l, outer);
    outer = fj::enter_body(l);
  }
  for (std::uint32_t k = 0; k < 2; ++k) co_await second_body(l);
  co_await fj::leave(l, outer);
}
Task<> op_below(Lane& l) { co_await l.alu(1); }

TEST(Divergence, LanesMeetBetweenTwoLoopsBeforeTheSecond) {
  FG_REQUIRE_FRESH_KERNEL();
  HostHarness h(test::make_config("orr2014", {"gpu.cus=1"}), [](Host& host) {
    host.run_kernel({"meet", 64 * 40, 64, 8, 0, [](Lane& l) { return two_loops(l, 100, true); }});
    host.run_kernel({"no-meet", 64 * 40, 64, 8, 0, [](Lane& l) { return two_loops(l, 100, false); }});
  });
  h.run();
  const auto& util = h.top().cu(0).simd_utilization;
  // With the meeting, per wavefront: the first trip at 64/64, 99 at 32/64,
  // the second loop's 2 at 64/64. Without it: the odd lanes' 2 second-loop
  // trips at 32/64 ahead of the even lanes' 99, then the even lanes' 2.
  EXPECT_EQ(util.buckets()[5], 40u * 99 + 40u * (99 + 4));
  EXPECT_EQ(util.buckets()[9], 40u * 3 + 40u * 1);
}

Task<> lds_exchange(Lane& l, std::uint64_t out, bool with_barrier) {
  const std::uint32_t n = l.group_size();
  co_await l.alu(1 + 20 * (l.local_id() / 64));  // later wavefronts write later
  co_await l.lds_store<std::uint32_t>(4 * l.local_id(), l.local_id() + 1000);
  if (with_barrier) co_await l.barrier();
  // Read the slot written by a lane of another wavefront.
  const std::uint32_t v = co_await l.lds_load<std::uint32_t>(4 * ((l.local_id() + 64) % n));
  co_await l.store<std::uint32_t>(out + 4ull * l.global_id(), v);
}

int lds_wrong(bool with_barrier) {
  int wrong = -1;
  HostHarness h(test::make_config("orr2014", {"gpu.cus=1"}), [&](Host& host) {
    const std::uint64_t out = host.alloc(4 * 256);
    host.run_kernel({"lds", 256, 256, 8, 1024, [=](Lane& l) { return lds_exchange(l, out, with_barrier); }});
    auto v = host.download<std::uint32_t>(out, 256);
    wrong = 0;
    for (std::uint32_t i = 0; i < 256; ++i) wrong += v[i] != (i + 64) % 256 + 1000;
  });
  h.run();
  return wrong;
}

TEST(Barrier, OrdersLdsWritesBeforeReads) {
  FG_REQUIRE_FRESH_KERNEL();
  EXPECT_EQ(lds_wrong(true), 0);
}

TEST(Barrier, WithoutItReadsOvertakeWrites) {  // shows the barrier test can fail
  FG_REQUIRE_FRESH_KERNEL();
  EXPECT_GT(lds_wrong(false), 0);
}

Task<> spin(Lane& l, std::uint32_t iters) {
  for (std::uint32_t k = 0; k < iters; ++k) co_await l.alu(1);
}

class Occupancy : public ::testing::TestWithParam<std::pair<std::uint32_t, double>> {};

TEST_P(Occupancy, RegistersLimitResidentWavefronts) {
  FG_REQUIRE_FRESH_KERNEL();
  const auto [regs, want_peak] = GetParam();
  HostHarness h(test::make_config("orr2014", {"gpu.cus=1"}), [regs = regs](Host& host) {
    host.run_kernel({"occ", 64 * 80, 64, regs, 0, [](Lane& l) { return spin(l, 50); }});
  });
  h.run();
  EXPECT_EQ(h.stat("gpu.cu0.peak_wavefronts"), want_peak);
}

// 65536 lane-registers: 16 per lane -> slot-bound 40; 100 -> 10 wavefronts; 256 -> 4.
INSTANTIATE_TEST_SUITE_P(Registers, Occupancy,
                         ::testing::Values(std::make_pair(16u, 40.0), std::make_pair(100u, 10.0),
                                           std::make_pair(256u, 4.0)));

TEST(Occupancy, AWorkgroupLargerThanACuIsAFault) {
  FG_REQUIRE_FRESH_KERNEL();
  HostHarness h(test::make_config("orr2014", {"gpu.cus=1"}), [](Host& host) {
    host.run_kernel({"huge", 64, 64, 2000, 0, [](Lane& l) { return spin(l, 1); }});
  });
  EXPECT_THROW(h.run(), SimFault);
}

Task<> misaligned(Lane& l, std::uint64_t addr) { co_await l.load<std::uint32_t>(addr); }

TEST(Faults, AnAccessCrossingACacheLineIsASimulatedFault) {
  FG_REQUIRE_FRESH_KERNEL();
  HostHarness h(test::make_config("orr2014", {"gpu.cus=1"}), [](Host& host) {
    const std::uint64_t base = host.alloc(256);
    host.run_kernel({"misaligned", 1, 64, 8, 0, [=](Lane& l) { return misaligned(l, base + 62); }});
  });
  try {
    h.run();
    FAIL() << "expected a SimFault";
  } catch (const SimFault& e) {
    EXPECT_NE(std::string(e.what()).find("crosses a cache line"), std::string::npos) << e.what();
  }
}

double compute_time(int cus) {
  double ns = 0;
  // No launch latency: the test is about the CUs' issue rate.
  HostHarness h(
      test::make_config("orr2014", {"gpu.cus=" + std::to_string(cus), "gpu.frontend.launch_latency=0"}),
      [&](Host& host) {
        // 8 CUs x 10 workgroups of 4 wavefronts, twice over.
        ns =
            host.run_kernel({"compute", 256 * 160, 256, 8, 0, [](Lane& l) { return spin(l, 200); }}).to_seconds() * 1e9;
      });
  h.run();
  return ns;
}

TEST(Scaling, ComputeBoundKernelOn8CusIsNear8xOneCu) {
  FG_REQUIRE_FRESH_KERNEL();
  // One process, one elaboration: the 1-CU time is analytic. A CU issues one
  // instruction per cycle (4 SIMDs x 1 per 4 cycles), so 1 CU needs
  // 160 x 4 wavefronts x 200 instructions cycles at least.
  const double one_cu = 160.0 * 4 * 200 * 1.0;
  const double t8 = compute_time(8);
  EXPECT_GT(one_cu / t8, 8 * 0.85) << "t8=" << t8;
  EXPECT_LE(one_cu / t8, 8.0 + 1e-9);
}

TEST(Scaling, OneCuRunsAtItsIssueBound) {
  FG_REQUIRE_FRESH_KERNEL();
  const double t1 = compute_time(1);
  const double bound = 160.0 * 4 * 200 * 1.0;
  EXPECT_GE(t1, bound);
  EXPECT_LT(t1, 1.05 * bound);
}

Task<> wait_for_flag(Lane& l, std::uint64_t flag) {
  // g++ 12 miscompiles a co_await inside a loop condition; keep it in the body.
  for (;;) {
    const std::uint32_t v = co_await l.load<std::uint32_t>(flag);
    if (v != 0) break;
    co_await l.alu(1);
  }
}

TEST(Faults, ASpinningKernelHitsTheWatchdogWithADiagnosis) {
  FG_REQUIRE_FRESH_KERNEL();
  // Left alive: the spinning wavefronts' host thread is still suspended at exit.
  auto& h = *new HostHarness(test::make_config("orr2014", {"gpu.cus=1"}), [](Host& host) {
    const std::uint64_t flag = host.alloc(64);
    host.run_kernel({"spin", 64, 64, 8, 0, [=](Lane& l) { return wait_for_flag(l, flag); }});
  });
  sc_core::sc_start(sc_core::sc_time(50, sc_core::SC_US));
  EXPECT_TRUE(sc_core::sc_pending_activity());
  const std::string d = h.top().diagnose();
  EXPECT_NE(d.find("64 lanes load at gpu_test.cpp"), std::string::npos) << d;
}

}  // namespace
}  // namespace fg
