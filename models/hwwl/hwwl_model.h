// SPDX-License-Identifier: Apache-2.0
// Cycle-exact golden models of the hardware-worklist RTL (rtl/hwwl/), plain
// C++ with no SystemC. Each class mirrors one RTL module: the same state, the
// same combinational decisions, the same order. The Verilator tests compare
// RTL and model outputs every cycle; the SystemC worklist uses these models as
// its `model` backend.
//
// Protocol per cycle: give the inputs, read the outputs (the RTL's values
// before the clock edge), then tick(). Blocks whose outputs feed each other
// inside a cycle (core <-> ICRN) evaluate in phases: begin() (what depends only
// on state and lane requests), finish() (the rest), tick().
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace fg::hwwl {

// One flag per bank, lane or core. Bytes, not std::vector<bool>: the model
// copies and slices these every stepped cycle, and packed bits made those
// copies a tenth of a 16-core BFS run's host time.
using Bits = std::vector<std::uint8_t>;

// Gsorting: the paper's global sorting-based scheme (Sec. III-C), a
// monolithic WRU ranking every bank of every core, which it calls unrealistic
// and uses as a limit study (Fig. 6); the ranking is hwwl_grank in the RTL's
// hwwl_system (global_greedy below).
enum class Scheme : unsigned { None = 0, Threshold = 1, Lsorting = 2, Gsorting = 3 };
enum PullStatus : std::uint8_t { kPullNone = 0, kPullId = 1, kPullWait = 2, kPullDone = 3 };

unsigned clog2(unsigned x);  // ceil(log2(x)), as SystemVerilog $clog2

// gsorting's global ranking (hwwl_grank): out[b] is set when counts[b] (every
// bank of every core, core-major) is above m, the largest count of the lower
// half of all N banks (the max(N/2, 1)-th smallest); ties at m go to the
// lower half, so equally full banks are never greedy. `sorted` is scratch.
void global_greedy(const std::vector<unsigned>& counts, std::vector<unsigned>& sorted, Bits& out);

struct Params {
  unsigned cores = 4;
  unsigned lanes = 16;  // banks per core, power of two
  unsigned id_width = 24;
  unsigned depth = 32;  // entries per bank, power of two
  unsigned threshold = 5;
  unsigned interval = 10;
  Scheme scheme = Scheme::Lsorting;
  unsigned sort_stages = 0;
  unsigned cnt_width() const { return clog2(depth + 1); }
  // Cycles from the last push until every ID is pulled and DONE returned,
  // with every lane pulling every cycle (and, double-buffered, swapping):
  // polled non-empty banks are not donors, so nothing moves between banks or
  // into the network; a bank's pull side empties within Depth cycles
  // (double-buffered: Depth/2, the swap, Depth/2: Depth + 1); then no core is
  // greedy and every core has an empty bank, so a hub input register moves
  // within NumCores cycles (round robin), its ID is ejected the next cycle,
  // pulled the one after, and DONE follows (docs/worklist-rtl.md, "Liveness").
  unsigned drain_bound() const { return depth + cores + 4; }
};

// hwwl_bank
class Bank {
 public:
  Bank(unsigned depth, unsigned threshold);
  void reset();
  struct Lane {
    bool pull_gnt = false, push_gnt = false, rd_ok = false, ri_ok = false;
    std::uint32_t pull_id = 0, rd_id = 0;
  };
  Lane lane(bool double_buf, bool pull, bool push, bool swap = false) const;
  // The virtualization unit's accesses (after the lane and WRU decisions):
  // refill granted, reservation possible.
  struct Virt {
    bool rf_gnt = false, rsv_ok = false;
  };
  Virt virt(bool double_buf, bool swap, const Lane& l, bool rd_take, bool ri_put, bool rf_put) const;
  unsigned count(bool double_buf) const { return cnt_[pull_part(double_buf)]; }
  unsigned push_count(bool double_buf) const { return double_buf ? cnt_[!sel_] : 0; }
  unsigned reserved() const { return rsv_; }
  bool greedy(bool double_buf) const { return count(double_buf) > threshold_; }
  bool needy(bool double_buf) const { return count(double_buf) < threshold_; }
  // Full: work and reserved entries fill the side.
  bool full(bool double_buf) const { return occ(pull_part(double_buf), double_buf) == cap(double_buf); }
  bool push_full(bool double_buf) const { return occ(push_part(double_buf), double_buf) == cap(double_buf); }
  void tick(bool double_buf, bool swap, bool pull, bool push, std::uint32_t push_id, bool rd_take, bool ri_put,
            std::uint32_t ri_id, bool rf_put = false, std::uint32_t rf_id = 0, bool rsv = false);
  // The same, given l = lane(double_buf, pull, push, swap) of this cycle.
  void tick(const Lane& l, bool double_buf, bool swap, std::uint32_t push_id, bool rd_take, bool ri_put,
            std::uint32_t ri_id, bool rf_put, std::uint32_t rf_id, bool rsv);
  // Work IDs of partition p in FIFO order (p = 0 in single mode).
  std::vector<std::uint32_t> contents(bool double_buf, bool pull_side) const;
  unsigned total() const { return cnt_[0] + cnt_[1]; }

 private:
  unsigned pull_part(bool dbl) const { return dbl ? unsigned(sel_) : 0u; }
  // Occupancy of partition p: reservations belong to the pull side.
  unsigned occ(unsigned p, bool dbl) const { return cnt_[p] + (p == pull_part(dbl) ? rsv_ : 0u); }
  unsigned push_part(bool dbl) const { return dbl ? unsigned(!sel_) : 0u; }
  unsigned cap(bool dbl) const { return dbl ? depth_ / 2 : depth_; }
  unsigned addr(unsigned part, bool dbl, unsigned pos) const {
    return ((dbl && part) ? depth_ / 2 : 0u) | (pos & (cap(dbl) - 1));
  }
  unsigned depth_, threshold_;
  std::vector<std::uint32_t> mem_;
  unsigned head_[2] = {0, 0}, cnt_[2] = {0, 0};
  unsigned rsv_ = 0;  // reserved entries (single mode)
  bool sel_ = false;
};

// hwwl_sort_net: bitonic network with Stages pipeline registers and a valid
// bit travelling with the data (outputs zero while not valid).
class SortNet {
 public:
  SortNet(unsigned n, unsigned key_width, unsigned stages);
  void reset();
  struct Out {
    bool valid = false;
    std::vector<unsigned> keys, perm;  // ascending rank order
  };
  Out eval(const std::vector<unsigned>& keys, bool en = true) const;
  void eval(const std::vector<unsigned>& keys, bool en, Out& o) const;  // the same, into o's storage
  void tick(const std::vector<unsigned>& keys, bool en = true);
  unsigned layers() const { return static_cast<unsigned>(layers_.size()); }

 private:
  struct Layer {
    unsigned p, d;  // phase, distance
  };
  using Vec = std::vector<std::uint64_t>;
  void apply(const Layer& l, Vec& v) const;
  Vec pack(const std::vector<unsigned>& keys) const;
  unsigned n_, key_width_, idx_width_;
  std::vector<Layer> layers_;
  Bits reg_after_;
  std::vector<Vec> regs_;  // register contents, in layer order
  Bits valid_;             // their valid bits
  mutable Vec v_;          // eval() scratch
};

// hwwl_wru
class Wru {
 public:
  explicit Wru(const Params& p);
  void reset();
  // Phase 1: from counts and the banks' ok signals. `global_greedy` (gsorting
  // only): which of this core's banks the monolithic WRU ranks in the upper
  // half of all banks of all cores.
  void plan(const std::vector<unsigned>& counts, const Bits& rd_ok, const Bits& ri_ok,
            const Bits* global_greedy = nullptr);
  bool eject_ready() const { return eject_ready_; }
  bool greedy() const { return greedy_; }
  bool core_empty() const { return core_empty_; }
  // Phase 2.
  struct Decision {
    Bits rd_take, ri_put, ri_net;
    std::vector<unsigned> ri_src;
    bool inject_valid = false;
    unsigned inject_sel = 0;
  };
  Decision finish(bool inject_ready, bool eject_valid) const;
  void finish(bool inject_ready, bool eject_valid, Decision& d) const;  // the same, into d's storage
  void tick(const std::vector<unsigned>& counts);
  // n cycles in which nothing moves (System::skip): the interval counter and
  // the round-robin start advance as n ticks would advance them.
  void skip(std::uint64_t n) { advance(tick_, rr_, n, p_.interval, p_.lanes); }
  // The counters after n cycles without a move, from tick and rr (hwwl_wru
  // tick_q, rr_q): the interval counter counts modulo the interval, and the
  // round-robin start advances each time it wraps (modulo the lanes). The
  // rtl backend sets the RTL's registers with it too (rtl_backend.h).
  template <class T>
  static void advance(T& tick, T& rr, std::uint64_t n, unsigned interval, unsigned lanes) {
    const std::uint64_t t = static_cast<std::uint64_t>(tick) + n;
    tick = static_cast<T>(t % interval);
    rr = static_cast<T>((rr + t / interval) % lanes);
  }
  bool sort_en() const;                                      // the sorting network starts a sort this cycle
  bool on_tick() const { return tick_ == p_.interval - 1; }  // this cycle decides (pairs, injects)
  // The last plan() paired no banks and chose no excess donor.
  bool plan_void() const;
  // gsorting: the core's greedy bit from a new global ranking, the rest of
  // the plan unchanged (Core::try_idle).
  void regreedy(const Bits& global_greedy);

 private:
  Params p_;
  SortNet sort_;
  unsigned tick_ = 0, rr_ = 0;
  // plan() results
  std::vector<unsigned> cnt_;
  Bits rd_ok_, pair_take_, pair_put_;
  std::vector<unsigned> pair_src_;
  bool cand_v_ = false, eject_ready_ = false, greedy_ = false, core_empty_ = true;
  unsigned cand_ = 0, best_ = 0;
  // plan() scratch (members so that a cycle allocates nothing)
  Bits greedy_b_, needy_b_, pair_v_, busy_;
  SortNet::Out sorted_;
  std::vector<unsigned> pair_d_;
};

// hwwl_icrn
class Icrn {
 public:
  Icrn(unsigned cores);
  void reset();
  bool busy() const;
  bool eject_valid(unsigned c) const { return out_v_[c]; }
  std::uint32_t eject_id(unsigned c) const { return out_id_[c]; }
  void plan(const Bits& greedy, const Bits& eject_ready);
  // One core has no destination: nothing is taken in (hwwl_icrn inject_ready_o).
  bool inject_ready(unsigned c) const { return n_ > 1 && (!in_v_[c] || taken_[c]); }
  void tick(const Bits& inject_valid, const std::vector<std::uint32_t>& inject_id, const Bits& eject_ready);
  unsigned held() const;                               // work IDs inside
  void skip(std::uint64_t n) { advance(rr_, n, n_); }  // n cycles without a move
  // The inputs' round-robin pointer after n cycles (hwwl_icrn rr_q: every
  // cycle); the outputs' (orr_q) moves only with a grant.
  template <class T>
  static void advance(T& rr, std::uint64_t n, unsigned cores) {
    rr = static_cast<T>((rr + n) % cores);
  }
  std::vector<std::uint32_t> contents() const;
  // The registers holding work IDs, e.g. "hub input 0: 17; output to core 2: 9".
  std::string where() const;

 private:
  unsigned n_, rr_ = 0, orr_ = 0, orr_next_ = 0;
  Bits in_v_, out_v_, taken_, moved_;
  std::vector<std::uint32_t> in_id_, out_id_;
  std::vector<unsigned> src_;
};

// hwwl_core
struct LaneIn {
  bool double_buf = false, swap = false;
  Bits pull, push;
  std::vector<std::uint32_t> push_id;
  // The virtualization unit's side (empty: no HVU): refills per bank,
  // reservations per core, and whether the HVUs hold work (system only).
  Bits rf_put;
  std::vector<std::uint32_t> rf_id;
  Bits rsv;
  bool hvu_busy = false;
};
struct CoreOut {
  std::vector<std::uint8_t> pull_status;
  std::vector<std::uint32_t> pull_id;
  Bits push_gnt;
  Bits rf_gnt;
  bool rsv_gnt = false;
  bool core_empty = true, greedy = false;
  bool inject_valid = false;
  std::uint32_t inject_id = 0;
  bool eject_ready = false;
};

struct SysOut;

class Core {
 public:
  explicit Core(const Params& p);
  void reset();
  void begin(const LaneIn& in, const Bits* global_greedy = nullptr);
  // begin() with the inputs written in place into input() (hwwl::System).
  LaneIn& input() { return in_; }
  void begin_input(const Bits* global_greedy = nullptr);
  // Instead of begin(), for a cycle without lane or virtualization inputs
  // (no swap) but pulls of empty banks: when the banks and the WRU's plan are
  // those of an earlier such cycle off the redistribution tick (no pipelined
  // sorting network), the core reuses that plan and returns true; finish()
  // and tick() then work from it, and the banks are ticked only if the
  // network's ID arrives. False: call begin(). Either way the caller writes
  // input().pull (the pulls, answered WAIT or DONE).
  bool try_idle(bool double_buf, const Bits* global_greedy = nullptr);
  // finish() of an idle cycle in which the network's ID does not arrive
  // (!eject_ready(eject_valid)): no grants, no injection; the banks' heads as
  // pull_id, pulls DONE when sys_empty, else WAIT. Writes lanes
  // off..off+lanes-1 of the system's outputs.
  void finish_idle(SysOut& o, bool sys_empty, std::size_t off);
  bool idle() const { return idle_; }
  bool core_empty() const { return wru_.core_empty(); }
  bool greedy() const { return wru_.greedy(); }
  // A bank can take the ICRN's work ID (raised only while one is offered).
  bool eject_ready(bool eject_valid) const { return eject_valid && wru_.eject_ready(); }
  CoreOut finish(bool sys_empty, bool inject_ready, bool eject_valid, std::uint32_t eject_id);
  void finish(bool sys_empty, bool inject_ready, bool eject_valid, std::uint32_t eject_id, CoreOut& o);
  void tick();
  void skip(std::uint64_t n) { wru_.skip(n); }
  // Standalone use (core test): all phases at once.
  CoreOut step(const LaneIn& in, bool sys_empty, bool inject_ready, bool eject_valid, std::uint32_t eject_id);

  const Bank& bank(unsigned b) const { return banks_[b]; }
  unsigned pull_total() const;  // work in pull partitions
  unsigned total() const;       // work in all partitions
  // The banks holding work IDs, e.g. "<prefix>lane 3 pull side: 5, 9" (at
  // most 8 IDs per side shown), joined by "; ". Empty when nothing is inside.
  std::string where(bool double_buf, const std::string& prefix = "") const;

 private:
  Params p_;
  std::vector<Bank> banks_;
  Wru wru_;
  LaneIn in_;
  std::vector<Bank::Lane> lane_;
  Bits rf_put_, rf_gnt_;
  bool rsv_gnt_ = false;
  std::vector<unsigned> counts_;
  Wru::Decision dec_;
  std::uint32_t eject_id_ = 0;
  Bits rd_ok_, ri_ok_;      // begin() scratch
  bool idle_ = false;       // this cycle reuses the plan (try_idle)
  bool mode_ = false;       // double_buf of the last begin (the mode changes only while the banks are empty)
  bool idle_done_ = false;  // ... and nothing arrives (finish_idle): tick() changes no bank
  bool plan_kept_ = false;  // lane_, counts_ and the WRU's plan are valid for an input-free cycle now
  bool tick_void_ = false;  // ... and for a tick too: lsorting or none, whose last tick on these banks did nothing
};

// hwwl_system
struct SysOut {
  std::vector<std::uint8_t> pull_status;
  std::vector<std::uint32_t> pull_id;
  Bits push_gnt;
  Bits rf_gnt;   // per bank
  Bits rsv_gnt;  // per core
  bool sys_empty = true;
  Bits greedy;
};

class System {
 public:
  explicit System(const Params& p);
  void reset();
  // Lane l of core c is index c * lanes + l.
  SysOut step(const LaneIn& in);
  void step(const LaneIn& in, SysOut& out);  // the same, reusing out's storage
  // Fast-forward: the state after n cycles without lane or virtualization
  // inputs, given that nothing moves in them (the caller's fixpoint: every
  // bank's pull-side count unchanged over more than a redistribution interval
  // without inputs; docs/worklists.md, "Fast-forward"). Only the cyclic
  // counters advance. With a pipelined sorting network (sort_stages > 0),
  // whose registers are state too, it steps the n cycles instead.
  void skip(std::uint64_t n, bool double_buf);
  const Core& core(unsigned c) const { return cores_[c]; }
  const Icrn& icrn() const { return icrn_; }
  unsigned pull_total() const;  // work in pull partitions + network
  unsigned total() const;       // all work inside
  const Params& params() const { return p_; }
  // Where the work IDs inside are (banks by core/lane and partition, network
  // registers), for a diagnosis: "core 1 lane 3 pull side: 5, 9; hub output
  // to core 2: 17". Empty when nothing is inside.
  std::string where(bool double_buf) const;

 private:
  Params p_;
  std::vector<Core> cores_;
  Icrn icrn_;
  std::vector<unsigned> all_counts_;  // gsorting: every bank's count
  // step() scratch
  std::vector<unsigned> sorted_;
  Bits greedy_, eject_ready_, inject_valid_;
  std::vector<std::uint32_t> inject_id_;
  std::vector<CoreOut> core_out_;
  Bits all_greedy_;                  // gsorting: every bank's global greedy bit
  std::vector<Bits> global_greedy_;  // gsorting: per core, per bank
};

}  // namespace fg::hwwl
