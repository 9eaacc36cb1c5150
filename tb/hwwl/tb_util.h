// SPDX-License-Identifier: Apache-2.0
// Verilator test harness helpers: a DUT wrapper with clocking, reset, fixed
// Verilator random seed and optional waveforms, and bit-field access to packed
// ports of any width. Waveforms: FG_WAVE=1 (or the older FG_VCD=1) writes
// <test name>.vcd, or .fst when the tests were configured with
// -DFG_WAVE_FST=ON, in the working directory; FG_WAVE_FROM / FG_WAVE_TO (clock
// cycles, inclusive) bound the dump to a window.
#pragma once

#include <algorithm>
#include <cstdint>
#include <cstdlib>
#include <memory>
#include <stdexcept>
#include <string>
#include <type_traits>

#include <verilated.h>
#if VM_TRACE_FST
#include <verilated_fst_c.h>
#else
#include <verilated_vcd_c.h>
#endif

namespace fg::tb {

#if VM_TRACE_FST
using WaveFile = VerilatedFstC;
inline constexpr const char* kWaveExt = ".fst";
#else
using WaveFile = VerilatedVcdC;
inline constexpr const char* kWaveExt = ".vcd";
#endif

inline bool env_on(const char* name) {
  const char* v = std::getenv(name);
  return v && *v == '1';
}
inline std::uint64_t env_cycles(const char* name, std::uint64_t dflt) {
  const char* v = std::getenv(name);
  return v && *v ? std::strtoull(v, nullptr, 10) : dflt;
}

template <class T>
requires std::is_integral_v<T>
void put(T& sig, unsigned lsb, unsigned width, std::uint64_t v) {
  const std::uint64_t mask = (width >= 64 ? ~0ull : ((1ull << width) - 1)) << lsb;
  sig = static_cast<T>((static_cast<std::uint64_t>(sig) & ~mask) | ((v << lsb) & mask));
}
template <class T>
requires std::is_integral_v<T> std::uint64_t get(const T& sig, unsigned lsb, unsigned width) {
  const std::uint64_t m = width >= 64 ? ~0ull : ((1ull << width) - 1);
  return (static_cast<std::uint64_t>(sig) >> lsb) & m;
}
template <std::size_t W>
void put(VlWide<W>& sig, unsigned lsb, unsigned width, std::uint64_t v) {
  for (unsigned i = 0; i < width;) {
    const unsigned bit = lsb + i, word = bit / 32, off = bit % 32;
    const unsigned n = std::min(width - i, 32 - off);
    const std::uint32_t m = (n == 32 ? 0xffffffffu : ((1u << n) - 1)) << off;
    sig[word] = (sig[word] & ~m) | ((static_cast<std::uint32_t>(v >> i) << off) & m);
    i += n;
  }
}
template <std::size_t W>
std::uint64_t get(const VlWide<W>& sig, unsigned lsb, unsigned width) {
  std::uint64_t r = 0;
  for (unsigned i = 0; i < width;) {
    const unsigned bit = lsb + i, word = bit / 32, off = bit % 32;
    const unsigned n = std::min(width - i, 32 - off);
    r |= static_cast<std::uint64_t>((sig[word] >> off) & (n == 32 ? 0xffffffffu : ((1u << n) - 1))) << i;
    i += n;
  }
  return r;
}

// Where and what to dump: a file (empty: no waveform), an inclusive window of
// clock cycles, and the time one cycle takes in the file's time unit (the
// model's precision; 1 ps for the hwwl RTL): a cycle's inputs and outputs are
// dumped at its start, its rising edge half a cycle later.
struct WaveOpts {
  std::string path;
  std::uint64_t from = 0, to = ~0ull;
  std::uint64_t cycle_time = 2;
  // The tests' choice: FG_WAVE=1 (or FG_VCD=1), FG_WAVE_FROM, FG_WAVE_TO.
  static WaveOpts from_env(const std::string& name) {
    WaveOpts w;
    if (env_on("FG_WAVE") || env_on("FG_VCD")) w.path = name + kWaveExt;
    w.from = env_cycles("FG_WAVE_FROM", 0);
    w.to = env_cycles("FG_WAVE_TO", ~0ull);
    return w;
  }
};

// A waveform file bounded to a window of clock cycles (WaveOpts), in
// half-cycle time steps t (cycle t / 2; even t: a cycle's start, odd t: its
// rising edge): Dut's and the rtl backend's (systemc/worklist/rtl_backend.h).
class Wave {
 public:
  // No file when w.path is empty; `trace` registers the models' signals.
  template <class F>
  void open(VerilatedContext& ctx, const WaveOpts& w, F&& trace) {
    if (w.path.empty()) return;
    ctx.traceEverOn(true);
    file_ = std::make_unique<WaveFile>();
    trace(file_.get());
    file_->open(w.path.c_str());
    if (!file_->isOpen()) throw std::runtime_error("cannot write the waveform " + w.path);
    from_ = w.from;
    to_ = w.to;
    half_ = std::max<std::uint64_t>(1, w.cycle_time / 2);
  }
  void close() {
    if (file_) file_->close();
  }
  // Step t is inside the window.
  bool in(std::uint64_t t) const { return file_ && t / 2 >= from_ && t / 2 <= to_; }
  // One of the n cycles from step t's is inside the window.
  bool within(std::uint64_t t, std::uint64_t n) const {
    const std::uint64_t c = t / 2;
    return file_ && n > 0 && c <= to_ && c + n - 1 >= from_;
  }
  void dump(std::uint64_t t) { file_->dump(t * half_); }

 private:
  std::unique_ptr<WaveFile> file_;
  std::uint64_t from_ = 0, to_ = 0, half_ = 1;
};

// Active-low reset held low across one rising edge (the hwwl blocks reset
// synchronously; an asynchronous reset would take effect at the falling
// edge). Leaves the clock low and the reset released, evaluated.
template <class V>
void reset(V& m) {
  m.clk_i = 0;
  m.rst_ni = 1;
  m.eval();
  m.rst_ni = 0;
  m.eval();
  m.clk_i = 1;
  m.eval();
  m.clk_i = 0;
  m.eval();
  m.rst_ni = 1;
  m.eval();
}

template <class V>
class Dut {
 public:
  explicit Dut(const std::string& name, int seed = 1) : Dut(seed, WaveOpts::from_env(name)) {}
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
