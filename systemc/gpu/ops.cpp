// SPDX-License-Identifier: Apache-2.0
// The built-in device operations as units (gpu/op.h): memory, compute,
// wavefront intrinsics, LDS, barrier, fences, identity and time.
#include <algorithm>
#include <bit>
#include <cstring>

#include <fmt/format.h>

#include "gpu/compute_unit.h"
#include "gpu/gpu.h"
#include "gpu/op.h"
#include "gpu/wavefront.h"
#include "mem/mem_port.h"
#include "mem/memory_system.h"
#include "mem/sector.h"
#include "sim/error.h"
#include "sim/stats.h"

namespace fg {

// ---- registry and context ----

OpRegistry& OpRegistry::global() {
  static OpRegistry r;
  return r;
}

std::uint32_t OpRegistry::add(const OpUnit* u) {
  if (find(u->name())) throw std::logic_error("device operation '" + u->name() + "' registered twice");
  units_.push_back(u);
  return static_cast<std::uint32_t>(units_.size() - 1);
}

void OpRegistry::remove(const OpUnit* u) {
  auto it = std::find(units_.begin(), units_.end(), u);
  if (it != units_.end()) *it = nullptr;  // ids stay stable
}

std::vector<const OpUnit*> OpRegistry::by_name() const {
  std::vector<const OpUnit*> v;
  for (const OpUnit* u : units_)
    if (u) v.push_back(u);
  std::sort(v.begin(), v.end(), [](const OpUnit* a, const OpUnit* b) { return a->name() < b->name(); });
  return v;
}

const OpUnit* OpRegistry::find(const std::string& name) const {
  for (const OpUnit* u : units_)
    if (u && u->name() == name) return u;
  return nullptr;
}

OpUnit::OpUnit(std::string name, Order order, bool memory)
    : name_(std::move(name)), id_(OpRegistry::global().add(this)), order_(order), memory_(memory) {}
OpUnit::~OpUnit() { OpRegistry::global().remove(this); }

WaveHandle IssueContext::block(std::string what, bool tight) {
  after_ = After::Block;
  what_ = std::move(what);
  tight_ = tight;
  return WaveHandle{&cu_, &wave_};
}

Gpu& IssueContext::gpu() { return cu_.gpu(); }

WaveHandle IssueContext::park(std::uint64_t spill, std::string what) {
  after_ = After::Park;
  what_ = std::move(what);
  spill_ = spill;
  return WaveHandle{&cu_, &wave_};
}

namespace {

// ---- compute ----

// alu(n): n instructions. Lanes at one alu site with different n form a
// divergent loop: max(n) issue slots, slot k has the lanes with n >= k active.
// A dependent chain: each instruction waits for its predecessor's result
// (gpu.cu.alu_latency; alu_fp64: gpu.cu.fp64_latency; alu_chain:
// gpu.cu.chain_latency); the SIMD is held for
// the instructions' SIMD time only, so other wavefronts issue in between.
class AluUnit final : public OpUnit {
 public:
  AluUnit(const char* name, std::uint32_t CuTiming::*latency) : OpUnit(name), latency_(latency) {}
  void issue(IssueContext& c) const override {
    auto n_of = [](const Lane& l) { return std::max<std::uint64_t>(1, l.pending.n); };
    const std::uint64_t n0 = n_of(c.first());
    bool same = true;
    c.for_each([&](Lane& l) { same = same && n_of(l) == n0; });
    if (same) {
      c.instructions = n0;
    } else {
      std::vector<std::uint64_t> ns;
      c.for_each([&](Lane& l) { ns.push_back(n_of(l)); });
      std::sort(ns.begin(), ns.end());
      std::uint64_t done = 0;
      for (std::size_t i = 0; i < ns.size(); ++i) {
        if (ns[i] == done) continue;
        c.levels.emplace_back(static_cast<std::uint32_t>(ns.size() - i), ns[i] - done);
        done = ns[i];
      }
      c.instructions = done;
    }
    c.complete = c.issue() + c.timing().step(c.timing().*latency_) * c.instructions;
  }

 private:
  std::uint32_t CuTiming::*latency_;
};
const AluUnit kAlu("alu", &CuTiming::alu_cycles);
const AluUnit kAluFp64("alu_fp64", &CuTiming::fp64_cycles);
const AluUnit kAluChain("alu_chain", &CuTiming::chain_cycles);

// alu_sched(n, cycles): n instructions of compiled code whose static
// schedule a lone wavefront takes `cycles` to issue (the stall counts the
// compiler put in their control codes), where gpu.cu.static_stalls is on;
// else their SIMD time alone, as alu(n). The SIMD is held for the
// instructions' SIMD time only, so other wavefronts issue in the stalls.
// Lanes at one site with different n form a divergent loop, as alu; the
// wavefront takes the longest schedule.
class SchedUnit final : public OpUnit {
 public:
  SchedUnit() : OpUnit("alu_sched") {}
  void issue(IssueContext& c) const override {
    kAlu.issue(c);
    const CuTiming& t = c.timing();
    if (!t.static_stalls) return;
    std::uint64_t cycles = 0;
    c.for_each([&](Lane& l) { cycles = std::max<std::uint64_t>(cycles, l.pending.value); });
    c.complete = std::max<Tick>(c.complete, c.issue() + t.cycle * cycles);
  }
};
const SchedUnit kAluSched;

// ---- global memory ----

// The lane's byte offset in its cache line; an access may not cross the line.
std::uint64_t line_offset(const Lane& l, unsigned line, const char* what) {
  const std::uint64_t off = l.pending.addr % line;
  if (off + l.pending.size > line)
    throw SimFault(fmt::format("{} of {} bytes at 0x{:x} ({}) crosses a cache line", what, l.pending.size,
                               l.pending.addr, site_name(l.pending.site())));
  return off;
}

Tick now_ps() { return sc_core::sc_time_stamp().value(); }

struct LoadStats : UnitState {
  LoadStats(const std::string& path)
      : loads(StatGroup(path), "loads", "wavefront load instructions", ""),
        reqs_per_load(StatGroup(path), "reqs_per_load", "line requests per wavefront load (Reqs/Load)", "") {}
  Counter loads;
  Average reqs_per_load;
};

// Coalesced load: one request per distinct line, for the sectors its lanes
// touch (gpu.sector; the whole line without), lanes served from it in lane
// order. Returns when the last line arrives.
Tick coalesced_load(IssueContext& c, LoadStats& st, std::vector<unsigned char>& buf) {
  const unsigned line = c.timing().line;
  const Sectors sectors{line, c.timing().sector};
  buf.resize(line);
  const sc_core::sc_time local = IssueContext::local(c.issue());
  Tick done = c.issue();
  std::uint64_t todo = c.mask();
  while (todo) {
    const Lane& lead = c.lane(std::countr_zero(todo));
    const std::uint64_t ln = lead.pending.addr / line;
    std::uint32_t need = 0;
    if (sectors.on())
      for (std::uint64_t m = todo; m; m &= m - 1) {
        const Lane& l = c.lane(std::countr_zero(m));
        if (l.pending.addr / line == ln) need |= sectors.span(l.pending.addr % line, l.pending.size);
      }
    const sc_core::sc_time t = c.port().read(ln * line, buf.data(), line, local, lead.pending.bypass_l1, need);
    done = std::max<Tick>(done, now_ps() + t.value());
    ++c.mem_requests;
    for (std::uint64_t m = todo; m; m &= m - 1) {
      Lane& l = c.lane(std::countr_zero(m));
      if (l.pending.addr / line != ln) continue;
      const std::uint64_t off = line_offset(l, line, "load");
      l.pending.result = 0;
      std::memcpy(&l.pending.result, buf.data() + off, l.pending.size);
      todo &= ~(1ull << l.lane_id());
    }
  }
  ++st.loads;
  st.reqs_per_load.sample(c.mem_requests);
  return done;
}

// Loads: blocking (`load`, which owns the load statistics), acquire
// (synchronising) and async (the wavefront goes on; each lane's value carries
// its arrival time for wait()). All count with the loads.
class LoadUnit final : public OpUnit {
 public:
  enum Kind { Blocking, Acquire, Async };
  LoadUnit(const char* name, Kind k)
      : OpUnit(name, k == Acquire ? Order::Synchronising : Order::Relaxed, true), k_(k) {}
  void issue(IssueContext& c) const override;
  std::unique_ptr<UnitState> make_state(const std::string& path) const override {
    return k_ == Blocking ? std::make_unique<LoadStats>(path) : nullptr;
  }

 private:
  Kind k_;
  mutable std::vector<unsigned char> buf_;
};
const LoadUnit kLoad("load", LoadUnit::Blocking);
const LoadUnit kLoadAcquire("load_acquire", LoadUnit::Acquire);
const LoadUnit kLoadAsync("load_async", LoadUnit::Async);

void LoadUnit::issue(IssueContext& c) const {
  // ld.acquire.gpu assembles to LDG.E.STRONG.GPU (served by the L2) and a
  // CCTL.IVALL that waits for its data (ptxas, sm_80 and sm_90): with
  // gpu.cu.fence_invalidates_l1 (NVIDIA's non-coherent L1) an acquire load
  // bypasses the L1, which drops its global lines after the load (in host order, as
  // every functional effect; the request carries the load's issue time, since
  // the port's requests go in time order and the load's completion is ahead).
  const bool ivall = k_ == Acquire && c.timing().fence_invalidates_l1;
  if (ivall) c.for_each([](Lane& l) { l.pending.bypass_l1 = true; });
  const Tick done = coalesced_load(c, static_cast<LoadStats&>(*c.cu().unit_state(kLoad)), buf_);
  if (ivall) c.port().invalidate_l1(IssueContext::local(c.issue()));
  if (k_ == Async) {
    c.waits_memory = false;  // the wavefront goes on; wait() waits
    c.for_each([&](Lane& l) { l.pending.ready = done; });
  } else
    c.complete = std::max(c.complete, done);
}

class WaitUnit final : public OpUnit {
 public:
  WaitUnit() : OpUnit("wait") {}
  void issue(IssueContext& c) const override {
    c.uses_simd = false;
    c.waits_memory = true;  // for the loads it waits on
    Tick ready = c.issue();
    c.for_each([&](Lane& l) {
      ready = std::max<Tick>(ready, l.pending.ready);
      l.pending.result = l.pending.value;
    });
    c.complete = std::max(c.complete, ready);
  }
};
const WaitUnit kWait;

struct StoreStats : UnitState {
  StoreStats(const std::string& path) : stores(StatGroup(path), "stores", "wavefront store instructions", "") {}
  Counter stores;
};

// Coalesced store: one write per distinct line with byte enables; does not
// hold the wavefront (outstanding until acknowledged).
class StoreUnit final : public OpUnit {
 public:
  explicit StoreUnit(const char* name = "store", Order order = Order::Relaxed) : OpUnit(name, order, true) {}
  void issue(IssueContext& c) const override {
    const unsigned line = c.timing().line;
    line_buf_.assign(line, 0);
    be_buf_.assign(line, 0);
    const sc_core::sc_time local = IssueContext::local(c.issue());
    Tick done = c.issue();
    std::uint64_t todo = c.mask();
    while (todo) {
      const Lane& lead = c.lane(std::countr_zero(todo));
      const std::uint64_t ln = lead.pending.addr / line;
      std::fill(be_buf_.begin(), be_buf_.end(), 0);
      for (std::uint64_t m = todo; m; m &= m - 1) {
        Lane& l = c.lane(std::countr_zero(m));
        if (l.pending.addr / line != ln) continue;
        const std::uint64_t off = line_offset(l, line, "store");
        std::memcpy(line_buf_.data() + off, &l.pending.value, l.pending.size);  // later lanes win, as on GPUs
        std::fill_n(be_buf_.begin() + static_cast<std::ptrdiff_t>(off), l.pending.size, 0xff);
        todo &= ~(1ull << l.lane_id());
      }
      const sc_core::sc_time t =
          c.port().write(ln * line, line_buf_.data(), line, local, be_buf_.data(), lead.pending.bypass_l1);
      done = std::max<Tick>(done, now_ps() + t.value());
      ++c.mem_requests;
    }
    c.outstanding = done;
    c.waits_memory = false;  // stores do not hold the wavefront
    ++stats(c).stores;
  }
  std::unique_ptr<UnitState> make_state(const std::string& path) const override {
    return synchronising() ? nullptr : std::make_unique<StoreStats>(path);
  }

 private:
  StoreStats& stats(IssueContext& c) const;
  mutable std::vector<unsigned char> line_buf_, be_buf_;
};
const StoreUnit kStore;
// Release store: a store that synchronises (publishing a flag); counted with the stores.
const StoreUnit kStoreRelease("store_release", OpUnit::Order::Synchronising);
StoreStats& StoreUnit::stats(IssueContext& c) const { return static_cast<StoreStats&>(*c.cu().unit_state(kStore)); }

struct AtomicStats : UnitState {
  AtomicStats(const std::string& path)
      : atomics(StatGroup(path), "atomics", "wavefront atomic instructions", ""),
        cas(StatGroup(path), "atomics_cas", "wavefront compare-and-swap instructions among them", "") {}
  Counter atomics, cas;
};

// Lane atomics in lane order; returning ones hold the wavefront until the
// last result, non-returning ones (atomic_nr) only delay its retirement.
Tick lane_atomics(IssueContext& c) {
  const sc_core::sc_time local = IssueContext::local(c.issue());
  Tick done = c.issue();
  if (c.timing().coalesce_atomics) {
    // One request per line; a lane whose bytes overlap a lane already in the
    // request waits for the next one (lane order within a word is kept).
    const unsigned line = c.timing().line;
    static thread_local std::vector<LaneAtomic> ops;
    static thread_local std::vector<Lane*> who;
    static thread_local std::vector<unsigned char> bytes;
    bytes.resize(line);
    std::uint64_t todo = c.mask();
    while (todo) {
      const std::uint64_t ln = c.lane(std::countr_zero(todo)).pending.addr / line;
      ops.clear();
      who.clear();
      std::fill(bytes.begin(), bytes.end(), 0);
      for (std::uint64_t m = todo; m; m &= m - 1) {
        Lane& l = c.lane(std::countr_zero(m));
        if (l.pending.addr / line != ln) continue;
        const std::uint64_t off = line_offset(l, line, "atomic");
        if (std::any_of(bytes.begin() + off, bytes.begin() + off + l.pending.size, [](unsigned char b) { return b; }))
          continue;
        std::fill_n(bytes.begin() + static_cast<std::ptrdiff_t>(off), l.pending.size, 1);
        ops.push_back(
            {static_cast<std::uint32_t>(off), l.pending.aop, l.pending.size, l.pending.value, l.pending.compare, 0});
        who.push_back(&l);
        todo &= ~(1ull << l.lane_id());
      }
      const sc_core::sc_time t =
          c.port().atomic_lanes(ln * line, ops.data(), static_cast<unsigned>(ops.size()), line, local);
      for (std::size_t i = 0; i < ops.size(); ++i) who[i]->pending.result = ops[i].old;
      done = std::max<Tick>(done, now_ps() + t.value());
      ++c.mem_requests;
    }
    return done;
  }
  c.for_each([&](Lane& l) {
    std::uint64_t old = 0;
    const sc_core::sc_time t =
        c.port().atomic(l.pending.addr, l.pending.aop, l.pending.size, l.pending.value, l.pending.compare, old, local);
    l.pending.result = old;
    done = std::max<Tick>(done, now_ps() + t.value());
    ++c.mem_requests;
  });
  return done;
}

class AtomicUnit final : public OpUnit {
 public:
  AtomicUnit() : OpUnit("atomic", Order::Synchronising, true) {}
  void issue(IssueContext& c) const override {
    c.complete = std::max(c.complete, lane_atomics(c));
    AtomicStats& s = c.state<AtomicStats>();
    ++s.atomics;
    if (c.lane(static_cast<unsigned>(std::countr_zero(c.mask()))).pending.aop == AtomicOp::Cas) ++s.cas;
  }
  std::unique_ptr<UnitState> make_state(const std::string& path) const override {
    return std::make_unique<AtomicStats>(path);
  }
};
const AtomicUnit kAtomic;

struct AtomicNrStats : UnitState {
  AtomicNrStats(const std::string& path)
      : atomics(StatGroup(path), "atomics_nr", "wavefront non-returning atomic instructions", "") {}
  Counter atomics;
};

class AtomicNrUnit final : public OpUnit {
 public:
  AtomicNrUnit() : OpUnit("atomic_nr", Order::Synchronising, true) {}
  void issue(IssueContext& c) const override {
    c.outstanding = lane_atomics(c);
    c.waits_memory = false;  // non-returning: does not hold the wavefront
    ++c.state<AtomicNrStats>().atomics;
  }
  std::unique_ptr<UnitState> make_state(const std::string& path) const override {
    return std::make_unique<AtomicNrStats>(path);
  }
};
const AtomicNrUnit kAtomicNr;

// With gpu.cu.fence_latency set, either fence is a GPU-scope membar: it
// waits for the wavefront's stores to be acknowledged, then for its own
// round trip (docs/compute-unit.md, "Fences").
void gpu_scope_fence(IssueContext& c) {
  // The H100's MEMBAR.SC.GPU comes with CCTL.IVALL: the L1 drops its global lines
  // (gpu.cu.fence_invalidates_l1), at the fence's issue.
  if (c.timing().fence_invalidates_l1) c.port().invalidate_l1(IssueContext::local(c.issue()));
  const Tick from = std::max(c.issue(), c.wave().writes_done);
  c.complete = std::max(c.complete, from + Tick{c.timing().fence_cycles} * c.timing().cycle);
  c.waits_memory = true;
}

class FenceReleaseUnit final : public OpUnit {
 public:
  FenceReleaseUnit() : OpUnit("fence_release", Order::Synchronising) {}
  void issue(IssueContext& c) const override {
    c.uses_simd = false;
    if (c.timing().fence_cycles) {
      gpu_scope_fence(c);
      return;
    }
    c.complete = std::max(c.complete, c.wave().writes_done);
  }
};
const FenceReleaseUnit kFenceRelease;

class FenceAcquireUnit final : public OpUnit {
 public:
  FenceAcquireUnit() : OpUnit("fence_acquire", Order::Synchronising) {}
  void issue(IssueContext& c) const override {
    c.uses_simd = false;
    if (c.timing().fence_cycles) gpu_scope_fence(c);
  }
};
const FenceAcquireUnit kFenceAcquire;

// ---- workgroup barrier ----

class BarrierUnit final : public OpUnit {
 public:
  BarrierUnit() : OpUnit("barrier") {}
  void issue(IssueContext& c) const override {
    c.uses_simd = false;
    c.wait_at_barrier();
  }
};
const BarrierUnit kBarrier;

class SyncWaveUnit final : public OpUnit {
 public:
  SyncWaveUnit() : OpUnit("sync_wave") {}
  void issue(IssueContext& c) const override { c.wait_at_sync_wave(); }
};
const SyncWaveUnit kSyncWave;

// A reconvergence point (Lane::converge): no instruction, no SIMD time.
class ConvergeUnit final : public OpUnit {
 public:
  ConvergeUnit() : OpUnit("converge") {}
  void issue(IssueContext& c) const override {
    c.instructions = 0;
    c.uses_simd = false;
    c.complete = c.issue() + c.timing().cycle;
  }
};
const ConvergeUnit kConverge;

// ---- wavefront intrinsics ----

template <class T>
void scan_reduce(IssueContext& c, bool exclusive, bool inclusive, int reduce /*0 add 1 min 2 max*/, bool broadcast) {
  T acc{};
  bool first = true;
  c.for_each([&](Lane& l) {
    const T v = from_bits<T>(l.pending.value);
    if (exclusive) l.pending.result = to_bits(acc);
    if (reduce == 1)
      acc = first ? v : std::min(acc, v);
    else if (reduce == 2)
      acc = first ? v : std::max(acc, v);
    else
      acc = static_cast<T>(acc + v);
    first = false;
    if (inclusive) l.pending.result = to_bits(acc);
  });
  if (broadcast) c.for_each([&](Lane& l) { l.pending.result = to_bits(acc); });
}

class ScanReduceUnit final : public OpUnit {
 public:
  enum Kind { ScanInclusive, ScanExclusive, ReduceAdd, ReduceMin, ReduceMax };
  ScanReduceUnit(const char* name, Kind k) : OpUnit(name), k_(k) {}
  void issue(IssueContext& c) const override {
    const bool excl = k_ == ScanExclusive, incl = k_ == ScanInclusive, red = !excl && !incl;
    const int r = k_ == ReduceMin ? 1 : k_ == ReduceMax ? 2 : 0;
    switch (c.first().pending.type) {
      case ValType::I32:
        scan_reduce<std::int32_t>(c, excl, incl, r, red);
        break;
      case ValType::U32:
        scan_reduce<std::uint32_t>(c, excl, incl, r, red);
        break;
      case ValType::I64:
        scan_reduce<std::int64_t>(c, excl, incl, r, red);
        break;
      case ValType::U64:
        scan_reduce<std::uint64_t>(c, excl, incl, r, red);
        break;
      case ValType::F32:
        scan_reduce<float>(c, excl, incl, r, red);
        break;
      case ValType::F64:
        scan_reduce<double>(c, excl, incl, r, red);
        break;
    }
  }

 private:
  Kind k_;
};
const ScanReduceUnit kScanIncl("scan", ScanReduceUnit::ScanInclusive);
const ScanReduceUnit kScanExcl("scan_excl", ScanReduceUnit::ScanExclusive);
const ScanReduceUnit kReduceAdd("reduce_add", ScanReduceUnit::ReduceAdd);
const ScanReduceUnit kReduceMin("reduce_min", ScanReduceUnit::ReduceMin);
const ScanReduceUnit kReduceMax("reduce_max", ScanReduceUnit::ReduceMax);

class BallotUnit final : public OpUnit {
 public:
  BallotUnit() : OpUnit("ballot") {}
  void issue(IssueContext& c) const override {
    std::uint64_t bits = 0;
    c.for_each([&](Lane& l) {
      if (l.pending.value) bits |= 1ull << l.lane_id();
    });
    c.for_each([&](Lane& l) { l.pending.result = bits; });
  }
};
const BallotUnit kBallot;

// broadcast: every lane reads lane `from` (the first lane's choice); shuffle:
// each lane reads the lane it names. The source lane must be active.
class PermuteUnit final : public OpUnit {
 public:
  PermuteUnit(const char* name, bool per_lane) : OpUnit(name), per_lane_(per_lane) {}
  void issue(IssueContext& c) const override {
    const std::uint64_t from0 = c.first().pending.n;
    c.for_each([&](Lane& l) {
      const std::uint64_t from = per_lane_ ? l.pending.n : from0;
      if (from >= c.timing().width || !(c.mask() >> from & 1))
        throw SimFault(
            fmt::format("{} from lane {} which is not active ({})", name(), from, site_name(l.pending.site())));
      l.pending.n = from;
    });
    // Read every source before writing any result (results alias nothing, but
    // keep the order obvious).
    std::vector<std::uint64_t> v;
    c.for_each([&](Lane& l) { v.push_back(c.lane(static_cast<std::uint32_t>(l.pending.n)).pending.value); });
    std::size_t i = 0;
    c.for_each([&](Lane& l) { l.pending.result = v[i++]; });
  }

 private:
  bool per_lane_;
};
const PermuteUnit kBroadcast("broadcast", false);
const PermuteUnit kShuffle("shuffle", true);

// ---- LDS ----

void check_lds(const Lane& l, const Workgroup& wg) {
  if (l.pending.addr + l.pending.size > wg.lds.size())
    throw SimFault(fmt::format("LDS access at byte {} beyond the workgroup's {} bytes ({})", l.pending.addr,
                               wg.lds.size(), site_name(l.pending.site())));
}

class LdsUnit final : public OpUnit {
 public:
  enum Kind { Load, Store, Atomic };
  LdsUnit(const char* name, Kind k) : OpUnit(name), k_(k) {}
  void issue(IssueContext& c) const override {
    Workgroup& wg = c.wave().workgroup();
    c.for_each([&](Lane& l) {
      check_lds(l, wg);
      unsigned char* p = wg.lds.data() + l.pending.addr;
      if (k_ == Load) {
        l.pending.result = 0;
        std::memcpy(&l.pending.result, p, l.pending.size);
      } else if (k_ == Store) {
        std::memcpy(p, &l.pending.value, l.pending.size);
      } else {
        if (l.pending.addr % l.pending.size)
          throw SimFault(fmt::format("LDS atomic at byte {} is not naturally aligned ({})", l.pending.addr,
                                     site_name(l.pending.site())));
        std::uint64_t old = 0;
        std::memcpy(&old, p, l.pending.size);
        const std::uint64_t nv = atomic_apply(l.pending.aop, l.pending.size, old, l.pending.value, l.pending.compare);
        std::memcpy(p, &nv, l.pending.size);
        l.pending.result = old;
      }
    });
    c.complete = c.issue() + c.timing().busy() + c.timing().cycle * c.timing().lds_cycles;
  }

 private:
  Kind k_;
};
const LdsUnit kLdsLoad("lds_load", LdsUnit::Load);
const LdsUnit kLdsStore("lds_store", LdsUnit::Store);
const LdsUnit kLdsAtomic("lds_atomic", LdsUnit::Atomic);

// ---- identity, time ----

class HwRegUnit final : public OpUnit {
 public:
  enum Kind { Cu, Slot, Clock };
  HwRegUnit(const char* name, Kind k) : OpUnit(name), k_(k) {}
  void issue(IssueContext& c) const override {
    const std::uint64_t v = k_ == Cu     ? static_cast<std::uint64_t>(c.cu().index())
                            : k_ == Slot ? c.wave().slot
                                         : c.cu().clock_start() + c.issue() / c.timing().cycle;
    c.for_each([&](Lane& l) { l.pending.result = v; });
  }

 private:
  Kind k_;
};
const HwRegUnit kCuId("cu_id", HwRegUnit::Cu);
const HwRegUnit kSlotId("slot_id", HwRegUnit::Slot);
const HwRegUnit kClock("clock", HwRegUnit::Clock);

class SleepUnit final : public OpUnit {
 public:
  SleepUnit() : OpUnit("sleep") {}
  void issue(IssueContext& c) const override {
    c.uses_simd = false;
    std::uint64_t n = 0;
    c.for_each([&](Lane& l) { n = std::max<std::uint64_t>(n, l.pending.n); });
    c.complete = std::max(c.complete, c.issue() + c.timing().cycle * n);
  }
};
const SleepUnit kSleep;

// ---- the kernel lifecycle ----

class LifecycleUnit final : public OpUnit {
 public:
  enum Kind { NumGroups, GroupId };
  LifecycleUnit(const char* name, Kind k) : OpUnit(name), k_(k) {}
  void issue(IssueContext& c) const override {
    const Workgroup& wg = c.wave().workgroup();
    const std::uint64_t v = k_ == NumGroups ? wg.kernel->num_groups : wg.id;
    c.for_each([&](Lane& l) { l.pending.result = v; });
  }

 private:
  Kind k_;
};
const LifecycleUnit kNumGroups("num_groups", LifecycleUnit::NumGroups);
const LifecycleUnit kGroupId("group_id", LifecycleUnit::GroupId);

class ExitUnit final : public OpUnit {
 public:
  ExitUnit() : OpUnit("exit") {}
  void issue(IssueContext& c) const override {
    c.uses_simd = false;
    c.exit();
  }
};
const ExitUnit kExit;

// The transmit block of a grown workgroup: one coalesced read of its lines by
// every wavefront (they hold the values in registers); the data lands in the
// workgroup once.
class TransmitUnit final : public OpUnit {
 public:
  TransmitUnit() : OpUnit("transmit", Order::Relaxed, true) {}
  void issue(IssueContext& c) const override {
    const Lane& f = c.first();
    const std::uint64_t addr = f.pending.addr, bytes = f.pending.n;
    const unsigned line = c.timing().line;
    std::vector<unsigned char>& out = c.wave().workgroup().transmit;
    const bool fill = out.empty();
    if (fill) out.resize(bytes);
    std::vector<unsigned char> buf(line);
    const sc_core::sc_time local = IssueContext::local(c.issue());
    Tick done = c.issue();
    for (std::uint64_t a = addr / line * line; a < addr + bytes; a += line) {
      const sc_core::sc_time t = c.port().read(a, buf.data(), line, local);
      done = std::max<Tick>(done, now_ps() + t.value());
      ++c.mem_requests;
      if (!fill) continue;
      const std::uint64_t lo = std::max(a, addr), hi = std::min(a + line, addr + bytes);
      std::memcpy(out.data() + (lo - addr), buf.data() + (lo - a), hi - lo);
    }
    c.complete = std::max(c.complete, done);
  }
};
const TransmitUnit kTransmit;

// Spin until a word satisfies a comparison (Lane::spin_until): an acquire
// load; lanes whose condition fails keep the wavefront blocked until a write
// to one of their words, then the wavefront polls again.
struct SpinStats : UnitState {
  explicit SpinStats(const std::string& path)
      : polls(StatGroup(path), "spin_polls", "polls of spinning wavefronts (Lane::spin_until)", ""),
        waits(StatGroup(path), "spin_waits", "polls that found the condition false: the wavefront waited for a write",
              "") {}
  Counter polls, waits;
};
bool spin_holds(SpinCmp cmp, std::uint64_t v, std::uint64_t x) {
  switch (cmp) {
    case SpinCmp::Eq:
      return v == x;
    case SpinCmp::Ne:
      return v != x;
    case SpinCmp::Ge:
      return v >= x;
    case SpinCmp::Gt:
      return v > x;
    case SpinCmp::Le:
      return v <= x;
    case SpinCmp::Lt:
      return v < x;
  }
  return false;
}
class SpinUnit final : public OpUnit {
 public:
  SpinUnit() : OpUnit("spin", Order::Synchronising, true) {}
  std::unique_ptr<UnitState> make_state(const std::string& path) const override {
    return std::make_unique<SpinStats>(path);
  }
  void issue(IssueContext& c) const override {
    auto& st = c.state<SpinStats>();
    ++st.polls;
    const Tick done = coalesced_load(c, static_cast<LoadStats&>(*c.cu().unit_state(kLoad)), buf_);
    c.complete = std::max(c.complete, done);
    std::vector<std::uint64_t> watch;
    bool any_holds = false;
    c.for_each([&](Lane& l) {
      const auto cmp = static_cast<SpinCmp>(l.pending.n & 0xff);
      if (spin_holds(cmp, l.pending.result, l.pending.value))
        any_holds = true;
      else if (std::find(watch.begin(), watch.end(), l.pending.addr) == watch.end())
        watch.push_back(l.pending.addr);
    });
    const bool any_mode = (c.first().pending.n & 0x100) != 0;
    if (watch.empty() || (any_mode && any_holds)) return;
    ++st.waits;
    const char* what = static_cast<const char*>(c.first().pending.data);
    // Tight: the write may come from another CU in any cycle, and a CU that ran
    // ahead with its other wavefronts would see the wake-up up to a quantum late.
    const WaveHandle h = c.block(fmt::format("spin on {}", what ? what : "a word"), true);
    // The first write to any of the words wakes it (the others then find it
    // awake) for a poll one cycle of its CU after the write at the earliest:
    // a write and the poll that sees it are never in the same cycle. (Ready
    // at the write's own time, the wavefront raced the CU's pick of that
    // picosecond: a CU that had picked another wavefront of the same SIMD
    // before SystemC time reached the write issued the poll a cycle later,
    // one that was there already issued it at once, and which of the two
    // happened depended on the quantum. A CU blocked tight picks at t only
    // after SystemC time has passed t - period, so it has seen every write
    // that could make a wavefront ready by t.)
    auto live = std::make_shared<bool>(true);
    BackingStore& store = c.gpu().memory().store();
    const unsigned size = c.first().pending.size;
    for (std::uint64_t a : watch)
      store.watch(a, size, [h, live] {
        if (!std::exchange(*live, false)) return;
        h.cu->wake(h, now_ps() + h.cu->clock().period(), false);  // the lanes poll again
      });
  }

 private:
  mutable std::vector<unsigned char> buf_;
};
const SpinUnit kSpin;

}  // namespace

namespace units {
const OpUnit &alu = kAlu, &alu_fp64 = kAluFp64, &alu_chain = kAluChain, &alu_sched = kAluSched, &load = kLoad,
             &load_acquire = kLoadAcquire, &store_release = kStoreRelease, &load_async = kLoadAsync, &wait = kWait,
             &store = kStore, &atomic = kAtomic, &atomic_nr = kAtomicNr, &barrier = kBarrier, &ballot = kBallot,
             &scan_inclusive = kScanIncl, &scan_exclusive = kScanExcl, &broadcast = kBroadcast, &shuffle = kShuffle,
             &reduce_add = kReduceAdd, &reduce_min = kReduceMin, &reduce_max = kReduceMax, &lds_load = kLdsLoad,
             &lds_store = kLdsStore, &lds_atomic = kLdsAtomic, &fence_release = kFenceRelease,
             &fence_acquire = kFenceAcquire, &cu_id = kCuId, &slot_id = kSlotId, &clock = kClock, &sleep = kSleep,
             &spin = kSpin, &num_groups = kNumGroups, &group_id = kGroupId, &exit = kExit, &transmit = kTransmit,
             &sync_wave = kSyncWave, &converge = kConverge;
}

}  // namespace fg
