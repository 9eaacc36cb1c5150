// Kernel launches and the dispatcher.
//
// The dispatcher (the GPU front end) takes kernel launches in order and
// places their workgroups on compute units that have room for the whole
// workgroup (wavefront slots, registers, LDS), like today's GPUs: occupancy
// bound. Other front-end agents (the aggregator, the cooperative scheduler)
// use the same submit() interface and get callbacks per workgroup and per
// kernel.
#pragma once

#include <cstdint>
#include <deque>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include <systemc>

#include "gpu/kernel.h"
#include "sim/stats.h"
#include "sim/time.h"

namespace fg {

class ComputeUnit;

struct KernelLaunch {
  std::string name = "kernel";
  std::uint64_t grid = 0;          // work-items
  std::uint32_t group_size = 256;  // work-items per workgroup
  std::uint32_t registers = 16;    // vector registers per lane
  std::uint32_t lds_bytes = 0;     // LDS per workgroup
  KernelBody body;
};

struct KernelState {
  KernelLaunch launch;
  std::uint32_t num_groups = 0, next_group = 0, groups_done = 0;
  Tick start = 0, end = 0;
  std::function<void(std::uint32_t group)> on_workgroup_done;
  std::function<void(KernelState&)> on_done;
  sc_core::sc_event done;
  bool finished = false;
};

class Dispatcher : public sc_core::sc_module {
 public:
  Dispatcher(sc_core::sc_module_name name, std::vector<ComputeUnit*> cus);
  // Queue a launch; callbacks run in simulation context when workgroups and
  // the kernel complete. The returned state lives until the simulation ends.
  KernelState& submit(KernelLaunch launch, std::function<void(KernelState&)> on_done = {},
                      std::function<void(std::uint32_t)> on_workgroup_done = {});
  // Called by a CU when a workgroup of `k` has finished at CU-local time t.
  void workgroup_finished(KernelState& k, std::uint32_t group, Tick t);

  Counter kernels, workgroups;

 private:
  void run();
  std::vector<ComputeUnit*> cus_;
  std::deque<KernelState*> queue_;
  std::vector<std::unique_ptr<KernelState>> all_;
  sc_core::sc_event work_, freed_;
  std::size_t next_cu_ = 0;
};

}  // namespace fg
