// SPDX-License-Identifier: Apache-2.0
// The rtl backend's skip (systemc/worklist/rtl_backend.h): in the cycles the
// worklist unit fast-forwards, it sets the Verilated RTL's free-running
// counters instead of clocking it. For every Verilated configuration in this
// build, three systems take the same lane traffic: the rtl backend that skips,
// an rtl backend that clocks the skipped cycles with idle inputs, and the
// golden model (hwwl::System::skip); their outputs must agree on every cycle
// after each skip. The skips are the unit's two kinds: in a fixpoint (the
// pull-side counts unchanged for the backend's window of idle cycles), any
// length; and, with the inter-core network empty, the cycles before the next
// redistribution tick.
#include <cstdint>
#include <random>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "hwwl/hwwl_model.h"
#include "worklist/backend.h"

namespace fg::wl {
namespace {

struct Harness {
  explicit Harness(const RtlBuild& b)
      : p(b.params), skipping(b.make(p, WaveSpec{})), clocked(b.make(p, WaveSpec{})), model(p) {
    model.reset();
    const std::size_t n = std::size_t{p.cores} * p.lanes;
    idle.pull.assign(n, false);
    idle.push.assign(n, false);
    idle.push_id.assign(n, 0);
    counts.assign(n, 0);
  }

  // One cycle of the same inputs on all three; their outputs must agree.
  void step(const Backend::In& in) {
    skipping->step(in, o[0]);
    clocked->step(in, o[1]);
    model.step(in, o[2]);
    ++cycle;
    for (int k = 1; k < 3; ++k) {
      ASSERT_EQ(o[0].pull_status, o[k].pull_status) << what(k);
      ASSERT_EQ(o[0].pull_id, o[k].pull_id) << what(k);
      ASSERT_EQ(o[0].push_gnt, o[k].push_gnt) << what(k);
      ASSERT_EQ(o[0].sys_empty, o[k].sys_empty) << what(k);
    }
  }
  std::string what(int k) const {
    return std::string(k == 1 ? "rtl clocked" : "golden model") + " differs at cycle " + std::to_string(cycle) +
           " (after " + std::to_string(skips) + " skips)";
  }

  // Lane traffic, in percent of lanes per cycle: core 0 pushes src_push and
  // pulls src_pull, the other cores push and pull at `push` and `pull`.
  void traffic(std::mt19937_64& rng, unsigned cycles, unsigned src_push, unsigned src_pull, unsigned push,
               unsigned pull) {
    Backend::In in = idle;
    for (unsigned t = 0; t < cycles && !::testing::Test::HasFatalFailure(); ++t) {
      for (std::size_t b = 0; b < in.pull.size(); ++b) {
        const bool source = b < p.lanes;
        const unsigned r = static_cast<unsigned>(rng() % 100);
        in.push[b] = r < (source ? src_push : push);
        in.pull[b] = !in.push[b] && r >= 100 - (source ? src_pull : pull);
        in.push_id[b] = in.push[b] ? static_cast<std::uint32_t>(rng() & 0xffffff) : 0;
      }
      step(in);
    }
  }

  // Idle cycles until the pull-side counts have not moved for the backend's
  // fixpoint window (at most `limit` cycles; false if they kept moving).
  bool settle(std::uint64_t limit) {
    std::vector<unsigned> prev;
    std::uint64_t still = 0;
    for (std::uint64_t i = 0; i < limit && !::testing::Test::HasFatalFailure(); ++i) {
      step(idle);
      skipping->pull_counts(false, p.lanes, counts);
      still = counts == prev ? still + 1 : 0;
      prev = counts;
      // The unit's rule: no input, counts unchanged for the window (an ID
      // may be held in the network then, at banks that cannot take it).
      if (still >= skipping->fixpoint_window()) return true;
    }
    return false;
  }

  void skip(std::uint64_t n) {
    skipping->skip(n, idle);
    for (std::uint64_t i = 0; i < n; ++i) clocked->step(idle, o[1]);
    model.skip(n, false);
    cycle += n;
    ++skips;
  }

  hwwl::Params p;
  std::unique_ptr<Backend> skipping, clocked;
  hwwl::System model;
  Backend::In idle;
  Backend::Out o[3];
  std::vector<unsigned> counts;
  std::uint64_t cycle = 0, skips = 0;
};

TEST(RtlBackendSkip, SettingTheCountersEqualsClockingTheCycles) {
  if (rtl_builds().empty()) GTEST_SKIP() << "fgsim was built without the rtl backend";
  for (const RtlBuild& b : rtl_builds()) {
    SCOPED_TRACE(b.name);
    Harness h(b);
    std::mt19937_64 rng(7);
    unsigned fixpoints = 0, between = 0, unsettled = 0;
    for (int round = 0; round < 24 && !HasFatalFailure(); ++round) {
      if (round % 2 == 0) {
        // Core 0 floods, the others take a little: the redistribution units
        // and the network move work until a fixpoint, in which the unit
        // skips any length, across many interval-counter wraps.
        h.traffic(rng, 40, 40, 2, 4, 6);
        if (!h.settle(3000)) {
          ++unsettled;
          continue;
        }
        h.skip(1 + rng() % (7 * h.p.interval * h.p.lanes + 3));
        ++fixpoints;
      } else {
        // Draining: with no ID in the network, the unit skips the cycles
        // before the next redistribution tick (the WRU decides on cycle %
        // interval == interval - 1).
        h.traffic(rng, 40, 20, 30, 2, 40);
        for (int i = 0; i < 50 && h.skipping->net_busy() && !HasFatalFailure(); ++i) h.traffic(rng, 10, 0, 50, 0, 50);
        const std::uint64_t to_tick = h.p.interval - 1 - h.cycle % h.p.interval;
        if (h.skipping->net_busy() || to_tick == 0) continue;
        h.skip(1 + rng() % to_tick);
        ++between;
      }
      // The traffic after the skip shows the counters' phase: the ticks, the
      // pairing's round robin and the network's.
      h.traffic(rng, 3 * h.p.interval, 30, 10, 5, 10);
      if (!HasFatalFailure()) h.settle(4 * h.p.interval);
    }
    EXPECT_GE(fixpoints, 4u) << unsettled << " rounds did not settle";
    EXPECT_GE(between, 4u);
    std::uint64_t nonempty = 0;
    for (unsigned c : h.counts) nonempty += c != 0;
    EXPECT_GT(nonempty, 0u) << "the traffic left no work in the banks";
  }
}

}  // namespace
}  // namespace fg::wl
