// SPDX-License-Identifier: Apache-2.0
// Per-CU L1 data cache (also the aggregator's L1).
//
// Timing contract: loosely timed; b_transport never waits, it adds the cost to
// the delay. Reads: one line access per `occupancy` cycles through the port
// (a reservation calendar), hit latency `hit_latency` cycles of this cache's
// clock; a miss forwards to the L2 after the tag check and fills the line.
// With sectors (gpu.sector) a miss fetches only the sectors the read needs and
// a line holds those it fetched: a read that needs one it lacks is a miss
// (also counted as a sector miss), which adds them to the line.
// Writes are write-through, no-allocate (the own copy, if present, stays valid);
// with gpu.l1.local_write_back a store to local memory (add_local_window) that
// finds its sectors held writes the line only, marking them dirty, and a dirty
// line goes to the L2 when it is evicted or dropped by a fence's invalidation
// (a local store that misses writes through, not allocating);
// atomics bypass the L1 and execute at the L2. The L2 directory calls
// invalidate() when another requester writes a line this cache holds.
// Requests must not cross a cache line (initiators coalesce by line).
// Back-pressure: a miss that finds every MSHR busy, or a request the L2 takes
// into its full queue only later, blocks the L1 until then: requests behind it
// (hits included) wait, as when GPGPU-Sim's load/store unit stalls on a
// reservation failure; counted in stalls / stall_cycles.
#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include <tlm_utils/simple_initiator_socket.h>
#include <tlm_utils/simple_target_socket.h>
#include <systemc>
#include <tlm>

#include "mem/mem_ext.h"
#include "mem/resource.h"
#include "mem/sector.h"
#include "mem/tag_array.h"
#include "mem/tlb.h"
#include "sim/config.h"
#include "sim/stats.h"

namespace fg {

class BackingStore;

// Why the L2 directory invalidates an L1 copy.
enum class InvalidateReason : std::uint8_t {
  OtherWrite,  // another requester's write or atomic (coherence)
  OwnAtomic,   // this requester's own atomic, executed at the L2
  L2Eviction,  // the L2 evicted the line (inclusion)
};

// Implemented by caches the L2 directory keeps coherent.
class CoherentCache {
 public:
  virtual ~CoherentCache() = default;
  virtual void invalidate(std::uint64_t line, InvalidateReason why) = 0;
  // moesi: another L1 reads the line this one owns: M -> O, E -> S. Returns
  // whether it still owns it (O).
  virtual bool downgrade(std::uint64_t line) = 0;
  // moesi: whether it holds the line (any state but I).
  virtual bool holds(std::uint64_t line) = 0;
};

class L1Cache : public sc_core::sc_module, public CoherentCache {
 public:
  struct Params {
    std::uint64_t size = 16384;
    unsigned line = 64;
    unsigned ways = 16;
    unsigned hit_latency = 4;
    unsigned occupancy = 1;
    unsigned tags = 1;               // gpu.l1.tags: line accesses the port starts a cycle (with sectors)
    unsigned mshrs = 0;              // outstanding read misses (0 = unlimited)
    unsigned sector = 0;             // gpu.sector: bytes per sector (0: whole lines; mem/sector.h)
    bool moesi = false;              // write-back, kept coherent by the L2's MOESI directory
    bool magic = false;              // mem.magic: every access a hit after hit_latency, no contention
    bool fence_invalidates = false;  // gpu.cu.fence_invalidates_l1: a GPU-scope fence drops its lines
    bool ivall_keeps_local = false;  // gpu.cu.ivall_keeps_local: that drop keeps local memory's lines
    bool local_write_back = false;   // gpu.l1.local_write_back: local memory's store hits stay in the L1
    TlbParams tlb;                   // gpu.tlb.*: address translation on the way to the L2 (mem/tlb.h)
    static Params from(const Config& cfg);
  };

  tlm_utils::simple_target_socket<L1Cache> target;
  // A second way into the same load/store path, for a unit of the core that
  // issues its own requests (the worklist's virtualization unit, Kim & Batten
  // Sec. III-D: "injects virtualization requests into the load-store unit"):
  // the same port calendar, MSHRs and back-pressure as the CU's requests.
  tlm_utils::simple_target_socket_optional<L1Cache> side;
  tlm_utils::simple_initiator_socket<L1Cache> to_l2;

  // `stats_path` e.g. "gpu.cu3.l1"; `clock` the owner's clock domain.
  L1Cache(sc_core::sc_module_name name, const Params& p, Clock clock, BackingStore& store,
          const std::string& stats_path);

  ~L1Cache() override {
    dir_req_.clear_extension(&dir_ext_);
    wb_req_.clear_extension(&wb_ext_);
  }
  void set_requester(int id) { dir_ext_.requester = id; }
  void invalidate(std::uint64_t line, InvalidateReason why) override;
  bool downgrade(std::uint64_t line) override;
  bool holds(std::uint64_t line) override;
  const Params& params() const { return p_; }

  Counter reads, read_hits, read_misses, sector_misses, coherence_misses, writes, atomics, invalidations,
      self_invalidations, back_invalidations, bypass_reads, mshr_merges, mshr_stalls, local_writes, local_atomics,
      upgrades, misses_for_ownership, stalls, stall_cycles;
  Average queue_delay, mshr_stall;
  Formula hit_rate;
  // gpu.cu.fence_invalidates_l1 only: fences that invalidated the L1, lines they dropped
  // (and with gpu.cu.ivall_keeps_local, local memory's lines they kept).
  std::optional<Counter> fence_invalidations, fence_dropped, fence_kept;
  // gpu.l1.local_write_back only: local stores absorbed by a held line, dirty lines written back to the L2,
  // and dirty lines the L2 asked to invalidate, kept (local memory is this CU's own).
  std::optional<Counter> write_hits, writebacks, dirty_kept;
  // gpu.tlb.l1_entries only: requests translated, their L1 TLB misses, and of those the page walks.
  std::optional<Counter> tlb_lookups, tlb_misses, tlb_walks;
  // The L2 TLB the requesters share (the memory system's), with gpu.tlb.l1_entries.
  void set_shared_tlb(SharedTlb* t) { shared_tlb_ = t; }
  // Device memory that is local memory (a runtime's per-lane stacks): with
  // gpu.cu.ivall_keeps_local an invalidation keeps its lines.
  void add_local_window(std::uint64_t base, std::uint64_t bytes);

 private:
  void b_transport(tlm::tlm_generic_payload& p, sc_core::sc_time& delay);
  void moesi_access(tlm::tlm_generic_payload& p, sc_core::sc_time& delay, Tick start);
  // Sends a request of kind `c` for `line` to the directory at `at`; returns its completion.
  Tick to_directory(Coh c, std::uint64_t line, Tick at, tlm::tlm_generic_payload* data, bool& exclusive);
  void evict(CacheLine* v, Tick at);
  bool is_local(std::uint64_t line) const {
    for (const auto& [first, last] : local_lines_)
      if (line >= first && line <= last) return true;
    return false;
  }
  // gpu.l1.local_write_back: sends line `v`'s dirty sectors to the L2 at `at`, off the requester's path.
  void write_back(const CacheLine& v, Tick at);
  // Sends `p` to the L2 (delay: when it leaves); the L1 is blocked until the
  // L2 accepted it.
  void forward(tlm::tlm_generic_payload& p, sc_core::sc_time& delay);
  // A read miss of `p` whose port slot starts at `start`: its tag check, an
  // MSHR (the L1 blocked while it waits for one), the L2; returns when its
  // fill completes (delay: when it left).
  Tick fetch(tlm::tlm_generic_payload& p, sc_core::sc_time& delay, Tick start, Tick now);
  // Blocks the L1 from `from` until `t`; stall_cycles counts the cycles the
  // L1 was blocked (overlapping blocks once).
  void block(Tick from, Tick t) {
    const Tick b = std::max(blocked_until_, from);
    if (t > b) {
      stall_cycles += clock_.to_cycles(t - b);
      blocked_until_ = t;
    }
  }
  unsigned transport_dbg(tlm::tlm_generic_payload& p);

  // When the translation of `addr`'s page, asked at `t`, is ready (gpu.tlb.*).
  Tick translate(std::uint64_t addr, Tick t);

  Params p_;
  Clock clock_;
  TlbSet tlb_;
  SharedTlb* shared_tlb_ = nullptr;
  unsigned page_shift_ = 0;
  BackingStore& store_;
  TagArray tags_;
  FastDiv line_div_;
  Sectors sectors_;
  Tick hold_ = 0;  // how long the request in hand holds the port (b_transport, for the trace)
  Resource port_;
  Slots mshr_;
  // Back-pressure: no request enters the L1 before this (an earlier miss
  // waited for an MSHR, or an L2 queue was full).
  Tick blocked_until_ = 0;
  std::vector<std::pair<std::uint64_t, std::uint64_t>> local_lines_;  // [first, last] line numbers
  tlm::tlm_generic_payload dir_req_;
  MemExt dir_ext_;
  std::vector<unsigned char> dir_buf_;
  tlm::tlm_generic_payload wb_req_;  // gpu.l1.local_write_back's write-backs
  MemExt wb_ext_;
  std::vector<unsigned char> wb_buf_, wb_enable_;
  int trace_track_ = -1;
};

}  // namespace fg
