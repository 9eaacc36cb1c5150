// SPDX-License-Identifier: Apache-2.0
// Device operations as units: the seam every mechanism plugs into.
//
// A device operation (load, alu, barrier, a channel enqueue, wlpull, offer_kill,
// spawn) is one OpUnit: an object that says how the operation issues, what it
// costs and what it counts. A unit is a namespace-scope object (it registers
// itself when constructed, before any GPU is built); a device function makes
// lanes wait at it with Lane::op(). Nothing else changes: no enum, no switch.
//
//   // A unit: one issue cycle, then every active lane gets its lane id + 1.
//   class PlusOne final : public OpUnit {
//    public:
//     PlusOne() : OpUnit("plus_one") {}
//     void issue(IssueContext& c) const override {
//       c.for_each([](Lane& l) { l.pending.result = l.lane_id() + 1; });
//     }
//   };
//   const PlusOne kPlusOne;
//   // The device function kernels call (co_await plus_one(l)).
//   OpAwaiter<std::uint32_t> plus_one(Lane& l, Lane::Loc loc = Lane::Loc::current()) {
//     return l.op<std::uint32_t>(kPlusOne, loc, [](PendingOp&) {});
//   }
//
// When a wavefront instruction issues, the engine gathers the lanes waiting at
// the same site (SIMT), builds an IssueContext and calls the unit's issue().
// The unit does the functional work (lanes' pending.result), sets the timing
// (complete, instructions, outstanding) and chooses what happens to the lanes:
// resume (default), wait at the workgroup barrier, block until another module
// wakes the wavefront, or park the wavefront (free its slot, keep its state).
// Per-CU state (statistics, queues) comes from make_state(); a unit reaches its
// own with c.state<T>().
#pragma once

#include <algorithm>
#include <bit>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include <systemc>

#include "gpu/kernel.h"
#include "sim/time.h"

namespace fg {

class ComputeUnit;
class Gpu;
class MemPort;
class Wavefront;
class IssueContext;

// Per-CU state of a unit: its statistics (registered under the CU's stat
// path), its queues.
struct UnitState {
  virtual ~UnitState() = default;
};

class OpUnit {
 public:
  // Synchronising operations (atomics, fences, acquire loads, release stores)
  // take effect in simulated-time order: with sim.sync_order on, the CU
  // brings SystemC time up to its local time before it issues one
  // (docs/memory.md, "Synchronisation order").
  enum class Order : std::uint8_t { Relaxed, Synchronising };
  // `memory`: the operation accesses global memory (with sim.order_memory on,
  // it is ordered like a synchronising one: under moesi every access can
  // change directory state).
  explicit OpUnit(std::string name, Order order = Order::Relaxed, bool memory = false);
  OpUnit(const OpUnit&) = delete;
  OpUnit& operator=(const OpUnit&) = delete;
  virtual ~OpUnit();
  const std::string& name() const { return name_; }
  std::uint32_t id() const { return id_; }
  bool synchronising() const { return order_ == Order::Synchronising; }
  bool memory() const { return memory_; }
  // The mechanism this operation belongs to (its instructions count to it:
  // gpu/task_metrics.h); 0: the work itself.
  std::uint8_t mechanism() const { return mechanism_; }

  virtual void issue(IssueContext& c) const = 0;
  // Called once per CU when the CU is built (units in name order, so the
  // statistics' order does not depend on link order).
  virtual std::unique_ptr<UnitState> make_state(const std::string& cu_stats_path) const {
    (void)cu_stats_path;
    return nullptr;
  }

 protected:
  // A mechanism's operation (mechanism_tag()).
  void belongs_to(std::uint8_t mechanism) { mechanism_ = mechanism; }

 private:
  std::string name_;
  std::uint8_t mechanism_ = 0;
  std::uint32_t id_;
  Order order_;
  bool memory_;
};

// Every registered unit (by id) and by name.
class OpRegistry {
 public:
  static OpRegistry& global();
  std::uint32_t add(const OpUnit* u);
  void remove(const OpUnit* u);
  const std::vector<const OpUnit*>& by_id() const { return units_; }
  std::vector<const OpUnit*> by_name() const;
  const OpUnit* find(const std::string& name) const;

 private:
  std::vector<const OpUnit*> units_;
};

// The CU's timing constants, as a unit needs them.
struct CuTiming {
  Tick cycle = 1000;                  // CU clock period (ps)
  std::uint32_t issue_cycles = 4;     // cycles a wavefront instruction holds its SIMD (width / SIMD width)
  std::uint32_t lds_cycles = 2;       // LDS access latency
  std::uint32_t fence_cycles = 0;     // a fence's round trip after the wavefront's stores (gpu.cu.fence_latency)
  bool fence_invalidates_l1 = false;  // such a fence invalidates the CU's L1 (gpu.cu.fence_invalidates_l1)
  std::uint32_t alu_cycles = 0;       // an alu result's latency from issue (gpu.cu.alu_latency; 0: busy())
  std::uint32_t fp64_cycles = 0;      // an FP64 result's latency from issue (gpu.cu.fp64_latency; 0: busy())
  std::uint32_t chain_cycles = 0;     // a chained integer result's latency from issue (gpu.cu.chain_latency; 0: busy())
  bool static_stalls = false;         // alu_sched charges its code's static schedule (gpu.cu.static_stalls)
  unsigned line = 64;                 // cache line (B)
  unsigned sector = 0;                // sector (B; gpu.sector, 0: whole lines): a load asks for its lanes' sectors
  std::uint32_t width = 64;           // wavefront width
  bool coalesce_atomics = false;      // one request per line for a wavefront's atomics (gpu.cu.coalesce_atomics)
  Tick busy() const { return cycle * issue_cycles; }
  // The time from one alu instruction's issue to the wavefront's next: its
  // SIMD time, or its result's latency (one of the *_cycles above) when that
  // is longer.
  Tick step(std::uint32_t latency_cycles) const { return std::max<Tick>(busy(), cycle * latency_cycles); }
};

// A blocked or parked wavefront, as the module that will wake or restore it
// holds it. Valid until it is woken / restored.
struct WaveHandle {
  ComputeUnit* cu = nullptr;
  Wavefront* wave = nullptr;
  explicit operator bool() const { return wave != nullptr; }
};

// One issuing wavefront instruction.
class IssueContext {
 public:
  enum class After : std::uint8_t { Resume, Barrier, Block, Park, Exit, SyncWave };

  IssueContext(ComputeUnit& cu, Wavefront& w, std::vector<Lane>& lanes, std::uint64_t mask, Tick issue,
               const CuTiming& timing, MemPort& port, UnitState* state)
      : cu_(cu), wave_(w), lanes_(lanes), mask_(mask), issue_(issue), timing_(timing), port_(port), state_(state) {
    complete = issue + timing.busy();
  }

  // The issuing lanes (active mask), in lane order.
  std::uint64_t mask() const { return mask_; }
  std::uint32_t active() const { return static_cast<std::uint32_t>(std::popcount(mask_)); }
  Lane& lane(std::uint32_t i) { return lanes_[i]; }
  Lane& first() { return lanes_[std::countr_zero(mask_)]; }
  template <class F>
  void for_each(F&& f) {
    for (std::uint64_t m = mask_; m; m &= m - 1) f(lanes_[std::countr_zero(m)]);
  }
  std::vector<Lane>& lanes() { return lanes_; }

  Tick issue() const { return issue_; }  // absolute (ps)
  // Local time offset of `t` from SystemC time, for MemPort calls.
  static sc_core::sc_time local(Tick t) { return sc_core::sc_time::from_value(t - sc_core::sc_time_stamp().value()); }
  const CuTiming& timing() const { return timing_; }
  MemPort& port() { return port_; }
  ComputeUnit& cu() { return cu_; }
  // The GPU the CU belongs to: its mechanisms (c.gpu().get<M>("op")).
  Gpu& gpu();
  Wavefront& wave() { return wave_; }
  template <class S>
  S& state() {
    return *static_cast<S*>(state_);
  }

  // ---- what the unit decides (defaults: one issue, results after it) ----
  Tick complete;                   // when the wavefront may issue its next instruction (absolute)
  std::uint64_t instructions = 1;  // issue slots used (alu(n): n)
  bool uses_simd = true;           // holds its SIMD for instructions x issue cycles
  bool waits_memory = false;       // the wavefront then waits for memory (stall breakdown); memory units set it
  Tick outstanding = 0;            // completion of effects that do not hold the wavefront (stores)
  std::uint32_t mem_requests = 0;  // memory requests sent
  // Utilization levels when lanes are active for different numbers of issue
  // slots: (active lanes, slots). Empty: all active for `instructions`.
  std::vector<std::pair<std::uint32_t, std::uint64_t>> levels;

  // The lanes wait at the workgroup barrier until every wavefront arrives.
  void wait_at_barrier() { after_ = After::Barrier; }
  // The lanes wait until every live lane of the wavefront has arrived at a
  // wavefront barrier (Lane::sync_wave); the last group's arrival resumes all.
  void wait_at_sync_wave() { after_ = After::SyncWave; }
  // The lanes stay suspended at this operation and the wavefront is blocked
  // until ComputeUnit::wake(). `what` names the condition for diagnostics.
  // `tight`: the wake-up may come in any cycle (a cycle-stepped unit answers,
  // or another CU's write ends a spin);
  // while such a wavefront is blocked its CU runs ahead of SystemC time by at
  // most to the next cycle edge instead of the quantum, so when it picks a
  // wavefront at its local time t, SystemC time has passed t less one cycle
  // and every wake-up made before then has arrived. The woken wavefront is
  // ready at the later of the wake-up's time and the CU's local time; a
  // waker whose wake-up may fall in the cycle the CU is picking in wakes for
  // a cycle later (the spin unit: a poll sees a write in the cycle after it),
  // so that the ready time does not depend on where the CU's syncs fell.
  WaveHandle block(std::string what, bool tight = false);
  bool tight() const { return tight_; }
  // The wavefront is parked: its context (the kernel's context size) is
  // written to `spill` through the CU's memory port, then its slot and
  // registers are freed. ComputeUnit::restore() brings it back; the lanes then
  // resume past this operation.
  WaveHandle park(std::uint64_t spill, std::string what);

  // The wavefront ends here: every live lane (also lanes diverged elsewhere)
  // is finished without resuming and nothing is saved; it retires once its
  // stores are done, and its workgroup counts as exited early: from the first
  // of its wavefronts to exit it no longer counts in the kernel's workgroup
  // count (the others must exit too).
  void exit() { after_ = After::Exit; }

  After after() const { return after_; }
  const std::string& what() const { return what_; }
  std::uint64_t spill() const { return spill_; }

 private:
  ComputeUnit& cu_;
  Wavefront& wave_;
  std::vector<Lane>& lanes_;
  std::uint64_t mask_;
  Tick issue_;
  const CuTiming& timing_;
  MemPort& port_;
  UnitState* state_;
  After after_ = After::Resume;
  std::string what_;
  bool tight_ = false;
  std::uint64_t spill_ = 0;
};

}  // namespace fg
