// SPDX-License-Identifier: Apache-2.0
#include "sim/guard.h"

#include <vector>

namespace fg {

namespace {
std::exception_ptr g_failure;
Reaper* g_reaper = nullptr;
bool g_stopped = false;

void collect_threads(const std::vector<sc_core::sc_object*>& objs, std::vector<sc_core::sc_process_handle>& out) {
  for (sc_core::sc_object* o : objs) {
    const std::string kind = o->kind();
    if (kind == "sc_thread_process" || kind == "sc_cthread_process") out.emplace_back(o);
    collect_threads(o->get_child_objects(), out);
  }
}
}  // namespace

void record_failure(std::exception_ptr e) {
  if (!g_failure) g_failure = std::move(e);
}

std::exception_ptr first_failure() { return g_failure; }

void stop_once() {
  if (g_reaper && g_reaper->pending()) return;  // the reaper stops the kernel when the threads are unwound
  if (g_stopped || sc_core::sc_get_status() == sc_core::SC_STOPPED) return;
  g_stopped = true;
  sc_core::sc_stop();
}

Reaper::Reaper(sc_core::sc_module_name name) : sc_module(name) {
  SC_HAS_PROCESS(Reaper);
  SC_THREAD(run);
  dont_initialize();
  sensitive << request_;
  g_reaper = this;
}

Reaper::~Reaper() {
  if (g_reaper == this) g_reaper = nullptr;
}

void Reaper::reap() {
  if (requested_ || g_stopped || sc_core::sc_get_status() == sc_core::SC_STOPPED) return;
  requested_ = true;
  request_.notify(sc_core::SC_ZERO_TIME);
  // From sc_main (the kernel paused, not running a process): the delta
  // notification makes the reaper runnable in the delta cycle after the one
  // sc_start(SC_ZERO_TIME) runs; it stops the kernel.
  if (sc_core::sc_get_status() != sc_core::SC_RUNNING)
    for (int i = 0; i < 4 && !reaped_ && sc_core::sc_get_status() != sc_core::SC_STOPPED; ++i)
      sc_core::sc_start(sc_core::SC_ZERO_TIME);
}

void Reaper::run() {
  std::vector<sc_core::sc_process_handle> threads;
  collect_threads(sc_core::sc_get_top_level_objects(), threads);
  const sc_core::sc_process_handle self = sc_core::sc_get_current_process_handle();
  for (auto& t : threads) {
    if (t == self || t.terminated()) continue;
    t.kill();
    ++killed_;
  }
  requested_ = false;
  reaped_ = true;
  stop_once();
}

void stop_early() {
  if (g_reaper)
    g_reaper->reap();
  else
    stop_once();
}

}  // namespace fg
