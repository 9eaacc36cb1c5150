// SPDX-License-Identifier: Apache-2.0
// The modelled GPU assembled from configuration: memory system, one memory
// port per CU, and (once present) the compute units and dispatcher.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include <systemc>

#include "aggregator/aggregator.h"
#include "gpu/compute_unit.h"
#include "gpu/dispatcher.h"
#include "mem/mem_port.h"
#include "mem/memory_system.h"
#include "sim/config.h"
#include "sim/time.h"
#include "worklist/worklist.h"
#include "yield/yield.h"

namespace fg {

class Host;

class GpuTop : public sc_core::sc_module {
 public:
  GpuTop(sc_core::sc_module_name name, const Config& cfg);
  int cus() const { return static_cast<int>(ports_.size()); }
  MemorySystem& memory() { return *mem_; }
  MemPort& port(int cu) { return *ports_[cu]; }
  std::vector<MemPort*> ports();
  const Clock& clock() const { return clock_; }
  // Give the host the compute side (dispatcher) of this GPU.
  void attach_host(Host& host);
  // What is blocked and where, for deadlock and watchdog messages.
  std::string diagnose() const;
  // Compute-side lines for the end-of-run summary.
  std::vector<std::string> summary_lines() const;

 private:
  Clock clock_;
  std::unique_ptr<MemorySystem> mem_;
  std::vector<std::unique_ptr<MemPort>> ports_;
  std::vector<std::unique_ptr<ComputeUnit>> cus_;
  std::unique_ptr<Dispatcher> dispatcher_;
  std::unique_ptr<wl::Worklist> worklist_;
  std::unique_ptr<MemPort> hvu_port_;  // the worklist's virtualization unit, to the L2
  std::unique_ptr<yld::Engine> yield_;
  std::unique_ptr<MemPort> agg_port_;  // the aggregator, to its own L1
  std::unique_ptr<agg::Aggregator> aggregator_;

 public:
  ComputeUnit& cu(int i) { return *cus_[i]; }
  Dispatcher& dispatcher() { return *dispatcher_; }
  wl::Worklist& worklist() { return *worklist_; }
  agg::Aggregator& aggregator() { return *aggregator_; }
};

}  // namespace fg
