// SPDX-License-Identifier: Apache-2.0
// Failures inside SystemC processes. SystemC turns an exception escaping a
// process into an sc_report and loses its type, so every FineGrain process
// body runs under guarded(): the first exception is kept, the simulation is
// stopped, and the driver rethrows it after sc_start returns (UserError -> exit
// 2, SimFault -> exit 3).
//
// A run that stops early (a failure, the watchdog, the host-time limit, a
// signal) leaves SystemC threads suspended in wait(); SystemC never unwinds
// their stacks, so what their frames own (a workload's host vectors) leaks.
// The Reaper kills every other thread before the kernel stops: each is
// resumed with sc_unwind_exception, its destructors run, and run_guarded lets
// that exception through.
#pragma once

#include <exception>
#include <utility>

#include <systemc>

namespace fg {

void record_failure(std::exception_ptr e);
std::exception_ptr first_failure();

// sc_stop() once per run: a second call is a SystemC warning (W545), which a
// second failing thread (or the host after a failure) would otherwise cause.
// A pending reap (below) stops the kernel itself.
void stop_once();

inline void stop_simulation() { stop_once(); }

// Kills the suspended threads, then stops. One per elaboration (fgsim's
// driver makes it); without one, stop_early() is stop_once().
class Reaper : public sc_core::sc_module {
 public:
  explicit Reaper(sc_core::sc_module_name name);
  ~Reaper() override;
  // From a process: reap at the next delta cycle. From sc_main while the
  // kernel is paused: reap and stop now (runs one delta cycle).
  void reap();
  bool reaped() const { return reaped_; }
  bool pending() const { return requested_ && !reaped_; }
  std::size_t killed() const { return killed_; }

 private:
  void run();
  sc_core::sc_event request_;
  bool requested_ = false, reaped_ = false;
  std::size_t killed_ = 0;
};

// Stop a run that has not finished: through the Reaper when there is one.
void stop_early();

template <class F>
void run_guarded(F&& f) {
  try {
    f();
  } catch (const sc_core::sc_unwind_exception&) {
    throw;  // the thread is being killed (Reaper) or reset: let SystemC unwind it
  } catch (...) {
    record_failure(std::current_exception());
    stop_early();
  }
}

}  // namespace fg
