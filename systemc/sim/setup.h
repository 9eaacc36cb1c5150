// SPDX-License-Identifier: Apache-2.0
// One-time SystemC setup shared by fgsim, the tests and the benchmarks:
// 1 ps time resolution, the TLM global quantum, and no "simulation stopped"
// or deprecation chatter.
#pragma once

namespace fg {

void setup_systemc(double quantum_ns);

}  // namespace fg
