// SPDX-License-Identifier: Apache-2.0
// The aggregator (Orr et al., ISCA 2014, Secs. 3.1, 7.2, 8.3): firmware on the
// GPU's control core (ctrl/control_core.h), which has its own clock and its
// own L1 on the coherent L2. The firmware, the scheduler, is the C++ in run();
// every step charges the core instructions (at the core class's sustained
// IPC) and memory accesses through that L1 (overlapped up to the core class's
// memory-level parallelism), so the time the GPU waits for it comes out of
// the model. Each pass holds the core; another firmware may run between
// passes (time-sliced).
//
// One firmware pass:
//   1. poll: read the control tail of each channel the policy lists;
//   2. dispatch: for each, the predicate says how many ready CEs to launch;
//      a dispatch writes a 64-byte AQL-style packet through the L1 and
//      submits a consumer kernel (one 64-lane wavefront per workgroup) to the
//      front end, whose launch cost it has just paid;
//   3. free: read the done count of each channel's oldest block; a block whose
//      count reached the done-count granularity is reset and the data head
//      advances (space freed strictly in allocation order);
//   4. when no consumer is outstanding and nothing was dispatched, check that
//      every channel is empty (nothing reserved, ready or dispatched): then
//      the graph is done.
// Passes repeat back to back (the firmware spins); before each pass the
// aggregator brings SystemC time up to its own, so it sees what the CUs'
// synchronising operations (the producers' CAS publishes) did up to that
// simulated time and not what a CU running ahead did later.
//
// Core classes: ctrl.core (ctrl/control_core.h); the aggregator's instruction
// mix for the core's memory-level parallelism is its poll (poll instructions +
// the load).
//
// GPU time blocked on the aggregator (gpu-blocked time): time between start
// and done during which no consumer wavefront the aggregator launched was
// outstanding, by simulated completion times (docs/channels.md).
#pragma once

#include <cstdint>
#include <deque>
#include <map>
#include <memory>
#include <string>
#include <systemc>
#include <unordered_map>
#include <vector>

#include "channel/channel.h"
#include "ctrl/control_core.h"
#include "gpu/mechanism.h"
#include "gpu/task_metrics.h"
#include "sim/config.h"
#include "sim/stats.h"
#include "sim/time.h"
#include "yield/yield.h"

namespace fg {
class Dispatcher;
class MemPort;
class MemorySystem;
}  // namespace fg

namespace fg::agg {

using ctrl::CoreClass;

// What a scheduler sees in one pass.
struct View {
  std::uint32_t width = 64;  // wavefront width
  // Consumer wavefronts launched, not finished and not yielded (at the aggregator's time).
  std::uint64_t outstanding = 0;
  bool dispatched = false;  // something was dispatched earlier in this pass
};

// A scheduler: policy (which channels to poll, in which order) and predicate
// (how many ready CEs to dispatch). Workloads may supply their own
// (Aggregator::set_scheduler), as the paper's user-defined schedulers.
class Scheduler {
 public:
  virtual ~Scheduler() = default;
  virtual std::string name() const { return "default"; }
  // The channels to poll in this pass, in order. Default: all, in creation order.
  virtual void order(const std::vector<chan::Channel*>& all, std::vector<chan::Channel*>& out) { out = all; }
  // CEs of `c` to dispatch out of `ready`. Default (Sec. 3.1): whole
  // wavefronts of CEs; a partial wavefront only when nothing is outstanding
  // and nothing else was dispatched in this pass.
  virtual std::uint32_t predicate(const chan::Channel& c, std::uint32_t ready, const View& v);
  // The firmware's instructions per pass and per channel polled, given the
  // default scheduler's (aggregator.pass_instructions, poll_instructions): a
  // scheduler whose passes or predicates cost more adds its own.
  virtual std::uint32_t pass_instructions(std::uint32_t dflt) const { return dflt; }
  virtual std::uint32_t poll_instructions(std::uint32_t dflt) const { return dflt; }
  // Stop polling the rest of the order after a dispatch from `c`.
  virtual bool stop_after_dispatch(const chan::Channel& c) {
    (void)c;
    return false;
  }
};

// The mechanism "channels" (gpu/mechanism.h): the channels and the aggregator
// firmware that dispatches their consumers; it needs the control core and the
// yield engine.
class Aggregator : public sc_core::sc_module, public Mechanism {
 public:
  static constexpr const char* kName = "channels";
  struct Params {
    std::uint32_t pass_instructions = 33, poll_instructions = 25, dispatch_instructions = 46, free_instructions = 25,
                  restart_instructions = 24, check_instructions = 14;
    static Params from(const Config& cfg);
  };

  Aggregator(sc_core::sc_module_name name, const Params& p, MemorySystem& mem, ctrl::ControlCore& core,
             Dispatcher& dispatcher, std::uint32_t wave_width, yld::Engine* yield = nullptr);
  ~Aggregator() override;
  std::string diagnose() const override;
  std::vector<std::string> summary_lines() const override;

  // The control core's class as this firmware sees it (its MLP follows the
  // firmware's instruction mix) and its clock.
  const CoreClass& core() const { return fw_.core(); }
  const Clock& clock() const { return cp_.clock(); }
  ctrl::ControlCore& control_core() { return cp_; }
  ctrl::Firmware& firmware() { return fw_; }
  // The shared task metrics (tasks.channels.*): a CE is a task.
  void report_tasks(Gpu& g);
  // A channel in device memory (allocated and initialised here, outside
  // simulated time, like a host allocation). `key` names the config key or
  // workload parameter the spec came from, for error messages.
  chan::Channel& create_channel(chan::Spec spec, chan::Consumer consumer, const std::string& key);
  const std::vector<chan::Channel*>& channels() const { return channel_ptrs_; }
  void set_scheduler(std::unique_ptr<Scheduler> s);

  // Host side: start the firmware (at the current SystemC time) and wait
  // until every channel is empty and no consumer is outstanding.
  void start();
  void wait_done();
  bool running() const { return running_; }
  // What the aggregator is doing, for deadlock and watchdog messages.
  std::string where() const;

  Counter passes, dispatches, wavefronts, ces_dispatched, blocks_freed, restart_contexts, restarts;
  // Partly allocated blocks closed for a yielded wavefront (close_block) and the CEs they skipped.
  Counter blocks_closed, ces_skipped;
  Formula busy_ns, poll_ns, dispatch_ns, free_ns, restart_ns, check_ns, blocked_ns;
  // gpu_blocked_ns split by what the firmware was doing (Sec. 8.2.1).
  Formula blocked_poll_ns, blocked_dispatch_ns, blocked_free_ns, blocked_restart_ns, blocked_check_ns, blocked_other_ns;
  Formula run_ns, blocked_fraction;

 private:
  void run();
  void dispatch(chan::Channel& c, std::uint32_t n);
  void complete_until(Tick t);
  // Consumer wavefronts running: outstanding and not yielded.
  std::uint64_t consumers_running() const {
    return outstanding_ > yielded_.size() ? outstanding_ - yielded_.size() : 0;
  }
  // A consumer wavefront starts running (a dispatch: the activity `kind` in
  // progress since `from`).
  void start_running(std::uint64_t waves, int kind, Tick from);
  // The firmware did activity `kind` from `from` to now.
  void note(int kind, Tick from);
  // The GPU-blocked interval ending now, split by activity.
  void add_blocked(int kind = -1, Tick from = 0);
  void prune_segments();
  // Read new restart contexts from the restart channel (`tail`: its tail as polled).
  bool read_restart_contexts(std::uint32_t tail);
  // Restart the yielded wavefronts whose channels have room; true if any.
  bool restart_ready();
  // A yielded wavefront needs more room in `c` than it has, and the data
  // tail lies inside the oldest unfreed block with every CE below it done:
  // move the data tail to the block's end (a CAS, which a producer may win)
  // and free the block. `tail`: c's data tail as just loaded. True if freed.
  bool close_block(chan::Channel& c, std::uint32_t tail);
  [[noreturn]] void yield_deadlock();
  [[noreturn]] void scheduler_stall(const std::vector<std::uint32_t>& tails);
  void span(const char* what, Tick from);

  std::unique_ptr<TaskMetrics> tasks_;
  Params p_;
  ctrl::ControlCore& cp_;
  ctrl::Firmware& fw_;
  MemorySystem& mem_;
  Dispatcher& dispatcher_;
  std::uint32_t width_;
  std::unique_ptr<Scheduler> sched_;
  std::vector<std::unique_ptr<chan::Channel>> channels_;
  std::vector<chan::Channel*> channel_ptrs_;
  std::uint64_t packets_ = 0;  // the dispatch-packet ring (device memory)
  std::uint64_t packet_slot_ = 0;
  bool running_ = false;
  Tick started_ = 0, ended_ = 0;
  // Consumer wavefronts: launched, and the simulated completion times not yet
  // seen by the firmware (counted once the aggregator's time passes them).
  std::uint64_t outstanding_ = 0;
  std::multimap<Tick, chan::Channel*> completions_;
  // The yield engine, the restart channel's head, and the yielded wavefronts
  // the firmware tracks (Fig. 13, 4), in the order their contexts arrived.
  yld::Engine* yield_ = nullptr;
  std::uint32_t restart_head_ = 0;
  std::vector<yld::Restart> yielded_;
  std::unordered_map<std::uint32_t, chan::Channel*> kernel_channel_;  // consumer dispatches by kernel id
  bool recheck_ = false;  // room may have appeared for a yielded wavefront (a free or a new yield)
  Tick idle_since_ = 0;   // when the last outstanding wavefront completed (outstanding_ == 0)
  Tick blocked_ = 0;
  Tick activity_[5] = {};    // poll, dispatch, free, restart, check
  Tick blocked_by_[6] = {};  // the same and other
  struct Seg {
    Tick from, to;
    int kind;
  };
  std::deque<Seg> segs_;  // the firmware's recent activity, in time order
  int track_ = -1;
  std::vector<chan::Channel*> order_, cand_;
  std::vector<std::uint64_t> addrs_;
  std::vector<std::uint32_t> vals_;
  std::vector<chan::Channel*> rc_chans_;
  std::vector<std::uint64_t> rc_addrs_;
  std::vector<std::uint32_t> rc_vals_, rc_tails_;
  sc_core::sc_event start_ev_, done_ev_;
};

}  // namespace fg::agg
