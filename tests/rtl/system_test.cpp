// SPDX-License-Identifier: Apache-2.0
// hwwl_icrn, hwwl_core and hwwl_system: RTL against the golden model every
// cycle under constrained-random traffic, with the worklist invariants checked
// on the RTL's outputs: every work ID pulled was pushed and is pulled once
// (nothing duplicated or invented), everything pushed is pulled by the end of
// each episode (nothing lost), DONE never while work exists, WAIT never when
// the system is empty and idle. The system tests add a stand-in for the
// virtualization unit: it takes stalled pushes into a per-core overflow list,
// refills banks from it and reserves entries, and its IDs count as inside.
#include <algorithm>
#include <deque>
#include <random>
#include <stdexcept>
#include <unordered_set>

#include <gtest/gtest.h>

#include "Vcore_l8_thr.h"
#include "Vicrn_c1.h"
#include "Vicrn_c4.h"
#include "Vsys_c2_l8_thr.h"
#include "Vsys_c3_l4_gsort.h"
#include "Vsys_c3_l4_lsort.h"
#include "Vsys_c3_l4_none.h"
#include "Vsys_c4_l16_lsort.h"
#include "Vsys_c4_l8_gsort0.h"
#include "Vsys_c4_l8_lsort0.h"
#include "Vsys_c8_l2_thr.h"
#include "hwwl/hwwl_model.h"
#include "tb_util.h"

namespace fg {
namespace {

using tb::get;
using tb::put;

std::string test_name() { return ::testing::UnitTest::GetInstance()->current_test_info()->name(); }

// ---------------------------------------------------------------- ICRN

TEST(HwwlIcrn, FourCoresMatchModelAndLoseNothing) {
  const unsigned C = 4, W = 24;
  tb::Dut<Vicrn_c4> dut(test_name(), 5);
  hwwl::Icrn model(C);
  std::mt19937_64 rng(5);
  std::uniform_real_distribution<double> u(0, 1);
  std::unordered_set<std::uint32_t> inside;
  std::uint32_t next = 1;
  const std::uint64_t n = tb::cycles(100000);
  for (std::uint64_t c = 0; c < n + 200; ++c) {
    const bool draining = c >= n;
    hwwl::Bits greedy(C), inj_v(C), ej_r(C);
    std::vector<std::uint32_t> inj_id(C);
    for (unsigned k = 0; k < C; ++k) {
      greedy[k] = !draining && u(rng) < 0.4;
      inj_v[k] = !draining && u(rng) < 0.5;
      inj_id[k] = next + k;
      ej_r[k] = u(rng) < 0.7;
      put(dut->greedy_i, k, 1, greedy[k]);
      put(dut->inject_valid_i, k, 1, inj_v[k]);
      put(dut->inject_id_i, k * W, W, inj_id[k]);
      put(dut->eject_ready_i, k, 1, ej_r[k]);
    }
    dut.settle();
    model.plan(greedy, ej_r);
    ASSERT_EQ(dut->busy_o, model.busy()) << "cycle " << c;
    for (unsigned k = 0; k < C; ++k) {
      ASSERT_EQ(get(dut->inject_ready_o, k, 1), model.inject_ready(k)) << "cycle " << c;
      ASSERT_EQ(get(dut->eject_valid_o, k, 1), model.eject_valid(k)) << "cycle " << c;
      if (model.eject_valid(k)) {
        ASSERT_EQ(get(dut->eject_id_o, k * W, W), model.eject_id(k)) << "cycle " << c;
        if (ej_r[k]) ASSERT_EQ(inside.erase(model.eject_id(k)), 1u) << "ejected an ID not inside";
      }
      if (inj_v[k] && model.inject_ready(k)) ASSERT_TRUE(inside.insert(inj_id[k]).second);
    }
    next += C;
    model.tick(inj_v, inj_id, ej_r);
    dut.clock();
  }
  EXPECT_TRUE(inside.empty()) << inside.size() << " work IDs never left the network";
  ::testing::Test::RecordProperty("cycles", static_cast<int>(std::min<std::uint64_t>(n + 200, INT32_MAX)));
}

// One donor injecting one work ID per redistribution interval (a core that
// alone has work, Sec. III-C) must feed every other core alike. A pointer
// advancing every cycle sent every ID to cores of one parity when the
// interval and the core count share a factor (4 cores, interval 10: core 3
// never got one).
TEST(HwwlIcrn, ALoneDonorFeedsEveryOtherCoreAlike) {
  const unsigned C = 4, W = 24, interval = 10, ids = 600;
  tb::Dut<Vicrn_c4> dut(test_name(), 5);
  hwwl::Icrn model(C);
  std::vector<unsigned> got(C, 0), got_model(C, 0);
  const hwwl::Bits greedy(C), ej_r(C, true);
  std::uint32_t sent = 0;
  for (std::uint64_t c = 0; c < std::uint64_t{ids} * interval + 20; ++c) {
    hwwl::Bits inj_v(C);
    std::vector<std::uint32_t> inj_id(C);
    inj_v[0] = c % interval == interval - 1 && sent < ids;
    inj_id[0] = sent + 1;
    put(dut->inject_valid_i, 0, 1, inj_v[0]);
    put(dut->inject_id_i, 0, W, inj_id[0]);
    for (unsigned k = 0; k < C; ++k) {
      put(dut->greedy_i, k, 1, false);
      put(dut->eject_ready_i, k, 1, true);
    }
    dut.settle();
    model.plan(greedy, ej_r);
    for (unsigned k = 0; k < C; ++k) {
      got[k] += get(dut->eject_valid_o, k, 1);
      got_model[k] += model.eject_valid(k);
    }
    if (inj_v[0] && get(dut->inject_ready_o, 0, 1)) ++sent;
    model.tick(inj_v, inj_id, ej_r);
    dut.clock();
  }
  ASSERT_EQ(sent, ids);
  EXPECT_EQ(got, got_model);
  EXPECT_EQ(got[0], 0u) << "an ID went back to its donor";
  for (unsigned k = 1; k < C; ++k) EXPECT_EQ(got[k], ids / (C - 1)) << "core " << k;
  // The model alone at 16 cores (the Sec. V-A machine): 15 receivers.
  hwwl::Icrn big(16);
  std::vector<unsigned> got16(16, 0);
  const hwwl::Bits g16(16), r16(16, true);
  for (std::uint64_t c = 0; c < 1500u * interval; ++c) {
    hwwl::Bits v(16);
    std::vector<std::uint32_t> id(16);
    v[0] = c % interval == interval - 1;
    id[0] = 1;
    big.plan(g16, r16);
    for (unsigned k = 0; k < 16; ++k) got16[k] += big.eject_valid(k);
    big.tick(v, id, r16);
  }
  for (unsigned k = 1; k < 16; ++k) EXPECT_NEAR(got16[k], 100.0, 1.0) << "core " << k << " of 16";
}

// One core has no destination: the hub takes no injection (a donated ID
// would wait in its input register forever; bfs with gpu.cus=1 ended in a
// livelock), RTL and model alike.
TEST(HwwlIcrn, OneCoreTakesNothingIn) {
  const unsigned W = 24;
  tb::Dut<Vicrn_c1> dut(test_name(), 5);
  hwwl::Icrn model(1);
  std::mt19937_64 rng(3);
  unsigned offered = 0;
  for (std::uint64_t c = 0; c < 2000; ++c) {
    const hwwl::Bits greedy{(rng() & 1) != 0}, inj_v{(rng() & 1) != 0}, ej_r{(rng() & 1) != 0};
    const std::vector<std::uint32_t> inj_id{static_cast<std::uint32_t>(c + 1)};
    put(dut->greedy_i, 0, 1, greedy[0]);
    put(dut->inject_valid_i, 0, 1, inj_v[0]);
    put(dut->inject_id_i, 0, W, inj_id[0]);
    put(dut->eject_ready_i, 0, 1, ej_r[0]);
    dut.settle();
    model.plan(greedy, ej_r);
    offered += inj_v[0];
    ASSERT_FALSE(get(dut->inject_ready_o, 0, 1)) << "cycle " << c;
    ASSERT_FALSE(model.inject_ready(0)) << "cycle " << c;
    ASSERT_FALSE(get(dut->busy_o, 0, 1) || model.busy()) << "cycle " << c;
    model.tick(inj_v, inj_id, ej_r);
    dut.clock();
  }
  EXPECT_GT(offered, 900u);
}

// ---------------------------------------------------------------- traffic

// Per-episode lane behaviour: skewed pushes make the banks unbalanced, so the
// redistribution has work to do.
struct Traffic {
  std::mt19937_64 rng;
  std::uniform_real_distribution<double> u{0, 1};
  std::vector<double> p_push, p_pull;
  // Sparse episodes (a system of cores of per_core lanes): each cycle a core
  // is left without lane and refill requests with probability p_idle, so the
  // model's idle-core path (hwwl::Core::try_idle) runs, ticks and network
  // arrivals included.
  unsigned per_core = 0;
  double p_idle = 0;
  std::vector<bool> idle_core;
  explicit Traffic(int seed) : rng(seed) {}
  bool idle(unsigned core) const { return per_core != 0 && idle_core[core]; }
  void episode(unsigned lanes) {
    p_push.resize(lanes);
    p_pull.resize(lanes);
    if (per_core != 0) {
      idle_core.assign(lanes / per_core, false);
      p_idle = u(rng) < 0.3 ? 0.0 : 0.5 + 0.49 * u(rng);
    }
    const double hot = u(rng);
    for (unsigned l = 0; l < lanes; ++l) {
      p_push[l] = u(rng) < hot * 0.5 ? 0.6 * u(rng) : 0.02 * u(rng);
      p_pull[l] = 0.1 + 0.5 * u(rng);
    }
  }
  // One cycle of lane requests; while draining, lanes only pull. Push IDs are
  // next, next+1, ... (unique) within id_width bits.
  hwwl::LaneIn lanes(unsigned n, bool dbl, bool draining, std::uint32_t next, unsigned id_width) {
    hwwl::LaneIn in;
    in.double_buf = dbl;
    // While draining, swap every cycle: a bank swaps as soon as its pull side
    // is empty (the drain bound assumes it).
    in.swap = dbl && (u(rng) < 0.02 || draining);
    in.pull.resize(n), in.push.resize(n), in.push_id.resize(n);
    if (per_core != 0)
      for (unsigned k = 0; k < n / per_core; ++k) idle_core[k] = !draining && u(rng) < p_idle;
    for (unsigned l = 0; l < n; ++l) {
      const bool quiet = per_core != 0 && idle_core[l / per_core];
      in.push[l] = !draining && !quiet && u(rng) < p_push[l];
      in.pull[l] = (!quiet && u(rng) < p_pull[l]) || draining;
      in.push_id[l] = (next + l) & ((1u << id_width) - 1);
    }
    return in;
  }
};

// Drives the lane-side inputs of a core or system DUT.
// (and the HVU's: none when in.rf_put is empty).
template <class D>
void drive_lanes(D& dut, const hwwl::LaneIn& in, unsigned id_width) {
  dut->double_buf_i = in.double_buf;
  dut->swap_i = in.swap;
  const bool hvu = !in.rf_put.empty();
  for (unsigned l = 0; l < in.pull.size(); ++l) {
    put(dut->pull_i, l, 1, in.pull[l]);
    put(dut->push_i, l, 1, in.push[l]);
    put(dut->push_id_i, l * id_width, id_width, in.push_id[l]);
    put(dut->rf_put_i, l, 1, hvu && in.rf_put[l]);
    put(dut->rf_id_i, l * id_width, id_width, hvu ? in.rf_id[l] : 0);
  }
  if constexpr (requires { dut->hvu_busy_i; }) {
    dut->hvu_busy_i = in.hvu_busy;
    for (unsigned k = 0; k < in.rsv.size(); ++k) put(dut->rsv_i, k, 1, in.rsv[k]);
    if (in.rsv.empty()) dut->rsv_i = 0;
  } else {
    dut->rsv_i = hvu && in.rsv[0];
  }
}

// Checks one lane's pull result against the reference set.
void check_pull(std::uint8_t status, std::uint32_t id, unsigned work_visible, std::unordered_set<std::uint32_t>& inside,
                std::uint64_t cycle) {
  if (status == hwwl::kPullId) {
    ASSERT_EQ(inside.erase(id), 1u) << "cycle " << cycle << ": pulled " << id << " which is not inside";
  } else if (status == hwwl::kPullDone) {
    ASSERT_EQ(work_visible, 0u) << "cycle " << cycle << ": DONE while work exists";
  } else if (status == hwwl::kPullWait) {
    ASSERT_GT(work_visible, 0u) << "cycle " << cycle << ": WAIT while the system is empty and idle";
  }
}

// Compares lane l's outputs (status, work ID, push grant) of a core or system
// DUT with the model's and checks the pull against the reference set; returns
// the RTL's status.
template <class D, class Out>
std::uint8_t check_lane(D& dut, const Out& m, unsigned l, unsigned id_width, unsigned work_visible,
                        std::unordered_set<std::uint32_t>& inside, std::uint64_t cycle) {
  const auto st = static_cast<std::uint8_t>(get(dut->pull_status_o, 2 * l, 2));
  EXPECT_EQ(st, m.pull_status[l]) << "cycle " << cycle << " lane " << l;
  EXPECT_EQ(get(dut->pull_id_o, l * id_width, id_width), m.pull_id[l]) << "cycle " << cycle << " lane " << l;
  EXPECT_EQ(get(dut->push_gnt_o, l, 1), m.push_gnt[l]) << "cycle " << cycle << " lane " << l;
  check_pull(st, m.pull_id[l], work_visible, inside, cycle);
  return st;
}

// ---------------------------------------------------------------- core

TEST(HwwlCore, EightLanesThresholdMatchModel) {
  hwwl::Params p;
  p.cores = 1, p.lanes = 8, p.depth = 8, p.threshold = 3, p.interval = 3, p.scheme = hwwl::Scheme::Threshold;
  const unsigned L = p.lanes, W = p.id_width;
  tb::Dut<Vcore_l8_thr> dut(test_name(), 6);
  hwwl::Core model(p);
  model.reset();
  Traffic tr(6);
  std::unordered_set<std::uint32_t> inside;
  std::vector<std::uint32_t> net;  // the environment's stand-in for the ICRN: IDs injected, offered back later
  std::uint32_t next = 1;
  bool dbl = false;
  const std::uint64_t n = tb::cycles(150000);
  std::uint64_t episode_start = 0;
  bool draining = false;
  tr.episode(L);
  for (std::uint64_t c = 0; c < n || draining; ++c) {
    if (!draining && c - episode_start > 3000) draining = true;
    // The stand-in network offers IDs at random, so no tight bound follows
    // from the configuration; a hang still ends as a diagnosis, not a timeout.
    ASSERT_LE(c - episode_start, 3000u + 20000u)
        << "cycle " << c << ": core not drained; " << model.where(dbl) << "; stand-in network holds " << net.size();
    const hwwl::LaneIn in = tr.lanes(L, dbl, draining, next, W);
    const bool inject_ready = tr.u(tr.rng) < 0.7;
    const bool eject_valid = !net.empty() && tr.u(tr.rng) < 0.5;
    const std::uint32_t eject_id = net.empty() ? 0 : net.front();
    // sys_empty: this core and the stand-in network hold nothing pullable.
    const bool sys_empty = model.pull_total() == 0 && net.empty();
    drive_lanes(dut, in, W);
    dut->sys_empty_i = sys_empty;
    dut->inject_ready_i = inject_ready;
    dut->eject_valid_i = eject_valid;
    dut->eject_id_i = eject_id;
    dut.settle();
    const unsigned visible = model.pull_total() + static_cast<unsigned>(net.size());
    const hwwl::CoreOut m = model.step(in, sys_empty, inject_ready, eject_valid, eject_id);
    for (unsigned l = 0; l < L; ++l) {
      check_lane(dut, m, l, W, visible, inside, c);
      ASSERT_FALSE(::testing::Test::HasFailure());
      if (m.push_gnt[l]) inside.insert(in.push_id[l]);
    }
    ASSERT_EQ(dut->core_empty_o, m.core_empty) << "cycle " << c;
    ASSERT_EQ(dut->greedy_o, m.greedy) << "cycle " << c;
    ASSERT_EQ(dut->inject_valid_o, m.inject_valid) << "cycle " << c;
    ASSERT_EQ(dut->inject_id_o, m.inject_id) << "cycle " << c;
    ASSERT_EQ(dut->eject_ready_o, m.eject_ready) << "cycle " << c;
    if (eject_valid && m.eject_ready) net.erase(net.begin());
    if (m.inject_valid) net.push_back(m.inject_id);
    next += L;
    dut.clock();
    if (draining && model.total() == 0 && net.empty()) {
      ASSERT_TRUE(inside.empty()) << "cycle " << c << ": " << inside.size() << " work IDs lost";
      draining = false;
      episode_start = c;
      dbl = tr.u(tr.rng) < 0.5;
      tr.episode(L);
    }
  }
  ::testing::Test::RecordProperty("cycles", static_cast<int>(std::min<std::uint64_t>(n, INT32_MAX)));
}

// ---------------------------------------------------------------- system

template <class V>
void run_system(const hwwl::Params& p, std::uint64_t n, int seed) {
  const unsigned NL = p.cores * p.lanes, W = p.id_width;
  tb::Dut<V> dut(test_name(), seed);
  hwwl::System model(p);
  model.reset();
  Traffic tr(seed);
  tr.per_core = p.lanes;
  std::unordered_set<std::uint32_t> inside;
  std::uint32_t next = 1;
  bool dbl = false, draining = false;
  std::uint64_t episode_start = 0, episodes = 0, redistributed_waits = 0, drain_start = 0, worst_drain = 0;
  std::uint64_t worst_bound = 0;  // the bound of the episode whose drain was the longest
  std::uint64_t spills = 0, refills = 0, reservations = 0;
  std::uint64_t bound = p.drain_bound();  // hwwl::Params::drain_bound: the derivation
  // The stand-in HVU: per-core overflow lists (FIFO), spilling on in some
  // episodes only (a stalled push then waits, as without an HVU).
  std::vector<std::deque<std::uint32_t>> overflow(p.cores);
  bool spill = false, interval = false;  // interval: refills into reserved entries only (but while draining)
  tr.episode(NL);
  for (std::uint64_t c = 0; c < n || draining; ++c) {
    if (!draining && c - episode_start > 2000) {
      draining = true, drain_start = c;
      // Every overflow ID costs a bank two cycles at most (a refill, then its pull).
      std::size_t most = 0;
      for (const auto& o : overflow) most = std::max(most, o.size());
      bound = p.drain_bound() + 2 * most + 2;
    }
    ASSERT_LE(c - drain_start, draining ? bound : ~0ull)
        << "cycle " << c << ": " << model.total() << " work IDs not drained within " << bound
        << " cycles of the last push, every lane pulling every cycle (" << (dbl ? "double" : "single")
        << "-buffered). Stranded: " << model.where(dbl);
    hwwl::LaneIn in = tr.lanes(NL, dbl, draining, next, W);
    // HVU requests: every bank is offered the next overflow ID of its core
    // beyond those promised to reserved entries (a bank with a reservation
    // may take one of those; in interval episodes only those); reservations
    // (single mode) while the overflow list covers one more entry per bank.
    in.rf_put.assign(NL, false);
    in.rf_id.assign(NL, 0);
    in.rsv.assign(p.cores, false);
    for (unsigned k = 0; k < p.cores; ++k) {
      std::size_t promised = 0;
      for (unsigned b = 0; b < p.lanes; ++b) promised += model.core(k).bank(b).reserved();
      std::size_t offered = 0;
      for (unsigned b = 0; b < p.lanes; ++b) {
        const unsigned l = k * p.lanes + b;
        const bool mine = model.core(k).bank(b).reserved() != 0;
        if (offered < overflow[k].size() &&
            (mine || ((!interval || draining) && overflow[k].size() > promised + offered)) &&
            (draining || (!tr.idle(k) && tr.u(tr.rng) < 0.4))) {
          in.rf_put[l] = true;
          in.rf_id[l] = overflow[k][offered++];
        }
      }
      in.rsv[k] = !dbl && !draining && !tr.idle(k) && overflow[k].size() >= promised + p.lanes && tr.u(tr.rng) < 0.5;
      in.hvu_busy = in.hvu_busy || !overflow[k].empty() || promised != 0;
    }
    drive_lanes(dut, in, W);
    dut.settle();
    unsigned visible = model.pull_total();
    for (const auto& o : overflow) visible += static_cast<unsigned>(o.size());
    // The network's status (the unit's fast-forward reads it) before the edge.
    ASSERT_EQ(dut->net_busy_o, model.icrn().busy()) << "cycle " << c;
    const hwwl::SysOut m = model.step(in);
    ASSERT_EQ(dut->sys_empty_o, m.sys_empty) << "cycle " << c;
    for (unsigned k = 0; k < p.cores; ++k) {
      ASSERT_EQ(get(dut->greedy_o, k, 1), m.greedy[k]) << "cycle " << c;
      ASSERT_EQ(get(dut->rsv_gnt_o, k, 1), m.rsv_gnt[k]) << "cycle " << c << " core " << k;
      reservations += m.rsv_gnt[k];
    }
    // Refills granted leave the overflow lists (in the order offered).
    std::vector<std::deque<std::uint32_t>> left(p.cores);
    for (unsigned k = 0; k < p.cores; ++k) {
      std::size_t offered = 0;
      for (unsigned b = 0; b < p.lanes; ++b) {
        const unsigned l = k * p.lanes + b;
        if (!in.rf_put[l]) continue;
        ++offered;
        ASSERT_EQ(get(dut->rf_gnt_o, l, 1), m.rf_gnt[l]) << "cycle " << c << " bank " << l;
        if (m.rf_gnt[l])
          ++refills;
        else
          left[k].push_back(in.rf_id[l]);
      }
      overflow[k].erase(overflow[k].begin(), overflow[k].begin() + static_cast<std::ptrdiff_t>(offered));
      overflow[k].insert(overflow[k].begin(), left[k].begin(), left[k].end());
    }
    for (unsigned l = 0; l < NL; ++l) {
      const std::uint8_t st = check_lane(dut, m, l, W, visible, inside, c);
      ASSERT_FALSE(::testing::Test::HasFailure());
      if (st == hwwl::kPullWait) ++redistributed_waits;
      if (m.push_gnt[l]) ASSERT_TRUE(inside.insert(in.push_id[l]).second) << "duplicate push id";
      if (spill && in.push[l] && !m.push_gnt[l]) {
        // The HVU takes the stalled push (the lane does not retry it).
        ASSERT_TRUE(inside.insert(in.push_id[l]).second) << "duplicate push id";
        overflow[l / p.lanes].push_back(in.push_id[l]);
        ++spills;
      }
    }
    next += NL;
    dut.clock();
    // The pull-side counts (count_o, registered) after the edge: the GPU
    // model's worklist unit wakes blocked wavefronts on them.
    for (unsigned l = 0; l < NL; ++l)
      ASSERT_EQ(get(dut->count_o, l * p.cnt_width(), p.cnt_width()),
                model.core(l / p.lanes).bank(l % p.lanes).count(dbl))
          << "cycle " << c << " bank " << l;
    std::size_t in_overflow = 0;
    for (const auto& o : overflow) in_overflow += o.size();
    if (c % 997 == 0)
      ASSERT_EQ(model.total() + in_overflow, inside.size()) << "cycle " << c << ": model lost or made work";
    if (draining && model.total() == 0 && in_overflow == 0) {
      ASSERT_TRUE(inside.empty()) << "cycle " << c << ": " << inside.size() << " work IDs lost";
      draining = false;
      if (c + 1 - drain_start > worst_drain) worst_drain = c + 1 - drain_start, worst_bound = bound;
      episode_start = c;
      ++episodes;
      dbl = tr.u(tr.rng) < 0.5;
      spill = tr.u(tr.rng) < 0.5;
      interval = !dbl && tr.u(tr.rng) < 0.5;
      tr.episode(NL);
    }
  }
  EXPECT_GT(episodes, 3u);
  EXPECT_GT(redistributed_waits, 0u);
  EXPECT_GT(refills, 0u);
  EXPECT_GT(reservations, 0u);
  ::testing::Test::RecordProperty("spills", static_cast<int>(spills));
  ::testing::Test::RecordProperty("refills", static_cast<int>(refills));
  ::testing::Test::RecordProperty("reservations", static_cast<int>(reservations));
  ::testing::Test::RecordProperty("cycles", static_cast<int>(std::min<std::uint64_t>(n, INT32_MAX)));
  ::testing::Test::RecordProperty("episodes", static_cast<int>(episodes));
  ::testing::Test::RecordProperty("worst_drain", static_cast<int>(worst_drain));
  ::testing::Test::RecordProperty("drain_bound", static_cast<int>(worst_bound));
}

TEST(HwwlSystem, FourCoresSixteenLanesLsortingMatchModel) {
  hwwl::Params p;  // the paper's configuration: 16 lanes x 32 entries x 24 bits, lsorting, threshold 5, interval 10
  p.cores = 4, p.sort_stages = 1;
  run_system<Vsys_c4_l16_lsort>(p, tb::cycles(200000), 7);
}

TEST(HwwlSystem, FourCoresEightLanesUnpipelinedLsortingMatchModel) {
  hwwl::Params p;  // the GPU backend's sorting network (no pipeline register): the model's idle-core path on ticks
  p.cores = 4, p.lanes = 8, p.depth = 16, p.threshold = 3, p.interval = 6;
  run_system<Vsys_c4_l8_lsort0>(p, tb::cycles(150000), 11);
}

TEST(HwwlSystem, ThreeCoresFourLanesNoRedistributionMatchModel) {
  hwwl::Params p;  // none: only the network moves work between cores
  p.cores = 3, p.lanes = 4, p.depth = 8, p.id_width = 16, p.threshold = 2, p.interval = 5,
  p.scheme = hwwl::Scheme::None;
  run_system<Vsys_c3_l4_none>(p, tb::cycles(100000), 12);
}

TEST(HwwlSystem, TwoCoresEightLanesThresholdMatchModel) {
  hwwl::Params p;
  p.cores = 2, p.lanes = 8, p.depth = 8, p.threshold = 2, p.interval = 4, p.scheme = hwwl::Scheme::Threshold;
  run_system<Vsys_c2_l8_thr>(p, tb::cycles(150000), 8);
}

TEST(HwwlSystem, ThreeCoresFourLanesLsortingTwoSortStagesMatchModel) {
  hwwl::Params p;  // a core count that is not a power of two; a ranking two cycles old
  p.cores = 3, p.lanes = 4, p.depth = 16, p.id_width = 16, p.threshold = 3, p.interval = 7, p.sort_stages = 2;
  run_system<Vsys_c3_l4_lsort>(p, tb::cycles(100000), 9);
}

// gsorting: one ranking of every bank of every core (hwwl_grank) feeds every
// WRU; 3 cores (12 banks) with a ranking two cycles old in the cores' sorting
// networks, and 4 cores of 8 lanes unpipelined (the model's idle-core path,
// Core::try_idle and Wru::regreedy, on every cycle a core is left idle).
TEST(HwwlSystem, ThreeCoresFourLanesGsortingTwoSortStagesMatchModel) {
  hwwl::Params p;
  p.cores = 3, p.lanes = 4, p.depth = 16, p.id_width = 16, p.threshold = 3, p.interval = 7, p.sort_stages = 2,
  p.scheme = hwwl::Scheme::Gsorting;
  run_system<Vsys_c3_l4_gsort>(p, tb::cycles(100000), 13);
}

TEST(HwwlSystem, FourCoresEightLanesUnpipelinedGsortingMatchModel) {
  hwwl::Params p;
  p.cores = 4, p.lanes = 8, p.depth = 16, p.threshold = 3, p.interval = 6, p.scheme = hwwl::Scheme::Gsorting;
  run_system<Vsys_c4_l8_gsort0>(p, tb::cycles(150000), 14);
}

TEST(HwwlSystem, EightCoresTwoLanesTinyBanksThresholdMatchModel) {
  hwwl::Params p;  // many cores, 4-entry banks (full banks, stalled pushes), a tick every other cycle
  p.cores = 8, p.lanes = 2, p.depth = 4, p.id_width = 16, p.threshold = 1, p.interval = 2,
  p.scheme = hwwl::Scheme::Threshold;
  run_system<Vsys_c8_l2_thr>(p, tb::cycles(100000), 10);
}

// The golden model refuses a partition-mode change while a bank holds work or
// reserved entries (the RTL's precondition, hwwl_bank; the two modes lay the
// entries out differently). A test whose HVU stand-in let the system drain
// with a reservation unfilled and then changed mode once showed up as an RTL
// vs model difference in a bank's head (docs/worklist-rtl.md).
TEST(HwwlModel, ModeChangesOnlyWhileTheBanksAreEmpty) {
  hwwl::Params p;
  p.cores = 2, p.lanes = 4, p.depth = 8, p.threshold = 2, p.interval = 4, p.scheme = hwwl::Scheme::Threshold;
  const std::size_t n = std::size_t{p.cores} * p.lanes;
  hwwl::System sys(p);
  sys.reset();
  hwwl::LaneIn idle;
  idle.pull.assign(n, 0);
  idle.push.assign(n, 0);
  idle.push_id.assign(n, 0);
  idle.rf_put.assign(n, 0);
  idle.rf_id.assign(n, 0);
  idle.rsv.assign(p.cores, 0);
  auto step = [&](hwwl::LaneIn in) { return sys.step(in); };
  // One work ID in core 1's bank 2, then the mode changes: refused.
  hwwl::LaneIn push = idle;
  push.push[p.lanes + 2] = 1;
  push.push_id[p.lanes + 2] = 42;
  step(push);
  hwwl::LaneIn dbl = idle;
  dbl.double_buf = true;
  EXPECT_THROW(step(dbl), std::logic_error);
  // Pulled, the bank is empty and the mode may change.
  hwwl::System sys2(p);
  sys2.reset();
  sys2.step(push);
  hwwl::LaneIn pull = idle;
  pull.pull[p.lanes + 2] = 1;
  const hwwl::SysOut o = sys2.step(pull);
  ASSERT_EQ(o.pull_status[p.lanes + 2], hwwl::kPullId);
  ASSERT_EQ(o.pull_id[p.lanes + 2], 42u);
  EXPECT_NO_THROW(sys2.step(dbl));
  // A reserved entry alone (no work) is refused too, until it is filled and pulled.
  hwwl::System sys3(p);
  sys3.reset();
  hwwl::LaneIn rsv = idle;
  rsv.rsv[0] = 1;
  ASSERT_TRUE(sys3.step(rsv).rsv_gnt[0]);
  EXPECT_THROW(sys3.step(dbl), std::logic_error);
  hwwl::System sys4(p);
  sys4.reset();
  sys4.step(rsv);
  hwwl::LaneIn fill = idle;
  for (unsigned l = 0; l < p.lanes; ++l) fill.rf_put[l] = 1, fill.rf_id[l] = 7 + l;
  const hwwl::SysOut f = sys4.step(fill);
  for (unsigned l = 0; l < p.lanes; ++l) ASSERT_TRUE(f.rf_gnt[l]) << "lane " << l;
  for (unsigned l = 0; l < p.lanes; ++l) ASSERT_EQ(sys4.core(0).bank(l).reserved(), 0u);
  hwwl::LaneIn drain = idle;
  for (unsigned l = 0; l < p.lanes; ++l) drain.pull[l] = 1;
  sys4.step(drain);
  for (unsigned l = 0; l < p.lanes; ++l) ASSERT_EQ(sys4.core(0).bank(l).total(), 0u) << "lane " << l;
  EXPECT_NO_THROW(sys4.step(dbl));
}

}  // namespace
}  // namespace fg
