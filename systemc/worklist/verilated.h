// SPDX-License-Identifier: Apache-2.0
// Helpers for driving Verilated models of the worklist RTL from C++: the
// waveform file bounded to a window of cycles, bit-field access to packed
// ports of any width, and the blocks' synchronous reset. Production code (the
// rtl backend, rtl_backend.h) and the RTL tests (tb/hwwl/tb_util.h) share them.
#pragma once

#include <algorithm>
#include <cstdint>
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

namespace fg::vl {

#if VM_TRACE_FST
using WaveFile = VerilatedFstC;
inline constexpr const char* kWaveExt = ".fst";
#else
using WaveFile = VerilatedVcdC;
inline constexpr const char* kWaveExt = ".vcd";
#endif

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
};

// A waveform file bounded to a window of clock cycles (WaveOpts), in
// half-cycle time steps t (cycle t / 2; even t: a cycle's start, odd t: its
// rising edge): the rtl backend's (rtl_backend.h) and the RTL tests' (tb/hwwl/tb_util.h).
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

}  // namespace fg::vl
