// SPDX-License-Identifier: Apache-2.0
#include "top/report.h"

#include <ostream>
#include <regex>

#include <fmt/format.h>
#include <systemc>

#include "gpu/host.h"
#include "sim/stats.h"
#include "sim/workload.h"
#include "top/gpu_top.h"
#include "top/simulation.h"

#ifndef FG_BUILD_TYPE
#define FG_BUILD_TYPE "unknown"
#endif
#ifndef FG_VERSION
#define FG_VERSION "0.0.0"
#endif

namespace fg {

nlohmann::ordered_json stats_json(const RunReport& r) {
  nlohmann::ordered_json j;
  j["fgsim"] = {{"version", FG_VERSION}, {"format", 1}};
  j["run"] = {{"workload", r.spec.workload},
              {"preset", r.spec.preset},
              {"config_files", r.spec.config_files},
              {"status", r.status},
              {"complete", r.status != "interrupted" && r.status != "host time limit"},
              {"message", r.message}};
  j["config"] = r.cfg.to_json();
  const auto now = sc_core::sc_time_stamp();
  j["sim"] = {{"time_ps", now.value()},
              {"time_ns", double(now.value()) / 1000.0},
              {"device_bytes",
               {{"estimate", device_bytes_estimate(*WorkloadRegistry::global().find(r.spec.workload), r.cfg)},
                {"peak", r.top.memory().high_water()}}}};
  j["workload"] = {{"checks", r.host.checks()}, {"results", r.host.results()}};
  nlohmann::ordered_json kernels = nlohmann::ordered_json::array();
  const double cu_mhz = std::get<double>(r.cfg.value("gpu.clock"));
  for (const auto& k : r.top.dispatcher().kernels_submitted())
    kernels.push_back({{"id", k->id},
                       {"name", k->launch.name},
                       {"submitted_ns", tick_to_ns(k->submitted)},
                       {"first_dispatch_ns", tick_to_ns(k->first_dispatch)},
                       {"end_ns", tick_to_ns(k->end)},
                       {"finished", k->finished},
                       {"workgroups", k->dispatched},
                       {"grown", k->groups_grown},
                       {"exited", k->groups_exited},
                       {"wavefronts", k->wavefronts},
                       {"instructions", k->instructions},
                       // GPU-wide wavefront instructions per CU cycle from first dispatch to end.
                       {"ipc", [&] {
                          const double cycles = tick_to_ns(k->end - k->first_dispatch) * cu_mhz / 1000.0;
                          return k->end > k->first_dispatch && cycles > 0 ? double(k->instructions) / cycles : 0.0;
                        }()}});
  j["kernels"] = std::move(kernels);
  nlohmann::ordered_json values, descriptions, units;
  StatRegistry::global().dump(values, descriptions, &units);
  // GPU-wide totals: every numeric per-instance stat summed over its instances
  // (gpu.cu3.l1.hits -> gpu.cu.l1.hits, gpu.l2.bank7.reads -> gpu.l2.bank.reads).
  nlohmann::ordered_json totals = nlohmann::ordered_json::object();
  static const std::regex instance(R"(^(gpu\.cu|gpu\.l2\.bank)[0-9]+(\..+)$)");
  for (const auto& [name, v] : values.items()) {
    std::smatch m;
    if (!v.is_number() || !std::regex_match(name, m, instance)) continue;
    const std::string key = m[1].str() + m[2].str();
    totals[key] = totals.contains(key) ? totals[key].get<double>() + v.get<double>() : v.get<double>();
  }
  j["stats"] = std::move(values);
  j["totals"] = std::move(totals);
  j["descriptions"] = std::move(descriptions);
  j["units"] = std::move(units);
  const double sim_ns = double(now.value()) / 1000.0;
  j["host"] = {{"wall_seconds", r.wall_seconds},
               {"simulated_ns_per_second", r.wall_seconds > 0 ? sim_ns / r.wall_seconds : 0.0},
               {"build", {{"type", FG_BUILD_TYPE}, {"compiler", __VERSION__}, {"systemc", SC_VERSION}}}};
  return j;
}

namespace {

std::string si(double v) {
  if (v >= 1e9) return fmt::format("{:.2f} G", v / 1e9);
  if (v >= 1e6) return fmt::format("{:.2f} M", v / 1e6);
  if (v >= 1e4) return fmt::format("{:.1f} k", v / 1e3);
  return fmt::format("{:.0f}", v);
}

std::string sim_time(double ns) {
  if (ns >= 1e6) return fmt::format("{:.3f} ms", ns / 1e6);
  if (ns >= 1e3) return fmt::format("{:.3f} us", ns / 1e3);
  return fmt::format("{:.1f} ns", ns);
}

}  // namespace

void print_summary(std::ostream& os, const RunReport& r) {
  const auto& reg = StatRegistry::global();
  auto sum = [&](const std::string& pre, const std::string& suf) { return reg.sum_matching(pre, suf); };
  auto stat = [&](const std::string& n) {
    const StatBase* s = reg.find(n);
    return s ? s->scalar() : 0.0;
  };
  const double ns = double(sc_core::sc_time_stamp().value()) / 1000.0;
  os << fmt::format("== fgsim {} ({}{} CUs) ==\n", r.spec.workload,
                    r.spec.preset.empty() ? "" : "preset " + r.spec.preset + ", ", r.top.cus());
  // The diagnosis's detail lines are printed once, on standard error; the
  // summary keeps its first line.
  const std::string first_line = r.message.substr(0, r.message.find('\n'));
  os << fmt::format("  {:<22}{}\n", "status",
                    r.status == "ok"
                        ? "ok"
                        : r.status + ": " + first_line +
                              (first_line.size() < r.message.size() ? " (details on standard error)" : ""));
  os << fmt::format("  {:<22}{}\n", "simulated time", sim_time(ns));
  os << fmt::format("  {:<22}{} passed\n", "result checks", r.host.checks().size());
  for (const auto& [k, v] : r.host.results().items())  // a space after a name as long as the column
    os << fmt::format("  {:<21} {}\n", k,
                      v.is_string()         ? v.get<std::string>()
                      : v.is_number_float() ? fmt::format("{:.6g}", v.get<double>())
                                            : v.dump());
  for (const auto& line : r.top.summary_lines()) os << "  " << line << "\n";

  const double l1r = sum("gpu.cu", ".l1.reads"), l1h = sum("gpu.cu", ".l1.hits");
  const double l2r = sum("gpu.l2.bank", ".reads"), l2rh = sum("gpu.l2.bank", ".read_hits");
  // Hit rate: reads only (atomics and writes are not in it).
  os << fmt::format("  {:<10}{:>12}{:>12}{:>10}{:>12}{:>12}{:>16}\n", "memory", "reads", "writes", "read hits",
                    "atomics", "invalidates", "avg queue (ns)");
  auto avg = [&](const std::string& pre, const std::string& suf) { return reg.mean_matching(pre, suf); };
  os << fmt::format("  {:<10}{:>12}{:>12}{:>9.1f}%{:>12}{:>12}{:>16.2f}\n", "L1 (all)", si(l1r),
                    si(sum("gpu.cu", ".l1.writes")), l1r > 0 ? 100.0 * l1h / l1r : 0.0,
                    si(sum("gpu.cu", ".l1.atomics")), si(sum("gpu.cu", ".l1.invalidations")),
                    avg("gpu.cu", ".l1.queue_delay"));
  os << fmt::format("  {:<10}{:>12}{:>12}{:>9.1f}%{:>12}{:>12}{:>16.2f}\n", "L2", si(sum("gpu.l2.bank", ".reads")),
                    si(sum("gpu.l2.bank", ".writes")), l2r > 0 ? 100.0 * l2rh / l2r : 0.0, si(stat("gpu.l2.atomics")),
                    si(sum("gpu.l2.bank", ".invalidations_sent")), avg("gpu.l2.bank", ".queue_delay"));
  os << fmt::format("  {:<10}{:>12}{:>12}{:>10}{:>12}{:>12}{:>16.2f}\n", "DRAM", si(stat("gpu.dram.reads")),
                    si(stat("gpu.dram.writes")), "-", "-", "-", avg("gpu.dram", ".queue_delay"));
  // Coherence traffic: invalidations received split by cause; moesi's transfers.
  const double inv_other = sum("gpu.cu", ".l1.invalidations"), inv_self = sum("gpu.cu", ".l1.self_invalidations"),
               inv_back = sum("gpu.cu", ".l1.back_invalidations");
  os << fmt::format("  {:<22}{} sent; received {} (others' writes), {} (own atomics), {} (L2 evictions)\n",
                    "invalidations", si(sum("gpu.l2.bank", ".invalidations_sent")), si(inv_other), si(inv_self),
                    si(inv_back));
  const double c2c = sum("gpu.l2.bank", ".c2c_transfers"), own = sum("gpu.l2.bank", ".ownership_transfers");
  const double upg = sum("gpu.cu", ".l1.upgrades"), rfo = sum("gpu.cu", ".l1.misses_for_ownership");
  if (c2c + own + upg + rfo > 0)
    os << fmt::format("  {:<22}{} cache-to-cache, {} ownership transfers, {} upgrades, {} reads for ownership\n",
                      "moesi", si(c2c), si(own), si(upg), si(rfo));
  // Back-pressure: full resources and how long their requesters waited.
  os << fmt::format(
      "  {:<22}L1 {} MSHR waits, blocked {} cycles ({} requests waited); L2 {} queue full, {} "
      "request-cycles waiting for DRAM; DRAM {} queue full\n",
      "stalls", si(sum("gpu.cu", ".l1.mshr_stalls")), si(sum("gpu.cu", ".l1.stall_cycles")),
      si(sum("gpu.cu", ".l1.stalls")), si(sum("gpu.l2.bank", ".queue_full")),
      si(sum("gpu.l2.bank", ".dram_stall_cycles")), si(stat("gpu.dram.queue_full")));
  os << fmt::format("  {:<22}{:.2f} GB/s ({:.0f}% busy)\n", "DRAM bandwidth", stat("gpu.dram.bandwidth"),
                    100.0 * stat("gpu.dram.utilization"));
  os << fmt::format("  {:<22}{:.2f} s, {} simulated ns/s\n", "host", r.wall_seconds,
                    si(r.wall_seconds > 0 ? ns / r.wall_seconds : 0.0));
}

}  // namespace fg
