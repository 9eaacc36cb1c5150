// SPDX-License-Identifier: Apache-2.0
#include "sim/setup.h"

#include <systemc>
#include <tlm>

namespace fg {

void setup_systemc(double quantum_ns) {
  sc_core::sc_report_handler::set_actions("/IEEE_Std_1666/deprecated", sc_core::SC_DO_NOTHING);
  sc_core::sc_report_handler::set_actions("/OSCI/SystemC", sc_core::SC_INFO, sc_core::SC_DO_NOTHING);
  sc_core::sc_set_time_resolution(1, sc_core::SC_PS);
  tlm::tlm_global_quantum::instance().set(sc_core::sc_time(quantum_ns, sc_core::SC_NS));
}

}  // namespace fg
