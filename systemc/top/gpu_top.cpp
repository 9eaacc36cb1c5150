// SPDX-License-Identifier: Apache-2.0
#include "top/gpu_top.h"

#include <algorithm>

#include <fmt/format.h>

#include "gpu/host.h"
#include "sim/stats.h"

namespace fg {

namespace {
const Param<std::uint64_t> kCus{"gpu.cus", 8, "", "compute units", {{1}, {63}}};
const Param<double> kClock{
    "gpu.clock", 1000.0, "MHz", "compute-unit clock frequency (the L1s run on it)", {{1}, {100000}}};
}  // namespace

GpuTop::GpuTop(sc_core::sc_module_name name, const Config& cfg) : sc_module(name), clock_(kClock.get(cfg)) {
  const int n = static_cast<int>(kCus.get(cfg));
  std::vector<L1Spec> l1s;
  L1Cache::Params l1p = L1Cache::Params::from(cfg);
  for (int i = 0; i < n; ++i)
    l1s.push_back(L1Spec{fmt::format("cu{}_l1", i), fmt::format("gpu.cu{}.l1", i), clock_, l1p});
  // The aggregator (the control processor, docs/channels.md) has its own L1
  // on the same coherent L2, in its own clock domain: requester n. Orr et
  // al.'s Table 2 gives it the CU L1's geometry (16 kB, 64 B, 16-way, 4
  // cycles), so it takes the CU L1's parameters.
  const agg::Aggregator::Params aggp = agg::Aggregator::Params::from(cfg);
  l1s.push_back(L1Spec{"aggregator_l1", "aggregator.l1", Clock(aggp.mhz), l1p});
  mem_ = std::make_unique<MemorySystem>("mem", cfg, l1s);
  for (int i = 0; i < n; ++i) {
    ports_.push_back(std::make_unique<MemPort>(fmt::format("cu{}_port", i).c_str(), i));
    ports_.back()->socket.bind(mem_->l1(i).target);
  }
  const ComputeUnit::Params cup = ComputeUnit::Params::from(cfg);
  std::vector<ComputeUnit*> cus;
  for (int i = 0; i < n; ++i) {
    cus_.push_back(std::make_unique<ComputeUnit>(fmt::format("cu{}", i).c_str(), i, cup, clock_, *ports_[i],
                                                 fmt::format("gpu.cu{}", i)));
    cus.push_back(cus_.back().get());
  }
  dispatcher_ = std::make_unique<Dispatcher>("dispatcher", cus, Dispatcher::Params::from(cfg), clock_);
  // The hardware worklist (docs/worklists.md): idle, and stepping nothing,
  // until a kernel uses it.
  worklist_ = std::make_unique<wl::Worklist>("worklist", cfg, static_cast<unsigned>(n), clock_);
  // Its virtualization unit's overflow-buffer traffic goes to the L2 (not
  // allocated in an L1; no directory entry: requester -1).
  hvu_port_ = std::make_unique<MemPort>("hvu_port", -1);
  hvu_port_->socket.bind(mem_->l2().target);
  worklist_->set_port(hvu_port_.get());
  // The save/restore engine of wavefront yield (docs/channels.md, "Yield").
  yield_ = std::make_unique<yld::Engine>(yld::Engine::Params::from(cfg), *mem_, cus);
  agg_port_ = std::make_unique<MemPort>("aggregator_port", n);
  agg_port_->socket.bind(mem_->l1(n).target);
  aggregator_ = std::make_unique<agg::Aggregator>("aggregator", aggp, *mem_, *agg_port_, *dispatcher_,
                                                  cup.wavefront_width, yield_.get());
}

void GpuTop::attach_host(Host& host) { host.attach_dispatcher(dispatcher_.get()); }

std::string GpuTop::diagnose() const {
  // One line per kind of state with counts, then the first few wavefronts.
  std::vector<std::pair<std::string, std::string>> all;
  for (const auto& cu : cus_)
    for (auto& e : cu->wavefront_states()) all.push_back(std::move(e));
  const std::string queued = dispatcher_->describe_queue();
  const std::string agg =
      aggregator_ && !aggregator_->channels().empty() ? "\n  " + aggregator_->where() : std::string();
  if (all.empty()) return "no wavefront is resident, blocked or parked" + (queued.empty() ? "" : "; " + queued) + agg;
  std::vector<std::pair<std::string, int>> kinds;
  for (const auto& [kind, d] : all) {
    auto it = std::find_if(kinds.begin(), kinds.end(), [&](const auto& k) { return k.first == kind; });
    if (it == kinds.end())
      kinds.emplace_back(kind, 1);
    else
      ++it->second;
  }
  std::string s = fmt::format("{} wavefronts:", all.size());
  for (const auto& [kind, n] : kinds) s += fmt::format(" {} {};", n, kind);
  constexpr std::size_t kShown = 4;
  for (std::size_t i = 0; i < all.size() && i < kShown; ++i) s += "\n  " + all[i].second;
  if (all.size() > kShown) s += fmt::format("\n  ... and {} more", all.size() - kShown);
  if (!queued.empty()) s += "\n  " + queued;
  // What the hardware worklist holds (work IDs, the overflow buffer, active
  // lanes in single-buffer mode): why its blocked wavefronts wait.
  if (worklist_ && worklist_->in_use()) s += "\n  worklist: " + worklist_->where();
  s += agg;
  return s;
}

std::vector<std::string> GpuTop::summary_lines() const {
  const auto& reg = StatRegistry::global();
  const double wi = reg.sum_matching("gpu.cu", ".wavefront_instructions");
  if (wi == 0) return {};
  const double lanes = reg.sum_matching("gpu.cu", ".lane_ops");
  const std::uint32_t width = cus_.front()->params().wavefront_width;
  std::vector<std::string> lines{
      fmt::format("{:<22}{}", "kernels", reg.find("gpu.dispatcher.kernels")->scalar()),
      fmt::format("{:<22}{:.0f} ({:.0f} lane ops, SIMD utilization {:.1f}%)", "wavefront instrs", wi, lanes,
                  100.0 * lanes / (wi * width)),
      fmt::format("{:<22}{:.0f}", "divergent issues", reg.sum_matching("gpu.cu", ".divergent_issues"))};
  if (aggregator_ && !aggregator_->channels().empty()) {
    const auto& a = *aggregator_;
    lines.push_back(fmt::format("{:<22}{} ({}): {} dispatches, {} wavefronts, {} passes; GPU blocked on it {:.1f}%",
                                "aggregator", a.core().name, fmt::format("{:.0f} MHz", a.clock().mhz()),
                                a.dispatches.value(), a.wavefronts.value(), a.passes.value(),
                                100.0 * a.blocked_fraction.scalar()));
    if (yield_ && yield_->enabled())
      lines.push_back(fmt::format("{:<22}{} yields, {} restarts, {:.1f} kB saved, {:.0f} ns yielded on average",
                                  "yield", yield_->yields.value(), yield_->restarts.value(),
                                  static_cast<double>(yield_->save_bytes.value()) / 1024.0, yield_->yielded_ns.mean()));
    for (const auto* c : a.channels())
      lines.push_back(fmt::format("{:<22}{} CEs produced, {} consumed, {} CAS ({} failed), peak {:.0f} of {} in use",
                                  "channel " + c->spec().name, c->enqueued.value(), c->dispatched.value(),
                                  c->cas_attempts.value(), c->cas_failures.value(), c->occupancy.max(),
                                  c->spec().capacity));
  }
  return lines;
}

std::vector<MemPort*> GpuTop::ports() {
  std::vector<MemPort*> v;
  for (auto& p : ports_) v.push_back(p.get());
  return v;
}

}  // namespace fg
