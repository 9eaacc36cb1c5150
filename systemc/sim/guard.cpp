// SPDX-License-Identifier: Apache-2.0
#include "sim/guard.h"

namespace fg {

namespace {
std::exception_ptr g_failure;
}

void record_failure(std::exception_ptr e) {
  if (!g_failure) g_failure = std::move(e);
}

std::exception_ptr first_failure() { return g_failure; }

void stop_once() {
  static bool stopped = false;
  if (stopped || sc_core::sc_get_status() == sc_core::SC_STOPPED) return;
  stopped = true;
  sc_core::sc_stop();
}

}  // namespace fg
