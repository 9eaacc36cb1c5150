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
#include <type_traits>
#include <vector>

#include "hwwl/hwwl_model.h"
#include "tb_util.h"
#include "worklist/backend.h"

namespace fg::wl {

// One register of the Verilated RTL that the backend writes (public_flat_rw in
// rtl/hwwl/hwwl.vlt): its storage in the model's root and its C type's size.
struct RtlReg {
  void* p = nullptr;
  unsigned bytes = 0;
  template <class T>
    requires std::is_integral_v<T>
  static RtlReg of(T& v) {
    return {&v, sizeof(T)};
  }
  std::uint64_t get() const {
    switch (bytes) {
      case 1: return *static_cast<const std::uint8_t*>(p);
      case 2: return *static_cast<const std::uint16_t*>(p);
      case 4: return *static_cast<const std::uint32_t*>(p);
      default: return *static_cast<const std::uint64_t*>(p);
    }
  }
  void set(std::uint64_t v) const {
    switch (bytes) {
      case 1: *static_cast<std::uint8_t*>(p) = static_cast<std::uint8_t>(v); break;
      case 2: *static_cast<std::uint16_t*>(p) = static_cast<std::uint16_t>(v); break;
      case 4: *static_cast<std::uint32_t*>(p) = static_cast<std::uint32_t>(v); break;
      default: *static_cast<std::uint64_t*>(p) = v; break;
    }
  }
};

// The registers that change in a cycle in which no work ID moves: each core's
// redistribution interval counter and round-robin pointer (hwwl_wru tick_q,
// rr_q) and the inter-core network's round-robin pointer (hwwl_icrn rr_q).
// Everything else in hwwl_system holds its value then. The generated registry
// (systemc/CMakeLists.txt) names them in the Verilated model's root.
struct RtlCounters {
  std::vector<RtlReg> wru_tick, wru_rr;  // per core
  RtlReg icrn_rr;
};

template <class V>
class RtlBackend final : public Backend {
 public:
  RtlBackend(const hwwl::Params& p, const tb::WaveOpts& wave, RtlCounters (*counters)(V&))
      : p_(p), n_(p.cores * p.lanes), cw_(p.cnt_width()), dut_(1, wave), ctr_(counters(*dut_.operator->())) {}

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
  // n cycles in a fixpoint (the unit's fast-forward: no work ID moves until
  // the next input), done as the golden model does them (hwwl::System::skip):
  // the free-running counters are set to where n rising edges would leave
  // them (hwwl_wru: tick_q counts modulo Interval and rr_q advances on each
  // wrap; hwwl_icrn: rr_q advances every cycle) and nothing is clocked. Cycles
  // the waveform dumps, and a pipelined sorting network (its registers take
  // the counts every cycle), are clocked as before. The test
  // RtlBackendSkip.* checks the counters' set against clocking the same cycles.
  void skip(std::uint64_t n, const In& idle) override {
    if (n == 0) return;
    if (p_.sort_stages != 0 || dut_.wave_within(n)) {
      Backend::skip(n, idle);
      return;
    }
    for (unsigned c = 0; c < p_.cores; ++c) {
      std::uint64_t tick = ctr_.wru_tick[c].get(), rr = ctr_.wru_rr[c].get();
      hwwl::Wru::advance(tick, rr, n, p_.interval, p_.lanes);
      ctr_.wru_tick[c].set(tick);
      ctr_.wru_rr[c].set(rr);
    }
    std::uint64_t rr = ctr_.icrn_rr.get();
    hwwl::Icrn::advance(rr, n, p_.cores);
    ctr_.icrn_rr.set(rr);
    dut_.advance(n);
  }
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
  RtlCounters ctr_;
};

}  // namespace fg::wl
