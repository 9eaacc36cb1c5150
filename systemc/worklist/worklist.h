// SPDX-License-Identifier: Apache-2.0
// The hardware worklist inside the GPU model (Kim & Batten, Sec. III): per-core
// banks, work redistribution and the inter-core network, as one cycle-stepped
// unit clocked by the core clock, and the ISA operations that reach it through
// the device-operation seam (Table III):
//
//   co_await wl_init(l, base, n);    // wlinit: overflow buffer, n entries per core (hvu.h)
//   co_await wl_cfg(l, true);        // wlcfg: double-buffer mode
//   const std::uint32_t r = co_await wl_pull(l);   // wlpull: a work ID, kWait or kDone
//   r = co_await wl_pull_spin(l);    // the same, where WAIT leads straight back here
//   co_await wl_push(l, id);         // wlpush
//
// Lane i of a wavefront uses bank i mod worklist.lanes of its CU's core. The
// unit presents each cycle at most one access per bank (the bank's single
// port; lanes of a wavefront that share a bank go in successive cycles, in
// lane order) and steps the backend (worklist.backend: the golden model of
// models/hwwl or the Verilated RTL of rtl/hwwl, rtl_backend.h; the limit
// studies of ideal_backend.h). A wavefront whose pull returned WAIT on
// every lane is blocked and issues the pull again when one of its banks has
// work on its pull side or the system is empty (DONE). A push to a full bank
// goes to the overflow buffer through the virtualization unit (hvu.h) once
// wlinit has set one up; when that is full too (or there is none), it is the
// paper's hardware exception: exit 3.
//
// Loose timing: the operations are synchronising (sim.sync_order), so they
// reach the unit in simulated-time order; the unit samples requests in the
// middle of each cycle and steps every cycle while it holds work or
// requests, and catches up idle cycles when it wakes; a wavefront blocked
// on it is blocked tight (IssueContext::block), so its CU does not run
// ahead of a wake-up (docs/worklists.md).
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <unordered_map>
#include <vector>

#include <systemc>

#include "gpu/kernel.h"
#include "gpu/mechanism.h"
#include "gpu/op.h"
#include "gpu/task_metrics.h"
#include "sim/config.h"
#include "sim/stats.h"
#include "sim/time.h"
#include "worklist/backend.h"
#include "worklist/hvu.h"

namespace fg {
class ComputeUnit;
class MemPort;
}  // namespace fg

namespace fg::wl {

inline constexpr std::uint32_t kWait = 0xfffffffeu;
inline constexpr std::uint32_t kDone = 0xffffffffu;

// The mechanism "worklist" (gpu/mechanism.h): built when a run uses it.
class Worklist : public sc_core::sc_module, public Mechanism {
 public:
  static constexpr const char* kName = "worklist";
  // `wave_file`: the rtl backend's waveform (fgsim --vcd; empty: none).
  Worklist(sc_core::sc_module_name name, const Config& cfg, unsigned cores, const Clock& clock,
           const std::string& wave_file = "");
  ~Worklist() override;
  std::string diagnose() const override;
  // Work IDs left in the unit or its overflow buffer when the run ended: work
  // the kernels never did (a fault).
  void end_of_run() override;
  // The --vcd waveform completed; its write error a UserError naming --vcd.
  void close_outputs() override;
  // The shared task metrics (tasks.worklist.*), summed over the GPU's CUs.
  void report_tasks(Gpu& g);

  // The virtualization unit's memory port (to the L2).
  void set_port(MemPort* port) { hvu_.set_port(port); }
  void set_core_port(unsigned core, MemPort* port) { hvu_.set_core_port(core, port); }
  unsigned lanes() const { return lanes_; }
  bool double_buffered() const { return double_buf_; }
  // ---- the operations' side (at issue; SystemC time is the issue time) ----
  void configure(bool double_buf);
  // wlinit: the overflow buffer (entries per core; 0: none).
  void init_overflow(std::uint64_t base, std::uint64_t entries);
  // A wavefront's pull or push: lanes (wavefront lane ids) with their Lane
  // objects (results go to pending.result) and push IDs. The wavefront is
  // blocked by the caller; the unit wakes it.
  void submit(IssueContext& c, bool push);
  // ---- the host's side ----
  // End of a kernel in double-buffer mode: the partitions swap (the banks
  // whose pull side is empty; the paper swaps after every kernel call).
  void kernel_done();
  // Work IDs inside (banks, both partitions, network).
  unsigned work_inside() const;
  std::string where() const;
  // Anything to say in a deadlock diagnosis: work inside, requests, blocked
  // waiters or (single-buffer mode) active lanes.
  bool in_use() const;

 private:
  struct Request;
  void run();
  void step_cycle(bool idle);
  void skip_cycles(std::uint64_t n);  // n idle cycles in a fixpoint
  static constexpr std::uint64_t kNever = ~std::uint64_t{0};
  std::uint64_t next_event() const;            // first cycle from cycle_ that may move something (kNever: none)
  std::uint64_t first_cycle_at(Tick t) const;  // first cycle whose sample time is at or after t
  void deliver(Request& r, Tick at);
  Tick sample_time(std::uint64_t cycle) const { return cycle * clock_.period() + clock_.period() / 2; }
  // The fixpoint rule (docs/worklists.md, "Fast-forward"): the banks' counts
  // have not moved for the backend's window of input-free cycles.
  bool still() const { return window_ != 0 && quiet_cycles_ >= window_; }

  unsigned cores_, lanes_, depth_ = 0;
  std::uint32_t id_limit_;
  std::uint64_t latency_;
  Clock clock_;
  std::unique_ptr<Backend> backend_;
  bool wave_ = false;  // the backend writes a waveform (--vcd)
  bool double_buf_ = false, swap_ = false;
  std::uint64_t inside_ = 0;  // granted pushes minus pulled IDs (the unit conserves work IDs)
  std::uint64_t peak_inside_ = 0;
  Tick wait_ticks_ = 0;      // wavefront time blocked on (or spinning through) all-WAIT pulls
  std::uint64_t cycle_ = 0;  // next cycle to step
  std::uint64_t quiet_cycles_ = 0, settle_ = 0;
  std::uint64_t greedy_skipped_ = 0;   // cycles skipped since the last step (their greedy bits: the next step's)
  bool refills_stuck_ = false;         // the last stepped cycle was quiet and refused every refill it offered
  std::vector<unsigned> last_counts_;  // pull-side counts after the last stepped cycle
  std::vector<unsigned> counts_;       // step_cycle() scratch
  std::vector<bool> core_has_work_;    // per core: a bank's count in last_counts_ is not zero
  struct Presented {                   // a lane request that took its bank's port this cycle
    Request* r;
    std::size_t i;  // lane id
    std::size_t bank;
  };
  std::vector<Presented> presented_;  // step_cycle() scratch
  std::vector<bool> used_;
  std::vector<unsigned> ports_taken_;  // per core, this cycle
  std::uint64_t window_ = 0;           // fast-forward: Backend::fixpoint_window(), 0 when off
  bool skip_ok_ = false;               // the unit slept in a fixpoint
  std::uint64_t interval_ = 1;         // redistribution interval
  bool redistributes_ = false;         // a scheme with redistribution ticks
  // Requests not yet answered, per core in submission order (a core's
  // banks' ports are its own), the lanes left in each core's, and how many
  // in all.
  std::vector<std::vector<std::unique_ptr<Request>>> queue_;
  std::vector<std::size_t> queue_left_;
  std::size_t pending_ = 0;
  std::uint64_t next_seq_ = 0;  // submission order
  std::vector<std::unique_ptr<Request>> waiting_;
  struct Block {  // step_cycle() scratch: a request's presented lanes
    std::uint64_t seq;
    std::size_t begin, end;
  };
  std::vector<Block> blocks_;
  std::vector<Presented> ordered_;
  std::vector<Request*> finished_;
  // Answered requests, kept for reuse (a spinning wavefront submits one per
  // pull: their vectors keep their capacity).
  std::vector<std::unique_ptr<Request>> free_;
  std::unique_ptr<Request> new_request();
  void recycle(std::unique_ptr<Request> r);
  unsigned lane_mask_ = 0;  // lanes_ - 1 (a power of two): a lane's bank
  // The banks (one bit each, lanes_ <= 64) of the lanes in `lanes` (a mask of lane ids).
  std::uint64_t bank_mask(std::uint64_t lanes) const {
    if (lanes_ >= 64) return lanes;
    std::uint64_t m = 0;
    for (; lanes; lanes >>= lanes_) m |= lanes & ((std::uint64_t{1} << lanes_) - 1);
    return m;
  }
  bool masks_ = false;                    // lanes_ <= 64: requests keep a mask of the banks they need
  std::vector<std::uint64_t> core_used_;  // per core, the banks whose port is taken this cycle
  // Single-buffer mode: the lanes whose last pull returned a work ID (they
  // may still push). The paper's rule (Sec. III-C): DONE only when there is
  // no more work in the system and all threads are waiting; while a lane is
  // active the unit answers WAIT instead (done_holds).
  // Both modes: the lanes holding a work ID (the livelock rule of spinning waiters).
  // Per wavefront, a mask of its active lanes (by lane id; a wavefront is at
  // most 64 lanes wide), and how many lanes are active in all: a pull finds
  // its wavefront's entry once instead of erasing each lane from a set.
  std::unordered_map<const void*, std::uint64_t> active_waves_;
  std::size_t active_lanes_ = 0;
  void activate(const void* wave, const Lane& l);
  // Spinning waiters (worklist.waiters = spin): per wavefront, when its first
  // all-WAIT pull was submitted (for the wait time); cycles in which nothing
  // moved while every lane waited, and the limit that makes it a livelock.
  bool spin_ = true;
  std::unordered_map<const void*, Tick> spin_since_;
  std::uint64_t stuck_cycles_ = 0, livelock_ = 0;
  // Fig. 8 (worklist.activity_interval > 0): each hardware thread's state in
  // the running kernel, from its last pull, and how many are in each.
  enum class Activity : std::uint8_t { Active, Waiting, Done };
  std::unordered_map<const Lane*, Activity> activity_;
  std::uint64_t n_activity_[3] = {0, 0, 0};
  std::uint64_t activity_cycle_ = 0;  // of the last change (changes come in time order)
  void set_activity(const Lane& l, Activity a, std::uint64_t cycle);
  void record_activity(std::uint64_t cycle);
  sc_core::sc_event wake_;
  Backend::In in_;
  Backend::Out out_;
  bool hvu_allowed_ = true;  // the limit-study schemes have no banks to virtualize

 public:
  Counter pulls, pull_ids, pull_waits, pull_dones, pushes, port_retries, wait_blocks, wait_spins, cycles, idle_cycles,
      skipped_cycles, done_holds;
  // Per core (gpu.worklist.coreN.*): where work IDs are pushed, spilled and
  // pulled; a core's pulls minus its pushes is what redistribution and the
  // network brought it.
  struct CoreCounters {
    explicit CoreCounters(unsigned core);
    Counter pushes, spills, pull_ids, greedy_cycles;
  };
  std::vector<std::unique_ptr<CoreCounters>> per_core;
  // Fig. 8, only with worklist.activity_interval > 0.
  std::unique_ptr<Counter> hw_threads;
  std::unique_ptr<Series> active_threads, waiting_threads, done_threads;

 private:
  Hvu hvu_;
  std::unique_ptr<TaskMetrics> tasks_;
};

// Device functions (kernels co_await them).
OpAwaiter<std::uint32_t> wl_pull(Lane& l, Lane::Loc loc = Lane::Loc::current());
// wlpull where the kernel's WAIT path is empty: a lane that gets WAIT here
// does nothing before it issues this same pull again (the pull at the bottom
// of a pull loop: `for (;;) { if (u == kDone) break; if (u != kWait) visit(u);
// u = co_await wl_pull_spin(l); }`). The unit then answers a pull that got
// WAIT on every lane by letting the lanes issue it again without resuming
// them, which is what their code would do: the same instruction, lane
// accesses and cycles, without running the lanes' coroutines. Only a kernel
// for which that holds may use it.
OpAwaiter<std::uint32_t> wl_pull_spin(Lane& l, Lane::Loc loc = Lane::Loc::current());
OpAwaiter<void> wl_push(Lane& l, std::uint32_t id, Lane::Loc loc = Lane::Loc::current());
OpAwaiter<void> wl_cfg(Lane& l, bool double_buf, Lane::Loc loc = Lane::Loc::current());
OpAwaiter<void> wl_init(Lane& l, std::uint64_t base, std::uint64_t entries, Lane::Loc loc = Lane::Loc::current());

}  // namespace fg::wl
