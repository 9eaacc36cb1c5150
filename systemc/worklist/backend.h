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
  struct In {
    bool double_buf = false, swap = false;
    std::vector<bool> pull, push;  // core * lanes + lane
    std::vector<std::uint32_t> push_id;
    // The virtualization unit's requests (empty: none): refills per bank,
    // reservations per core; whether it holds work (no DONE then).
    std::vector<bool> rf_put;
    std::vector<std::uint32_t> rf_id;
    std::vector<bool> rsv;
    bool hvu_busy = false;
  };
  struct Out {
    std::vector<std::uint8_t> pull_status;  // hwwl::PullStatus
    std::vector<std::uint32_t> pull_id;
    std::vector<bool> push_gnt;
    std::vector<bool> rf_gnt;   // per bank (empty: no refill requested)
    std::vector<bool> rsv_gnt;  // per core
    bool sys_empty = true;
  };
  virtual ~Backend() = default;
  // One clock cycle: the inputs, the outputs they produce (combinational,
  // before the edge), then the rising edge.
  virtual Out step(const In& in) = 0;
  // n cycles with the inputs `idle` (no lane or virtualization access). The
  // unit calls it only in a fixpoint (fixpoint_window()); the default steps
  // them.
  virtual void skip(std::uint64_t n, const In& idle) {
    for (std::uint64_t i = 0; i < n; ++i) step(idle);
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
  // Where the work is, for diagnostics (empty when nothing is visible).
  virtual std::string where(bool double_buf) const = 0;
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
