#include "gpu/compute_unit.h"

#include <algorithm>
#include <limits>

#include <fmt/format.h>
#include <tlm>

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
const Param<std::uint64_t> kWaveWidth{"gpu.cu.wavefront_width", 64, "lanes",
                                      "work-items per wavefront (64 AMD, 32 NVIDIA warps)", {{1}, {64}}};
const Param<std::uint64_t> kSlots{"gpu.cu.slots", 40, "", "wavefront slots per CU", {{1}, {1024}}};
const Param<std::uint64_t> kRegisters{"gpu.cu.registers", 65536, "lane-registers",
                                      "vector register file per CU (a wavefront uses width x registers)",
                                      {{1}, {1ull << 24}}};
const Param<std::uint64_t> kLds{"gpu.cu.lds", 65536, "B", "local data store per CU", {{0}, {1ull << 24}}};
const Param<std::uint64_t> kIssueWidth{"gpu.cu.issue_width", 1, "instructions",
                                       "wavefront instructions issued per cycle (to different wavefronts)",
                                       {{1}, {16}}};
const Param<std::uint64_t> kLdsLatency{"gpu.cu.lds_latency", 2, "cycles", "LDS access latency", {{0}, {1000}}};
const Param<std::string> kPolicy{"gpu.cu.issue_policy", "rr", std::vector<std::string>{"rr", "gto"},
                                 "wavefront issue policy: round-robin or greedy-then-oldest"};
}  // namespace

extern const Param<std::uint64_t> kLineSize;

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
  p.greedy_then_oldest = kPolicy.get(cfg) == "gto";
  p.line = static_cast<unsigned>(kLineSize.get(cfg));
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
      loads(StatGroup(stats_path), "loads", "wavefront load instructions", ""),
      stores(StatGroup(stats_path), "stores", "wavefront store instructions", ""),
      atomics(StatGroup(stats_path), "atomics", "wavefront atomic instructions", ""),
      barriers(StatGroup(stats_path), "barriers", "workgroup barriers completed", ""),
      wavefronts(StatGroup(stats_path), "wavefronts", "wavefronts completed", ""),
      workgroups(StatGroup(stats_path), "workgroups", "workgroups completed", ""),
      simd_utilization(StatGroup(stats_path), "simd_utilization",
                       "active lanes / wavefront width per issued instruction", "", 0.0, 1.0, 10),
      reqs_per_load(StatGroup(stats_path), "reqs_per_load", "line requests per wavefront load (Reqs/Load)", ""),
      peak_wavefronts(StatGroup(stats_path), "peak_wavefronts", "most wavefronts resident at once", "",
                      [this] { return double(peak_slots_); }),
      index_(index),
      p_(p),
      clock_(clock),
      port_(port),
      slots_(p.slots),
      slot_free_at_(p.slots, 0),
      simd_free_(p.simds, 0) {
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

bool ComputeUnit::fits(const KernelState& k) const {
  const std::uint32_t w = waves_per_group(k);
  return used_slots_ + w <= p_.slots &&
         used_regs_ + std::uint64_t{w} * p_.wavefront_width * k.launch.registers <= p_.registers &&
         used_lds_ + k.launch.lds_bytes <= p_.lds_bytes;
}

bool ComputeUnit::fits_empty(const KernelState& k) const {
  const std::uint32_t w = waves_per_group(k);
  return w <= p_.slots && std::uint64_t{w} * p_.wavefront_width * k.launch.registers <= p_.registers &&
         k.launch.lds_bytes <= p_.lds_bytes;
}

void ComputeUnit::place(KernelState& k, std::uint32_t group) {
  auto* wg = new Workgroup;
  wg->kernel = &k;
  wg->id = group;
  wg->waves = waves_per_group(k);
  wg->lds.assign(k.launch.lds_bytes, 0);
  used_slots_ += wg->waves;
  peak_slots_ = std::max(peak_slots_, used_slots_);
  used_regs_ += std::uint64_t{wg->waves} * p_.wavefront_width * k.launch.registers;
  used_lds_ += k.launch.lds_bytes;
  const Tick now = sc_core::sc_time_stamp().value();
  std::uint32_t s = 0;
  for (std::uint32_t i = 0; i < wg->waves; ++i) {
    while (slots_[s]) ++s;
    slots_[s] = std::make_unique<Wavefront>(*wg, i * p_.wavefront_width, p_.wavefront_width, next_age_++);
    Wavefront* w = slots_[s].get();
    w->slot = s;
    w->simd = s % p_.simds;
    // A slot is reused only after its previous wavefront really completed
    // (the CU may have freed it ahead of SystemC time).
    w->ready = std::max(now, slot_free_at_[s]);
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
  if (w->waiting_at_barrier() && w->ready != kNever) {
    w->ready = kNever;
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
    if (m->draining) continue;
    m->ready = t + clock_.period();
    m->release_barrier();
    if (m->finished()) finish(m, t);
  }
}

void ComputeUnit::finish(Wavefront* w, Tick t) {
  // Complete when its last instruction and its last store complete; until
  // then it keeps its slot, registers and (for the workgroup) LDS.
  const Tick done = std::max({t, w->ready == kNever ? t : w->ready, w->writes_done});
  w->draining = true;
  w->ready = done;
  Workgroup& wg = w->workgroup();
  wg.end = std::max(wg.end, done);
  ++wg.waves_done;
  ++draining_;  // the run loop frees its slot at `done`
  release_barrier_if_complete(wg, t);  // the others may have been waiting only for this one
}

void ComputeUnit::reap(Tick t) {
  for (auto& s : slots_)
    if (s && s->draining && s->ready <= t) retire(s.get());
}

void ComputeUnit::retire(Wavefront* w) {
  Workgroup* wg = &w->workgroup();
  KernelState& k = *wg->kernel;
  const Tick t = w->ready;  // its completion time
  ++wavefronts;
  --draining_;
  if (!slot_tracks_.empty()) Trace::get().span(slot_tracks_[w->slot], k.launch.name, w->started, t - w->started);
  const std::uint32_t slot = w->slot;
  if (last_ == w) last_ = nullptr;
  wg->members.erase(std::find(wg->members.begin(), wg->members.end(), w));
  slots_[slot].reset();
  slot_free_at_[slot] = t;
  used_slots_ -= 1;
  used_regs_ -= std::uint64_t{p_.wavefront_width} * k.launch.registers;
  if (wg->members.empty()) {
    used_lds_ -= k.launch.lds_bytes;
    ++workgroups;
    const std::uint32_t id = wg->id;
    const Tick end = wg->end;  // the member that completed last, not the last retired
    delete wg;
    if (dispatcher_) dispatcher_->workgroup_finished(k, id, end);
  }
}

Wavefront* ComputeUnit::pick(Tick t) {
  auto ready = [&](const Wavefront* w) { return w && !w->draining && w->ready <= t && simd_free_[w->simd] <= t; };
  if (p_.greedy_then_oldest) {
    if (ready(last_)) return last_;
    Wavefront* best = nullptr;
    for (auto& s : slots_)
      if (ready(s.get()) && (!best || s->age() < best->age())) best = s.get();
    return best;
  }
  for (std::size_t i = 1; i <= slots_.size(); ++i) {
    std::size_t s = (last_slot_ + i) % slots_.size();
    if (ready(slots_[s].get())) return slots_[s].get();
  }
  return nullptr;
}

void ComputeUnit::run() {
  run_guarded([&] {
    const Tick period = clock_.period();
    const Tick quantum = std::max<Tick>(1, tlm::tlm_global_quantum::instance().get().value());
    // Quantum boundaries are global (multiples of the quantum), as in tlm_quantumkeeper.
    auto boundary = [&] { return (sc_core::sc_time_stamp().value() / quantum + 1) * quantum; };
    const std::uint32_t cpi = p_.wavefront_width / p_.simd_width;
    auto now = []() -> Tick { return sc_core::sc_time_stamp().value(); };
    Tick t = now();
    std::uint32_t issued = 0;
    for (;;) {
      if (draining_) reap(t);
      Wavefront* w = pick(t);
      if (!w) {
        // Nothing can issue at t: the next time something can (a wavefront
        // becomes ready, a SIMD frees, a wavefront completes its stores).
        Tick next = kNever;
        for (auto& s : slots_)
          if (s && s->ready != kNever)
            next = std::min(next, s->draining ? s->ready : std::max(s->ready, simd_free_[s->simd]));
        if (next != kNever) next = std::max(next, t + (issued ? period : 0));
        issued = 0;
        if (next != kNever && next < boundary()) {  // still inside the quantum: run ahead
          t = next;
          continue;
        }
        // Sleep, but wake for anything that arrives meanwhile (a workgroup, a
        // wake-up): every wait below is followed by a fresh look at the slots.
        if (t > now()) sc_core::wait(sc_core::sc_time::from_value(t - now()));
        if (next == kNever) sc_core::wait(wake_);
        else sc_core::wait(sc_core::sc_time::from_value(next - now()), wake_);
        t = std::max(t, now());
        continue;
      }
      const IssueResult r = w->step(port_, t, period, cpi, p_.lds_latency, p_.line);
      if (!r.blocked_at_barrier) {
        wavefront_instructions += r.instructions;
        lane_ops += r.lane_ops;
        if (r.levels) {
          for (const auto& [active, n] : *r.levels) simd_utilization.sample(double(active) / p_.wavefront_width, n);
        } else {
          simd_utilization.sample(double(r.active) / p_.wavefront_width, r.instructions);
        }
        if (r.divergent) divergent_issues += r.instructions;
        if (r.kind == OpKind::Load) {
          ++loads;
          reqs_per_load.sample(r.mem_requests);
        } else if (r.kind == OpKind::Store) {
          ++stores;
        } else if (r.kind == OpKind::Atomic) {
          ++atomics;
        }
        if (r.kind != OpKind::Barrier) simd_free_[w->simd] = t + period * cpi * r.instructions;
        w->ready = r.complete;
        w->writes_done = std::max(w->writes_done, r.write_complete);
      }
      last_slot_ = w->slot;
      last_ = w;
      after_issue(w, t);
      if (++issued >= p_.issue_width) t += period, issued = 0;
      if (t >= boundary()) sc_core::wait(sc_core::sc_time::from_value(t - now()));
    }
  });
}

std::string ComputeUnit::describe() const {
  std::string s;
  for (const auto& w : slots_)
    if (w)
      s += fmt::format("{}{} slot{} ({} group {}): {}", s.empty() ? "" : "; ", name(), w->slot,
                       w->workgroup().kernel->launch.name, w->workgroup().id, w->describe());
  return s;
}

}  // namespace fg
