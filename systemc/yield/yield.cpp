// SPDX-License-Identifier: Apache-2.0
#include "yield/yield.h"

#include <fmt/format.h>

#include <cstring>
#include <systemc>

#include "gpu/compute_unit.h"
#include "gpu/dispatcher.h"
#include "gpu/gpu.h"
#include "gpu/task_metrics.h"
#include "gpu/wavefront.h"
#include "mem/mem_port.h"
#include "mem/memory_system.h"
#include "sim/error.h"
#include "sim/trace.h"

namespace fg::yld {

namespace {
// Orr et al. Sec. 6: the GPU provides a yield instruction; their workloads
// need it (Sec. 5.3), so it is on unless a run turns it off to see a full
// channel fail instead (issue: "a full channel with yield disabled ...").
const Param<bool> kEnabled{"yield.enabled", true, "",
                           "wavefront yield (Orr et al. Sec. 6): a talloc that finds its channel full parks the "
                           "wavefront until the aggregator restarts it; false: a full channel is a fault (exit 3)"};
// The paper bounds the restart channel only by "the aggregator will consume
// whatever is inserted into it"; 4096 entries (64 kB) exceed the wavefronts
// any of Table 3's workloads has in flight (8 CUs x 40 slots = 320 resident).
const Param<std::uint64_t> kRing{"yield.restart_capacity",
                                 4096,
                                 "entries",
                                 "restart-channel entries (32 B each); a yield into a full one is a fault",
                                 {{1}, {1u << 24}}};
class YieldUnit final : public OpUnit {
 public:
  // Memory: it writes the restart context through the CU's port.
  YieldUnit() : OpUnit("yield", Order::Synchronising, true) { belongs_to(mechanism_tag("channels")); }
  void issue(IssueContext& c) const override {
    Engine* e = c.gpu().find<Engine>();
    if (!e || !e->enabled()) throw SimFault("yield: this GPU has no yield engine (yield.enabled=false)");
    const std::uint32_t resource = static_cast<std::uint32_t>(c.first().pending.value);
    std::uint64_t need = 0;
    c.for_each([&](Lane& l) { need += l.pending.n; });
    e->yielded(c, resource, static_cast<std::uint32_t>(need),
               fmt::format("yield (channel {}, {} CEs)", resource, need));
  }
};
const YieldUnit kYield;
}  // namespace

OpAwaiter<void> yield(Lane& l, std::uint32_t resource, std::uint32_t need, Lane::Loc loc) {
  return l.op(kYield, loc, [&](PendingOp& o) { o.value = resource, o.n = need; });
}

Engine::Params Engine::Params::from(const Config& cfg) {
  Params p;
  p.enabled = kEnabled.get(cfg);
  p.ring = static_cast<std::uint32_t>(kRing.get(cfg));
  if (!p.enabled && cfg.set_by_user(kRing.name()))
    throw UserError(fmt::format("{} (set by {}) does not apply: yield.enabled is false (no restart channel)",
                                kRing.name(), cfg.origin(kRing.name())));
  return p;
}

namespace {
double sum_ns(const std::vector<ComputeUnit*>& cus, Average ComputeUnit::*a) {
  double s = 0;
  for (const ComputeUnit* cu : cus) s += (cu->*a).mean() * static_cast<double>((cu->*a).count());
  return s;
}
}  // namespace

Engine::Engine(const Params& p, MemorySystem& mem, std::vector<ComputeUnit*> cus)
    : Mechanism(kName),
      yields(StatGroup("yield"), "yields", "wavefronts that yielded (parked waiting for channel space)", ""),
      restarts(StatGroup("yield"), "restarts", "yielded wavefronts the aggregator restarted", ""),
      save_bytes(StatGroup("yield"), "save_bytes", "context bytes written by yields", "B"),
      restore_bytes(StatGroup("yield"), "restore_bytes", "context bytes read back by restores (all CUs)", "B",
                    [this] {
                      double s = 0;
                      for (const ComputeUnit* cu : cus_) s += static_cast<double>(cu->restore_bytes.value());
                      return s;
                    }),
      save_ns(StatGroup("yield"), "save_ns",
              "time from the yields' issue until their slots were free, summed (the CUs' park_time)", "ns",
              [this] { return sum_ns(cus_, &ComputeUnit::park_ns); }),
      restore_ns(StatGroup("yield"), "restore_ns",
                 "time from the restores' start until the contexts were back, summed (the CUs' restore_time)", "ns",
                 [this] { return sum_ns(cus_, &ComputeUnit::restore_ns); }),
      yielded_ns(StatGroup("yield"), "yielded_time", "time from a yield to its restart", "ns"),
      spill_blocks(StatGroup("yield"), "spill_blocks", "spill blocks allocated (the most contexts saved at once)", ""),
      spill_bytes(StatGroup("yield"), "spill_bytes", "bytes of the spill blocks allocated", "B",
                  [this] { return static_cast<double>(block_bytes_); }),
      p_(p),
      mem_(mem),
      cus_(std::move(cus)) {}

void Engine::prepare() {
  if (ring_ || !p_.enabled) return;
  // Allocated on first use (a graph starting): device memory of runs that
  // never use channels stays where it was.
  const unsigned line = mem_.line_size();
  ring_ = mem_.allocate(std::uint64_t{p_.ring} * kEntryBytes, line);
  tail_addr_ = mem_.allocate(line, line);
  head_addr_ = mem_.allocate(line, line);
}

Engine::~Engine() = default;

namespace {
const RegisterMechanism kMechanism{
    {Engine::kName,
     "wavefront yield (Orr et al. Sec. 6): the save/restore engine and the restart channel",
     {},
     [](Gpu& g) {
       std::vector<ComputeUnit*> cus;
       for (int i = 0; i < g.cus(); ++i) cus.push_back(&g.cu(i));
       return std::make_unique<Engine>(Engine::Params::from(g.config()), g.memory(), std::move(cus));
     },
     {"yield."},
     {},
     // The restart channel and its two pointers (allocated when a graph first
     // starts). The spill blocks are the workloads' (cilk::spill_bytes).
     [](const Config& cfg) -> std::uint64_t {
       if (!kEnabled.get(cfg)) return 0;
       const std::uint64_t line = std::get<std::uint64_t>(cfg.value("gpu.line"));
       return (kRing.get(cfg) * Engine::kEntryBytes + line - 1) / line * line + 2 * line;
     }}};
}  // namespace

void Engine::yielded(IssueContext& c, std::uint32_t resource, std::uint32_t need, std::string what) {
  prepare();
  std::uint32_t head = 0;  // the aggregator writes the head back as it reads
  mem_.copy_out(&head, head_addr_, 4);
  if (tail_ - head >= p_.ring)
    throw SimFault(
        fmt::format("yield: the restart channel is full ({} restart contexts the aggregator has not read; "
                    "yield.restart_capacity={})",
                    tail_ - head, p_.ring));
  Wavefront& w = c.wave();
  const std::uint64_t bytes = c.cu().context_bytes(*w.workgroup().kernel, w.workgroup());
  const unsigned line = mem_.line_size();
  const std::uint64_t size = (bytes + line - 1) / line * line;
  std::uint64_t spill = 0;
  auto& free = pool_[size];
  if (free.empty()) {
    spill = mem_.allocate(size, line);
    ++spill_blocks;
    block_bytes_ += size;
  } else {
    spill = free.back();
    free.pop_back();
  }
  // The restart context and the new tail, written at the yield's issue (the
  // context itself follows, from the CU's parking).
  const Restart r{spill, resource, need, w.workgroup().kernel->id};
  unsigned char entry[kEntryBytes] = {};
  std::memcpy(entry, &r.spill, 8);
  std::memcpy(entry + 8, &r.resource, 4);
  std::memcpy(entry + 12, &r.need, 4);
  std::memcpy(entry + 16, &r.kernel, 4);
  const sc_core::sc_time at = IssueContext::local(c.issue());
  const sc_core::sc_time d1 = c.port().write(entry_addr(tail_), entry, kEntryBytes, at);
  ++tail_;
  const sc_core::sc_time d2 = c.port().write(tail_addr_, &tail_, 4, at);
  c.outstanding = std::max<Tick>(c.outstanding, sc_core::sc_time_stamp().value() + std::max(d1, d2).value());
  c.mem_requests += 2;
  ++yields;
  save_bytes += bytes;
  waves_[spill] = Parked{c.park(spill, what), bytes, c.issue(), std::move(what)};
}

void Engine::restart(std::uint64_t spill, Tick at) {
  auto it = waves_.find(spill);
  if (it == waves_.end()) throw std::logic_error(fmt::format("yield: restart of an unknown context at {:#x}", spill));
  Parked p = std::move(it->second);
  waves_.erase(it);
  ++restarts;
  yielded_ns.sample(tick_to_ns(at - p.at));
  if (Trace::get().on()) {
    if (track_ < 0) track_ = Trace::get().track("aggregator", "yielded wavefronts");
    Trace::get().span(track_, "yielded", p.at, at - p.at);
  }
  const unsigned line = mem_.line_size();
  pool_[(p.bytes + line - 1) / line * line].push_back(spill);
  p.h.cu->restore(p.h, at);  // on the CU it yielded on (Sec. 6)
}

std::string Engine::describe(std::uint64_t spill) const {
  auto it = waves_.find(spill);
  if (it == waves_.end()) return fmt::format("context {:#x} (unknown)", spill);
  const Parked& p = it->second;
  const Wavefront& w = *p.h.wave;
  return fmt::format("{} workgroup {} on cu{} since {} ns: {}", w.workgroup().kernel->launch.name, w.workgroup().id,
                     p.h.cu->index(), tick_to_ns(p.at), p.what);
}

}  // namespace fg::yld
