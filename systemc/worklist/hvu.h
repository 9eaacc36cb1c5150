// SPDX-License-Identifier: Apache-2.0
// The HWWL virtualization unit (Kim & Batten Sec. III-D), one per core, in
// SystemC beside the cycle-stepped worklist system (worklist.h). It spills
// pushes that find their bank full to an overflow buffer in modelled memory
// and refills the banks from it through the banks' refill port (rtl/hwwl
// hwwl_bank: lowest priority, after lane and redistribution accesses).
//
//   wlinit(base, entries)   overflow buffer: entries work IDs (4 bytes) per
//                           core, core c's region at base + 4 * c * entries;
//                           double-buffer mode: two halves, one per round
//   spill                   the stalled pushes of a core, buffered across
//                           cycles until a wavefront's worth or a cycle
//                           without a spill, written to its region (FIFO
//                           ring) in one coalesced store (line requests)
//   refill (on_demand)      a pull on an empty bank of a core whose region
//                           holds work loads up to a wavefront's worth, and
//                           again each cycle a pull waits, up to
//                           worklist.hvu_refills loads in flight ("as many
//                           virtualization requests as there is space in the
//                           load-store unit"); the pulling wavefront waits
//                           for it like a pending load (all its lanes)
//   refill (interval)       every worklist.interval cycles, when every bank of
//                           the core has room (single mode: a reservation of
//                           one entry per bank through rsv_i), one ID per bank
//                           is loaded, and again in each following cycle while
//                           the banks have room and the load/store queue has a
//                           free entry ("as many virtualization requests can be
//                           injected as there are free entries in the
//                           load-store unit's internal queue"; worklist.
//                           hvu_interval_loads=one: one per interval, the
//                           model before 2026-11-27); fewer stored IDs than
//                           banks are loaded on demand
//
// Loaded IDs wait in the unit until their bank's port takes them (one per bank
// per cycle). At most worklist.hvu_requests of a core's loads and stores are
// in flight (the load/store unit's queue). Work in the unit counts as work in
// the worklist: no DONE while a core's region of the current round, a load in
// flight or a loaded ID holds work (hvu_busy_i).
//
// Memory (worklist.hvu_path): lsu (the default, Sec. III-D: "injects
// virtualization requests into the load-store unit of the GPGPU lanes to be
// issued just like any other memory access ... normal memory requests are
// given priority"): each core's requests enter its own L1's load/store path
// (the CU's port calendar, MSHRs and back-pressure, not allocated in the L1)
// at the unit's cycle, a delta cycle after its step (flush()), so the CUs'
// requests of that instant have taken the port first. l2 (the model
// before 2026-11-27, an ablation): one port straight to the L2 for all cores,
// beside the load/store paths.
#pragma once

#include <algorithm>
#include <cstdint>
#include <deque>
#include <functional>
#include <string>
#include <vector>

#include "sim/stats.h"
#include "sim/time.h"
#include "worklist/backend.h"

namespace fg {
class MemPort;
}

namespace fg::wl {

class Hvu {
 public:
  enum class Refill { OnDemand, Interval };
  struct Params {
    unsigned cores = 1, lanes = 16, depth = 32, warp = 32, interval = 10, requests = 8, line = 64;
    Refill refill = Refill::Interval;
    unsigned refills = 8;         // on-demand refill loads in flight per core (worklist.hvu_refills)
    bool coalesce_cycles = true;  // spills coalesced across cycles, up to a warp's worth per store
    bool interval_burst = true;   // interval refills: as many as the queue has room for (false: one per interval)
  };
  Hvu(const Params& p, const Clock& clock);

  // The memory path: one port to the L2 for every core (l2), or each core's
  // port into its load/store path (lsu).
  void set_port(MemPort* port) {
    ports_.assign(p_.cores, port);
    lsu_ = false;
  }
  void set_core_port(unsigned core, MemPort* port) {
    ports_.resize(p_.cores, nullptr);
    ports_[core] = port;
    lsu_ = true;
  }
  // wlinit: entries per core (0: no overflow buffer).
  void init(std::uint64_t base, std::uint64_t entries);
  bool enabled() const { return entries_ != 0; }
  std::uint64_t entries() const { return entries_; }

  // Before a cycle's step (at `now`, the cycle's sample time): the requests
  // into `in` (refills, reservations, busy).
  // (idle: a catch-up cycle, nothing inside; no request starts.)
  void plan(std::uint64_t cycle, Tick now, bool double_buf, bool idle, const Backend& be, Backend::In& in);
  // After it: refills and reservations granted (loads issued for the latter).
  // Returns whether it offered a refill, and whether the banks took any of
  // its accesses (a refill or a reservation: an input to the worklist).
  struct Taken {
    bool offered = false, any = false;
  };
  Taken granted(const Backend::In& in, const Backend::Out& out, Tick now);
  // A push of `id` stalled at a full bank of `core`: taken (true) or left to
  // retry (false: the core's request queue is full). Throws SimFault when the
  // region is full.
  bool spill(unsigned core, std::uint32_t id, Tick now, const std::function<std::string()>& where);
  // wlcfg (only while the worklist and the unit are empty): one ring per core,
  // or one per round in the halves of its region.
  void set_mode(bool double_buf);
  // A pull got WAIT on an empty bank of `core`: true if the unit holds work of
  // this round for the core (the pull then waits for the refill); starts a
  // load when none is under way for it.
  bool pull_waits(unsigned core, unsigned bank, Tick now);
  // Cycles the unit skips (fast-forward) are idle cycles: as in a stepped
  // idle cycle, no request starts, and an interval burst ends.
  void end_bursts() {
    for (Core& c : cores_) c.burst = false;
  }
  // lsu path: the cycle's requests enter the cores' load/store paths after
  // the CUs' requests of the same instant (the worklist calls flush() a delta
  // cycle after the step): normal requests first, whatever order the host
  // runs the threads in. Until then their completion times are unknown.
  bool deferred() const { return !deferred_.empty(); }
  void flush();
  // End of the cycle: the cycle's spills go out as coalesced stores.
  void end_cycle(Tick now);
  // Partition swap (double mode): the round's regions exchange.
  void swap_rounds(Tick now);
  // Work IDs held (both rounds), of this round only, and whether the unit must
  // keep stepping (requests in flight or loaded IDs waiting for a port).
  std::uint64_t held() const;
  bool busy_this_round() const;
  bool active() const;
  // Nothing held, nothing in flight: idle cycles change nothing here.
  bool quiet() const { return held() == 0 && !active(); }
  // When the unit may act without a lane request (the worklist's
  // fast-forward): in the next cycle (`now`), at its next interval refill
  // (`interval`), or when a load arrives (`at`, kNever if none).
  // `refills_stuck`: the loaded IDs waiting at their banks were all refused
  // in a quiet cycle (full banks), so they alone do not make it act now.
  struct Next {
    bool now = false, interval = false;
    Tick at = kNever;
  };
  static constexpr Tick kNever = ~Tick{0};
  Next next_event(bool refills_stuck = false) const;
  std::string where() const;

  Counter spills, spill_stores, refills, refill_loads, bytes_written, bytes_read, reservations, refill_waits,
      stall_cycles, peak_loads;

 private:
  struct Ring {  // one round's FIFO in a core's region
    std::uint64_t base = 0, cap = 0, head = 0, count = 0;
    std::deque<std::pair<std::uint64_t, Tick>> stores;  // (entries, complete at), in ring order
    std::uint64_t ready(Tick now) const;                // entries from the head whose stores completed
    // ready()'s prefix of completed stores (`now` only grows): its length and entries.
    mutable std::size_t done_i = 0;
    mutable std::uint64_t done_n = 0;
  };
  struct Core {
    Ring ring[2];
    unsigned cur = 0;                    // ring of the current (pull) round; single mode: 0 only
    std::vector<std::uint32_t> spilled;  // spills not yet stored (up to a warp's worth, across cycles)
    unsigned spilled_now = 0;            // of them, this cycle's
    struct Load {
      Tick at;                                              // arrives
      std::vector<std::pair<unsigned, std::uint32_t>> ids;  // (bank, id)
      bool one_per_bank;                                    // an interval refill (counted in `incoming`)
    };
    std::deque<Load> loads;
    std::vector<std::deque<std::uint32_t>> at_bank;  // loaded IDs waiting for their bank's port
    std::uint64_t loaded = 0, queued = 0;            // IDs in loads, in at_bank
    std::deque<Tick> inflight;                       // completion times of loads and stores
    std::vector<unsigned> incoming;                  // per bank: IDs of one-per-bank loads in flight
    bool burst = false;  // an interval refill burst is under way (one load or reservation a cycle)
    unsigned next_bank = 0;
    bool demand = false;  // a pull waited this cycle
    unsigned demand_bank = 0;
  };
  std::size_t peak_loads_ = 0;
  unsigned queue_free(Core& c, Tick now);
  void store_spilled(Core& c, Tick now);  // the buffered spills out as coalesced stores
  unsigned core_of(const Core& c) const { return static_cast<unsigned>(&c - cores_.data()); }
  void load(unsigned core, std::uint64_t n, bool one_per_bank, unsigned first_bank, Tick now);
  Tick access(unsigned core, std::uint64_t addr, std::uint32_t* data, std::uint64_t n, bool write, Tick now);
  std::uint64_t waiting(const Core& c) const;  // IDs loaded or loading, not yet in a bank
  void layout();

  Params p_;
  Clock clock_;
  std::vector<MemPort*> ports_;  // per core
  // A request waiting for flush(): its data (stores) and where its
  // completion time goes (the max over a load's or store's line requests).
  struct Deferred {
    unsigned core = 0;
    bool write = false;
    Tick now = 0;
    Tick* done = nullptr;
    std::vector<std::pair<std::uint64_t, std::vector<std::uint32_t>>> parts;  // (address, IDs) of each access
  };
  std::vector<Deferred> deferred_;
  // Issues an access now (l2 path: returns its completion) or defers it into
  // `g` (lsu path: returns kNever; loads read their data functionally now).
  // lsu path: a new deferred load or store (its accesses added by issue());
  // l2 path: none (nullptr: issue() accesses at once).
  Deferred* defer_group(unsigned core, bool write, Tick now);
  // Calls f(address, bytes, length) for the line-sized pieces of n IDs at
  // addr (a MemPort request stays within one line).
  template <class F>
  void for_lines(std::uint64_t addr, std::uint32_t* data, std::uint64_t n, F f) const {
    auto* bytes = reinterpret_cast<unsigned char*>(data);
    for (std::uint64_t a = addr, left = 4 * n; left;) {
      const std::uint64_t len = std::min<std::uint64_t>(left, p_.line - a % p_.line);
      f(a, bytes, static_cast<unsigned>(len));
      a += len, bytes += len, left -= len;
    }
  }
  Tick issue(Deferred* g, unsigned core, std::uint64_t addr, std::uint32_t* data, std::uint64_t n, bool write,
             Tick now);
  bool lsu_ = false;
  std::uint64_t base_ = 0, entries_ = 0;
  bool double_buf_ = false;
  std::vector<Core> cores_;
};

}  // namespace fg::wl
