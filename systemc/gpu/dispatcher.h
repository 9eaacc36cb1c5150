// SPDX-License-Identifier: Apache-2.0
// Kernel launches and the GPU front end.
//
// The dispatcher takes kernel launches from any front-end agent (the host,
// the aggregator, the cooperative scheduler) through one submit() interface,
// at the agent's own local time. A launch becomes visible to the dispatcher
// after the kernel launch latency; its workgroups are then placed on compute
// units that have room for the whole workgroup (slots, registers, LDS, a
// workgroup entry), one workgroup per dispatch interval, round-robin over the
// CUs. The launch policy chooses among queued kernels:
//   fifo      in submission order; a kernel's workgroups wait for the one
//             before it to be fully dispatched (head-of-line blocking, as a
//             single in-order hardware queue)
//   priority  any queued kernel whose workgroup fits, highest priority first,
//             then submission order (no head-of-line blocking)
// Completion callbacks carry the completion time.
#pragma once

#include <cstdint>
#include <deque>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include <systemc>

#include "gpu/kernel.h"
#include "sim/config.h"
#include "sim/stats.h"
#include "sim/time.h"

namespace fg {

class ComputeUnit;

// Bytes saved when a wavefront of the kernel is parked (yield, kill, a
// continuation): the channel paper's 856 fixed bytes plus its three register
// kinds per lane, s (4 B), d (8 B) and c (1 bit) (Sec. 7, Table 3).
struct ContextSize {
  std::uint32_t fixed = 856, s = 0, d = 0, c = 0;
};

struct KernelLaunch {
  std::string name = "kernel";
  std::uint64_t grid = 0;          // work-items
  std::uint32_t group_size = 256;  // work-items per workgroup
  std::uint32_t registers = 16;    // vector registers per lane
  std::uint32_t lds_bytes = 0;     // LDS per workgroup
  KernelBody body;
  ContextSize context = {};
};

struct KernelState {
  KernelLaunch launch;
  std::uint32_t id = 0;  // submission order
  int priority = 0;
  std::uint32_t num_groups = 0, next_group = 0, groups_done = 0;
  Tick submitted = 0;  // when the agent submitted it
  Tick visible = 0;    // submitted + launch latency
  Tick first_dispatch = 0, end = 0;
  std::uint64_t wavefronts = 0, instructions = 0;
  std::function<void(std::uint32_t group, Tick t)> on_workgroup_done;
  std::function<void(KernelState&, Tick end)> on_done;
  sc_core::sc_event done;
  bool finished = false;
};

struct SubmitOptions {
  std::uint64_t at = ~0ull;  // absolute submit time (ps); default: the current SystemC time
  int priority = 0;          // priority policy: higher first
  // Launch latency of this submission in front-end cycles; default: the
  // configured gpu.frontend.launch_latency. The aggregator, which is the
  // control processor itself, pays its own firmware cost instead (0 here).
  std::uint64_t launch_cycles = ~0ull;
  std::function<void(KernelState&, Tick end)> on_done;
  std::function<void(std::uint32_t group, Tick t)> on_workgroup_done;
};

class Dispatcher : public sc_core::sc_module {
 public:
  struct Params {
    std::string policy = "fifo";
    std::uint64_t launch_cycles = 0, dispatch_cycles = 1;
    static Params from(const Config& cfg);
  };
  Dispatcher(sc_core::sc_module_name name, std::vector<ComputeUnit*> cus, const Params& p, Clock clock);
  // Queue a launch. The returned state lives until the simulation ends.
  KernelState& submit(KernelLaunch launch, SubmitOptions opts = {});
  // Workgroups of `launch` resident at once on the whole (empty) GPU: the size
  // of a persistent kernel.
  std::uint64_t resident_capacity(const KernelLaunch& launch) const;
  // Called by a CU when a workgroup of `k` has completed at time t, or when
  // it freed resources (a parked wavefront's slot).
  void workgroup_finished(KernelState& k, std::uint32_t group, Tick t);
  void resources_freed(Tick t);
  const std::vector<std::unique_ptr<KernelState>>& kernels_submitted() const { return all_; }
  const Params& params() const { return p_; }
  // Kernels with workgroups still to dispatch, for diagnosis (empty if none).
  std::string describe_queue() const;

  // An agent that may submit work in any cycle while the CUs run (the
  // aggregator) holds this while it runs: the CUs then run ahead of SystemC
  // time only to the next cycle edge, so a workgroup placed at time t issues
  // from t and not from wherever a busy CU had run ahead to (which depends on
  // the quantum; docs/channels.md, "Dependence on the quantum").
  void hold_cycle_sync(bool on) { cycle_sync_ += on ? 1 : -1; }
  bool cycle_sync() const { return cycle_sync_ > 0; }

  Counter kernels, workgroups;

 private:
  void run();
  KernelState* choose(bool& blocked_head);
  bool place_one(KernelState& k);

  std::vector<ComputeUnit*> cus_;
  Params p_;
  Clock clock_;
  std::vector<KernelState*> queue_;  // submitted, not fully dispatched
  std::vector<std::unique_ptr<KernelState>> all_;
  sc_core::sc_event work_, freed_;
  std::size_t next_cu_ = 0;
  std::vector<Tick> accept_at_;  // per CU: when it accepts its next workgroup
  int cycle_sync_ = 0;
};

}  // namespace fg
