// SPDX-License-Identifier: Apache-2.0
// Compute unit: SIMD units, wavefront slots, an issue stage, and its L1 port.
//
// Timing contract: one SC_THREAD interleaves all resident wavefronts
// (ARCHITECTURE.md section 2). At local time t it picks a ready wavefront by
// the issue policy (round-robin or greedy-then-oldest), issues one wavefront
// instruction through the operation's unit (gpu/op.h), holds the wavefront's
// SIMD for wavefront_width / simd_width cycles per instruction (units that do
// not use the SIMD, such as barrier, sleep and wait, do not), and makes the
// wavefront ready when the instruction's results are available. Up to
// `issue_width` instructions issue per cycle. It runs ahead of SystemC time up
// to the next quantum boundary; when nothing can issue it sleeps until the
// next ready time or until something arrives (a workgroup, a wake-up, a
// restore), whichever comes first, and looks at its slots again after every
// wait (no lost wake-ups).
//
// Occupancy: a workgroup is placed only if the CU has slots for all its
// wavefronts, their registers, its LDS and a workgroup entry
// (gpu.cu.max_workgroups). A finished wavefront keeps its slot until its last
// store completes.
//
// Blocking and parking (docs/compute-unit.md): a unit may block a wavefront
// (wake() releases it, from any process) or park it: its context is written
// to memory, its slot and registers are freed, and restore() later reads it
// back into a free slot of this CU (or another CU, for one-wavefront
// workgroups).
#pragma once

#include <array>
#include <bit>
#include <cstdint>
#include <deque>
#include <memory>
#include <string>
#include <vector>

#include <systemc>

#include "gpu/dispatcher.h"
#include "gpu/op.h"
#include "gpu/task_metrics.h"
#include "gpu/wavefront.h"
#include "sim/config.h"
#include "sim/stats.h"
#include "sim/time.h"

namespace fg {

class MemPort;
class Gpu;

class ComputeUnit : public sc_core::sc_module {
 public:
  struct Params {
    std::uint32_t simds = 4, simd_width = 16, wavefront_width = 64, slots = 40, max_workgroups = 40;
    std::uint64_t registers = 65536, lds_bytes = 65536;
    std::uint32_t issue_width = 1, lds_latency = 2, fence_latency = 0, alu_latency = 0, fp64_latency = 0,
                  chain_latency = 0;
    bool fence_invalidates_l1 = false;  // gpu.cu.fence_invalidates_l1
    bool static_stalls = false;
    bool greedy_then_oldest = false;
    bool sync_order = true, order_memory = false, coalesce_atomics = false;
    bool clock_seeded = false;  // gpu.cu.clock_start=seeded (the owner sets each CU's start)
    unsigned line = 64;
    unsigned sector = 0;  // gpu.sector
    static Params from(const Config& cfg);
  };

  ComputeUnit(sc_core::sc_module_name name, int index, const Params& p, Clock clock, MemPort& port,
              const std::string& stats_path);
  ~ComputeUnit() override;

  int index() const { return index_; }
  // The cycle counter's value at time 0 (gpu.cu.clock_start): device code's
  // clock() reads it plus the cycles since.
  std::uint64_t clock_start() const { return clock_start_; }
  void set_clock_start(std::uint64_t cycles) { clock_start_ = cycles; }
  void set_dispatcher(Dispatcher* d) { dispatcher_ = d; }
  // The GPU this CU belongs to: its mechanisms, for the units (IssueContext::gpu).
  void set_gpu(Gpu* g) { gpu_ = g; }
  Gpu& gpu() const;
  // Whether a workgroup of `k` fits now / on an empty CU; how many fit on an
  // empty CU.
  bool fits(const KernelState& k);
  // The earliest time resources this CU has released become visible to
  // fits() (kNever if none are pending).
  Tick next_release() const;
  bool fits_empty(const KernelState& k) const;
  std::uint32_t capacity(const KernelLaunch& k) const;
  // What sets capacity(): the least of the four limits (wavefront slots,
  // gpu.cu.max_workgroups, registers, LDS) and every one that gives it
  // (`binding`, a bit per Limit: on a tie, raising one setting alone does not
  // raise the capacity), the first of them in that order `limit()`; for
  // messages that name the settings to change.
  enum class Limit { kSlots, kWorkgroups, kRegisters, kLds };
  struct CapacityBound {
    std::uint32_t groups;
    unsigned binding;  // bit 1 << Limit for each limit equal to `groups`
    bool binds(Limit l) const { return binding >> static_cast<unsigned>(l) & 1u; }
    Limit limit() const { return static_cast<Limit>(std::countr_zero(binding)); }
  };
  CapacityBound capacity_bound(const KernelLaunch& k) const;
  // Start workgroup `group` of `k` here (`grow`: a workgroup added by
  // Dispatcher::grow, with its entry and transmit block).
  void place(KernelState& k, std::uint32_t group, std::shared_ptr<const GrowSpec> grow = nullptr);
  // Resident, blocked and parked wavefronts: (kind, description) per wavefront.
  std::vector<std::pair<std::string, std::string>> wavefront_states() const;
  const Params& params() const { return p_; }
  const Clock& clock() const { return clock_; }
  std::uint32_t waves_per_group(const KernelState& k) const;
  // Wavefront instructions (or global atomic lane operations) counted to a
  // mechanism's tag (gpu/task_metrics.h).
  std::uint64_t mechanism_counts(std::uint8_t tag, bool atomics) const {
    return tag < mech_instr_.size() ? (atomics ? mech_atomics_ : mech_instr_)[tag] : 0;
  }
  // Wavefront time (ps, summed over wavefronts) spent blocked in operations of
  // a mechanism's units or of its runtime's code (its tag), until woken.
  Tick mechanism_wait(std::uint8_t tag) const { return tag < mech_wait_.size() ? mech_wait_[tag] : 0; }
  UnitState* unit_state(const OpUnit& u) const {
    return u.id() < unit_state_.size() ? unit_state_[u.id()].get() : nullptr;
  }

  // Wake a blocked wavefront of this CU at absolute time `at` (from any
  // process). resume: its held lanes continue past the operation (the waker
  // has set their pending.result); otherwise they issue the operation again.
  void wake(const WaveHandle& h, Tick at, bool resume = true);
  // Restore a parked wavefront into this CU at absolute time `at`: it waits
  // for a free slot, then its context is read back and its held lanes continue.
  void restore(const WaveHandle& h, Tick at);
  // Context bytes saved when a wavefront of `k` is parked.
  std::uint64_t context_bytes(const KernelState& k, const Workgroup& wg) const;

  Counter wavefront_instructions, lane_ops, divergent_issues, barriers, wavefronts, workgroups, blocks, order_syncs,
      parks, exits, restores, park_bytes, restore_bytes;
  Average park_ns, restore_ns, wavefront_ns;
  Distribution simd_utilization;
  Formula peak_wavefronts;
  // Where the CU's cycles went (they add up to the cycles from the CU's start
  // to the end of the run): issuing an instruction; no wavefront could issue
  // because the next one waits for memory, for an earlier instruction or a
  // SIMD (dependency), at a barrier, blocked or parked; no wavefront resident.
  enum Stall { kIssuing, kMemory, kDependency, kBarrier, kBlocked, kIdle, kStalls };
  Formula cycles_issuing, cycles_memory, cycles_dependency, cycles_barrier, cycles_blocked, cycles_idle;
  // Charges [from, to) to `kind` and any uncharged time before `from` to
  // idle; time already charged is skipped (the CU's clock can go back when
  // work arrives: no cycle is counted twice).
  void account(Stall kind, Tick from, Tick to);
  double stall_cycles(Stall kind) const;

 private:
  friend class IssueContext;
  struct Wake {
    Wavefront* w;
    Tick at;
    bool resume;
  };
  struct Restore {
    std::unique_ptr<Wavefront> w;
    Tick at;
  };

  void run();
  void order_ties();
  // A wavefront that can issue at t, or nullptr; then, when `full`, `next` is
  // the earliest time one of the slots can (a wavefront becomes ready, a SIMD
  // frees, a draining or parking wavefront completes) and `why` the stall
  // category. Without `full` (the cycle has issued: the CU looks again a cycle
  // later) neither is set and a busy SIMD's slots are not looked at.
  Wavefront* pick(Tick t, Tick& next, Stall& why, bool full);
  void issue(Wavefront* w, Tick t, std::uint32_t cpi);
  void after_issue(Wavefront* w, Tick t);
  void finish(Wavefront* w, Tick t);
  void reap(Tick t);
  void retire(Wavefront* w);
  void start_park(Wavefront* w, Tick t, Tick issue_done);
  void complete_park(Wavefront* w);
  void process_wakes(Tick t);
  bool process_restores(Tick t);
  void release_barrier_if_complete(Workgroup& wg, Tick t);
  std::uint64_t regs_per_wave(const KernelState& k) const {
    return std::uint64_t{p_.wavefront_width} * k.launch.registers;
  }
  std::uint32_t free_slot() const;

  int index_;
  std::uint64_t clock_start_ = 0;
  std::array<std::uint64_t, kMaxMechanismTags> mech_instr_{}, mech_atomics_{};
  std::array<Tick, kMaxMechanismTags> mech_wait_{};
  Params p_;
  Clock clock_;
  CuTiming timing_;
  MemPort& port_;
  Dispatcher* dispatcher_ = nullptr;
  Gpu* gpu_ = nullptr;
  std::vector<std::unique_ptr<Workgroup>> workgroups_owned_;  // resident workgroups (declared before their wavefronts)
  std::vector<std::unique_ptr<Wavefront>> slots_;             // by slot; empty = free
  std::vector<Tick> slot_free_at_;                            // when the slot's last wavefront left it
  std::vector<WaveState> slot_state_;  // by slot: its wavefront's state (pick reads this, not the wavefront)
  // Every state change goes through here: it keeps slot_state_ in step.
  void set_state(Wavefront* w, WaveState s) {
    w->state = s;
    if (w->slot < slots_.size() && slots_[w->slot].get() == w) slot_state_[w->slot] = s, scan_[w->simd].valid = false;
  }
  // By SIMD d, words_per_simd_ words: bit k is set while slot d + k * simds
  // holds a wavefront (pick visits the occupied slots only).
  std::vector<std::uint64_t> occupied_;
  std::size_t words_per_simd_ = 1;
  void mark_slot(std::size_t s, bool on) {
    const std::size_t k = s / p_.simds;
    std::uint64_t& word = occupied_[(s % p_.simds) * words_per_simd_ + k / 64];
    const std::uint64_t bit = std::uint64_t{1} << (k % 64);
    word = on ? word | bit : word & ~bit;
    scan_[s % p_.simds].valid = false;
  }
  // What pick found when it last looked at all of a SIMD's slots; valid until
  // one of them changes (state, ready time, occupant) or the SIMD's free time
  // (which changes only at an issue from it, whose set_ready marks it stale).
  static constexpr std::size_t kNoSlot = ~std::size_t{0};
  struct SlotScan {
    Tick min_at = ~Tick{0}, first_at = ~Tick{0};
    std::size_t first = kNoSlot;
    bool any = false, barrier = false, blocked = false, draining = false, valid = false;
  };
  std::vector<SlotScan> scan_;    // by SIMD
  std::vector<Tick> slot_ready_;  // by slot: its wavefront's `ready` (pick reads this, not the wavefront)
  // Every write of a wavefront's `ready` goes through here: it keeps slot_ready_ in step.
  void set_ready(Wavefront* w, Tick t) {
    w->ready = t;
    if (w->slot < slots_.size() && slots_[w->slot].get() == w) slot_ready_[w->slot] = t, scan_[w->simd].valid = false;
  }
  std::vector<Tick> simd_free_;
  std::vector<std::unique_ptr<UnitState>> unit_state_;
  std::vector<std::unique_ptr<Wavefront>> parked_;  // parked here (state Parked)
  std::deque<Wake> wakes_;
  std::deque<Restore> restores_;
  std::uint32_t pending_waves_ = 0;  // wavefronts queued for restore (hold a reservation)
  std::uint64_t pending_regs_ = 0;
  std::uint32_t used_slots_ = 0, peak_slots_ = 0, groups_ = 0;
  std::uint64_t used_regs_ = 0, used_lds_ = 0;
  // Resources a retired or parked wavefront gives back at its (CU-local)
  // completion time, which may be ahead of SystemC time: the dispatcher sees
  // them only from that time on, so placement follows simulated-time order
  // and not the host order in which the CUs ran ahead (quantum-independent).
  struct Release {
    Tick at;
    std::uint64_t regs, lds;
    bool group;
  };
  std::vector<Release> releases_;
  Tick last_issue_ = 0;         // CU-local time of the last instruction issued
  unsigned tight_blocked_ = 0;  // wavefronts blocked with a wake-up in any cycle (IssueContext::block)
  Tick accounted_ = 0;          // time before this is charged to a category
  Tick stall_ticks_[kStalls] = {};
  void release(Tick at, std::uint64_t regs, std::uint64_t lds, bool group);
  void apply_releases(Tick upto);
  std::uint32_t draining_ = 0;  // wavefronts holding a slot until a time (draining, parking)
  std::uint32_t next_age_ = 0;
  // Round-robin issue: each SIMD has its own pointer (the last slot it
  // issued), and the SIMDs take turns. One CU-wide pointer starved slots when
  // an instruction holds its SIMD for many cycles (gpu.cu.simd_width=1: fib
  // livelocked from fib.n=21, a spinning CAS retry always found first).
  std::uint32_t last_simd_;
  std::vector<std::size_t> last_of_simd_;
  Wavefront* last_ = nullptr;
  std::vector<int> slot_tracks_;
  sc_core::sc_event wake_;
};

}  // namespace fg
