// SPDX-License-Identifier: Apache-2.0
// fgsim compare (compare.h). Each mechanism is a separate `fgsim run` process:
// SystemC elaborates once per process, and a run that faults or refuses its
// configuration must not take the others with it.
#include "top/compare.h"

#include <fcntl.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <optional>
#include <sstream>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "sim/config.h"
#include "sim/error.h"
#include "sim/workload.h"

extern char** environ;

namespace fg {
namespace {

struct Row {
  std::string mechanism, status = "ok", message;
  int code = 0;
  std::optional<double> kernel_ns, instructions, sched_instructions, tasks_run, state_bytes, cu_idle_cycles, dram_bytes;
  std::optional<double> area_mm2;
  std::string area_note;  // why there is no area number
};

std::optional<double> number(const nlohmann::json& j, const std::string& key) {
  if (!j.is_object()) return std::nullopt;
  auto it = j.find(key);
  if (it == j.end() || !it->is_number()) return std::nullopt;
  return it->get<double>();
}

// The sum of the stats `tasks.<any mechanism>.<metric>` (the shared task
// metrics, docs/architecture.md); none when the run has no mechanism's.
std::optional<double> task_metric(const nlohmann::json& stats, const std::string& metric) {
  std::optional<double> sum;
  for (auto it = stats.begin(); it != stats.end(); ++it) {
    const std::string& k = it.key();
    if (k.rfind("tasks.", 0) != 0 || !it->is_number()) continue;
    if (k.size() <= metric.size() + 1 || k.compare(k.size() - metric.size() - 1, std::string::npos, "." + metric) != 0)
      continue;
    sum = sum.value_or(0) + it->get<double>();
  }
  return sum;
}

std::string last_line(const std::string& path) {
  std::ifstream f(path);
  std::string line, last;
  // The child's last non-empty line is its diagnosis (exit 2 and 3 print one).
  while (std::getline(f, line))
    if (!line.empty()) last = line;
  for (const char* prefix : {"fgsim: error: ", "fgsim: simulated fault: "})
    if (last.rfind(prefix, 0) == 0) return last.substr(std::strlen(prefix));
  return last;
}

// SIGINT / SIGTERM: the run under way ends on its own (it gets the signal too
// when it comes from the terminal; a SIGTERM sent to compare alone is passed
// on), compare stops after it, removes its scratch files and exits 130.
volatile std::sig_atomic_t g_signal = 0;
volatile pid_t g_child = 0;
extern "C" void on_compare_signal(int sig) {
  g_signal = sig;
  if (g_child > 0) kill(g_child, sig);
}

std::string self_path() {
  std::error_code ec;
  auto p = std::filesystem::read_symlink("/proc/self/exe", ec);
  if (ec) throw std::runtime_error("compare: cannot find this executable (/proc/self/exe): " + ec.message());
  return p.string();
}

// Runs argv with standard output discarded and standard error to err_path;
// returns the exit code (128 + signal when killed).
int spawn(const std::vector<std::string>& args, const std::string& err_path) {
  std::vector<char*> argv;
  for (const auto& a : args) argv.push_back(const_cast<char*>(a.c_str()));
  argv.push_back(nullptr);
  posix_spawn_file_actions_t fa;
  posix_spawn_file_actions_init(&fa);
  posix_spawn_file_actions_addopen(&fa, 1, "/dev/null", O_WRONLY, 0);
  posix_spawn_file_actions_addopen(&fa, 2, err_path.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0600);
  pid_t pid = 0;
  const int rc = posix_spawn(&pid, argv[0], &fa, nullptr, argv.data(), environ);
  posix_spawn_file_actions_destroy(&fa);
  if (rc != 0) throw std::runtime_error(fmt::format("compare: cannot start {}: {}", args[0], std::strerror(rc)));
  g_child = pid;
  int status = 0;
  while (waitpid(pid, &status, 0) < 0)
    if (errno != EINTR) throw std::runtime_error(fmt::format("compare: waitpid: {}", std::strerror(errno)));
  g_child = 0;
  if (WIFEXITED(status)) return WEXITSTATUS(status);
  if (WIFSIGNALED(status)) return 128 + WTERMSIG(status);
  return 255;
}

// ---- the hardware a mechanism needs (the mechanisms page's area_mm2 column) ----
//
// As tools/experiments/experiment.py computes it (hwwl_area, aggregator_area),
// from the repository's synth/results.json and synth/estimates.json, found
// beside the build directory of this executable (build/fgsim -> synth/):
// the hardware worklist's synthesized unit (the system at 32 entries per
// bank, or its cores and network summed where no system was synthesized, with
// its banks replaced by the synthesized banks of the run's depth; gsorting
// adds its ranking block), the aggregator's estimate for channels, 0 for a
// mechanism that is software.
struct Synth {
  nlohmann::json results, estimates;
  bool found = false;
};

Synth load_synth(const std::string& self) {
  Synth s;
  const auto root = std::filesystem::path(self).parent_path().parent_path() / "synth";
  std::ifstream r(root / "results.json"), e(root / "estimates.json");
  if (!r || !e) return s;
  try {
    r >> s.results;
    e >> s.estimates;
    s.found = s.results.contains("results") && s.estimates.contains("aggregator");
  } catch (const std::exception&) {
    s.found = false;
  }
  return s;
}

std::optional<double> synth_block(const Synth& s, const std::string& block, const nlohmann::json& params) {
  for (const auto& r : s.results["results"]) {
    if (r.value("block", "") != block) continue;
    bool all = true;
    for (auto it = params.begin(); it != params.end() && all; ++it)
      all = r["params"].contains(it.key()) && r["params"][it.key()] == *it;
    if (all) return r["area_um2"].get<double>();
  }
  return std::nullopt;
}

void set_area(Row& row, const Synth& s, const std::string& mechanism, const nlohmann::json& config) {
  if (mechanism != "hwwl" && mechanism != "channels") {
    row.area_mm2 = 0;
    return;
  }
  if (!s.found) {
    row.area_note = "synth/ not found";
    return;
  }
  if (mechanism == "channels") {
    const auto& a = s.estimates["aggregator"];
    const double node = a["class_figure"]["node_nm"].get<double>(), target = a["target_node_nm"].get<double>();
    row.area_mm2 = a["class_figure"]["area_mm2"].get<double>() * (target / node) * (target / node);
    return;
  }
  const std::string scheme = config.value("worklist.scheme", "lsorting");
  const std::vector<std::string> schemes = {"none", "threshold", "lsorting", "gsorting"};
  const auto it = std::find(schemes.begin(), schemes.end(), scheme);
  if (it == schemes.end()) {
    row.area_note = "model only";
    return;
  }
  const int sch = static_cast<int>(it - schemes.begin());
  const auto cores = config.value("gpu.cus", std::uint64_t{4});
  auto lanes = config.value("worklist.lanes", std::uint64_t{0});
  if (lanes == 0) lanes = config.value("gpu.cu.simd_width", std::uint64_t{16});
  const auto depth = config.value("worklist.depth", std::uint64_t{32});
  const nlohmann::json params = {{"Lanes", lanes},
                                 {"Depth", 32},
                                 {"Scheme", sch},
                                 {"Threshold", config.value("worklist.threshold", std::uint64_t{5})},
                                 {"Interval", config.value("worklist.interval", std::uint64_t{10})}};
  const std::optional<double> grank =
      scheme == "gsorting" ? synth_block(s, "grank", {{"NumBanks", cores * lanes}}) : std::optional<double>(0.0);
  nlohmann::json sys = params;
  sys["NumCores"] = cores;
  std::optional<double> system = synth_block(s, "system", sys);
  if (!system) {
    const auto core = synth_block(s, "core", params), icrn = synth_block(s, "icrn", {{"NumCores", cores}});
    if (core && icrn && grank) system = static_cast<double>(cores) * *core + *icrn + *grank;
  }
  const auto b32 = synth_block(s, "bank", {{"Depth", 32}}), bd = synth_block(s, "bank", {{"Depth", depth}});
  if (!system || !b32 || !bd) {
    row.area_note = "not synthesized";
    return;
  }
  row.area_mm2 = (*system - static_cast<double>(cores * lanes) * (*b32 - *bd)) / 1e6;
}

std::string cell(const std::optional<double>& v, const char* f = "{:.0f}") {
  return v ? fmt::format(fmt::runtime(f), *v) : std::string("-");
}

}  // namespace

int compare(const CompareSpec& spec) {
  const RunSpec& run = spec.run;
  const Config cfg = resolve_config(run);  // every bad input is exit 2 here, before any run
  const std::string key = run.workload + ".mechanism";
  const ParamInfo* info = ParamRegistry::global().find(key);
  if (!info || info->type != ParamType::Enum || info->choices.size() < 2) {
    std::string several;
    for (const auto& [name, w] : WorkloadRegistry::global().all()) {
      const ParamInfo* p = ParamRegistry::global().find(name + ".mechanism");
      if (p && p->type == ParamType::Enum && p->choices.size() > 1) several += (several.empty() ? "" : ", ") + name;
    }
    throw UserError(fmt::format("compare: workload '{}' runs one way (it has no {} parameter); these have several: {}",
                                run.workload, key, several));
  }
  if (cfg.set_by_user(key))
    throw UserError(
        fmt::format("compare: {} is set (by {}); compare runs every mechanism in turn: choose them with "
                    "--mechanisms",
                    key, cfg.origin(key)));
  std::vector<std::string> mechs = spec.mechanisms.empty() ? info->choices : spec.mechanisms;
  for (std::size_t i = 0; i < mechs.size(); ++i) {
    if (std::find(info->choices.begin(), info->choices.end(), mechs[i]) == info->choices.end())
      throw UserError(fmt::format("--mechanisms: '{}' is not a mechanism of {} (one of: {})", shown(mechs[i]),
                                  run.workload, fmt::join(info->choices, ", ")));
    if (std::find(mechs.begin(), mechs.begin() + static_cast<std::ptrdiff_t>(i), mechs[i]) !=
        mechs.begin() + static_cast<std::ptrdiff_t>(i))
      throw UserError(fmt::format("--mechanisms: '{}' is named twice", mechs[i]));
  }
  // The baseline: --baseline, else the parameter's default when it is compared, else the first.
  std::string baseline = spec.baseline;
  if (baseline.empty()) {
    baseline = format_value(*info, info->default_value);
    if (std::find(mechs.begin(), mechs.end(), baseline) == mechs.end()) baseline = mechs.front();
  }
  if (std::find(mechs.begin(), mechs.end(), baseline) == mechs.end())
    throw UserError(fmt::format("--baseline: '{}' is not among the mechanisms compared ({})", shown(baseline),
                                fmt::join(mechs, ", ")));
  std::ofstream json_out;
  if (!spec.json_file.empty() && spec.json_file != "-") {
    refuse_overwriting_inputs(run, cfg, "--json", spec.json_file);
    json_out.open(spec.json_file);
    if (!json_out) throw UserError(fmt::format("--json: cannot write '{}'", shown(spec.json_file)));
  }

  // Scratch files in $TMPDIR (else /tmp), removed at the end, also after a signal.
  std::error_code tmp_ec;
  std::string dir_template = (std::filesystem::temp_directory_path(tmp_ec) / "fgsim-compare-XXXXXX").string();
  if (tmp_ec) dir_template = "/tmp/fgsim-compare-XXXXXX";
  if (!mkdtemp(dir_template.data()))
    throw std::runtime_error(fmt::format("compare: mkdtemp {}: {}", dir_template, std::strerror(errno)));
  const std::string dir = dir_template;
  const std::string self = self_path();
  const Synth synth = load_synth(self);
  const bool tty = isatty(2);
  std::vector<Row> rows;
  g_signal = 0;
  auto old_int = std::signal(SIGINT, on_compare_signal), old_term = std::signal(SIGTERM, on_compare_signal);
  for (std::size_t i = 0; i < mechs.size() && !g_signal; ++i) {
    const std::string& m = mechs[i];
    if (tty)
      std::fprintf(stderr, "compare: %s on %s (%zu/%zu)\n", run.workload.c_str(), m.c_str(), i + 1, mechs.size());
    std::vector<std::string> args = {self, "run", run.workload};
    if (!run.preset.empty()) args.insert(args.end(), {"--preset", run.preset});
    for (const auto& f : run.config_files) args.insert(args.end(), {"--config", f});
    if (!run.input.empty()) args.insert(args.end(), {"--input", run.input});
    for (const auto& s : run.sets) args.insert(args.end(), {"--set", s});
    if (!run.seed.empty()) args.insert(args.end(), {"--seed", run.seed});
    const std::string stats = fmt::format("{}/{}.json", dir, i), err = fmt::format("{}/{}.err", dir, i);
    args.insert(args.end(), {"--set", key + "=" + m, "--quiet", "--stats", stats});
    Row r;
    r.mechanism = m;
    r.code = spawn(args, err);
    if (r.code != 0) {
      r.message = last_line(err);
      r.status = r.code == kExitUserError  ? "refused"
                 : r.code == kExitSimFault ? "fault"
                 : r.code == 1             ? "internal error"
                                           : fmt::format("ended with exit code {}", r.code);
    }
    std::ifstream f(stats);
    if (r.code == 0 && !f) {
      r.status = "no statistics";
      r.code = 1;
    }
    if (f) {
      nlohmann::json j;
      try {
        f >> j;
      } catch (const std::exception&) {
        j = nlohmann::json();
      }
      const auto& st = j.contains("stats") ? j["stats"] : nlohmann::json();
      const auto& tot = j.contains("totals") ? j["totals"] : nlohmann::json();
      if (j.contains("workload") && j["workload"].contains("results"))
        r.kernel_ns = number(j["workload"]["results"], "kernel_ns");
      if (!r.kernel_ns && j.contains("sim")) r.kernel_ns = number(j["sim"], "time_ns");
      r.instructions = number(tot, "gpu.cu.wavefront_instructions");
      r.cu_idle_cycles = number(tot, "gpu.cu.cycles_idle");
      r.dram_bytes = number(st, "gpu.dram.bytes");
      r.sched_instructions = task_metric(st, "sched_instructions");
      r.tasks_run = task_metric(st, "run");
      r.state_bytes = task_metric(st, "state_bytes");
      set_area(r, synth, m, j.contains("config") ? j["config"] : nlohmann::json::object());
    }
    std::error_code ec;
    std::filesystem::remove(stats, ec);
    std::filesystem::remove(err, ec);
    rows.push_back(std::move(r));
  }
  std::signal(SIGINT, old_int);
  std::signal(SIGTERM, old_term);
  std::error_code ec;
  std::filesystem::remove_all(dir, ec);
  if (g_signal) {
    std::fprintf(stderr, "fgsim: interrupted: compare stopped after %zu of %zu mechanisms\n", rows.size(),
                 mechs.size());
    return kExitInterrupted;
  }

  std::optional<double> base;
  for (const auto& r : rows)
    if (r.mechanism == baseline && r.code == 0) base = r.kernel_ns;
  std::ostringstream out;
  out << fmt::format("{} on {} (seed {}): {} mechanisms, speed-up over {}\n", run.workload,
                     run.preset.empty() ? "the default machine" : run.preset,
                     format_value(*ParamRegistry::global().find("sim.seed"), cfg.value("sim.seed")), rows.size(),
                     baseline);
  out << fmt::format("{:<12} {:>12} {:>8} {:>14} {:>12} {:>10} {:>12} {:>14} {:>12} {:>9}  {}\n", "mechanism",
                     "kernel_us", "speedup", "instructions", "sched_insts", "tasks_run", "state_bytes",
                     "cu_idle_cycles", "dram_bytes", "area_mm2", "status");
  nlohmann::ordered_json json_rows = nlohmann::ordered_json::array();
  for (const auto& r : rows) {
    const bool ok = r.code == 0;
    std::optional<double> us, speedup;
    if (ok && r.kernel_ns) us = *r.kernel_ns / 1000;
    if (ok && base && r.kernel_ns && *r.kernel_ns > 0) speedup = *base / *r.kernel_ns;
    const std::string area = !ok ? "-" : r.area_mm2 ? cell(r.area_mm2, "{:.2f}") : r.area_note;
    out << fmt::format("{:<12} {:>12} {:>8} {:>14} {:>12} {:>10} {:>12} {:>14} {:>12} {:>9}  {}\n", r.mechanism,
                       cell(us, "{:.1f}"), cell(speedup, "{:.3f}"), cell(ok ? r.instructions : std::nullopt),
                       cell(ok ? r.sched_instructions : std::nullopt), cell(ok ? r.tasks_run : std::nullopt),
                       cell(ok ? r.state_bytes : std::nullopt), cell(ok ? r.cu_idle_cycles : std::nullopt),
                       cell(ok ? r.dram_bytes : std::nullopt), area,
                       r.message.empty() ? r.status : r.status + ": " + shown(r.message, 300));
    nlohmann::ordered_json o = {{"mechanism", r.mechanism}, {"status", r.status}, {"exit_code", r.code}};
    if (!r.message.empty()) o["message"] = r.message;
    auto put = [&](const char* k, const std::optional<double>& v) {
      if (ok && v) o[k] = *v;
    };
    put("kernel_us", us);
    put("speedup", speedup);
    put("instructions", r.instructions);
    put("sched_instructions", r.sched_instructions);
    put("tasks_run", r.tasks_run);
    put("state_bytes", r.state_bytes);
    put("cu_idle_cycles", r.cu_idle_cycles);
    put("dram_bytes", r.dram_bytes);
    put("area_mm2", r.area_mm2);
    if (ok && !r.area_mm2 && !r.area_note.empty()) o["area_note"] = r.area_note;
    json_rows.push_back(std::move(o));
  }
  out << "area_mm2: the hardware the mechanism needs at OSU 0.18 um: the hardware worklist's synthesized unit "
         "(synth/results.json); for channels the aggregator's core, an upper estimate from a core of its class "
         "(synth/estimates.json; the GPU's existing control processor accounts for part of it); 0 for software\n";
  if (spec.json_file == "-") {
    std::cout << json_rows.dump(2) << "\n";
  } else {
    std::cout << out.str();
    if (json_out.is_open()) {
      json_out << json_rows.dump(2) << "\n";
      if (!json_out) throw UserError(fmt::format("--json: cannot write '{}'", shown(spec.json_file)));
    }
  }
  bool fault = false, failed = false, all_refused = true;
  for (const auto& r : rows) {
    fault |= r.code == kExitSimFault;
    failed |= r.code != 0 && r.code != kExitUserError && r.code != kExitSimFault;
    all_refused &= r.code == kExitUserError;
  }
  if (fault) return kExitSimFault;
  if (failed) return 1;
  if (all_refused) {
    std::fprintf(stderr, "fgsim: error: compare: every mechanism refused the configuration (%s: %s)\n",
                 rows.front().mechanism.c_str(), shown(rows.front().message, 300).c_str());
    return kExitUserError;
  }
  return 0;
}

}  // namespace fg
