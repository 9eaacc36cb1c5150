// SPDX-License-Identifier: Apache-2.0
// The `rtl` backend of the worklist unit: the Verilated RTL of hwwl_system
// (rtl/hwwl) as its blocks, a hwwl_core per core and the hwwl_icrn, clocked by
// the unit once per core cycle and driven directly through their ports (no
// Verilator --sc wrapper: about 6.5x slower here). The RTL parameters are
// fixed when it is Verilated, so fgsim carries the Verilated blocks of each
// configuration listed in the CMake cache variable FG_HWWL_RTL_CONFIGS
// (systemc/CMakeLists.txt; one hwwl_core model serves every core count); the
// generated registry (rtl_builds.cpp in the build tree) instantiates
// RtlBackend for each.
#pragma once

#include <algorithm>
#include <cstdint>
#include <memory>
#include <stdexcept>
#include <string>
#include <type_traits>
#include <vector>

#include "hwwl/hwwl_model.h"
#include "worklist/backend.h"
#include "worklist/verilated.h"

namespace fg::wl {

// One register of the Verilated RTL that the backend writes (public_flat_rw in
// rtl/hwwl/hwwl.vlt): its storage in the model's root and its C type's size.
struct RtlReg {
  void* p = nullptr;
  unsigned bytes = 0;
  template <class T>
  requires std::is_integral_v<T>
  static RtlReg of(T& v) { return {&v, sizeof(T)}; }
  std::uint64_t get() const {
    switch (bytes) {
      case 1:
        return *static_cast<const std::uint8_t*>(p);
      case 2:
        return *static_cast<const std::uint16_t*>(p);
      case 4:
        return *static_cast<const std::uint32_t*>(p);
      default:
        return *static_cast<const std::uint64_t*>(p);
    }
  }
  void set(std::uint64_t v) const {
    switch (bytes) {
      case 1:
        *static_cast<std::uint8_t*>(p) = static_cast<std::uint8_t>(v);
        break;
      case 2:
        *static_cast<std::uint16_t*>(p) = static_cast<std::uint16_t>(v);
        break;
      case 4:
        *static_cast<std::uint32_t*>(p) = static_cast<std::uint32_t>(v);
        break;
      default:
        *static_cast<std::uint64_t*>(p) = v;
        break;
    }
  }
};

// The registers of a Verilated hwwl_core that change in a cycle in which none
// of its work IDs moves: its redistribution unit's interval counter and
// round-robin start (hwwl_wru tick_q, rr_q). The generated registry
// (systemc/CMakeLists.txt) names them in the model's root; the network's
// round-robin pointer (hwwl_icrn rr_q) likewise.
struct RtlCoreRegs {
  RtlReg tick, rr;
};

// The global ranking of a configuration without gsorting: none.
struct NoGrank {};

// hwwl_system as its Verilated blocks: one hwwl_core model per core and the
// hwwl_icrn, joined here as hwwl_system joins them (its three assigns:
// sys_empty_o, net_busy_o and the network's ports). Joined in C++ so that a
// cycle evaluates only the cores that have something to do in it: a core
// whose lanes (but for pulls of empty banks), refill and reservation ports
// are idle, that the network offers nothing (eject_valid low) and whose redistribution unit is not on
// its tick changes no register but its interval counter (hwwl_bank changes
// state only on a lane, redistribution, network, refill or reservation
// access; hwwl_wru moves work IDs only on its tick), and its outputs are
// those of idle inputs: no status, no grants, its banks' heads. Such a core
// is not evaluated; its interval counter is set to the next value. The
// network likewise, while it holds no ID and no core injects: its pointer
// is set. Everything is evaluated inside a --vcd window, in a cycle that
// swaps partitions or changes the mode, and with a pipelined sorting network.
// The tests RtlBackendSkip.* compare it with the golden model every cycle.
//
// gsorting: VG is the Verilated hwwl_grank of all the system's banks, which
// hwwl_system places between the cores' count_o and their global_greedy_i.
// It is evaluated in every cycle that follows an edge of some core (only
// then can a count have changed), and a core whose global greedy bits differ
// from those it last saw is evaluated even if idle: its greedy bit, which
// the network reads, follows them (the golden model's Wru::regreedy on its
// idle-core path). Off its tick nothing else in the core depends on them.
template <class VC, class VI, class VG = NoGrank>
class RtlBackend final : public Backend {
  static constexpr bool kGrank = !std::is_same_v<VG, NoGrank>;

 public:
 public:
  using CoreRegsOf = RtlCoreRegs (*)(VC&);
  using IcrnRegOf = RtlReg (*)(VI&);

  RtlBackend(const hwwl::Params& p, const WaveSpec& wave, CoreRegsOf core_regs, IcrnRegOf icrn_reg)
      : p_(p), n_(p.cores * p.lanes), cw_(p.cnt_width()), ctx_(std::make_unique<VerilatedContext>()) {
    ctx_->randReset(2);  // uninitialised state random, but from a fixed seed (as the RTL tests' tb::Dut)
    ctx_->randSeed(1);
    ctx_->debug(0);
    for (unsigned c = 0; c < p_.cores; ++c) {
      cores_.push_back(std::make_unique<VC>(ctx_.get(), ("core" + std::to_string(c)).c_str()));
      regs_.push_back(core_regs(*cores_.back()));
    }
    icrn_ = std::make_unique<VI>(ctx_.get(), "icrn");
    icrn_rr_ = icrn_reg(*icrn_);
    if constexpr (kGrank) {
      if (p_.scheme != hwwl::Scheme::Gsorting) throw std::logic_error("rtl backend: a global ranking without gsorting");
      grank_ = std::make_unique<VG>(ctx_.get(), "grank");
      gg_.assign(n_, 0);
    } else if (p_.scheme == hwwl::Scheme::Gsorting) {
      throw std::logic_error("rtl backend: gsorting without its global ranking (hwwl_grank)");
    }
    wave_.open(*ctx_, vl::WaveOpts{wave.path, wave.from, wave.to, wave.cycle_ps}, [&](vl::WaveFile* f) {
      for (auto& m : cores_) m->trace(f, 99);
      icrn_->trace(f, 99);
      if constexpr (kGrank) grank_->trace(f, 99);
    });
    each([](auto& m) { vl::reset(m); });
    active_.assign(p_.cores, 1);
    heads_.assign(n_, 0);
    for (unsigned c = 0; c < p_.cores; ++c) read_heads(c);
  }
  ~RtlBackend() override {
    wave_.close();
    // Models with public signals (hwwl.vlt) unregister their scopes from the
    // thread's current context (Verilator 5.006): make it theirs.
    Verilated::threadContextp(ctx_.get());
    each([](auto& m) { m.final(); });
    if constexpr (kGrank) grank_->final();
    cores_.clear();
    icrn_.reset();
    if constexpr (kGrank) grank_.reset();
  }

  void step(const In& in, Out& o) override {
    const bool hvu = !in.rf_put.empty();
    const bool wave = wave_.in(t_);
    const bool all =
        wave || first_ || p_.sort_stages != 0 || in.double_buf != double_buf_ || (in.double_buf && in.swap);
    first_ = false;
    double_buf_ = in.double_buf;
    // The network's outputs from its registers (after the last edge).
    VI& net = *icrn_;
    const bool net_idle = net.busy_o == 0;
    bool sys_empty = !in.hvu_busy && net_idle;
    for (unsigned c = 0; c < p_.cores && sys_empty; ++c) sys_empty = cores_[c]->core_empty_o != 0;
    if constexpr (kGrank) rank(all);
    // Which cores to evaluate, and their inputs.
    for (unsigned c = 0; c < p_.cores; ++c) {
      bool act =
          all || vl::get(net.eject_valid_o, c, 1) != 0 || regs_[c].tick.get() == p_.interval - 1 || (hvu && in.rsv[c]);
      const unsigned b0 = c * p_.lanes;
      if constexpr (kGrank) {
        // New global greedy bits: evaluated (its greedy bit follows them).
        for (unsigned l = 0; l < p_.lanes && !act; ++l) act = vl::get(cores_[c]->global_greedy_i, l, 1) != gg_[b0 + l];
      }
      // A pull of a bank whose pull partition is empty (count_o, from
      // registers) is no access: hwwl_bank grants and pops only a non-empty
      // partition, and leaves the port to the WRU; it is answered WAIT or
      // DONE below (a spinning waiter's pull).
      for (unsigned l = 0; l < p_.lanes && !act; ++l)
        act =
            (in.pull[b0 + l] && pull_count(c, l, in.double_buf) != 0) || in.push[b0 + l] || (hvu && in.rf_put[b0 + l]);
      active_[c] = act;
      if (!act) continue;
      ++core_evals_;
      VC& m = *cores_[c];
      m.double_buf_i = in.double_buf;
      m.swap_i = in.swap;
      for (unsigned l = 0; l < p_.lanes; ++l) {
        const unsigned b = b0 + l;
        vl::put(m.pull_i, l, 1, in.pull[b]);
        vl::put(m.push_i, l, 1, in.push[b]);
        vl::put(m.push_id_i, l * p_.id_width, p_.id_width, in.push[b] ? in.push_id[b] : 0);
        const bool rf = hvu && in.rf_put[b];
        vl::put(m.rf_put_i, l, 1, rf);
        vl::put(m.rf_id_i, l * p_.id_width, p_.id_width, rf ? in.rf_id[b] : 0);
      }
      m.rsv_i = hvu && in.rsv[c];
      m.sys_empty_i = sys_empty;
      if constexpr (kGrank)
        for (unsigned l = 0; l < p_.lanes; ++l) vl::put(m.global_greedy_i, l, 1, gg_[b0 + l]);
      m.eject_valid_i = static_cast<std::uint8_t>(vl::get(net.eject_valid_o, c, 1));
      vl::put(m.eject_id_i, 0, p_.id_width, vl::get(net.eject_id_o, c * p_.id_width, p_.id_width));
      // The network's inject_ready depends on this cycle's eject_ready
      // (combinational): its value after the last evaluation for now, the
      // new one below (an idle network's is 1 whatever the cores do).
      m.inject_ready_i = net_idle ? 1 : static_cast<std::uint8_t>(vl::get(net.inject_ready_o, c, 1));
      m.eval();
    }
    // The network: evaluated unless it stays empty (no ID inside, none injected).
    bool net_act = all || !net_idle;
    for (unsigned c = 0; c < p_.cores && !net_act; ++c) net_act = active_[c] && cores_[c]->inject_valid_o;
    if (net_act) {
      net_inputs();
      bool again = false;
      for (unsigned c = 0; c < p_.cores; ++c) {
        if (!active_[c]) continue;
        VC& m = *cores_[c];
        const auto r = static_cast<std::uint8_t>(vl::get(net.inject_ready_o, c, 1));
        if (m.inject_ready_i != r) {
          m.inject_ready_i = r;
          m.eval();
          again = true;
        }
      }
      if (again) net_inputs();
    }
    if (wave) wave_.dump(t_);
    // Outputs: evaluated cores' from their ports, the others' those of idle
    // inputs (their heads unchanged).
    o.pull_status.assign(n_, 0);
    o.push_gnt.assign(n_, 0);
    o.rf_gnt.clear();
    o.rsv_gnt.clear();
    if (hvu) {
      o.rf_gnt.assign(n_, 0);
      o.rsv_gnt.assign(p_.cores, 0);
    }
    for (unsigned c = 0; c < p_.cores; ++c) {
      const unsigned b0 = c * p_.lanes;
      if (!active_[c]) {
        // hwwl_core: st1 = pull & ~pull_gnt, st0 = pull & (pull_gnt | sys_empty).
        for (unsigned l = 0; l < p_.lanes; ++l)
          if (in.pull[b0 + l]) o.pull_status[b0 + l] = sys_empty ? hwwl::kPullDone : hwwl::kPullWait;
        continue;
      }
      const VC& m = *cores_[c];
      for (unsigned l = 0; l < p_.lanes; ++l) {
        o.pull_status[b0 + l] = static_cast<std::uint8_t>(vl::get(m.pull_status_o, 2 * l, 2));
        o.push_gnt[b0 + l] = vl::get(m.push_gnt_o, l, 1) != 0;
      }
      if (hvu) {
        for (unsigned l = 0; l < p_.lanes; ++l) o.rf_gnt[b0 + l] = vl::get(m.rf_gnt_o, l, 1) != 0;
        o.rsv_gnt[c] = m.rsv_gnt_o != 0;
      }
    }
    o.pull_id = heads_;
    o.sys_empty = sys_empty;
    // The global greedy bits the network saw this cycle (a core not evaluated
    // holds its register).
    o.greedy.resize(p_.cores);
    for (unsigned c = 0; c < p_.cores; ++c) o.greedy[c] = cores_[c]->greedy_o != 0;
    // The rising edge.
    for (unsigned c = 0; c < p_.cores; ++c) {
      if (active_[c]) {
        edge(*cores_[c]);
        read_heads(c);
        counts_moved_ = true;
      } else {
        regs_[c].tick.set(regs_[c].tick.get() + 1);  // off its tick: counts, rr_q holds
      }
    }
    if (net_act) {
      edge(net);
    } else {
      icrn_rr_.set((icrn_rr_.get() + 1) % p_.cores);
    }
    if (wave) wave_.dump(t_ + 1);
    t_ += 2;
  }
  // n cycles in a fixpoint (the unit's fast-forward: no work ID moves until
  // the next input), done as the golden model does them (hwwl::System::skip):
  // the free-running counters are set to where n rising edges would leave
  // them (hwwl_wru: tick_q counts modulo Interval and rr_q advances on each
  // wrap; hwwl_icrn: rr_q advances every cycle) and nothing is evaluated.
  // Cycles the waveform dumps, and a pipelined sorting network (its
  // registers take the counts every cycle), are stepped as before.
  void skip(std::uint64_t n, const In& idle) override {
    if (n == 0) return;
    if (p_.sort_stages != 0 || wave_.within(t_, n)) {
      Backend::skip(n, idle);
      return;
    }
    for (unsigned c = 0; c < p_.cores; ++c) {
      std::uint64_t tick = regs_[c].tick.get(), rr = regs_[c].rr.get();
      hwwl::Wru::advance(tick, rr, n, p_.interval, p_.lanes);
      regs_[c].tick.set(tick);
      regs_[c].rr.set(rr);
    }
    std::uint64_t rr = icrn_rr_.get();
    hwwl::Icrn::advance(rr, n, p_.cores);
    icrn_rr_.set(rr);
    t_ += 2 * n;
  }
  std::uint64_t fixpoint_window() const override { return p_.interval + 4; }
  bool net_busy() const override { return icrn_->busy_o != 0; }
  // count_o is the registered pull-side count (independent of the mode input).
  unsigned pull_count(unsigned core, unsigned lane, bool) const override {
    return static_cast<unsigned>(vl::get(cores_[core]->count_o, lane * cw_, cw_));
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
  std::uint64_t core_evals() const override { return core_evals_; }
  std::string output_error() override { return wave_.take_error(); }
  std::string close_output() override {
    wave_.close();
    std::string e = wave_.take_error();
    // A window that begins after the last cycle the unit ran leaves a
    // waveform without a cycle: worklist.vcd_from had no effect.
    if (e.empty() && !wave_.failed() && wave_.empty())
      e = wave_.from() > 0 ? "worklist.vcd_from: cycle " + std::to_string(wave_.from()) +
                                 " is after the last cycle the worklist ran (" + std::to_string(t_ / 2) +
                                 "): the waveform " + wave_.place() + " holds no cycle"
                           : wave_.place() + ": the worklist ran no cycle: the waveform holds none";
    return e;
  }

 private:
  template <class F>
  void each(F f) {
    for (auto& m : cores_) f(*m);
    f(*icrn_);
  }
  // The network's inputs from the cores: greedy bits, and eject_ready and
  // the injections of the cores evaluated (the others take and give nothing);
  // then the network evaluated.
  void net_inputs() {
    VI& net = *icrn_;
    for (unsigned c = 0; c < p_.cores; ++c) {
      const VC& m = *cores_[c];
      const bool act = active_[c];
      vl::put(net.greedy_i, c, 1, m.greedy_o);
      vl::put(net.eject_ready_i, c, 1, act && m.eject_ready_o);
      vl::put(net.inject_valid_i, c, 1, act && m.inject_valid_o);
      vl::put(net.inject_id_i, c * p_.id_width, p_.id_width, act && m.inject_valid_o ? m.inject_id_o : 0);
    }
    net.eval();
  }
  // The rising edge, then the clock low again; the fall is evaluated with
  // the model's next evaluation (no falling-edge logic in rtl/hwwl).
  template <class M>
  static void edge(M& m) {
    m.clk_i = 1;
    m.eval();
    m.clk_i = 0;
  }
  // gsorting: the global ranking of the counts after the last edge (count_o,
  // registered), as hwwl_system's hwwl_grank sees them, into gg_; evaluated
  // only when some core had an edge since (or `all`).
  void rank(bool all) {
    if constexpr (kGrank) {
      if (!counts_moved_ && !all) return;
      counts_moved_ = false;
      VG& g = *grank_;
      for (unsigned c = 0; c < p_.cores; ++c)
        for (unsigned l = 0; l < p_.lanes; ++l)
          vl::put(g.counts_i, (c * p_.lanes + l) * cw_, cw_, vl::get(cores_[c]->count_o, l * cw_, cw_));
      g.eval();
      for (unsigned b = 0; b < n_; ++b) gg_[b] = static_cast<std::uint8_t>(vl::get(g.greedy_o, b, 1));
    }
  }
  // Core c's banks' heads (pull_id_o, from its registers).
  void read_heads(unsigned c) {
    for (unsigned l = 0; l < p_.lanes; ++l)
      heads_[c * p_.lanes + l] =
          static_cast<std::uint32_t>(vl::get(cores_[c]->pull_id_o, l * p_.id_width, p_.id_width));
  }

  hwwl::Params p_;
  unsigned n_, cw_;
  std::unique_ptr<VerilatedContext> ctx_;
  std::vector<std::unique_ptr<VC>> cores_;
  std::unique_ptr<VI> icrn_;
  // gsorting's global ranking (VG = hwwl_grank) and its last output, per bank.
  std::conditional_t<kGrank, std::unique_ptr<VG>, std::nullptr_t> grank_{};
  std::vector<std::uint8_t> gg_;
  bool counts_moved_ = true;
  std::vector<RtlCoreRegs> regs_;
  RtlReg icrn_rr_;
  vl::Wave wave_;
  std::uint64_t t_ = 0, core_evals_ = 0;
  bool first_ = true, double_buf_ = false;
  std::vector<std::uint8_t> active_;
  std::vector<std::uint32_t> heads_;
};

}  // namespace fg::wl
