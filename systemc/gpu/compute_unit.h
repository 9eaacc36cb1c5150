// Compute unit: SIMD units, wavefront slots, an issue stage, and its L1 port.
//
// Timing contract: one SC_THREAD interleaves all resident wavefronts
// (ARCHITECTURE.md section 2). At local time t it picks a ready wavefront by
// the issue policy (round-robin or greedy-then-oldest), issues one wavefront
// instruction through the wavefront engine, holds the wavefront's SIMD for
// wavefront_width / simd_width cycles per instruction, and makes the wavefront
// ready when the instruction's results are available (loads and atomics wait
// for memory; stores do not). Up to `issue_width` instructions issue per
// cycle. It syncs with SystemC only when its quantum is used up or nothing is
// ready. Occupancy: a workgroup is placed only if the CU has slots for all its
// wavefronts, their registers and its LDS.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include <systemc>

#include "gpu/dispatcher.h"
#include "gpu/wavefront.h"
#include "sim/config.h"
#include "sim/stats.h"
#include "sim/time.h"

namespace fg {

class MemPort;

class ComputeUnit : public sc_core::sc_module {
 public:
  struct Params {
    std::uint32_t simds = 4, simd_width = 16, wavefront_width = 64, slots = 40;
    std::uint64_t registers = 65536, lds_bytes = 65536;
    std::uint32_t issue_width = 1, lds_latency = 2;
    bool greedy_then_oldest = false;
    unsigned line = 64;
    static Params from(const Config& cfg);
  };

  ComputeUnit(sc_core::sc_module_name name, int index, const Params& p, Clock clock, MemPort& port,
              const std::string& stats_path);
  ~ComputeUnit() override;

  void set_dispatcher(Dispatcher* d) { dispatcher_ = d; }
  // Whether a workgroup of `k` fits now / on an empty CU.
  bool fits(const KernelState& k) const;
  bool fits_empty(const KernelState& k) const;
  void place(KernelState& k, std::uint32_t group);
  std::string describe() const;
  const Params& params() const { return p_; }
  std::uint32_t waves_per_group(const KernelState& k) const;

  Counter wavefront_instructions, lane_ops, divergent_issues, loads, stores, atomics, barriers, wavefronts,
      workgroups;
  Distribution simd_utilization;
  Average reqs_per_load;
  Formula peak_wavefronts;

 private:
  void run();
  Wavefront* pick(Tick t);
  void after_issue(Wavefront* w, Tick t);
  void finish(Wavefront* w, Tick t);
  void reap(Tick t);
  void retire(Wavefront* w);
  void release_barrier_if_complete(Workgroup& wg, Tick t);

  int index_;
  Params p_;
  Clock clock_;
  MemPort& port_;
  Dispatcher* dispatcher_ = nullptr;
  std::vector<std::unique_ptr<Wavefront>> slots_;  // by slot; empty = free
  std::vector<Tick> slot_free_at_;                 // when the slot's last wavefront completed
  std::uint32_t draining_ = 0;                     // finished wavefronts waiting for their stores
  std::vector<Tick> simd_free_;
  std::vector<int> slot_tracks_;
  std::uint32_t used_slots_ = 0, peak_slots_ = 0;
  std::uint64_t used_regs_ = 0, used_lds_ = 0;
  std::uint32_t next_age_ = 0;
  std::size_t last_slot_ = 0;
  Wavefront* last_ = nullptr;
  sc_core::sc_event wake_;
};

}  // namespace fg
