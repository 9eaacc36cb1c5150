// SPDX-License-Identifier: Apache-2.0
// Shared, banked L2 cache where atomics execute; the directory that keeps the
// L1s coherent.
//
// Timing contract: loosely timed; b_transport never waits. Lines interleave
// across banks (bank = line mod banks). Each bank has a port reservation
// calendar (one access per `occupancy` cycles; with sectors, gpu.sector, the
// fraction of that for the sectors a request moves, at least a cycle), hit latency `hit_latency`
// cycles of the L2 clock, and an atomic unit whose calendar serializes the
// read-modify-writes of the bank (pipelined: one starts every `atomic_interval` cycles,
// each takes `atomic_latency`, and atomics to one line are serialised). Each
// bank's request queue holds `queue` requests: a request stays in it until the
// port takes it, an atomic until the atomic unit starts it, a miss until DRAM
// accepted its fill (and write-back); a request that finds the queue full is
// accepted when an entry frees and the requester learns that time from
// MemExt::accepted (back-pressure). Write-back,
// write-allocate (a partial-line write miss fetches the line; a full-line one
// does not). Misses go to DRAM after the tag check; dirty victims are written
// back through DRAM's calendar off the requester's path. Inclusive of the
// L1s: each line keeps a sharer mask; a write invalidates the other sharers, an
// atomic invalidates all of them, an eviction back-invalidates.
// All functional work (read data, write data, atomics) happens here against the
// BackingStore when the request passes. With gpu.l2.perturb each response
// takes a random 0..perturb L2 cycles more (a stream per bank from sim.seed),
// its bank's port and queue unchanged.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <unordered_map>
#include <vector>

#include <tlm_utils/multi_passthrough_target_socket.h>
#include <tlm_utils/simple_initiator_socket.h>
#include <systemc>
#include <tlm>

#include "mem/mem_ext.h"
#include "mem/resource.h"
#include "mem/sector.h"
#include "mem/tag_array.h"
#include "sim/config.h"
#include "sim/splitmix.h"
#include "sim/stats.h"

namespace fg {

class BackingStore;
class CoherentCache;

class L2Cache : public sc_core::sc_module {
 public:
  struct Params {
    std::uint64_t size = 1 << 20;
    unsigned line = 64;
    unsigned ways = 16;
    unsigned banks = 16;
    unsigned hit_latency = 16;
    unsigned occupancy = 1;
    unsigned sector = 0;  // gpu.sector: a request holds the port occupancy x its sectors / the line's (0: whole lines)
    unsigned atomic_latency = 4, atomic_interval = 1;
    unsigned forward_latency = 8;  // moesi: one hop between the directory and an L1
    unsigned queue = 8;            // requests waiting per bank (0 = unlimited)
    bool moesi = false;
    bool magic = false;        // mem.magic: every access a hit after hit_latency, no contention
    bool hash = false;         // mem.interleave=xor: banks by a fold of the line's bits
    bool lazy = false;         // gpu.l2.write_miss=lazy: a write miss allocates without a fetch
    unsigned partitions = 1;   // gpu.l2.partitions: banks and requesters split into this many halves (or parts)
    unsigned far_latency = 0;  // gpu.l2.far_latency: cycles a request to another partition's bank adds
    unsigned perturb = 0;      // gpu.l2.perturb: a response's random extra L2 cycles are at most this (0: none)
    std::uint64_t seed = 1;    // sim.seed: the perturbation's streams
    double clock_mhz = 1000;
    static Params from(const Config& cfg);
  };

  tlm_utils::multi_passthrough_target_socket<L2Cache> target;
  tlm_utils::simple_initiator_socket<L2Cache> to_dram;

  L2Cache(sc_core::sc_module_name name, const Params& p, BackingStore& store, const std::string& stats_path);
  ~L2Cache() override { dram_req_.clear_extension(&dram_ext_); }

  // The L1 of requester `id` (its MemExt::requester) joins the directory.
  void attach_l1(int id, CoherentCache* l1);
  const Params& params() const { return p_; }

  struct Bank {
    Bank(const StatGroup& g, std::uint64_t lines, unsigned ways, unsigned queue);
    TagArray tags;
    Resource port, atomic_unit;
    Slots queue;                 // requests accepted and not yet taken by the bank (or, on a miss, by DRAM)
    LineCalendars atomic_lines;  // per line: atomics in flight
    LineCalendars dir_lines;     // moesi: per line, one transaction at a time
    Counter reads, read_hits, hits, misses, writes, atomics, writebacks, invalidations_sent, c2c_transfers,
        ownership_transfers, puts, atomic_requests, queue_full, write_fetches, lazy_fetches, dram_stall_cycles;
    Average queue_delay, atomic_queue_delay;
    // gpu.l2.partitions > 1 only (a run with one partition has neither):
    // requests from another partition that paid gpu.l2.far_latency, and its
    // reads served by a copy in their own partition.
    std::optional<Counter> far, copy_hits;
    // gpu.l2.perturb > 0 only: the bank's random stream and the cycles it added.
    SplitMix64 perturb_rng{0};
    std::optional<Counter> perturb_cycles;
    unsigned partition = 0;  // gpu.l2.partitions: this bank's (the banks in order, an equal share each)
    int trace_track = -1;
  };

 private:
  void b_transport(int id, tlm::tlm_generic_payload& p, sc_core::sc_time& delay);
  // The bank's work on a request the port took at `start`; returns when the
  // request leaves the bank's queue (later than `start` while DRAM or the
  // atomic unit cannot take it).
  Tick access(Bank& b, tlm::tlm_generic_payload& p, MemExt* ext, Tick start, Tick now, sc_core::sc_time& delay);
  void directory(Bank& b, tlm::tlm_generic_payload& p, MemExt& ext, std::uint64_t line, std::uint64_t key,
                 Tick tag_done, Tick now, sc_core::sc_time& delay);
  unsigned transport_dbg(int id, tlm::tlm_generic_payload& p);
  // Makes the line present; returns when its data is available.
  // `hit` (optional) tells whether the line was present.
  CacheLine* lookup_or_fill(Bank& b, std::uint64_t line, std::uint64_t key, Tick tag_done, bool fetch, Tick now,
                            Tick& ready, bool* hit = nullptr);
  // gpu.l2.write_miss=lazy (the .cpp says what each does).
  void mark_written(CacheLine* l, const tlm::tlm_generic_payload& p);
  bool lazy_fetch(Bank& b, CacheLine* l, const tlm::tlm_generic_payload* p, Tick tag_done, Tick now, Tick& ready);
  // Whether a write payload covers its whole line (no fetch needed).
  bool covers_line(const tlm::tlm_generic_payload& p) const;
  // Invalidate the L1 copies of l except `keep`'s; `requester` (or -1 for an
  // eviction) says why, for the L1s' statistics.
  void invalidate_sharers(CacheLine* l, int keep, int requester);
  Tick dram_access(tlm::tlm_command cmd, std::uint64_t line, Tick at, Tick now);
  Tick dram_stall_ = 0;  // time the request in progress waited for room in DRAM queues

  Params p_;
  Clock clock_;
  FastDiv line_div_, bank_div_;
  unsigned bank_of(std::uint64_t line) const {
    return static_cast<unsigned>(bank_div_.mod(p_.hash ? interleave_fold(line) : line));
  }
  // gpu.l2.partitions: the extra latency of `requester`'s request to line l
  // of bank b (a requester's partition is its id modulo the partitions; the
  // .cpp says when a far request pays it).
  Tick far_cost(Bank& b, CacheLine* l, int requester, bool read);
  std::uint64_t perturbation(Bank& b);  // gpu.l2.perturb: the bank's next extra cycles
  BackingStore& store_;
  std::vector<std::unique_ptr<Bank>> banks_;
  std::vector<CoherentCache*> l1s_;
  tlm::tlm_generic_payload dram_req_;
  MemExt dram_ext_;
  std::vector<unsigned char> dram_buf_;

 public:
  Formula hits_total, misses_total, atomics_total, hit_rate, read_hit_rate;
};

}  // namespace fg
