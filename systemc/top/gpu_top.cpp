#include "top/gpu_top.h"

#include <fmt/format.h>

namespace fg {

namespace {
const Param<std::uint64_t> kCus{"gpu.cus", 8, "", "compute units", {{1}, {63}}};
const Param<double> kClock{"gpu.clock", 1000.0, "MHz", "compute-unit clock frequency (the L1s run on it)",
                           {{1}, {100000}}};
}  // namespace

GpuTop::GpuTop(sc_core::sc_module_name name, const Config& cfg) : sc_module(name), clock_(kClock.get(cfg)) {
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
}

void GpuTop::attach_host(Host&) {}

std::string GpuTop::diagnose() const { return "no compute units are modelled yet"; }

std::vector<std::string> GpuTop::summary_lines() const { return {}; }

std::vector<MemPort*> GpuTop::ports() {
  std::vector<MemPort*> v;
  for (auto& p : ports_) v.push_back(p.get());
  return v;
}

}  // namespace fg
