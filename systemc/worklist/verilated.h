// SPDX-License-Identifier: Apache-2.0
// Helpers for driving Verilated models of the worklist RTL from C++: the
// waveform file bounded to a window of cycles, bit-field access to packed
// ports of any width, and the blocks' synchronous reset. Production code (the
// rtl backend, rtl_backend.h) and the RTL tests (tb/hwwl/tb_util.h) share them.
#pragma once

#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdint>
#include <cstring>
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

#include "sim/error.h"

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
// dumped at its start, its rising edge half a cycle later. `option` names the
// file's origin in messages.
struct WaveOpts {
  std::string path;
  std::uint64_t from = 0, to = ~0ull;
  std::uint64_t cycle_time = 2;
  std::string option = "--vcd";
};

#if !VM_TRACE_FST
// The VCD file written through a descriptor of ours. Verilator's own
// (VerilatedVcdFile) ends the process with vl_fatal on a write error, and in
// Verilator 5.006 that path deadlocks: VerilatedVcd::open and dump hold the
// trace's mutex while they flush, the flush's VL_FATAL_MT runs the flush
// callbacks, and VerilatedTrace::onFlush takes the same mutex (fgsim --vcd
// /dev/full hung at 0% CPU). This one never fails a write towards Verilator:
// it keeps the first error, drops what follows, and Wave reports it.
class CheckedVcdFile final : public VerilatedVcdFile {
 public:
  bool open(const std::string& name) override {
    fd_ = ::open(name.c_str(), O_CREAT | O_WRONLY | O_TRUNC | O_CLOEXEC, 0666);
    if (fd_ < 0) err_ = errno;
    return fd_ >= 0;
  }
  void close() override {
    if (fd_ >= 0 && ::close(fd_) != 0 && !err_) err_ = errno;
    fd_ = -1;
  }
  ssize_t write(const char* p, ssize_t len) override {
    for (ssize_t done = 0; done < len && !err_;) {
      const ssize_t n = ::write(fd_, p + done, static_cast<std::size_t>(len - done));
      if (n < 0 && errno == EINTR) continue;
      if (n <= 0) {
        err_ = n < 0 ? errno : EIO;
        break;
      }
      done += n;
    }
    return len;  // all of it, as far as Verilator knows: the error is ours to report
  }
  int error() const { return err_; }

 private:
  int fd_ = -1;
  int err_ = 0;
};
#endif

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
    place_ = w.option + " " + fg::shown(w.path, 200);
#if VM_TRACE_FST
    file_ = std::make_unique<WaveFile>();
#else
    checked_ = std::make_unique<CheckedVcdFile>();
    file_ = std::make_unique<WaveFile>(checked_.get());
#endif
    trace(file_.get());
    file_->open(w.path.c_str());
    if (!file_->isOpen()) {
#if VM_TRACE_FST
      throw fg::UserError(place_ + ": cannot write");
#else
      throw fg::UserError(place_ + ": cannot write (" + std::strerror(checked_->error()) + ")");
#endif
    }
    from_ = w.from;
    to_ = w.to;
    half_ = std::max<std::uint64_t>(1, w.cycle_time / 2);
  }
  void close() {
    if (file_) file_->close();
  }
  // The first write error (a full disk), once, as one line naming the option
  // and the file ("--vcd /dev/full: write failed (No space left on device)");
  // empty when there is none or it was taken already. The header is written
  // by open(), the rest by dump() and close().
  std::string take_error() {
#if !VM_TRACE_FST
    if (checked_ && checked_->error() && !reported_) {
      reported_ = true;
      return place_ + ": write failed (" + std::strerror(checked_->error()) + ")";
    }
#endif
    return {};
  }
  // A write failed (whether or not take_error() reported it yet).
  bool failed() const {
#if !VM_TRACE_FST
    return checked_ && checked_->error();
#else
    return false;
#endif
  }
  // Step t is inside the window.
  bool in(std::uint64_t t) const { return file_ && t / 2 >= from_ && t / 2 <= to_; }
  // One of the n cycles from step t's is inside the window.
  bool within(std::uint64_t t, std::uint64_t n) const {
    const std::uint64_t c = t / 2;
    return file_ && n > 0 && c <= to_ && c + n - 1 >= from_;
  }
  void dump(std::uint64_t t) {
    file_->dump(t * half_);
    dumped_ = true;
  }
  // A file is open, and no cycle was dumped into it (the window missed the run).
  bool empty() const { return file_ && !dumped_; }
  std::uint64_t from() const { return from_; }
  const std::string& place() const { return place_; }

 private:
#if !VM_TRACE_FST
  std::unique_ptr<CheckedVcdFile> checked_;  // outlives file_, which writes through it
  bool reported_ = false;
#endif
  std::unique_ptr<WaveFile> file_;
  std::string place_;
  std::uint64_t from_ = 0, to_ = 0, half_ = 1;
  bool dumped_ = false;
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
