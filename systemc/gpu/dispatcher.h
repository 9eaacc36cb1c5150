// SPDX-License-Identifier: Apache-2.0
// Kernel launches and the GPU front end: the kernel lifecycle.
//
// The dispatcher takes kernel launches from any front-end agent (the host,
// the aggregator, the cooperative scheduler) through one submit() interface,
// at the agent's own local time. A launch becomes visible to the dispatcher
// after the kernel launch latency; its workgroups are then placed on compute
// units that have room for the whole workgroup (slots, registers, LDS, a
// workgroup entry), one workgroup per CU per dispatch interval, round-robin
// over the CUs the kernel may use (SubmitOptions::cus: CU partitioning).
// Dispatch is occupancy-bound: a kernel with more workgroups than fit runs
// the rest only as resident ones end (a persistent kernel that waits for all
// its workgroups, e.g. at a grid barrier, must not exceed resident_capacity()).
//
// The launch policy (gpu.frontend.policy; LaunchPolicy, registered by name)
// orders the queued kernels:
//   fifo      in submission order; a kernel's workgroups wait for the one
//             before it to be fully dispatched (head-of-line blocking, as a
//             single in-order hardware queue)
//   priority  any queued kernel whose workgroup fits, highest priority first,
//             then submission order (no head-of-line blocking)
//
// The lifecycle of a running kernel (docs/compute-unit.md, "Kernel
// lifecycle"):
//   - a workgroup may end early: a unit's IssueContext::exit() retires the
//     wavefront without saving anything; from its first wavefront's exit the
//     workgroup no longer counts in the kernel's workgroup count;
//   - grow(): n more workgroups with given ids, dispatched as soon as there is
//     room, starting at a given entry with a small transmit block that their
//     wavefronts read through memory first;
//   - the current workgroup count and a lane's group id are device
//     operations (Lane::get_num_groups(), get_group_id()), right after any
//     resize;
//   - observers (FrontEndObserver) see kernels submitted, kernels waiting for
//     room, workgroups finished and kernels finished; a kernel carries one
//     extension (KernelExtension) for the mechanism that launched it;
//   - the kernel ends when its last workgroup has ended and none is left to
//     dispatch.
#pragma once

#include <cstdint>
#include <deque>
#include <functional>
#include <map>
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

struct KernelState;

// A mechanism's state attached to a kernel (SubmitOptions::ext, KernelState::ext<T>()).
struct KernelExtension {
  virtual ~KernelExtension() = default;
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

// Workgroups added to a running kernel (Dispatcher::grow).
struct GrowSpec {
  std::uint32_t count = 0;
  std::uint32_t first_group = 0;  // ids first_group .. first_group + count - 1
  // Where the new workgroups start (empty: the kernel's body). Its lanes may
  // read the transmit block with Lane::transmit<T>(offset).
  KernelBody entry;
  // The transmit block in device memory (written by the forking workgroup):
  // every wavefront of a new workgroup reads it (one coalesced load) before
  // its entry runs.
  std::uint64_t transmit_addr = 0;
  std::uint32_t transmit_bytes = 0;
  std::uint64_t at = ~0ull;  // absolute time of the request (default: SystemC time)
};

struct KernelState {
  KernelLaunch launch;
  std::uint32_t id = 0;  // submission order
  int priority = 0;
  // The kernel's current workgroup count (get_num_groups): the launch's,
  // plus grown, minus those that exited early.
  std::uint32_t num_groups = 0;
  std::uint32_t initial_groups = 0, next_group = 0;  // the launch's workgroups, the next to dispatch
  struct Grown {
    std::uint32_t id;
    std::shared_ptr<const GrowSpec> spec;
    Tick at;
  };
  std::deque<Grown> grown;     // grown, not yet dispatched
  std::uint32_t resident = 0;  // dispatched, not ended
  std::uint32_t dispatched = 0, groups_done = 0, groups_exited = 0, groups_grown = 0;
  std::uint64_t cu_mask = ~0ull;  // the CUs it may use (bit i: CU i)
  Tick submitted = 0;             // when the agent submitted it
  Tick visible = 0;               // submitted + launch latency
  Tick first_dispatch = 0, end = 0;
  std::uint64_t wavefronts = 0, instructions = 0;
  std::function<void(std::uint32_t group, Tick t)> on_workgroup_done;
  std::function<void(KernelState&, Tick end)> on_done;
  sc_core::sc_event done;
  bool finished = false;
  bool waiting_for_room = false;  // an observer was told it does not fit (until it places again)
  std::shared_ptr<KernelExtension> extension;
  template <class E>
  E* ext() const {
    return dynamic_cast<E*>(extension.get());
  }
  // Workgroups left to dispatch (the launch's and grown ones).
  bool has_pending() const { return next_group < initial_groups || !grown.empty(); }
  std::uint32_t pending() const { return initial_groups - next_group + static_cast<std::uint32_t>(grown.size()); }
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
  // The CUs the kernel may use (empty: all): two kernels can share the GPU side by side.
  std::vector<int> cus;
  std::shared_ptr<KernelExtension> ext;
};

// What an agent (a scheduler, a host agent) sees of the front end. Called
// from the process that caused the event, at the event's time `t`.
class FrontEndObserver {
 public:
  virtual ~FrontEndObserver() = default;
  virtual void kernel_submitted(KernelState& k, Tick t) { (void)k, (void)t; }
  // A visible kernel with workgroups left found no CU with room for one
  // (told once until it places a workgroup again).
  virtual void kernel_waiting(KernelState& k, Tick t) { (void)k, (void)t; }
  virtual void workgroup_finished(KernelState& k, std::uint32_t group, Tick t, bool exited) {
    (void)k, (void)group, (void)t, (void)exited;
  }
  virtual void kernel_finished(KernelState& k, Tick t) { (void)k, (void)t; }
};

// A launch policy: the order in which queued kernels place their next
// workgroup. Registered by name (RegisterLaunchPolicy); gpu.frontend.policy
// picks one; a mechanism may register its own.
class LaunchPolicy {
 public:
  virtual ~LaunchPolicy() = default;
  // Sort the kernels with workgroups left (given in submission order).
  virtual void order(std::vector<KernelState*>& kernels) const = 0;
  // Whether a kernel that cannot place a workgroup holds up the kernels after
  // it (one in-order queue), or they may go past it.
  virtual bool in_order() const = 0;
};

struct LaunchPolicyInfo {
  std::string name, description;
  std::function<std::unique_ptr<LaunchPolicy>()> make;
};
class LaunchPolicyRegistry {
 public:
  static LaunchPolicyRegistry& global();
  void add(LaunchPolicyInfo p);
  const LaunchPolicyInfo* find(const std::string& name) const;
  const std::map<std::string, LaunchPolicyInfo>& all() const { return all_; }

 private:
  std::map<std::string, LaunchPolicyInfo> all_;
};
struct RegisterLaunchPolicy {
  explicit RegisterLaunchPolicy(LaunchPolicyInfo p) { LaunchPolicyRegistry::global().add(std::move(p)); }
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
  // Grow running kernel `k` by spec.count workgroups (ids first_group ..),
  // dispatched as soon as there is room, ahead of the kernels queued after it.
  void grow(KernelState& k, GrowSpec spec);
  // Workgroups of `launch` resident at once on the whole (empty) GPU, or on
  // the CUs given: the size of a persistent kernel.
  std::uint64_t resident_capacity(const KernelLaunch& launch, const std::vector<int>& cus = {}) const;
  // Called by a CU when a workgroup of `k` has ended at time t (`exited`:
  // early, by IssueContext::exit()), or when it freed resources (a parked
  // wavefront's slot).
  void workgroup_finished(KernelState& k, std::uint32_t group, Tick t, bool exited = false);
  // Called by a CU when the first wavefront of a workgroup of `k` exits early:
  // the workgroup no longer counts in the kernel's workgroup count.
  void workgroup_exiting(KernelState& k);
  void resources_freed(Tick t);
  void add_observer(FrontEndObserver* o) { observers_.push_back(o); }
  void remove_observer(FrontEndObserver* o) { std::erase(observers_, o); }
  const std::vector<std::unique_ptr<KernelState>>& kernels_submitted() const { return all_; }
  const Params& params() const { return p_; }
  // Kernels with workgroups still to dispatch, for diagnosis (empty if none).
  std::string describe_queue() const;

  // An agent that may submit work in any cycle while the CUs run (the
  // aggregator) holds this while it runs: the CUs then run ahead of SystemC
  // time only to the next cycle edge, so a workgroup placed at time t issues
  // from about t (a CU asleep after issuing ahead when the hold began may
  // still be up to a quantum ahead once) and not from wherever a busy CU had
  // run ahead to (which depends on the quantum; docs/channels.md, "Dependence
  // on the quantum"). The dispatcher holds it itself while a visible kernel
  // has workgroups to place
  // (placing_: a CU has room now or accepts in a later cycle, or the kernel
  // waits for a CU to free room), for the same reason: the CUs fill over
  // several cycles while the first workgroups already run, and room frees
  // in any cycle (docs/compute-unit.md).
  void hold_cycle_sync(bool on) { cycle_sync_ += on ? 1 : -1; }
  bool cycle_sync() const { return cycle_sync_ > 0 || placing_; }

  Counter kernels, workgroups;

 private:
  void run();
  enum class Placed { Yes, NotNow, NoRoom };  // NotNow: a CU has room but accepts later
  Placed place_one(KernelState& k);
  std::uint64_t mask_of(const std::vector<int>& cus) const;

  std::vector<ComputeUnit*> cus_;
  Params p_;
  std::unique_ptr<LaunchPolicy> policy_;
  std::vector<FrontEndObserver*> observers_;
  Clock clock_;
  std::vector<KernelState*> queue_;  // submitted, not fully dispatched
  std::vector<std::unique_ptr<KernelState>> all_;
  sc_core::sc_event work_, freed_;
  std::size_t next_cu_ = 0;
  std::vector<Tick> accept_at_;      // per CU: when it accepts its next workgroup
  std::vector<KernelState*> order_;  // run()'s scratch: kernels with workgroups to place
  int cycle_sync_ = 0;
  bool placing_ = false;  // run(): a visible kernel has workgroups to place
};

}  // namespace fg
