// SPDX-License-Identifier: Apache-2.0
// hwwl_bank: RTL against the golden model every cycle, plus FIFO order and
// conservation checked on the RTL's own outputs.
#include <deque>
#include <random>

#include <gtest/gtest.h>

#include "Vbank_d32.h"
#include "Vbank_d8.h"
#include "hwwl/hwwl_model.h"
#include "tb_util.h"

namespace fg {
namespace {

using tb::get;
using tb::put;

template <class V>
void run_bank(unsigned depth, unsigned threshold, unsigned id_width, std::uint64_t n_cycles, int seed) {
  tb::Dut<V> dut(::testing::UnitTest::GetInstance()->current_test_info()->name(), seed);
  hwwl::Bank model(depth, threshold);
  model.reset();
  std::mt19937_64 rng(seed);
  std::uniform_real_distribution<double> u(0, 1);
  // Reference queues (pull partition first): what the bank must hold, in order.
  std::deque<std::uint32_t> part[2];
  bool dbl = false;
  unsigned sel = 0;  // reference's pull partition in double mode
  std::uint32_t next_id = 1;
  const std::uint32_t id_mask = (1u << id_width) - 1;
  double p_push = 0.5;
  for (std::uint64_t c = 0; c < n_cycles; ++c) {
    if (c % 2000 == 0) p_push = u(rng) * 0.8 + 0.1;  // phases of filling and draining
    // Mode changes only when the bank is empty (no work, nothing reserved).
    if (model.total() == 0 && model.reserved() == 0 && u(rng) < 0.01) {
      dbl = !dbl;  // the partition select carries over, in RTL, model and reference
    }
    const bool pull = u(rng) < (1 - p_push) * 0.6;
    const bool push = u(rng) < p_push * 0.6;
    const bool swap = dbl && u(rng) < 0.05;
    const bool rd_take = u(rng) < 0.2;
    const bool ri_put = !rd_take && u(rng) < 0.2;
    // The virtualization unit: refills, and (single mode) reservations made
    // only when the bank can grant them.
    const bool rf_put = u(rng) < 0.3;
    const std::uint32_t push_id = next_id & id_mask, ri_id = (next_id + 7) & id_mask, rf_id = (next_id + 13) & id_mask;
    dut->double_buf_i = dbl;
    dut->swap_i = swap;
    dut->pull_i = pull;
    dut->push_i = push;
    dut->push_id_i = push_id;
    dut->rd_take_i = rd_take;
    dut->ri_put_i = ri_put;
    dut->ri_id_i = ri_id;
    dut->rf_put_i = rf_put;
    dut->rf_id_i = rf_id;
    dut->rsv_i = 0;
    dut.settle();
    const auto m = model.lane(dbl, pull, push, swap);
    const auto v = model.virt(dbl, swap, m, rd_take, ri_put, rf_put);
    ASSERT_EQ(dut->rf_gnt_o, v.rf_gnt) << "cycle " << c;
    ASSERT_EQ(dut->rsv_ok_o, v.rsv_ok) << "cycle " << c;
    ASSERT_EQ(dut->rsv_nz_o, model.reserved() != 0) << "cycle " << c;
    const bool rsv = v.rsv_ok && u(rng) < 0.15;
    dut->rsv_i = rsv;
    dut.settle();
    ASSERT_EQ(dut->rf_gnt_o, v.rf_gnt) << "cycle " << c;  // a reservation does not change the grants
    ASSERT_EQ(dut->pull_gnt_o, m.pull_gnt) << "cycle " << c;
    ASSERT_EQ(dut->push_gnt_o, m.push_gnt) << "cycle " << c;
    ASSERT_EQ(dut->rd_ok_o, m.rd_ok) << "cycle " << c;
    ASSERT_EQ(dut->ri_ok_o, m.ri_ok) << "cycle " << c;
    ASSERT_EQ(dut->pull_id_o, m.pull_id) << "cycle " << c;
    ASSERT_EQ(dut->rd_id_o, m.rd_id) << "cycle " << c;
    ASSERT_EQ(dut->count_o, model.count(dbl)) << "cycle " << c;
    ASSERT_EQ(dut->push_count_o, model.push_count(dbl)) << "cycle " << c;
    ASSERT_EQ(dut->empty_o, model.count(dbl) == 0) << "cycle " << c;
    ASSERT_EQ(dut->greedy_o, model.greedy(dbl)) << "cycle " << c;
    ASSERT_EQ(dut->needy_o, model.needy(dbl)) << "cycle " << c;
    ASSERT_EQ(dut->full_o, model.full(dbl)) << "cycle " << c;
    ASSERT_EQ(dut->push_full_o, model.push_full(dbl)) << "cycle " << c;
    // FIFO order and conservation, from the RTL outputs.
    const unsigned pp = dbl ? sel : 0, sp = dbl ? 1 - sel : 0;
    ASSERT_EQ(dut->count_o, part[pp].size());
    if (dut->pull_gnt_o) {
      ASSERT_EQ(dut->pull_id_o, part[pp].front()) << "FIFO order, cycle " << c;
      part[pp].pop_front();
    } else if (rd_take && dut->rd_ok_o) {
      ASSERT_EQ(dut->rd_id_o, part[pp].front()) << "FIFO order, cycle " << c;
      part[pp].pop_front();
    } else if (ri_put && dut->ri_ok_o) {
      // In a swap cycle the reception joins the side that becomes the pull side.
      part[dbl && swap && dut->empty_o ? sp : pp].push_back(ri_id);
      next_id += 11;
    } else if (dut->rf_gnt_o) {
      part[dbl && swap && dut->empty_o ? sp : pp].push_back(rf_id);
      next_id += 17;
    }
    if (dut->push_gnt_o) {
      part[sp].push_back(push_id);
      ++next_id;
    }
    if (dbl && swap && dut->empty_o) sel = 1 - sel;
    model.tick(dbl, swap, pull, push, push_id, rd_take, ri_put, ri_id, rf_put, rf_id, rsv);
    dut.clock();
  }
}

TEST(HwwlBank, Depth32Id24MatchesModel) { run_bank<Vbank_d32>(32, 5, 24, tb::cycles(200000), 1); }
TEST(HwwlBank, Depth8Id12MatchesModel) { run_bank<Vbank_d8>(8, 2, 12, tb::cycles(150000), 2); }

}  // namespace
}  // namespace fg
