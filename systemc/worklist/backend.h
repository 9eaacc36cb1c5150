// SPDX-License-Identifier: Apache-2.0
// The worklist unit's backends (systemc/worklist/worklist.h): the cycle-stepped
// worklist system behind the unit, either the golden model (models/hwwl) or the
// Verilated RTL (rtl_backend.h). Free of SystemC, so that Verilated code, which
// reads the time from SystemC when it sees it, can include it.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "hwwl/hwwl_model.h"

namespace fg::wl {

// The cycle-stepped worklist system (both backends give the same answers).
class Backend {
 public:
  // The lane and virtualization inputs, and the outputs, as the golden
  // model has them (core * lanes + lane): pull, push, push_id; rf_put, rf_id
  // per bank and rsv per core (empty: no virtualization unit), hvu_busy.
  using In = hwwl::LaneIn;
  // pull_status (hwwl::PullStatus), pull_id, push_gnt; rf_gnt per bank and
  // rsv_gnt per core (meaningful when a refill or reservation was requested);
  // sys_empty. (greedy is the model's own.)
  using Out = hwwl::SysOut;
  virtual ~Backend() = default;
  // One clock cycle: the inputs, the outputs they produce (combinational,
  // before the edge; into out, whose storage is reused cycle after cycle),
  // then the rising edge.
  virtual void step(const In& in, Out& out) = 0;
  // n cycles with the inputs `idle` (no lane or virtualization access). The
  // unit calls it only in a fixpoint (fixpoint_window()); the default steps
  // them.
  virtual void skip(std::uint64_t n, const In& idle) {
    Out o;
    for (std::uint64_t i = 0; i < n; ++i) step(idle, o);
  }
  // Idle cycles with unchanged pull-side counts after which nothing moves
  // until the next input (0: no such rule; the unit steps every cycle while
  // work is inside). For the banked worklist: a redistribution interval plus
  // the network's hops (docs/worklists.md, "Fast-forward").
  virtual std::uint64_t fixpoint_window() const { return 0; }
  // The inter-core network holds a work ID (it moves without inputs then).
  virtual bool net_busy() const { return true; }
  // Work IDs on the pull side of a bank (after the last edge).
  virtual unsigned pull_count(unsigned core, unsigned lane, bool double_buf) const = 0;
  // Every bank's (core * lanes + lane) into counts.
  virtual void pull_counts(bool double_buf, unsigned lanes, std::vector<unsigned>& counts) const {
    for (std::size_t i = 0; i < counts.size(); ++i)
      counts[i] = pull_count(static_cast<unsigned>(i / lanes), static_cast<unsigned>(i % lanes), double_buf);
  }
  // Core cycles whose core was evaluated (the rtl backend evaluates only the
  // cores with something to do in a cycle; 0 for the others).
  virtual std::uint64_t core_evals() const { return 0; }
  // Where the work is, for diagnostics (empty when nothing is visible).
  virtual std::string where(bool double_buf) const = 0;
  // The first write error of the backend's output (the rtl backend's --vcd
  // waveform), once, as one line naming the option and the file; empty when
  // there is none. close_output() completes the file first.
  virtual std::string output_error() { return {}; }
  virtual std::string close_output() { return {}; }
};

// The waveform of the rtl backend (fgsim --vcd): file, inclusive window of
// unit cycles, picoseconds per cycle.
struct WaveSpec {
  std::string path;
  std::uint64_t from = 0, to = ~0ull;
  std::uint64_t cycle_ps = 1000;
};

// The Verilated configurations this fgsim carries (FG_HWWL_RTL_CONFIGS; empty
// when built with -DFG_RTL_BACKEND=OFF).
struct RtlBuild {
  const char* name;
  hwwl::Params params;
  std::unique_ptr<Backend> (*make)(const hwwl::Params&, const WaveSpec&);
};
const std::vector<RtlBuild>& rtl_builds();

}  // namespace fg::wl
