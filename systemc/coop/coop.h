// SPDX-License-Identifier: Apache-2.0
// Cooperative kernels (Sorensen, Evrard, Donaldson, FSE 2017): a kernel that
// gives workgroups back (offer_kill) and takes them again (request_fork), so a
// blocking algorithm can share the GPU with other work; the scheduler that
// decides, as firmware on the control core (docs/cooperative.md).
//
// The mechanism "coop" keeps the paper's scheduler context in device memory:
//   available   free workgroup slots (of the cooperative kernel's shape)
//   gathering   1 while the scheduler gathers slots for a launch (forks get none)
// and, per cooperative kernel, its communication channel:
//   m           the active workgroup count M (ids [0, M) are always contiguous)
//   to_kill     workgroups the scheduler asks back (offer_kill accepts while > 0)
// The device operations (units; workloads/runtime/coop.h wraps them in the
// paper's API) read and update these words through the issuing CU's port, so
// their checks cost what the prototype's do:
//   coop_kill   workgroup-level: every wavefront of the workgroup issues it;
//               the last to arrive reads M and to_kill; when the workgroup is
//               M-1 >= 1 and to_kill > 0 it is accepted: M, to_kill, available
//               are updated and the workgroup exits (IssueContext::exit)
//   coop_fork   workgroup-level: the last to arrive reads `gathering` and
//               `available`; k = min(available, N - M) new workgroups with ids
//               M .. M+k-1 (none while gathering) start at the kernel's entry
//               with the forking workgroup's thread 0's transmit block
//               (Dispatcher::grow)
//   coop_query  the workgroups the scheduler still needs back (to_kill)
// A workgroup-level operation reached by only some threads of the workgroup,
// or by its wavefronts at different calls, is a simulated fault (App. A: the
// workgroup is stuck).
//
// Host side: launch() starts a cooperative kernel with M = min(N, available)
// workgroups; run_task() gathers `share` slots for a non-cooperative kernel
// (setting to_kill, then waiting until enough are free), launches it on them
// and waits until it is done, returning the gather and execution times.
#pragma once

#include <cstdint>
#include <deque>
#include <map>
#include <memory>
#include <source_location>
#include <string>
#include <vector>

#include <systemc>

#include "ctrl/control_core.h"
#include "gpu/dispatcher.h"
#include "gpu/mechanism.h"
#include "gpu/op.h"
#include "gpu/task_metrics.h"
#include "sim/config.h"
#include "sim/stats.h"
#include "sim/time.h"

namespace fg {
class Gpu;
class MemorySystem;
}  // namespace fg

namespace fg::coop {

class Scheduler;

// The device operations (the runtime, workloads/runtime/coop.h, issues them).
const OpUnit& kill_unit();
const OpUnit& fork_unit();
const OpUnit& query_unit();

// A cooperative kernel's context (the kernel's extension).
class Kernel : public KernelExtension {
 public:
  std::uint32_t n = 0;               // the most workgroups it may have (N)
  std::uint64_t m = 0, to_kill = 0;  // its channel's words (device addresses)
  std::uint32_t transmit_limit = 0;
  KernelState* state = nullptr;
  Scheduler* scheduler = nullptr;
  // A workgroup-level operation in progress: the wavefronts that arrived.
  // A fork inside a resizing barrier (Sec. 4.2): the new workgroups join the
  // slaves waiting to be released, i.e. wait until the 32-bit word at `addr`
  // (the barrier's generation) is no longer `value`. addr 0: they start at once.
  struct Release {
    std::uint64_t addr = 0;
    std::uint32_t value = 0;
  };
  std::map<std::uint32_t, Release> join_release;  // by the forked workgroup's id
  struct Arrival {
    const OpUnit* unit = nullptr;
    const char* op = nullptr;  // its name in the runtime (offer_kill, request_fork)
    Site site;
    std::source_location caller;  // the kernel's call (its first wavefront's Lane::caller)
    std::uint32_t waves = 0;
    std::vector<WaveHandle> waiting;
    const void* transmit = nullptr;  // thread 0's transmit block (request_fork)
    std::uint32_t transmit_bytes = 0;
    Release release;            // thread 0's: where the new workgroups wait (a barrier's fork)
    bool exiting = false;       // offer_kill accepted: the woken wavefronts exit
    std::uint32_t to_exit = 0;  // of those, the ones still to issue it again
  };
  std::map<std::uint32_t, Arrival> arrivals;  // by workgroup id
  // M over time (Scheduler::note_m): its value since `m_since`, and the
  // workgroup-time before that (workgroups x ps).
  std::uint32_t m_now = 0;
  Tick m_since = 0;
  double m_area = 0;
};

// Times of one non-cooperative task (run_task).
struct TaskTimes {
  Tick requested = 0, gathered = 0, launched = 0, done = 0;
  double gather_ns() const { return tick_to_ns(gathered - requested); }
  double exec_ns() const { return tick_to_ns(done - launched); }
};

class Scheduler : public sc_core::sc_module, public Mechanism {
 public:
  static constexpr const char* kName = "coop";
  struct Params {
    bool reserve_slot = false;
    std::uint32_t transmit_limit = 64;
    std::uint32_t request_instructions = 40, poll_instructions = 8, launch_instructions = 40;
    static Params from(const Config& cfg);
  };
  Scheduler(sc_core::sc_module_name name, const Params& p, Gpu& gpu, ctrl::ControlCore& core);
  ~Scheduler() override;

  // ---- host side (from the host agent's thread) ----
  // Workgroup slots the cooperative kernels and tasks share: the resident
  // capacity of `shape` (one less with coop.reserve_slot).
  std::uint32_t slots(const KernelLaunch& shape);
  // A cooperative kernel's context and channel in device memory, for a kernel
  // that may have up to n workgroups (its device code needs the addresses
  // before it is launched: workloads/runtime/coop.h).
  std::shared_ptr<Kernel> prepare(std::uint32_t n);
  // Start it with M = min(n, free slots) workgroups at once (`launch.grid`
  // is ignored). Forked workgroups read their transmit block with
  // Lane::transmit.
  KernelState& launch(std::shared_ptr<Kernel> kernel, KernelLaunch launch);
  // Run a non-cooperative kernel of `workgroups` workgroups of the
  // cooperative kernels' shape on as many slots: the scheduler gathers them
  // (asking running cooperative kernels to give workgroups back), launches it
  // and waits until it is done. Blocks the calling thread.
  TaskTimes run_task(KernelLaunch task, std::uint32_t workgroups);
  // The M of a cooperative kernel now (its channel's word).
  std::uint32_t active(const KernelState& k) const;
  // Its M averaged over time from its submission to `end`.
  double active_mean(const KernelState& k, Tick end) const;

  // ---- the units' side ----
  MemorySystem& memory();
  std::uint64_t available_addr() const { return available_; }
  std::uint64_t gathering_addr() const { return gathering_; }
  const Params& params() const { return p_; }
  void note_m(const KernelState& k, std::uint32_t m, Tick t);
  // Transmit bytes the new workgroups' wavefronts read (the task metrics).
  void note_transmit_read(std::uint64_t bytes) { transmit_read_ += bytes; }

  std::string diagnose() const override;
  std::vector<std::string> summary_lines() const override;

  Counter launches, kills_offered, kills_accepted, forks_requested, forks_granted, workgroups_forked, tasks,
      transmit_bytes;
  Distribution fork_size;
  Average gather_ns, task_exec_ns;
  Formula gather_ns_max;
  // Wavefront time blocked in the cooperative runtime (summed over wavefronts):
  // the barriers' spins and the workgroup-level calls waiting for the rest of
  // their workgroup (ComputeUnit::mechanism_wait).
  Formula wait_ns;

 private:
  struct Request {
    KernelLaunch launch;
    std::uint32_t workgroups = 0;
    TaskTimes times;
    bool done = false;
  };
  void firmware();
  void serve(Request& r);
  std::uint32_t read(std::uint64_t addr) const;

  Params p_;
  Gpu& gpu_;
  ctrl::ControlCore& core_;
  ctrl::Firmware& fw_;
  std::uint64_t available_ = 0, gathering_ = 0;
  bool sized_ = false;
  std::uint32_t slots_ = 0;
  KernelLaunch shape_;               // the workgroup shape the slots are counted in
  std::uint32_t gathering_for_ = 0;  // slots the firmware waits for (0: not gathering)
  std::uint64_t started_groups_ = 0, transmit_read_ = 0;
  std::vector<Kernel*> kernels_;  // cooperative kernels launched (owned by their KernelStates)
  std::deque<Request*> requests_;
  sc_core::sc_event request_ev_, served_ev_;
  Tick max_gather_ = 0;
  int track_ = -1;
  std::unique_ptr<TaskMetrics> tasks_metrics_;
};

}  // namespace fg::coop
