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
#include <algorithm>
#include <cstdint>
#include <iostream>
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
      if (!in.rf_put.empty()) {
        ASSERT_EQ(o[0].rf_gnt, o[k].rf_gnt) << what(k);
        ASSERT_EQ(o[0].rsv_gnt, o[k].rsv_gnt) << what(k);
      }
    }
    for (unsigned c = 0; c < p.cores; ++c)
      for (unsigned l = 0; l < p.lanes; ++l)
        ASSERT_EQ(skipping->pull_count(c, l, in.double_buf), model.core(c).bank(l).count(in.double_buf))
            << what(2) << ": core " << c << " lane " << l << "'s count";
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

// The most reserved entries not yet filled in one bank of the golden model
// (0: none anywhere).
unsigned max_reserved(const Harness& h) {
  unsigned m = 0;
  for (unsigned c = 0; c < h.p.cores; ++c)
    for (unsigned l = 0; l < h.p.lanes; ++l) m = std::max(m, h.model.core(c).bank(l).reserved());
  return m;
}

// The rtl backend evaluates a core's Verilated model only in the cycles in
// which the core has something to do: a lane, refill or reservation access,
// a work ID offered by the network, or its redistribution tick. Traffic on
// one core at a time (the others idle, their banks holding work), with
// refills and reservations (some alone on an idle core), then double
// buffering with swaps: every output and every bank's count equal the golden
// model's every cycle, and fewer than three quarters of the core cycles are
// evaluated (every core is evaluated on its ticks: 60% with an interval of 4
// on 2 cores).
TEST(RtlBackendSkip, EvaluatingOnlyTheBusyCoresEqualsTheModel) {
  if (rtl_builds().empty()) GTEST_SKIP() << "fgsim was built without the rtl backend";
  for (const RtlBuild& b : rtl_builds()) {
    SCOPED_TRACE(b.name);
    Harness h(b);
    const std::size_t n = std::size_t{h.p.cores} * h.p.lanes;
    std::mt19937_64 rng(11);
    auto pct = [&](unsigned x) { return rng() % 100 < x; };
    Backend::In in = h.idle;
    in.rf_put.assign(n, 0);
    in.rf_id.assign(n, 0);
    in.rsv.assign(h.p.cores, 0);
    std::uint64_t core_cycles = 0;
    unsigned max_rsv = 0;  // most reserved entries seen in one bank
    const std::uint64_t evals0 = h.skipping->core_evals();
    for (int phase = 0; phase < 2 && !HasFatalFailure(); ++phase) {
      in.double_buf = phase == 1;
      for (unsigned t = 0; t < 3000 && !HasFatalFailure(); ++t) {
        // A busy core for 60 cycles, then another; 20 idle cycles between.
        const unsigned busy = (t / 80) % h.p.cores;
        const bool quiet = t % 80 >= 60;
        const bool filling = (t / 80) % 3 == 0;  // pushes outweigh pulls
        // Every other 480 cycles the other cores' lanes pull too, as spinning
        // waiters do: on banks that are mostly empty (a pull of an empty bank
        // is not an access; the core is not evaluated for it).
        const bool spinning = (t / 480) % 2 == 1;
        in.swap = in.double_buf && pct(10);
        // The HVU is busy while it holds work, and always while an entry it
        // reserved is not yet filled (Hvu::busy_this_round).
        in.hvu_busy = pct(50) || max_reserved(h) != 0;
        // Every other 240 cycles the reserved entries are left unfilled (a
        // slow memory), so that reservations stack up in a bank.
        const bool hold = (t / 240) % 2 == 1;
        for (std::size_t k = 0; k < n; ++k) {
          const bool mine = !quiet && k / h.p.lanes == busy;
          in.push[k] = mine && pct(filling ? 60 : 10);
          in.pull[k] = mine ? !in.push[k] && pct(filling ? 10 : 60) : spinning && pct(30);
          in.push_id[k] = in.push[k] ? static_cast<std::uint32_t>(rng() & 0xffffff) : 0;
          // Refills: into every reserved entry, at once outside the holds (as
          // the HVU fills what it reserved), and on demand on the busy core
          // (into a reserved entry if there is one).
          const unsigned rsvd = h.model.core(static_cast<unsigned>(k / h.p.lanes)).bank(k % h.p.lanes).reserved();
          in.rf_put[k] = !in.double_buf && ((rsvd != 0 && !hold) || (mine && pct(10)));
          in.rf_id[k] = in.rf_put[k] ? static_cast<std::uint32_t>(rng() & 0xffffff) : 0;
        }
        // Reservations on the busy core, and in the idle cycles on the next
        // core alone (a reservation is all a core may have to do).
        for (unsigned c = 0; c < h.p.cores; ++c)
          in.rsv[c] = !in.double_buf && (quiet ? c == (busy + 1) % h.p.cores && pct(20) : c == busy && pct(5));
        h.step(in);
        core_cycles += h.p.cores;
        max_rsv = std::max(max_rsv, max_reserved(h));
      }
      // Drain the pull sides before the mode changes (banks empty).
      Backend::In drain = in;
      drain.rf_put.assign(n, 0);
      drain.rsv.assign(h.p.cores, 0);
      drain.push.assign(n, 0);
      drain.pull.assign(n, 1);
      for (unsigned t = 0; t < 4000 && !HasFatalFailure() && !h.o[0].sys_empty; ++t) {
        drain.swap = drain.double_buf;
        drain.hvu_busy = max_reserved(h) != 0;  // the drain ends only when every reservation is filled and pulled
        // Reserved entries get their refill (the HVU's protocol).
        for (std::size_t k = 0; k < n; ++k) {
          drain.rf_put[k] = h.model.core(static_cast<unsigned>(k / h.p.lanes)).bank(k % h.p.lanes).reserved() != 0;
          drain.rf_id[k] = drain.rf_put[k] ? 7 : 0;
        }
        h.step(drain);
        core_cycles += h.p.cores;
      }
      EXPECT_TRUE(h.o[0].sys_empty) << "phase " << phase << " did not drain";
    }
    const std::uint64_t evals = h.skipping->core_evals() - evals0;
    EXPECT_LT(evals * 4, core_cycles * 3) << "evaluated " << evals << " of " << core_cycles << " core cycles";
    // gsorting feeds the idle cores from the busy one through the network, and
    // a reception in a bank holds off a reservation of its core: fewer stack
    // up (6 at most with this traffic, 8 to 13 under the other schemes).
    const unsigned want_rsv = h.p.scheme == hwwl::Scheme::Gsorting ? 6u : 8u;
    EXPECT_GE(max_rsv, want_rsv) << "reservations did not stack up in a bank";
    std::cout << b.name << ": evaluated " << evals << " of " << core_cycles << " core cycles, up to " << max_rsv
              << " reserved entries in a bank\n";
  }
}

}  // namespace
}  // namespace fg::wl
