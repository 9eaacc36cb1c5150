// SPDX-License-Identifier: Apache-2.0
// The aggregator (Orr et al., ISCA 2014, Secs. 3.1, 7.2, 8.3): the GPU's
// control processor as a programmable core with its own clock and its own L1
// on the coherent L2. Its firmware, the scheduler, is the C++ in run(); every
// step charges instructions (at the core class's sustained IPC) and memory
// accesses through that L1 (overlapped up to the core class's memory-level
// parallelism), so the time the GPU waits for it comes out of the model.
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
// Core classes (aggregator.core, Table 5 descriptions; derivation in
// docs/channels.md): sustained IPC = min(issue width, sqrt(window)) by the
// square-root law of instruction-level parallelism, window = min(IQ, ROB);
// loads in flight = min(load queue, max(1, ROB / instructions per poll)).
// `simple` is not pipelined: 5 cycles per instruction, one access at a time.
//
// GPU time blocked on the aggregator (gpu-blocked time): time between start
// and done during which no consumer wavefront the aggregator launched was
// outstanding, by simulated completion times (docs/channels.md).
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <systemc>
#include <unordered_map>
#include <vector>

#include "channel/channel.h"
#include "gpu/mechanism.h"
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

struct CoreClass {
  std::string name;
  unsigned width = 1, iq = 1, rob = 1, lq = 1, sq = 1;
  bool pipelined = true;
  double ipc = 1.0;  // sustained instructions per cycle (derived)
  unsigned mlp = 1;  // loads in flight (derived)
  // One of simple, light-ooo-2, ooo-2, ooo-4; `instructions_per_load` is the
  // firmware's instruction mix (poll instructions + the load).
  static CoreClass named(const std::string& name, unsigned instructions_per_load);
};

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
  // Stop polling the rest of the order after a dispatch from `c`.
  virtual bool stop_after_dispatch(const chan::Channel& c) {
    (void)c;
    return false;
  }
};

// The mechanism "aggregator" (gpu/mechanism.h): the control processor with its
// channels; it needs the yield engine.
class Aggregator : public sc_core::sc_module, public Mechanism {
 public:
  static constexpr const char* kName = "aggregator";
  struct Params {
    std::string core = "ooo-2";
    double mhz = 2000;
    std::uint32_t pass_instructions = 16, poll_instructions = 8, dispatch_instructions = 40, free_instructions = 8,
                  restart_instructions = 24;
    static Params from(const Config& cfg);
  };

  Aggregator(sc_core::sc_module_name name, const Params& p, MemorySystem& mem, MemPort& port, Dispatcher& dispatcher,
             std::uint32_t wave_width, yld::Engine* yield = nullptr);
  ~Aggregator() override;
  std::string diagnose() const override;
  std::vector<std::string> summary_lines() const override;

  const CoreClass& core() const { return core_; }
  const Clock& clock() const { return clock_; }
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

  Counter passes, dispatches, wavefronts, ces_dispatched, blocks_freed, loads, stores, restart_contexts, restarts;
  Formula busy_ns, poll_ns, dispatch_ns, free_ns, restart_ns, check_ns, blocked_ns, run_ns, blocked_fraction;

  // ---- the firmware's cost model (from the aggregator's own thread, or a
  // scheduler's hooks; each advances the aggregator's local time) ----
  // n instructions at the core's sustained IPC.
  void instr(std::uint32_t n);
  // Independent loads of 32-bit words through the aggregator's L1, issued
  // one per instruction slot, at most the core's MLP in flight; each takes
  // effect at its simulated time.
  void load_words(const std::vector<std::uint64_t>& addrs, std::vector<std::uint32_t>& out);
  std::uint32_t load_word(std::uint64_t addr);
  // A store (posted on a pipelined core; waited for on `simple`).
  void store_word(std::uint64_t addr, std::uint32_t v);
  Tick local_time() const { return t_; }

 private:
  void run();
  void sync();
  // Wait until SystemC time reaches t (if it is behind); returns SystemC time.
  Tick sync_to(Tick t);
  void dispatch(chan::Channel& c, std::uint32_t n);
  void complete_until(Tick t);
  // Consumer wavefronts running: outstanding and not yielded.
  std::uint64_t consumers_running() const {
    return outstanding_ > yielded_.size() ? outstanding_ - yielded_.size() : 0;
  }
  // A consumer wavefront starts running (a dispatch or a restart).
  void start_running(std::uint64_t waves);
  // Read new restart contexts from the restart channel (`tail`: its tail as polled).
  bool read_restart_contexts(std::uint32_t tail);
  // Restart the yielded wavefronts whose channels have room; true if any.
  bool restart_ready();
  [[noreturn]] void yield_deadlock();
  [[noreturn]] void scheduler_stall(const std::vector<std::uint32_t>& tails);
  void span(const char* what, Tick from);

  Params p_;
  CoreClass core_;
  Clock clock_;
  MemorySystem& mem_;
  MemPort& port_;
  Dispatcher& dispatcher_;
  std::uint32_t width_;
  std::unique_ptr<Scheduler> sched_;
  std::vector<std::unique_ptr<chan::Channel>> channels_;
  std::vector<chan::Channel*> channel_ptrs_;
  std::uint64_t packets_ = 0;  // the dispatch-packet ring (device memory)
  std::uint64_t packet_slot_ = 0;
  Tick t_ = 0;  // the aggregator's local time (ps)
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
  Tick activity_[5] = {};  // poll, dispatch, free, restart, check
  int track_ = -1;
  std::vector<chan::Channel*> order_, cand_;
  std::vector<std::uint64_t> addrs_, one_addr_;
  std::vector<Tick> done_;
  std::vector<std::uint32_t> one_val_;
  std::vector<std::uint32_t> vals_;
  std::vector<chan::Channel*> rc_chans_;
  std::vector<std::uint64_t> rc_addrs_;
  std::vector<std::uint32_t> rc_vals_;
  sc_core::sc_event start_ev_, done_ev_;
};

}  // namespace fg::agg
