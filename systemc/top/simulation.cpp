#include "top/simulation.h"

#include <chrono>
#include <filesystem>
#include <fstream>
#include <iostream>

#include <fmt/format.h>
#include <nlohmann/json.hpp>
#include <systemc>
#include <tlm>

#include "gpu/host.h"
#include "sim/error.h"
#include "sim/guard.h"
#include "sim/setup.h"
#include "sim/stats.h"
#include "sim/trace.h"
#include "sim/workload.h"
#include "top/gpu_top.h"
#include "top/report.h"

namespace fg {

namespace {

const Param<std::uint64_t> kSeed{"sim.seed", 1, "", "seed of every random choice in the model and workloads"};
const Param<double> kQuantum{"sim.quantum", 20.0, "ns",
                             "TLM global quantum: how far an initiator runs ahead before it syncs", {{0.001}, {1e6}}};
const Param<double> kMaxTime{"sim.max_time", 1e9, "ns",
                             "watchdog: a run still going at this simulated time is stopped as a fault (0 = none)",
                             {{0}, {1e15}}};
const Param<double> kTraceStart{"trace.start", 0.0, "ns", "trace window start (simulated time)", {{0}, {1e15}}};
const Param<double> kTraceEnd{"trace.end", 0.0, "ns", "trace window end (0 = end of run)", {{0}, {1e15}}};

// Runs the workload in a SystemC thread and records how it ended.
class HostAgent : public sc_core::sc_module {
 public:
  HostAgent(sc_core::sc_module_name n, Host& host, const WorkloadInfo& w) : sc_module(n), host_(host), w_(w) {
    SC_HAS_PROCESS(HostAgent);
    SC_THREAD(main);
  }
  bool done = false;

 private:
  void main() {
    run_guarded([&] {
      w_.run(host_);
      done = true;
    });
    stop_simulation();
  }
  Host& host_;
  const WorkloadInfo& w_;
};

void check_readable(const std::string& path, const std::string& what) {
  std::error_code ec;
  if (!std::filesystem::exists(path, ec)) throw UserError(fmt::format("{}: {} does not exist", path, what));
  if (!std::filesystem::is_regular_file(path, ec)) throw UserError(fmt::format("{}: {} is not a regular file", path, what));
  std::ifstream in(path);
  if (!in) throw UserError(fmt::format("{}: cannot read {}", path, what));
}

}  // namespace

Config resolve_config(const RunSpec& spec) {
  const WorkloadInfo* w = WorkloadRegistry::global().find(spec.workload);
  if (!w) throw UserError(fmt::format("unknown workload '{}' (see `fgsim list`)", spec.workload));
  Config cfg;
  if (!spec.preset.empty()) {
    auto it = presets().find(spec.preset);
    if (it == presets().end()) throw UserError(fmt::format("--preset: unknown preset '{}' (see `fgsim list`)", spec.preset));
    cfg.apply_yaml(it->second.text, it->second.source);
  }
  for (const auto& f : spec.config_files) {
    check_readable(f, "config file");
    cfg.apply_yaml_file(f);
  }
  if (!spec.input.empty()) {
    if (w->input_param.empty())
      throw UserError(fmt::format("--input: workload '{}' takes no input file", spec.workload));
    cfg.set(w->input_param, spec.input, "--input");
  }
  for (const auto& s : spec.sets) cfg.apply_assignment(s);
  if (!spec.seed.empty()) cfg.set("sim.seed", spec.seed, "--seed");
  if (!w->input_param.empty()) {
    auto in = std::get<std::string>(cfg.value(w->input_param));
    if (!in.empty()) check_readable(in, "input file (" + w->input_param + ")");
  }
  double ts = kTraceStart.get(cfg), te = kTraceEnd.get(cfg);
  if (te > 0 && te <= ts) throw UserError(fmt::format("trace.end: {} ns is not after trace.start ({} ns)", te, ts));
  return cfg;
}

void simulate(const RunSpec& spec, const Config& cfg) {
  const WorkloadInfo& w = *WorkloadRegistry::global().find(spec.workload);
  setup_systemc(kQuantum.get(cfg));

  std::ofstream out_file;
  std::ostream null_out(nullptr);
  std::ostream* out = &null_out;
  if (!spec.output_file.empty()) {
    out_file.open(spec.output_file);
    if (!out_file) throw UserError(fmt::format("--output {}: cannot write", spec.output_file));
    out = &out_file;
  }
  std::ofstream stats_out;
  if (!spec.stats_file.empty()) {
    stats_out.open(spec.stats_file);
    if (!stats_out) throw UserError(fmt::format("--stats {}: cannot write", spec.stats_file));
  }
  if (!spec.trace_file.empty()) {
    double te = kTraceEnd.get(cfg);
    Trace::get().open(spec.trace_file, ns_to_tick(kTraceStart.get(cfg)), te > 0 ? ns_to_tick(te) : ~Tick{0});
  }

  GpuTop top("gpu", cfg);
  Host host(cfg, top.memory(), top.ports(), *out, kSeed.get(cfg));
  top.attach_host(host);
  HostAgent agent("host", host, w);

  const double max_ns = kMaxTime.get(cfg);
  const auto t0 = std::chrono::steady_clock::now();
  if (max_ns > 0) sc_core::sc_start(sc_core::sc_time(max_ns, sc_core::SC_NS), sc_core::SC_EXIT_ON_STARVATION);
  else sc_core::sc_start();
  const double wall = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();

  std::exception_ptr failure = first_failure();
  std::string status = "ok", message;
  if (failure) {
    try {
      std::rethrow_exception(failure);
    } catch (const UserError& e) {
      status = "input error", message = e.what();
    } catch (const SimFault& e) {
      status = "fault", message = e.what();
    } catch (const std::exception& e) {
      status = "internal error", message = e.what();
    }
  } else if (!agent.done) {
    status = "fault";
    const bool timed_out = sc_core::sc_pending_activity();
    message = timed_out ? fmt::format("watchdog: workload '{}' still running at sim.max_time = {} ns; {}", w.name,
                                      max_ns, top.diagnose())
                        : fmt::format("deadlock: no more events at {} ns but workload '{}' has not finished; {}",
                                      tick_to_ns(sc_core::sc_time_stamp().value()), w.name, top.diagnose());
    failure = std::make_exception_ptr(SimFault(message));
  }
  Trace::get().close();

  RunReport report{spec, cfg, host, top, status, message, wall};
  if (stats_out.is_open()) {
    stats_out << stats_json(report).dump(2) << "\n";
    if (!stats_out) throw UserError(fmt::format("--stats {}: write failed", spec.stats_file));
  }
  if (!spec.quiet) print_summary(std::cout, report);
  if (failure) std::rethrow_exception(failure);
}

}  // namespace fg
