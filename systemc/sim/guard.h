// SPDX-License-Identifier: Apache-2.0
// Failures inside SystemC processes. SystemC turns an exception escaping a
// process into an sc_report and loses its type, so every FineGrain process
// body runs under guarded(): the first exception is kept, the simulation is
// stopped, and the driver rethrows it after sc_start returns (UserError -> exit
// 2, SimFault -> exit 3).
#pragma once

#include <exception>
#include <utility>

#include <systemc>

namespace fg {

void record_failure(std::exception_ptr e);
std::exception_ptr first_failure();

// sc_stop() unless a failure already stopped the simulation (a second
// sc_stop is a SystemC warning).
// sc_stop() once per run: a second call is a SystemC warning (W545), which a
// second failing thread (or the host after a failure) would otherwise cause.
void stop_once();

inline void stop_simulation() { stop_once(); }

template <class F>
void run_guarded(F&& f) {
  try {
    f();
  } catch (...) {
    record_failure(std::current_exception());
    stop_once();
  }
}

}  // namespace fg
