// SPDX-License-Identifier: Apache-2.0
#include "gpu/compute_unit.h"

#include <algorithm>
#include <bit>
#include <cassert>
#include <limits>

#include <fmt/format.h>
#include <tlm>

#include "gpu/dispatcher.h"

#include "mem/mem_port.h"
#include "sim/error.h"
#include "sim/guard.h"
#include "sim/trace.h"

namespace fg {

namespace {
constexpr Tick kNever = std::numeric_limits<Tick>::max();

// Channel paper Table 2: 4 SIMD units, 40 wavefront slots of 64 lanes, round-robin.
const Param<std::uint64_t> kSimds{"gpu.cu.simds", 4, "", "SIMD units per CU", {{1}, {64}}};
const Param<std::uint64_t> kSimdWidth{"gpu.cu.simd_width", 16, "lanes", "lanes per SIMD unit", {{1}, {64}}};
const Param<std::uint64_t> kWaveWidth{
    "gpu.cu.wavefront_width", 64, "lanes", "work-items per wavefront (64 AMD, 32 NVIDIA warps)", {{1}, {64}}};
const Param<std::uint64_t> kSlots{"gpu.cu.slots", 40, "", "wavefront slots per CU", {{1}, {1024}}};
const Param<std::uint64_t> kRegisters{"gpu.cu.registers",
                                      65536,
                                      "lane-registers",
                                      "vector register file per CU (a wavefront uses width x registers)",
                                      {{1}, {1ull << 24}}};
const Param<std::uint64_t> kLds{"gpu.cu.lds", 65536, "B", "local data store per CU", {{0}, {1ull << 24}}};
const Param<std::uint64_t> kIssueWidth{"gpu.cu.issue_width",
                                       1,
                                       "instructions",
                                       "wavefront instructions issued per cycle (to different wavefronts)",
                                       {{1}, {16}}};
const Param<std::uint64_t> kLdsLatency{"gpu.cu.lds_latency", 2, "cycles", "LDS access latency", {{0}, {1000}}};
// A dependent ALU instruction waits for its predecessor's result: on the
// NVIDIA parts a fixed-latency ALU result is ready some cycles after issue
// (Accel-Sim's SM90_H100 config: -ptx_opcode_latency_int 4,4,4,4,21). 0 keeps
// the earlier model (the next instruction issues once the SIMD is free), which
// an AMD GCN CU's 4-cycle cadence makes exact (docs/compute-unit.md).
const Param<std::uint64_t> kAluLatency{"gpu.cu.alu_latency",
                                       0,
                                       "cycles",
                                       "cycles from an alu instruction's issue until the wavefront's next "
                                       "instruction may issue, a dependent chain (0: its SIMD time alone)",
                                       {{0}, {1000}}};
// FP64 on the NVIDIA parts: Accel-Sim's SM90_H100 config, -ptx_opcode_latency_dp
// 8,8,8,8,330 (add, max, mul, mad, div). 0: the SIMD time alone.
const Param<std::uint64_t> kFp64Latency{"gpu.cu.fp64_latency",
                                        0,
                                        "cycles",
                                        "cycles from an FP64 instruction's issue until a dependent one may issue "
                                        "(alu_fp64; 0: its SIMD time alone)",
                                        {{0}, {1000}}};
// Integer code known to be a chain (alu_chain: each instruction needs the
// previous one's result), where alu(n) counts issue slots of code whose
// dependences are not modelled: Accel-Sim's SM90_H100 config,
// -ptx_opcode_latency_int 4,4,4,4,21 (add, max, mul, mad, div). 0: the SIMD
// time alone, as alu.
const Param<std::uint64_t> kChainLatency{"gpu.cu.chain_latency",
                                         0,
                                         "cycles",
                                         "cycles from an integer instruction's issue until a dependent one may issue "
                                         "(alu_chain; 0: its SIMD time alone)",
                                         {{0}, {1000}}};
// Compiled code whose static schedule is known (alu_sched: workloads that
// give, besides a code's instruction count, the cycles a lone warp takes to
// issue it, summed from the stall counts ptxas puts in sm_90 machine code;
// docs/compute-unit.md). Off: the instructions' SIMD time alone, as alu(n),
// for machines whose compiler's schedules were not read.
const Param<bool> kStaticStalls{"gpu.cu.static_stalls", false, "",
                                "alu_sched charges its code's static schedule (the compiler's stall counts; sm_90 "
                                "machine code) rather than its SIMD time alone"};
// A GPU-scope fence (PTX membar.gl / fence.sc.gpu) on the NVIDIA parts
// measured costs about an L2 round trip even with no store pending, and that
// after the wavefront's stores are acknowledged (docs/compute-unit.md,
// "Fences"). 0 keeps GPGPU-Sim's membar: wait for the wavefront's stores only.
const Param<std::uint64_t> kFenceLatency{"gpu.cu.fence_latency",
                                         0,
                                         "cycles",
                                         "a fence's own round trip after the wavefront's stores are acknowledged "
                                         "(0: the stores only, as GPGPU-Sim's membar)",
                                         {{0}, {100000}}};
// docs/memory.md, "Synchronisation order": measured host cost and accuracy.
const Param<bool> kSyncOrder{"sim.sync_order", true, "",
                             "synchronising operations (atomics, fences, acquire/release) take effect in "
                             "simulated-time order: the CU syncs with SystemC before issuing one"};
const Param<bool> kOrderMemory{"sim.order_memory", true, "",
                               "order every global load and store like a synchronising operation (under "
                               "mem.coherence=moesi every access can change directory state; measured cost ~5%)"};
const Param<std::string> kPolicy{"gpu.cu.issue_policy", "rr", std::vector<std::string>{"rr", "gto"},
                                 "wavefront issue policy: round-robin or greedy-then-oldest"};
// GPGPU-Sim's Fermi config allows 8 CTAs per SM (-gpgpu_shader_cta 8, the
// kim2014 preset); the channel paper gives no limit, so the default equals
// the 40 slots and never binds before them.
const Param<std::uint64_t> kMaxGroups{"gpu.cu.max_workgroups",
                                      40,
                                      "",
                                      "workgroups resident per CU at once (GPGPU-Sim Fermi: 8 CTAs per SM)",
                                      {{1}, {1024}}};
// An SM's cycle counter (CUDA's clock()/clock64(), PTX %clock64) is "a per-multiprocessor counter that is
// incremented every clock cycle" (CUDA C++ Programming Guide, Time Function); nothing resets it at a launch, so a
// kernel reads whatever its SM has counted since it began counting: a value that differs from SM to SM and from
// run to run. Device code that hashes it (GTaP's victim choice, forkjoin.victim=clock) therefore differs between
// a GPU's runs. zero starts every CU's counter at 0 (the model before 2026-12-05): a run repeats whatever the
// seed. seeded draws each CU's start from sim.seed (below 2^48 cycles, about 40 hours at 1,980 MHz).
const Param<std::string> kClockStart{
    "gpu.cu.clock_start", "zero", std::vector<std::string>{"zero", "seeded"},
    "each CU's cycle counter (device code's clock()) at the run's start: zero on every CU (runs repeat whatever the "
    "seed), seeded a value each CU draws from sim.seed, as an SM's counter holds whatever it has counted and "
    "differs between runs and SMs"};
// GPGPU-Sim 3.x coalesces a warp's atomics like its other global accesses
// (warp_inst_t::memory_coalescing_arch_atomic): lanes whose words fall in one
// 128 B segment share one transaction unless their bytes overlap, in which
// case the later lane opens another. The channel paper does not say what its
// machine does; the default (off) sends one request per lane.
const Param<bool> kCoalesceAtomics{"gpu.cu.coalesce_atomics", false, "",
                                   "combine a wavefront's atomics to one line into one request (lanes on the same "
                                   "word still go in separate requests), as GPGPU-Sim does"};
}  // namespace

extern const Param<std::uint64_t> kLineSize;
extern const Param<bool> kFenceInvalidatesL1;  // mem/l1_cache.cpp
extern const Param<std::uint64_t> kSectorSize;

ComputeUnit::Params ComputeUnit::Params::from(const Config& cfg) {
  Params p;
  p.simds = static_cast<std::uint32_t>(kSimds.get(cfg));
  p.simd_width = static_cast<std::uint32_t>(kSimdWidth.get(cfg));
  p.wavefront_width = static_cast<std::uint32_t>(kWaveWidth.get(cfg));
  p.slots = static_cast<std::uint32_t>(kSlots.get(cfg));
  p.registers = kRegisters.get(cfg);
  p.lds_bytes = kLds.get(cfg);
  p.issue_width = static_cast<std::uint32_t>(kIssueWidth.get(cfg));
  p.lds_latency = static_cast<std::uint32_t>(kLdsLatency.get(cfg));
  p.fence_latency = static_cast<std::uint32_t>(kFenceLatency.get(cfg));
  p.fence_invalidates_l1 = kFenceInvalidatesL1.get(cfg);
  p.alu_latency = static_cast<std::uint32_t>(kAluLatency.get(cfg));
  p.fp64_latency = static_cast<std::uint32_t>(kFp64Latency.get(cfg));
  p.chain_latency = static_cast<std::uint32_t>(kChainLatency.get(cfg));
  p.static_stalls = kStaticStalls.get(cfg);
  p.greedy_then_oldest = kPolicy.get(cfg) == "gto";
  p.line = static_cast<unsigned>(kLineSize.get(cfg));
  p.sector = static_cast<unsigned>(kSectorSize.get(cfg));
  p.max_workgroups = static_cast<std::uint32_t>(kMaxGroups.get(cfg));
  p.sync_order = kSyncOrder.get(cfg);
  p.order_memory = kOrderMemory.get(cfg);
  p.coalesce_atomics = kCoalesceAtomics.get(cfg);
  p.clock_seeded = kClockStart.get(cfg) == "seeded";
  if (p.wavefront_width % p.simd_width)
    throw UserError(fmt::format("gpu.cu.wavefront_width: {} is not a multiple of gpu.cu.simd_width ({})",
                                p.wavefront_width, p.simd_width));
  return p;
}

ComputeUnit::ComputeUnit(sc_core::sc_module_name name, int index, const Params& p, Clock clock, MemPort& port,
                         const std::string& stats_path)
    : sc_module(name),
      wavefront_instructions(StatGroup(stats_path), "wavefront_instructions", "wavefront instructions issued", ""),
      lane_ops(StatGroup(stats_path), "lane_ops", "lane operations (active lanes summed over instructions)", ""),
      divergent_issues(StatGroup(stats_path), "divergent_issues",
                       "instructions issued while other lanes of the wavefront waited at another site", ""),
      barriers(StatGroup(stats_path), "barriers", "workgroup barriers completed", ""),
      wavefronts(StatGroup(stats_path), "wavefronts", "wavefronts completed", ""),
      workgroups(StatGroup(stats_path), "workgroups", "workgroups completed", ""),
      blocks(StatGroup(stats_path), "blocks", "wavefronts blocked by a device operation until woken", ""),
      order_syncs(StatGroup(stats_path), "order_syncs",
                  "SystemC syncs before synchronising operations (sim.sync_order)", ""),
      parks(StatGroup(stats_path), "parks", "wavefronts parked (context saved, slot freed)", ""),
      exits(StatGroup(stats_path), "exits", "wavefronts that ended early (IssueContext::exit)", ""),
      restores(StatGroup(stats_path), "restores", "parked wavefronts restored into a slot of this CU", ""),
      park_bytes(StatGroup(stats_path), "park_bytes", "context bytes written by parks", "B"),
      restore_bytes(StatGroup(stats_path), "restore_bytes", "context bytes read by restores", "B"),
      park_ns(StatGroup(stats_path), "park_time", "time from a park's issue until its slot is free", "ns"),
      restore_ns(StatGroup(stats_path), "restore_time", "time from a restore's start until the wavefront is ready",
                 "ns"),
      wavefront_ns(StatGroup(stats_path), "wavefront_time",
                   "time from a wavefront's launch (or its last restore) in a slot to its completion (Orr et al. "
                   "Table 3's cycles per wavefront)",
                   "ns"),
      simd_utilization(StatGroup(stats_path), "simd_utilization",
                       "active lanes / wavefront width per issued instruction", "", 0.0, 1.0, 10),
      peak_wavefronts(StatGroup(stats_path), "peak_wavefronts", "most wavefronts resident at once", "",
                      [this] { return double(peak_slots_); }),
      cycles_issuing(StatGroup(stats_path), "cycles_issuing", "cycles in which the CU issued instructions", "cycles",
                     [this] { return stall_cycles(kIssuing); }),
      cycles_memory(StatGroup(stats_path), "cycles_memory",
                    "cycles no wavefront could issue: the next waits for memory (a load, atomic or its stores)",
                    "cycles", [this] { return stall_cycles(kMemory); }),
      cycles_dependency(StatGroup(stats_path), "cycles_dependency",
                        "cycles no wavefront could issue: the next waits for an earlier instruction or a SIMD",
                        "cycles", [this] { return stall_cycles(kDependency); }),
      cycles_barrier(StatGroup(stats_path), "cycles_barrier", "cycles every resident wavefront waited at a barrier",
                     "cycles", [this] { return stall_cycles(kBarrier); }),
      cycles_blocked(StatGroup(stats_path), "cycles_blocked",
                     "cycles every resident wavefront was blocked, parked or being restored", "cycles",
                     [this] { return stall_cycles(kBlocked); }),
      cycles_idle(StatGroup(stats_path), "cycles_idle", "cycles with no wavefront resident (to the end of the run)",
                  "cycles", [this] { return stall_cycles(kIdle); }),
      index_(index),
      p_(p),
      clock_(clock),
      port_(port),
      slots_(p.slots),
      slot_free_at_(p.slots, 0),
      slot_state_(p.slots, WaveState::Ready),
      slot_ready_(p.slots, 0),
      simd_free_(p.simds, 0),
      last_simd_(p.simds - 1),
      last_of_simd_(p.simds) {
  // Each SIMD's first turn goes to its first slot.
  for (std::size_t d = 0; d < p_.simds && d < p_.slots; ++d)
    last_of_simd_[d] = (p_.slots - d + p_.simds - 1) / p_.simds - 1;
  words_per_simd_ = ((p_.slots + p_.simds - 1) / p_.simds + 63) / 64;
  occupied_.assign(p_.simds * words_per_simd_, 0);
  scan_.resize(p_.simds);
  timing_.cycle = clock_.period();
  timing_.issue_cycles = p_.wavefront_width / p_.simd_width;
  timing_.lds_cycles = p_.lds_latency;
  timing_.fence_cycles = p_.fence_latency;
  timing_.fence_invalidates_l1 = p_.fence_invalidates_l1;
  timing_.alu_cycles = p_.alu_latency;
  timing_.fp64_cycles = p_.fp64_latency;
  timing_.chain_cycles = p_.chain_latency;
  timing_.static_stalls = p_.static_stalls;
  timing_.line = p_.line;
  timing_.sector = p_.sector;
  timing_.width = p_.wavefront_width;
  timing_.coalesce_atomics = p_.coalesce_atomics;
  // Per-CU state of every device operation, in name order (deterministic stats).
  const auto& reg = OpRegistry::global();
  unit_state_.resize(reg.by_id().size());
  for (const OpUnit* u : reg.by_name()) unit_state_[u->id()] = u->make_state(stats_path);
  SC_HAS_PROCESS(ComputeUnit);
  SC_THREAD(run);
  if (Trace::get().on())
    for (std::uint32_t s = 0; s < p.slots; ++s)
      slot_tracks_.push_back(Trace::get().track(fmt::format("gpu.cu{}", index), fmt::format("slot{}", s)));
}

ComputeUnit::~ComputeUnit() = default;

std::uint32_t ComputeUnit::waves_per_group(const KernelState& k) const {
  return (k.launch.group_size + p_.wavefront_width - 1) / p_.wavefront_width;
}

void ComputeUnit::release(Tick at, std::uint64_t regs, std::uint64_t lds, bool group) {
  releases_.push_back({at, regs, lds, group});
  apply_releases(sc_core::sc_time_stamp().value());
}

void ComputeUnit::apply_releases(Tick upto) {
  std::erase_if(releases_, [&](const Release& r) {
    if (r.at > upto) return false;
    used_slots_ -= 1;
    used_regs_ -= r.regs;
    used_lds_ -= r.lds;
    if (r.group) --groups_;
    return true;
  });
}

Tick ComputeUnit::next_release() const {
  Tick t = kNever;
  for (const Release& r : releases_) t = std::min(t, r.at);
  return t;
}

void ComputeUnit::account(Stall kind, Tick from, Tick to) {
  if (from > accounted_) {
    stall_ticks_[kIdle] += from - accounted_;
    accounted_ = from;
  }
  if (to > accounted_) {
    stall_ticks_[kind] += to - accounted_;
    accounted_ = to;
  }
}

double ComputeUnit::stall_cycles(Stall kind) const {
  Tick ticks = stall_ticks_[kind];
  if (kind == kIdle) {  // from the last charged time to the end of the run
    const Tick now = sc_core::sc_time_stamp().value();
    if (now > accounted_) ticks += now - accounted_;
  }
  return double(ticks) / double(clock_.period());
}

bool ComputeUnit::fits(const KernelState& k) {
  apply_releases(sc_core::sc_time_stamp().value());
  const std::uint32_t w = waves_per_group(k);
  return groups_ < p_.max_workgroups && used_slots_ + pending_waves_ + w <= p_.slots &&
         used_regs_ + pending_regs_ + w * regs_per_wave(k) <= p_.registers &&
         used_lds_ + k.launch.lds_bytes <= p_.lds_bytes;
}

bool ComputeUnit::fits_empty(const KernelState& k) const { return capacity(k.launch) > 0; }

std::uint32_t ComputeUnit::capacity(const KernelLaunch& k) const { return capacity_bound(k).groups; }

ComputeUnit::CapacityBound ComputeUnit::capacity_bound(const KernelLaunch& k) const {
  const std::uint64_t w = (k.group_size + p_.wavefront_width - 1) / p_.wavefront_width;
  constexpr std::uint64_t kNone = std::numeric_limits<std::uint64_t>::max();
  std::uint64_t limits[4] = {p_.slots / w, p_.max_workgroups, kNone, kNone};  // in Limit's order
  if (k.registers) limits[2] = p_.registers / (w * p_.wavefront_width * k.registers);
  if (k.lds_bytes) limits[3] = p_.lds_bytes / k.lds_bytes;
  const std::uint64_t n = *std::min_element(limits, limits + 4);
  CapacityBound b{static_cast<std::uint32_t>(n), 0};
  for (unsigned i = 0; i < 4; ++i)
    if (limits[i] == n) b.binding |= 1u << i;
  return b;
}

std::uint32_t ComputeUnit::free_slot() const {
  for (std::uint32_t s = 0; s < slots_.size(); ++s)
    if (!slots_[s]) return s;
  return static_cast<std::uint32_t>(slots_.size());
}

void ComputeUnit::place(KernelState& k, std::uint32_t group, std::shared_ptr<const GrowSpec> grow) {
  // The CU owns its workgroups (freed on retirement, or with the CU when a
  // run stops on a fault with work still resident).
  auto* wg = workgroups_owned_.emplace_back(std::make_unique<Workgroup>()).get();
  wg->kernel = &k;
  wg->id = group;
  wg->grow = std::move(grow);
  wg->waves = waves_per_group(k);
  wg->lds.assign(k.launch.lds_bytes, 0);
  ++groups_;
  used_slots_ += wg->waves;
  peak_slots_ = std::max(peak_slots_, used_slots_);
  used_regs_ += wg->waves * regs_per_wave(k);
  used_lds_ += k.launch.lds_bytes;
  k.wavefronts += wg->waves;
  const Tick now = sc_core::sc_time_stamp().value();
  std::uint32_t s = 0;
  for (std::uint32_t i = 0; i < wg->waves; ++i) {
    while (slots_[s]) ++s;
    slots_[s] = std::make_unique<Wavefront>(*wg, i * p_.wavefront_width, p_.wavefront_width, next_age_++);
    Wavefront* w = slots_[s].get();
    mark_slot(s, true);
    w->slot = s;
    slot_state_[s] = w->state;
    w->simd = s % p_.simds;
    w->cu = index_;
    // A slot is reused only after its previous wavefront really left it
    // (the CU may have freed it ahead of SystemC time).
    set_ready(w, std::max(now, slot_free_at_[s]));
    w->started = w->ready;
    wg->members.push_back(w);
  }
  for (Wavefront* w : wg->members) w->start();
  // Wavefronts whose lanes are all inactive or that end before any operation.
  for (Wavefront* w : std::vector<Wavefront*>(wg->members)) after_issue(w, w->ready);
  wake_.notify(sc_core::SC_ZERO_TIME);
}

void ComputeUnit::after_issue(Wavefront* w, Tick t) {
  Workgroup& wg = w->workgroup();
  if (w->finished()) {
    finish(w, t);
    return;
  }
  if (w->state == WaveState::Ready && w->waiting_at_barrier()) {
    set_state(w, WaveState::Barrier);
    ++wg.waves_at_barrier;
  }
  release_barrier_if_complete(wg, t);
}

void ComputeUnit::release_barrier_if_complete(Workgroup& wg, Tick t) {
  // Every wavefront still running is at the barrier (finished ones do not count).
  if (wg.waves_at_barrier == 0 || wg.waves_at_barrier != wg.waves - wg.waves_done) return;
  ++barriers;
  wg.waves_at_barrier = 0;
  for (Wavefront* m : std::vector<Wavefront*>(wg.members)) {
    if (m->state != WaveState::Barrier) continue;
    set_state(m, WaveState::Ready);
    set_ready(m, t + clock_.period());
    m->release_barrier();
    if (m->finished()) finish(m, t);
  }
}

void ComputeUnit::finish(Wavefront* w, Tick t) {
  // Complete when its last instruction and its last store complete; until
  // then it keeps its slot, registers and (for the workgroup) LDS.
  const Tick done = std::max({t, w->ready, w->writes_done});
  set_state(w, WaveState::Draining);
  set_ready(w, done);
  Workgroup& wg = w->workgroup();
  wg.end = std::max(wg.end, done);
  ++wg.waves_done;
  ++draining_;                         // the run loop frees its slot at `done`
  release_barrier_if_complete(wg, t);  // the others may have been waiting only for this one
}

Gpu& ComputeUnit::gpu() const {
  if (!gpu_) throw std::logic_error(fmt::format("{}: not part of a GPU", name()));
  return *gpu_;
}

void ComputeUnit::reap(Tick t) {
  for (auto& s : slots_) {
    if (!s || s->ready > t) continue;
    if (s->state == WaveState::Draining)
      retire(s.get());
    else if (s->state == WaveState::Parking)
      complete_park(s.get());
  }
}

void ComputeUnit::retire(Wavefront* w) {
  Workgroup* wg = &w->workgroup();
  KernelState& k = *wg->kernel;
  const Tick t = w->ready;  // its completion time
  ++wavefronts;
  wavefront_ns.sample(tick_to_ns(t - w->started));
  --draining_;
  if (!slot_tracks_.empty()) Trace::get().span(slot_tracks_[w->slot], k.launch.name, w->started, t - w->started);
  const std::uint32_t slot = w->slot;
  if (last_ == w) last_ = nullptr;
  wg->members.erase(std::find(wg->members.begin(), wg->members.end(), w));
  slots_[slot].reset();
  mark_slot(slot, false);
  slot_free_at_[slot] = t;
  const bool last = wg->members.empty();
  release(t, regs_per_wave(k), last && wg->lds_held ? k.launch.lds_bytes : 0, last);
  if (last) {
    ++workgroups;
    const std::uint32_t id = wg->id;
    const bool exited = wg->exited;
    const Tick end = wg->end;  // the member that completed last, not the last retired
    auto g =
        std::find_if(workgroups_owned_.begin(), workgroups_owned_.end(), [&](const auto& p) { return p.get() == wg; });
    if (g == workgroups_owned_.end())
      throw std::logic_error(fmt::format("{}: retiring workgroup {} that this CU does not own", name(), id));
    workgroups_owned_.erase(g);
    if (dispatcher_) dispatcher_->workgroup_finished(k, id, end, exited);
  }
}

// ---- parking ----

std::uint64_t ComputeUnit::context_bytes(const KernelState& k, const Workgroup& wg) const {
  const ContextSize& c = k.launch.context;
  const std::uint64_t w = p_.wavefront_width;
  std::uint64_t b = c.fixed + c.s * w * 4 + c.d * w * 8 + (c.c * w + 7) / 8;
  if (wg.waves == 1) b += k.launch.lds_bytes;  // a one-wavefront workgroup saves its LDS too
  return b;
}

namespace {
// Context traffic: line-sized transfers issued together from `start`; returns
// when the last completes.
Tick move_context(MemPort& port, std::uint64_t addr, std::uint64_t bytes, unsigned line, Tick start, bool write) {
  static std::vector<unsigned char> buf;
  buf.assign(line, 0);
  const sc_core::sc_time local = IssueContext::local(start);
  Tick done = start;
  for (std::uint64_t off = 0; off < bytes;) {
    const std::uint64_t a = addr + off;
    const unsigned len = static_cast<unsigned>(std::min<std::uint64_t>(line - a % line, bytes - off));
    const sc_core::sc_time t = write ? port.write(a, buf.data(), len, local) : port.read(a, buf.data(), len, local);
    done = std::max<Tick>(done, sc_core::sc_time_stamp().value() + t.value());
    off += len;
  }
  return done;
}
}  // namespace

void ComputeUnit::start_park(Wavefront* w, Tick t, Tick issue_done) {
  const std::uint64_t bytes = context_bytes(*w->workgroup().kernel, w->workgroup());
  // The writes are issued with the parking instruction, behind its
  // wavefront's earlier stores in the port's order (a port's issue times
  // never go backwards: issuing them at the stores' completion would put them
  // ahead of the next instruction of another wavefront); the slot is free
  // once they and the stores have completed.
  const Tick done = std::max({move_context(port_, w->spill, bytes, p_.line, t, true), issue_done, w->writes_done});
  set_state(w, WaveState::Parking);
  set_ready(w, done);
  ++draining_;
  ++parks;
  park_bytes += bytes;
  park_ns.sample(tick_to_ns(done - t));
}

void ComputeUnit::complete_park(Wavefront* w) {
  Workgroup& wg = w->workgroup();
  KernelState& k = *wg.kernel;
  const Tick t = w->ready;
  --draining_;
  if (!slot_tracks_.empty()) Trace::get().span(slot_tracks_[w->slot], k.launch.name, w->started, t - w->started);
  if (last_ == w) last_ = nullptr;
  const std::uint32_t slot = w->slot;
  slot_free_at_[slot] = t;
  // A one-wavefront workgroup leaves the CU whole: its LDS went into the context.
  release(t, regs_per_wave(k), wg.waves == 1 && wg.lds_held ? k.launch.lds_bytes : 0, wg.waves == 1);
  if (wg.waves == 1) wg.lds_held = false;
  set_state(w, WaveState::Parked);
  parked_.push_back(std::move(slots_[slot]));
  mark_slot(slot, false);
  if (w->restore_to) {  // restored before the context was out
    auto* target = w->restore_to;
    w->restore_to = nullptr;
    target->restore(WaveHandle{this, w}, std::max(w->restore_at, t));
  }
  if (dispatcher_) dispatcher_->resources_freed(t);
}

void ComputeUnit::restore(const WaveHandle& h, Tick at) {
  ComputeUnit& from = *h.cu;
  Wavefront* w = h.wave;
  if (w->state == WaveState::Parking) {  // its context is still being written: restore when done
    w->restore_to = this;
    w->restore_at = at;
    return;
  }
  if (w->state != WaveState::Parked)
    throw std::logic_error(
        fmt::format("{}: restore of a wavefront that is {}, not parked", name(), to_string(w->state)));
  auto it = std::find_if(from.parked_.begin(), from.parked_.end(), [&](const auto& p) { return p.get() == w; });
  if (it == from.parked_.end())
    throw std::logic_error(fmt::format("{}: restore of an unknown parked wavefront", name()));
  if (&from != this && w->workgroup().waves > 1)
    throw SimFault(fmt::format("{}: a wavefront of {} workgroup {} ({} wavefronts) can only be restored on {}", name(),
                               w->workgroup().kernel->launch.name, w->workgroup().id, w->workgroup().waves,
                               from.name()));
  std::unique_ptr<Wavefront> p = std::move(*it);
  from.parked_.erase(it);
  if (&from != this) {  // a one-wavefront workgroup moves: so does its ownership
    auto g = std::find_if(from.workgroups_owned_.begin(), from.workgroups_owned_.end(),
                          [&](const auto& q) { return q.get() == &w->workgroup(); });
    if (g == from.workgroups_owned_.end())
      throw std::logic_error(
          fmt::format("{}: restore of a wavefront whose workgroup {} does not own", name(), from.name()));
    workgroups_owned_.push_back(std::move(*g));
    from.workgroups_owned_.erase(g);
  }
  set_state(w, WaveState::Restoring);
  ++pending_waves_;
  pending_regs_ += regs_per_wave(*w->workgroup().kernel);
  restores_.push_back(Restore{std::move(p), at});
  wake_.notify(sc_core::SC_ZERO_TIME);
}

bool ComputeUnit::process_restores(Tick t) {
  apply_releases(t);  // what this CU freed by its own local time
  bool any = false;
  for (auto it = restores_.begin(); it != restores_.end();) {
    Wavefront* w = it->w.get();
    Workgroup& wg = w->workgroup();
    KernelState& k = *wg.kernel;
    const bool needs_group = wg.waves == 1;
    const std::uint32_t s = free_slot();
    if (it->at > t || s == slots_.size() || used_regs_ + regs_per_wave(k) > p_.registers ||
        (needs_group && (groups_ >= p_.max_workgroups || used_lds_ + k.launch.lds_bytes > p_.lds_bytes))) {
      ++it;
      continue;
    }
    --pending_waves_;
    pending_regs_ -= regs_per_wave(k);
    if (needs_group) {
      ++groups_;
      used_lds_ += k.launch.lds_bytes;
      wg.lds_held = true;
    }
    ++used_slots_;
    peak_slots_ = std::max(peak_slots_, used_slots_);
    used_regs_ += regs_per_wave(k);
    const Tick start = std::max({t, it->at, slot_free_at_[s]});
    const std::uint64_t bytes = context_bytes(k, wg);
    // Issued now (a port's issue times never go backwards); the lanes have
    // their registers back when the reads are in and the slot is free.
    const Tick done = std::max(move_context(port_, w->spill, bytes, p_.line, t, false), start);
    ++restores;
    restore_bytes += bytes;
    restore_ns.sample(tick_to_ns(done - start));
    w->slot = s;
    w->simd = s % p_.simds;
    w->cu = index_;
    w->started = start;
    slots_[s] = std::move(it->w);
    mark_slot(s, true);
    set_ready(w, done);
    set_state(w, WaveState::Ready);
    it = restores_.erase(it);
    const std::uint64_t held = std::exchange(w->held, 0);
    w->what.clear();
    w->resume(held);
    after_issue(w, done);
    any = true;
  }
  return any;
}

// ---- blocking ----

void ComputeUnit::wake(const WaveHandle& h, Tick at, bool resume) {
  if (h.cu != this) throw std::logic_error(fmt::format("{}: wake of a wavefront of {}", name(), h.cu->name()));
  if (h.wave->state != WaveState::Blocked)
    throw std::logic_error(
        fmt::format("{}: wake of a wavefront that is {}, not blocked", name(), to_string(h.wave->state)));
  wakes_.push_back(Wake{h.wave, at, resume});
  wake_.notify(sc_core::SC_ZERO_TIME);
}

void ComputeUnit::process_wakes(Tick t) {
  while (!wakes_.empty()) {
    const Wake wk = wakes_.front();
    wakes_.pop_front();
    Wavefront* w = wk.w;
    set_state(w, WaveState::Ready);
    set_ready(w, std::max(wk.at, t));
    if (const std::uint8_t tag = std::exchange(w->block_tag, 0))
      mech_wait_[tag] += w->ready > w->blocked_at ? w->ready - w->blocked_at : 0;
    if (std::exchange(w->tight, false)) --tight_blocked_;
    const std::uint64_t held = std::exchange(w->held, 0);
    w->what.clear();
    if (wk.resume)
      w->resume(held);
    else
      w->hold_at_one_site(held);  // the held lanes issue the operation again
    after_issue(w, w->ready);
  }
}

// ---- issue ----

Wavefront* ComputeUnit::pick(Tick t, Tick& next, Stall& why, bool full) {
  // What a look at slots found: the earliest time one of them could issue
  // (`min_at`: a Ready wavefront's max(ready, its SIMD's free time), a
  // draining or parking one's completion), the Ready wavefront that could
  // soonest (the first in visiting order), and what the others wait for.
  SlotScan all;
  // Slot i (holding a wavefront of SIMD `simd`): whether it can issue at t; if
  // not, fold it into `acc`. The state and ready time come from slot_state_
  // and slot_ready_: reading them from 48 wavefronts, most of them blocked,
  // was a cache miss each (two thirds of pick's host time while a worklist's
  // waiters spin; with the state alone, the ready time's load was still a
  // third of pick's time in a persistent fork-join kernel).
  auto ready = [&](std::size_t i, std::size_t simd, SlotScan& acc) {
    acc.any = true;
    assert(slots_[i] && slot_ready_[i] == slots_[i]->ready && simd == slots_[i]->simd);
    switch (slot_state_[i]) {
      case WaveState::Ready: {
        const Tick at = std::max(slot_ready_[i], simd_free_[simd]);
        if (at <= t) return true;
        acc.min_at = std::min(acc.min_at, at);
        if (at < acc.first_at) acc.first = i, acc.first_at = at;
        break;
      }
      case WaveState::Draining:
        acc.draining = true, acc.min_at = std::min(acc.min_at, slot_ready_[i]);
        break;
      case WaveState::Parking:
        acc.blocked = true, acc.min_at = std::min(acc.min_at, slot_ready_[i]);
        break;
      case WaveState::Barrier:
        acc.barrier = true;
        break;
      default:
        acc.blocked = true;
        break;
    }
    return false;
  };
  // Why no wavefront can issue (the look saw every slot).
  auto reason = [&] {
    next = all.min_at;
    if (!all.any) return restores_.empty() ? kIdle : kBlocked;
    if (all.first != kNoSlot)
      return slots_[all.first]->waits_memory && slot_ready_[all.first] > t ? kMemory : kDependency;
    if (all.barrier) return kBarrier;
    if (all.blocked) return kBlocked;
    return all.draining ? kMemory : kIdle;
  };
  next = kNever;
  if (p_.greedy_then_oldest) {
    if (last_ && last_->state == WaveState::Ready && std::max(last_->ready, simd_free_[last_->simd]) <= t) return last_;
    Wavefront* best = nullptr;
    for (std::size_t i = 0; i < slots_.size(); ++i)
      if (slots_[i] && ready(i, i % p_.simds, all) && (!best || slots_[i]->age() < best->age())) best = slots_[i].get();
    if (!best) why = reason();
    return best;
  }
  // SIMDs in turn from the one after the last to issue; within a SIMD, its
  // slots (slot % simds) in turn from the one after its last to issue: the
  // occupied ones, k from last + 1 to count - 1, then from 0 to last. A SIMD
  // whose slots were all looked at since anything of theirs changed (its
  // scan_ entry is valid) is looked at again only once t reaches the earliest
  // time one of them could issue: an idle CU wakes for one wavefront at a
  // time, and looking at every slot each time was a quarter of the host time
  // of a persistent kernel's idle phases.
  const std::size_t n = slots_.size(), simds = p_.simds;
  std::size_t d = last_simd_;
  for (std::size_t i = 0; i < simds; ++i) {
    if (++d == simds) d = 0;
    if (d >= n) continue;
    if (!full && simd_free_[d] > t) continue;  // none of its slots can issue at t
    SlotScan& c = scan_[d];
    if (!c.valid || c.min_at <= t) {
      const std::size_t count = (n - d + simds - 1) / simds;  // slots d, d + simds, ...
      const std::size_t start = last_of_simd_[d] + 1;
      const std::uint64_t* words = &occupied_[d * words_per_simd_];
      SlotScan acc;
      for (int pass = 0; pass < 2; ++pass) {
        const std::size_t lo = pass ? 0 : start, hi = pass ? start : count;
        for (std::size_t wi = lo / 64; lo < hi && wi <= (hi - 1) / 64; ++wi) {
          std::uint64_t bits = words[wi];
          if (wi == lo / 64) bits &= ~std::uint64_t{0} << (lo % 64);
          if (wi == (hi - 1) / 64 && hi % 64) bits &= ~(~std::uint64_t{0} << (hi % 64));
          for (; bits; bits &= bits - 1) {
            const std::size_t s = d + (wi * 64 + std::countr_zero(bits)) * simds;
            if (ready(s, d, acc)) return slots_[s].get();
          }
        }
      }
      c = acc;
      c.valid = true;
    }
    all.any |= c.any, all.barrier |= c.barrier, all.blocked |= c.blocked, all.draining |= c.draining;
    all.min_at = std::min(all.min_at, c.min_at);
    if (c.first_at < all.first_at) all.first = c.first, all.first_at = c.first_at;
  }
  if (full) why = reason();
  return nullptr;
}

void ComputeUnit::issue(Wavefront* w, Tick t, std::uint32_t cpi) {
  bool divergent = false;
  const std::uint64_t mask = w->select(divergent);
  last_simd_ = static_cast<std::uint32_t>(w->slot % p_.simds);
  last_of_simd_[last_simd_] = w->slot / p_.simds;
  last_ = w;
  if (!mask) {  // every live lane waits at the barrier
    after_issue(w, t);
    return;
  }
  std::vector<Lane>& lanes = w->lanes();
  const OpUnit& unit = *lanes[std::countr_zero(mask)].pending.unit;
  const bool ordered = p_.sync_order && (unit.synchronising() || (p_.order_memory && unit.memory()));
  if (ordered && t > sc_core::sc_time_stamp().value()) {
    // Take effect in simulated-time order: every synchronising operation of
    // every initiator runs at SystemC time = its own time.
    ++order_syncs;
    sc_core::wait(sc_core::sc_time::from_value(t - sc_core::sc_time_stamp().value()));
  }
  if (ordered) order_ties();
  IssueContext c(*this, *w, lanes, mask, t, timing_, port_, unit_state(unit));
  c.waits_memory = unit.memory();
  unit.issue(c);
  w->waits_memory = c.waits_memory;

  const std::uint32_t active = c.active();
  wavefront_instructions += c.instructions;
  w->workgroup().kernel->instructions += c.instructions;
  if (c.levels.empty()) {
    lane_ops += c.instructions * active;
    simd_utilization.sample(double(active) / p_.wavefront_width, c.instructions);
  } else {
    for (const auto& [n, slots] : c.levels) {
      lane_ops += std::uint64_t{n} * slots;
      simd_utilization.sample(double(n) / p_.wavefront_width, slots);
    }
  }
  if (divergent) divergent_issues += c.instructions;
  // The mechanism's share (gpu/task_metrics.h): its units, or its runtime's code.
  const std::uint8_t tag = unit.mechanism() ? unit.mechanism() : lanes[std::countr_zero(mask)].scope;
  if (tag) {
    mech_instr_[tag] += c.instructions;
    if (&unit == &units::atomic || &unit == &units::atomic_nr) mech_atomics_[tag] += active;
  }
  if (c.uses_simd) simd_free_[w->simd] = t + clock_.period() * cpi * c.instructions;
  set_ready(w, c.complete);  // also marks the SIMD's scan stale (its free time may have moved)
  w->writes_done = std::max(w->writes_done, c.outstanding);
  switch (c.after()) {
    case IssueContext::After::Resume:
      w->resume(mask);
      break;
    case IssueContext::After::Barrier:
      w->arrive_at_barrier(mask);
      break;
    case IssueContext::After::SyncWave:
      w->arrive_at_sync(mask);
      break;
    case IssueContext::After::Block:
      set_state(w, WaveState::Blocked);
      w->held = mask;
      w->what = c.what();
      w->tight = c.tight();
      tight_blocked_ += c.tight();
      w->block_tag = tag;
      w->blocked_at = c.complete;
      ++blocks;
      break;
    case IssueContext::After::Park:
      w->held = mask;
      w->what = c.what();
      w->spill = c.spill();
      start_park(w, t, c.complete);
      break;
    case IssueContext::After::Exit: {
      w->end();
      ++exits;
      // The first wavefront of a workgroup to exit takes it out of the
      // kernel's workgroup count at once (get_num_groups is right after it).
      Workgroup& wg = w->workgroup();
      if (!std::exchange(wg.exited, true) && dispatcher_) dispatcher_->workgroup_exiting(*wg.kernel);
      break;
    }
  }
  after_issue(w, t);
}

// Synchronising operations of several CUs at the same picosecond take effect
// in CU-index order (a fixed-priority arbiter), not in SystemC's process order,
// which depends on history and so on the quantum: CU i goes in the i-th delta
// cycle after the first synchronising operation of that time.
void ComputeUnit::order_ties() {
  static Tick tie_time = ~Tick{0};
  static std::uint64_t tie_delta = 0;
  const Tick now = sc_core::sc_time_stamp().value();
  if (now != tie_time) tie_time = now, tie_delta = sc_core::sc_delta_count();
  while (sc_core::sc_delta_count() - tie_delta < static_cast<std::uint64_t>(index_))
    sc_core::wait(sc_core::SC_ZERO_TIME);
}

void ComputeUnit::run() {
  run_guarded([&] {
    const Tick period = clock_.period();
    const Tick quantum = std::max<Tick>(1, tlm::tlm_global_quantum::instance().get().value());
    // Quantum boundaries are global (multiples of the quantum), as in
    // tlm_quantumkeeper. While a wavefront waits for a wake-up that may come
    // in any cycle (IssueContext::block, tight) or the dispatcher holds the
    // cycle synchronisation, every cycle edge and only the edges, whatever
    // the quantum: a quantum boundary inside a cycle (a quantum that is not a
    // whole number of cycles, such as 20 ns on kim2014's 1,429 ps) made the
    // CU sleep there instead of running ahead to the edge, and so see a
    // workgroup the dispatcher placed in that picosecond, which at a
    // one-cycle quantum it had run past.
    auto boundary = [&] {
      const Tick s = sc_core::sc_time_stamp().value();
      const bool tight = tight_blocked_ || (dispatcher_ && dispatcher_->cycle_sync());
      return tight ? (s / period + 1) * period : (s / quantum + 1) * quantum;
    };
    const std::uint32_t cpi = p_.wavefront_width / p_.simd_width;
    auto now = []() -> Tick { return sc_core::sc_time_stamp().value(); };
    Tick t = now();
    std::uint32_t issued = 0;
    for (;;) {
      if (!wakes_.empty()) process_wakes(t);
      if (draining_) reap(t);  // before restores: a restore may be waiting for the slot this frees
      if (!restores_.empty()) process_restores(t);
      Tick next = kNever;
      Stall why = kIdle;
      Wavefront* w = pick(t, next, why, issued == 0);
      if (!w && issued) {
        // Nothing else issues in the cycle of the last issue: the next issue
        // is a cycle later. (It used to stay at t with a fresh issue budget;
        // after a sleep to the quantum's end or a wake-up the CU looked at the
        // slots at t again and could issue less than a cycle after the last
        // issue, more often the smaller the quantum.)
        account(kIssuing, t, t + period);
        t += period, issued = 0;
        if (t >= boundary()) sc_core::wait(sc_core::sc_time::from_value(t - now()));
        continue;
      }
      if (!w) {
        // Nothing can issue at t: the next time something can (a wavefront
        // becomes ready, a SIMD frees, a wavefront completes its stores or
        // its park: from pick), or a restore is due.
        for (const auto& r : restores_)
          if (r.at > t) next = std::min(next, r.at);
        if (next != kNever && next < boundary()) {  // still inside the quantum: run ahead
          account(why, t, next);
          t = next;
          continue;
        }
        // Sleep, but wake for anything that arrives meanwhile (a workgroup, a
        // wake-up, a restore): every wait is followed by a fresh look at the slots.
        if (t > now()) {  // catch SystemC up with the local time first, then look again
          sc_core::wait(sc_core::sc_time::from_value(t - now()), wake_);
          // Work that arrived meanwhile (a workgroup, a wake-up, a restore)
          // may issue from its arrival: the CU only idled (reaped drains)
          // since its last issue, so its clock goes back to the later of the
          // arrival and the cycle after that issue. Otherwise a CU that ran
          // ahead idle within the quantum would start the work late, by an
          // amount that depends on the quantum.
          if (now() < t) t = std::min(t, std::max(now(), last_issue_ + period));
          continue;
        }
        if (next == kNever)
          sc_core::wait(wake_);
        else if (next > now())
          sc_core::wait(sc_core::sc_time::from_value(next - now()), wake_);
        account(why, t, std::max(t, now()));
        t = std::max(t, now());
        continue;
      }
      issue(w, t, cpi);
      last_issue_ = t;
      if (++issued >= p_.issue_width) {
        account(kIssuing, t, t + period);
        t += period, issued = 0;
      }
      if (t >= boundary()) sc_core::wait(sc_core::sc_time::from_value(t - now()));
    }
  });
}

std::vector<std::pair<std::string, std::string>> ComputeUnit::wavefront_states() const {
  std::vector<std::pair<std::string, std::string>> v;
  auto add = [&](const Wavefront& w, const std::string& where) {
    std::string kind = to_string(w.state);
    if (w.state == WaveState::Blocked || w.state == WaveState::Parked || w.state == WaveState::Parking)
      kind += " on " + w.what;
    v.emplace_back(kind, fmt::format("{} {} ({} group {}), {}: {}", name(), where, w.workgroup().kernel->launch.name,
                                     w.workgroup().id, kind, w.describe()));
  };
  for (const auto& w : slots_)
    if (w) add(*w, fmt::format("slot{}", w->slot));
  for (const auto& w : parked_) add(*w, "(parked)");
  for (const auto& r : restores_) add(*r.w, "(waiting for a slot)");
  return v;
}

}  // namespace fg
