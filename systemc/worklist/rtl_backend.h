// SPDX-License-Identifier: Apache-2.0
// The `rtl` backend of the worklist unit: the Verilated hwwl_system (rtl/hwwl),
// clocked by the unit once per core cycle and driven directly through its
// ports (no Verilator --sc wrapper: about 6.5x slower here). Its RTL
// parameters are fixed when it is Verilated, so fgsim carries one Verilated
// model per configuration listed in the CMake cache variable
// FG_HWWL_RTL_CONFIGS (systemc/worklist/CMakeLists.txt); the generated
// registry (rtl_builds.cpp in the build tree) instantiates RtlBackend for each.
#pragma once

#include <cstdint>
#include <memory>
#include <string>

#include "hwwl/hwwl_model.h"
#include "tb_util.h"
#include "worklist/backend.h"

namespace fg::wl {

template <class V>
class RtlBackend final : public Backend {
 public:
  RtlBackend(const hwwl::Params& p, const tb::WaveOpts& wave)
      : p_(p), n_(p.cores * p.lanes), cw_(p.cnt_width()), dut_(1, wave) {}

  void step(const In& in, Out& o) override {
    dut_->double_buf_i = in.double_buf;
    dut_->swap_i = in.swap;
    const bool hvu = !in.rf_put.empty();
    for (unsigned b = 0; b < n_; ++b) {
      tb::put(dut_->pull_i, b, 1, in.pull[b]);
      tb::put(dut_->push_i, b, 1, in.push[b]);
      tb::put(dut_->push_id_i, b * p_.id_width, p_.id_width, in.push[b] ? in.push_id[b] : 0);
      const bool rf = hvu && in.rf_put[b];
      tb::put(dut_->rf_put_i, b, 1, rf);
      tb::put(dut_->rf_id_i, b * p_.id_width, p_.id_width, rf ? in.rf_id[b] : 0);
    }
    for (unsigned c = 0; c < p_.cores; ++c) tb::put(dut_->rsv_i, c, 1, hvu && in.rsv[c]);
    dut_->hvu_busy_i = in.hvu_busy;
    dut_.settle();
    o.pull_status.resize(n_);
    o.pull_id.resize(n_);
    o.push_gnt.resize(n_);
    for (unsigned b = 0; b < n_; ++b) {
      o.pull_status[b] = static_cast<std::uint8_t>(tb::get(dut_->pull_status_o, 2 * b, 2));
      o.pull_id[b] = static_cast<std::uint32_t>(tb::get(dut_->pull_id_o, b * p_.id_width, p_.id_width));
      o.push_gnt[b] = tb::get(dut_->push_gnt_o, b, 1) != 0;
    }
    o.rf_gnt.clear();
    o.rsv_gnt.clear();
    if (hvu) {
      o.rf_gnt.resize(n_);
      o.rsv_gnt.resize(p_.cores);
      for (unsigned b = 0; b < n_; ++b) o.rf_gnt[b] = tb::get(dut_->rf_gnt_o, b, 1) != 0;
      for (unsigned c = 0; c < p_.cores; ++c) o.rsv_gnt[c] = tb::get(dut_->rsv_gnt_o, c, 1) != 0;
    }
    o.sys_empty = dut_->sys_empty_o != 0;
    dut_.clock();
  }
  // Clocked through every cycle (the RTL's counters are its own), so the
  // skip is exact by construction; the model's fast-forward is checked
  // against it by the backend-equivalence test.
  std::uint64_t fixpoint_window() const override { return p_.interval + 4; }
  bool net_busy() const override { return dut_c()->net_busy_o != 0; }
  // count_o is the registered pull-side count (independent of the mode input).
  unsigned pull_count(unsigned core, unsigned lane, bool) const override {
    return static_cast<unsigned>(tb::get(dut_c()->count_o, (core * p_.lanes + lane) * cw_, cw_));
  }
  // The RTL shows the pull sides only (count_o); the unit keeps the total.
  std::string where(bool double_buf) const override {
    std::string s;
    for (unsigned c = 0; c < p_.cores; ++c) {
      unsigned sum = 0;
      for (unsigned l = 0; l < p_.lanes; ++l) sum += pull_count(c, l, double_buf);
      if (sum) s += (s.empty() ? "" : ", ") + std::string("core ") + std::to_string(c) + ": " + std::to_string(sum);
    }
    return s.empty() ? s : "pull sides (RTL count_o) " + s;
  }

 private:
  const V* dut_c() const { return const_cast<tb::Dut<V>&>(dut_).operator->(); }
  hwwl::Params p_;
  unsigned n_, cw_;
  tb::Dut<V> dut_;
};

}  // namespace fg::wl
