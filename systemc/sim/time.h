// SPDX-License-Identifier: Apache-2.0
// Simulated time in integer picoseconds and clock domains.
//
// The whole model keeps time as Tick (ps) on its hot paths and converts to
// sc_time only at the SystemC boundary (resolution 1 ps, set by the top).
#pragma once

#include <cmath>
#include <cstdint>

namespace fg {

using Tick = std::uint64_t;  // picoseconds

inline constexpr Tick kPsPerNs = 1000;

inline Tick ns_to_tick(double ns) { return static_cast<Tick>(std::llround(ns * 1000.0)); }
inline double tick_to_ns(Tick t) { return static_cast<double>(t) / 1000.0; }

// A clock domain: every module charges latencies in cycles of its own clock
// (the channel paper's aggregator runs at 2 GHz beside 1 GHz CUs, Table 2).
class Clock {
 public:
  Clock() = default;
  explicit Clock(double mhz) : mhz_(mhz), period_(static_cast<Tick>(std::llround(1.0e6 / mhz))) {}
  Tick period() const { return period_; }
  Tick cycles(std::uint64_t n) const { return period_ * n; }
  // Whole cycles covering t (rounded up).
  std::uint64_t to_cycles(Tick t) const { return (t + period_ - 1) / period_; }
  double mhz() const { return mhz_; }

 private:
  double mhz_ = 1000.0;
  Tick period_ = 1000;
};

}  // namespace fg
