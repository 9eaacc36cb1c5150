// SPDX-License-Identifier: Apache-2.0
#include "top/gpu_top.h"

#include <algorithm>
#include <sstream>

#include <fmt/format.h>

#include "gpu/host.h"
#include "sim/splitmix.h"
#include "sim/stats.h"

namespace fg {

namespace {
const Param<std::uint64_t> kCus{"gpu.cus", 8, "", "compute units", {{1}, {63}}};
const Param<double> kClock{
    "gpu.clock", 1000.0, "MHz", "compute-unit clock frequency (the L1s run on it)", {{1}, {100000}}};
const Param<std::string> kMechanisms{"gpu.mechanisms", "", "",
                                     "mechanisms to build besides those the workload uses, comma-separated (`fgsim "
                                     "list` names them); a run builds only what it uses"};

std::vector<std::string> split_names(const std::string& s) {
  std::vector<std::string> v;
  std::stringstream in(s);
  for (std::string item; std::getline(in, item, ',');) {
    item.erase(0, item.find_first_not_of(" \t"));
    item.erase(item.find_last_not_of(" \t") + 1);
    if (!item.empty()) v.push_back(item);
  }
  return v;
}
// A CU's cycle counter at the start under gpu.cu.clock_start=seeded: splitmix64
// of the seed and the CU's index, below 2^48.
std::uint64_t clock_start(std::uint64_t seed, int cu) {
  SplitMix64 r{seed + 0x9e3779b97f4a7c15ull * static_cast<std::uint64_t>(cu)};
  return r.next() & ((1ull << 48) - 1);
}
}  // namespace

std::vector<std::string> extra_mechanisms(const Config& cfg) { return split_names(kMechanisms.get(cfg)); }

GpuTop::GpuTop(sc_core::sc_module_name name, const Config& cfg, GpuOptions opts)
    : sc_module(name), cfg_(cfg), opts_(std::move(opts)), clock_(kClock.get(cfg)) {
  const int n = static_cast<int>(kCus.get(cfg));
  std::vector<L1Spec> l1s;
  L1Cache::Params l1p = L1Cache::Params::from(cfg);
  for (int i = 0; i < n; ++i)
    l1s.push_back(L1Spec{fmt::format("cu{}_l1", i), fmt::format("gpu.cu{}.l1", i), clock_, l1p});
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
    cus_.back()->set_gpu(this);
    if (cup.clock_seeded) cus_.back()->set_clock_start(clock_start(std::get<std::uint64_t>(cfg.value("sim.seed")), i));
    cus.push_back(cus_.back().get());
  }
  dispatcher_ = std::make_unique<Dispatcher>("dispatcher", cus, Dispatcher::Params::from(cfg), clock_);
  // The mechanisms this run uses, each after the ones it needs.
  const auto& registry = MechanismRegistry::global();
  std::vector<std::string> names = opts_.mechanisms;
  const std::vector<std::string> extra = extra_mechanisms(cfg);  // gpu.mechanisms
  for (const auto& m : extra) {
    registry.closure({m}, kMechanisms.name());  // an unknown name: exit 2 naming the key
    names.push_back(m);
  }
  const auto build = registry.closure(names, opts_.mechanisms_origin);
  // One rule for keys that do not apply: a mechanism's parameter set by the
  // user while the run does not build the mechanism would be ignored: refused.
  // A software mechanism (a runtime: MechanismInfo::software) acts only on
  // the programs the workload runs on it, so gpu.mechanisms does not make its
  // parameters apply when the workload declares it does not use it.
  const bool declared = !opts_.workload.empty();
  std::vector<const MechanismInfo*> own;
  if (declared) own = registry.closure(opts_.mechanisms, opts_.mechanisms_origin);
  for (const auto& [mech, m] : registry.all()) {
    const bool built = std::find(build.begin(), build.end(), &m) != build.end();
    const bool runs = m.software && declared ? std::find(own.begin(), own.end(), &m) != own.end() : built;
    if (runs) continue;
    for (const auto& prefix : m.params)
      for (const auto& [key, info] : ParamRegistry::global().all()) {
        if (key.rfind(prefix, 0) != 0 || !cfg.set_by_user(key)) continue;
        if (m.software) {
          // What would run a program on it: the workload's own choice of
          // mechanism, if it has one; gpu.mechanisms does not.
          std::vector<std::string> notes;
          const ParamInfo* choice = ParamRegistry::global().find(opts_.workload + ".mechanism");
          if (choice && std::find(choice->choices.begin(), choice->choices.end(), mech) != choice->choices.end())
            notes.push_back(fmt::format("{}.mechanism={} runs {} on it", opts_.workload, mech, opts_.workload));
          if (std::find(extra.begin(), extra.end(), mech) != extra.end())
            notes.push_back(fmt::format("gpu.mechanisms={} builds only its statistics", mech));
          throw UserError(fmt::format(
              "{} (set by {}) does not apply: {} runs no program on {} (a runtime in "
              "device software{}{})",
              key, cfg.origin(key), opts_.mechanisms_origin, mech, notes.empty() ? "" : ": ", fmt::join(notes, "; ")));
        }
        throw UserError(
            fmt::format("{} (set by {}) does not apply: this run builds no {}: {} does not use it "
                        "(gpu.mechanisms={} adds it)",
                        key, cfg.origin(key), mech, opts_.mechanisms_origin, mech));
      }
  }
  for (const MechanismInfo* m : build) mechanisms_.add(m->build(*this));
  building_ = false;
  if (!opts_.wave_file.empty() && !wave_taken_)
    throw UserError(
        "--vcd: the waveform is the rtl worklist backend's, and this run builds no worklist (it is built "
        "by a workload's hwwl mechanism, e.g. bfs.mechanism=hwwl, or by gpu.mechanisms=worklist)");
}

GpuTop::~GpuTop() = default;

MemPort& GpuTop::l2_port(const std::string& name) {
  if (!building_) throw std::logic_error("GpuTop::l2_port after the GPU was built");
  agent_ports_.push_back(std::make_unique<MemPort>(name.c_str(), -1));
  agent_ports_.back()->socket.bind(mem_->l2().target);
  return *agent_ports_.back();
}

MemPort& GpuTop::lsu_port(int cu, const std::string& name) {
  if (!building_) throw std::logic_error("GpuTop::lsu_port after the GPU was built");
  agent_ports_.push_back(std::make_unique<MemPort>(name.c_str(), cu));
  agent_ports_.back()->socket.bind(mem_->l1(cu).side);
  return *agent_ports_.back();
}

MemPort& GpuTop::agent_port(const std::string& name, const std::string& stats_path, const Clock& clock) {
  if (!building_) throw std::logic_error("GpuTop::agent_port after the GPU was built");
  const int r = mem_->add_l1(L1Spec{name + "_l1", stats_path, clock, L1Cache::Params::from(cfg_)});
  agent_ports_.push_back(std::make_unique<MemPort>((name + "_port").c_str(), r));
  agent_ports_.back()->socket.bind(mem_->l1(r).target);
  return *agent_ports_.back();
}

std::string GpuTop::diagnose() const {
  // One line per kind of state with counts, then the first few wavefronts.
  std::vector<std::pair<std::string, std::string>> all;
  for (const auto& cu : cus_)
    for (auto& e : cu->wavefront_states()) all.push_back(std::move(e));
  const std::string queued = dispatcher_->describe_queue();
  // What each mechanism holds (work IDs, channels, ...): why its wavefronts wait.
  std::string mech;
  for (const auto& m : mechanisms_.all())
    if (std::string d = m->diagnose(); !d.empty()) mech += "\n  " + d;
  if (all.empty()) return "no wavefront is resident, blocked or parked" + (queued.empty() ? "" : "; " + queued) + mech;
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
  return s + mech;
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
  for (const auto& m : mechanisms_.all())
    for (auto& l : m->summary_lines()) lines.push_back(std::move(l));
  return lines;
}

void GpuTop::end_of_run() {
  for (const auto& m : mechanisms_.all()) m->end_of_run();
}

void GpuTop::close_outputs() {
  for (const auto& m : mechanisms_.all()) m->close_outputs();
}

}  // namespace fg
