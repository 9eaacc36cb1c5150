// SPDX-License-Identifier: Apache-2.0
// The GPU as its mechanisms, units and agents see it: the configuration, the
// CU clock, the memory system, the compute units and the front end, ports for
// agents on the memory system, and the mechanisms built for this run
// (gpu/mechanism.h). top/GpuTop assembles it from configuration; nothing
// below top/ knows which mechanisms exist.
#pragma once

#include <string>
#include <vector>

#include "gpu/mechanism.h"
#include "sim/config.h"
#include "sim/time.h"

namespace fg {

class ComputeUnit;
class Dispatcher;
class MemPort;
class MemorySystem;

// How a run builds its GPU besides the configuration.
struct GpuOptions {
  // Mechanisms to build (with what they need): the workload's, then
  // gpu.mechanisms'.
  std::vector<std::string> mechanisms;
  // Who asked for them, for messages ("workload 'bfs' with this configuration").
  std::string mechanisms_origin = "the run";
  // The registered workload the run is of (fgsim run), whose `mechanisms`
  // are its whole list: a software mechanism not on it runs no program in
  // this run. Empty: a program of a test's own (its list may be partial).
  std::string workload;
  std::string wave_file;  // fgsim --vcd: the rtl worklist backend's waveform
};

class Gpu {
 public:
  virtual ~Gpu() = default;
  virtual const Config& config() const = 0;
  virtual const GpuOptions& options() const = 0;
  virtual const Clock& clock() const = 0;  // the CU clock
  virtual MemorySystem& memory() = 0;
  virtual int cus() const = 0;
  virtual ComputeUnit& cu(int i) = 0;
  virtual MemPort& port(int cu) = 0;  // the CU's port to its L1
  virtual Dispatcher& dispatcher() = 0;
  // A port straight to the L2 for an agent that has no L1 (requester -1: no
  // directory entry), e.g. the worklist's virtualization unit.
  virtual MemPort& l2_port(const std::string& name) = 0;
  // A port into CU `cu`'s load/store path beside the CU's own (its L1, as the
  // CU's requester: same port, MSHRs and back-pressure), for a unit of that
  // core such as the worklist's virtualization unit. Only while building.
  virtual MemPort& lsu_port(int cu, const std::string& name) = 0;
  // An agent with its own L1 on the coherent L2, in its own clock domain
  // (requester index after the CUs): its port. `stats_path` names the L1's
  // statistics. Only while the GPU is being built.
  virtual MemPort& agent_port(const std::string& name, const std::string& stats_path, const Clock& clock) = 0;
  // The --vcd file, for the mechanism that writes it (a run whose mechanisms
  // take none refuses --vcd).
  virtual const std::string& take_wave_file() = 0;

  const Mechanisms& mechanisms() const { return mechanisms_; }
  template <class M>
  M* find() const {
    return mechanisms_.find<M>();
  }
  template <class M>
  M& get(std::string_view what) const {
    return mechanisms_.get<M>(what);
  }

 protected:
  Mechanisms mechanisms_;
};

}  // namespace fg
