// SPDX-License-Identifier: Apache-2.0
// Verilator test harness helpers: a DUT wrapper with clocking, reset, fixed
// Verilator random seed and optional waveforms (the waveform, port and reset
// helpers are production code's too: systemc/worklist/verilated.h).
// Waveforms: FG_WAVE=1 (or the older FG_VCD=1) writes <test name>.vcd, or .fst
// when the tests were configured with -DFG_WAVE_FST=ON, in the working
// directory; FG_WAVE_FROM / FG_WAVE_TO (clock cycles, inclusive) bound the
// dump to a window.
#pragma once

#include <algorithm>
#include <cstdint>
#include <cstdlib>
#include <memory>
#include <stdexcept>
#include <string>

#include "worklist/verilated.h"

namespace fg::tb {

using vl::get;
using vl::kWaveExt;
using vl::put;
using vl::reset;
using vl::Wave;
using vl::WaveFile;
using vl::WaveOpts;

inline bool env_on(const char* name) {
  const char* v = std::getenv(name);
  return v && *v == '1';
}
inline std::uint64_t env_cycles(const char* name, std::uint64_t dflt) {
  const char* v = std::getenv(name);
  return v && *v ? std::strtoull(v, nullptr, 10) : dflt;
}

// The tests' waveform: FG_WAVE=1 (or FG_VCD=1), FG_WAVE_FROM, FG_WAVE_TO.
inline WaveOpts wave_from_env(const std::string& name) {
  WaveOpts w;
  if (env_on("FG_WAVE") || env_on("FG_VCD")) w.path = name + kWaveExt;
  w.from = env_cycles("FG_WAVE_FROM", 0);
  w.to = env_cycles("FG_WAVE_TO", ~0ull);
  return w;
}

template <class V>
class Dut {
 public:
  explicit Dut(const std::string& name, int seed = 1) : Dut(seed, wave_from_env(name)) {}
  Dut(int seed, const WaveOpts& wave) : ctx_(std::make_unique<VerilatedContext>()) {
    ctx_->randReset(2);  // uninitialised state random, but from a fixed seed
    ctx_->randSeed(seed);
    ctx_->debug(0);
    top_ = std::make_unique<V>(ctx_.get(), "top");
    if constexpr (requires(V & v, WaveFile * t) { v.trace(t, 99); }) {
      wave_.open(*ctx_, wave, [&](WaveFile* f) { top_->trace(f, 99); });
    } else if (!wave.path.empty()) {
      throw std::runtime_error("this model was Verilated without tracing: no waveform " + wave.path);
    }
    reset(*top_);
  }
  ~Dut() {
    wave_.close();
    // A model with public signals (hwwl.vlt) unregisters its scopes from the
    // thread's current context, not its own (Verilator 5.006,
    // VerilatedScope::~VerilatedScope): with several Duts alive, that is
    // another's context, or a destroyed one (a hang). Make it this one's.
    Verilated::threadContextp(ctx_.get());
    top_->final();
    top_.reset();
  }
  V* operator->() { return top_.get(); }
  // Settle combinational outputs for the current inputs (clock low).
  void settle() {
    top_->eval();
    if (wave_.in(t_)) wave_.dump(t_);
  }
  // Rising edge, then back to low. The clock's fall is evaluated with the
  // next settle(): the hwwl blocks have no falling-edge logic, and every eval
  // of a Verilator 5 model recomputes the logic that depends on its inputs, so
  // evaluating the fall on its own (as this did until 2026-11-24) only
  // repeated that work: a third of the rtl backend's time per cycle.
  void clock() {
    top_->clk_i = 1;
    top_->eval();
    if (wave_.in(t_)) wave_.dump(t_ + 1);
    top_->clk_i = 0;
    t_ += 2;
  }

 private:
  std::unique_ptr<VerilatedContext> ctx_;
  std::unique_ptr<V> top_;
  Wave wave_;
  std::uint64_t t_ = 0;
};

// Cycles for a test: FG_SOAK=<factor> multiplies the default (longer soak runs).
inline std::uint64_t cycles(std::uint64_t base) {
  if (const char* s = std::getenv("FG_SOAK")) return base * std::max(1L, std::strtol(s, nullptr, 10));
  return base;
}

}  // namespace fg::tb
