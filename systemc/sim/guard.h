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
inline void stop_simulation() {
  if (!first_failure()) sc_core::sc_stop();
}

template <class F>
void run_guarded(F&& f) {
  try {
    f();
  } catch (...) {
    record_failure(std::current_exception());
    sc_core::sc_stop();
  }
}

}  // namespace fg
