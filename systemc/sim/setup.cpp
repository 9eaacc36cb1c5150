// SPDX-License-Identifier: Apache-2.0
#include "sim/setup.h"

#include <cstdio>

#include <systemc>
#include <tlm>

#include "sim/error.h"

namespace fg {

namespace {

// SystemC warnings go to standard error as one line, never to standard output
// (where they would mix with --stats -). Errors and fatals keep SystemC's
// handling (an exception the run turns into a diagnosis).
void report_handler(const sc_core::sc_report& r, const sc_core::sc_actions& a) {
  if (r.get_severity() == sc_core::SC_INFO) return;
  if (r.get_severity() == sc_core::SC_WARNING) {
    std::fprintf(stderr, "fgsim: SystemC warning: %s: %s\n", shown(r.get_msg_type(), 200).c_str(),
                 shown(r.get_msg(), 500).c_str());
    return;
  }
  sc_core::sc_report_handler::default_handler(r, a);
}

}  // namespace

void setup_systemc(double quantum_ns) {
  sc_core::sc_report_handler::set_actions("/IEEE_Std_1666/deprecated", sc_core::SC_DO_NOTHING);
  sc_core::sc_report_handler::set_actions("/OSCI/SystemC", sc_core::SC_INFO, sc_core::SC_DO_NOTHING);
  sc_core::sc_report_handler::set_handler(report_handler);
  sc_core::sc_set_time_resolution(1, sc_core::SC_PS);
  tlm::tlm_global_quantum::instance().set(sc_core::sc_time(quantum_ns, sc_core::SC_NS));
}

}  // namespace fg
