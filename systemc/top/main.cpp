// SPDX-License-Identifier: Apache-2.0
// fgsim: the FineGrain command line.
//
//   fgsim run WORKLOAD [--preset NAME] [--config FILE]... [--set key=value]...
//                      [--seed N] [--input FILE] [--stats FILE] [--trace FILE]
//                      [--output FILE] [--quiet]
//   fgsim list
//   fgsim params [PREFIX] [--preset NAME]
//   fgsim compare WORKLOAD [run's options] [--mechanisms A,B,...] [--baseline M]
//                          [--json FILE]
//
// Exit codes: 0 ok, 2 bad input (one line naming the place), 3 simulated fault.
#include <cstdio>
#include <cstdlib>
#include <iostream>

#include <fmt/format.h>
#include <fmt/ranges.h>
#include <CLI/CLI.hpp>
#include <nlohmann/json.hpp>

#include "gpu/mechanism.h"
#include "sim/config.h"
#include "sim/error.h"
#include "sim/workload.h"
#include "top/compare.h"
#include "top/simulation.h"

#include "fg_git_version.h"  // generated: FG_GIT_COMMIT

namespace {

int cmd_list() {
  std::cout << "Workloads (fgsim run NAME):\n";
  for (const auto& [name, w] : fg::WorkloadRegistry::global().all())
    std::cout << fmt::format("  {:<14}{}{}\n", name, w.description,
                             w.input_param.empty() ? "" : fmt::format(" [--input sets {}]", w.input_param));
  std::cout << "Presets (--preset NAME):\n";
  for (const auto& [name, p] : fg::presets()) std::cout << fmt::format("  {:<14}{}\n", name, fg::preset_description(p));
  std::cout << "Mechanisms (built when a workload uses them; gpu.mechanisms adds more):\n";
  for (const auto& [name, m] : fg::MechanismRegistry::global().all()) {
    std::cout << fmt::format("  {:<14}{}{}\n", name, m.description,
                             m.needs.empty() ? "" : fmt::format(" [needs {}]", fmt::join(m.needs, ", ")));
    if (m.list) m.list(std::cout);
  }
  return 0;
}

int cmd_params(const std::string& prefix, const std::string& preset, bool json) {
  fg::Config cfg;
  if (!preset.empty()) {
    auto it = fg::presets().find(preset);
    if (it == fg::presets().end()) throw fg::UserError(fmt::format("--preset: unknown preset '{}'", fg::shown(preset)));
    cfg.apply_yaml(it->second.text, it->second.source, true);
  }
  bool any = false;
  if (json) {  // one object per parameter, values typed as in the stats JSON's "config"
    const nlohmann::ordered_json values = cfg.to_json();
    nlohmann::ordered_json out = nlohmann::ordered_json::array();
    for (const auto& [name, info] : fg::ParamRegistry::global().all()) {
      if (name.rfind(prefix, 0) != 0) continue;
      any = true;
      nlohmann::ordered_json p = {{"name", name},
                                  {"type", fg::to_string(info.type)},
                                  {"value", values[name]},
                                  {"unit", info.unit},
                                  {"help", info.help}};
      if (info.min) p["min"] = *info.min;
      if (info.max) p["max"] = *info.max;
      if (!info.choices.empty()) p["choices"] = info.choices;
      if (auto a = fg::ParamRegistry::global().aliases_of(name); !a.empty()) p["aliases"] = a;
      out.push_back(std::move(p));
    }
    if (!any) throw fg::UserError(fmt::format("params: no parameter starts with '{}'", fg::shown(prefix)));
    std::cout << out.dump(2) << "\n";
    return 0;
  }
  std::cout << fmt::format("{:<28} {:<6} {:>12} {:<7} {}\n", "parameter", "type", preset.empty() ? "default" : "value",
                           "unit", "description");
  for (const auto& [name, info] : fg::ParamRegistry::global().all()) {
    if (name.rfind(prefix, 0) != 0) continue;
    any = true;
    std::string help = info.help;
    if (info.type == fg::ParamType::Enum) {
      std::string c;
      for (const auto& x : info.choices) c += (c.empty() ? "" : "|") + x;
      help += " {" + c + "}";
    } else if (info.min || info.max) {
      help += fmt::format(" [{}..{}]", info.min ? fg::format_bound(*info.min) : "",
                          info.max ? fg::format_bound(*info.max) : "");
    }
    for (const auto& a : fg::ParamRegistry::global().aliases_of(name)) help += " (old name: " + a + ")";
    std::cout << fmt::format("{:<28} {:<6} {:>12} {:<7} {}\n", name, fg::to_string(info.type),
                             fg::format_value(info, cfg.value(name)), info.unit, help);
  }
  if (!any) throw fg::UserError(fmt::format("params: no parameter starts with '{}'", fg::shown(prefix)));
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  setenv("SYSTEMC_DISABLE_COPYRIGHT_MESSAGE", "1", 0);
  CLI::App app{"FineGrain: a SystemC/TLM-2.0 GPU model with hardware for fine-grain dynamic tasks", "fgsim"};
  app.require_subcommand(1);
  app.set_version_flag("--version", std::string("fgsim ") + FG_VERSION + " (" + FG_GIT_COMMIT + ")");
  app.set_help_all_flag("--help-all", "help for every subcommand");

  fg::RunSpec spec;
  // An option given with an empty value is a mistake, not "not given".
  const auto non_empty = CLI::Validator(
      [](std::string& v) { return v.empty() ? std::string("empty value") : std::string(); }, "", "non-empty");
  auto* run = app.add_subcommand("run", "run a workload on the modelled GPU");
  run->add_option("workload", spec.workload, "workload name (see `fgsim list`)")->required();
  run->add_option("--preset", spec.preset, "machine preset (see `fgsim list`)")->check(non_empty);
  run->add_option("--config", spec.config_files, "YAML config file (repeatable, applied in order)")->check(non_empty);
  run->add_option("--set", spec.sets, "override one parameter: key=value (repeatable)")->check(non_empty);
  run->add_option("--seed", spec.seed, "random seed (same as --set sim.seed=N)")->check(non_empty);
  run->add_option("--input", spec.input, "input file of the workload (its <workload>.input parameter)")
      ->check(non_empty);
  run->add_option("--stats", spec.stats_file, "write statistics JSON here ('-': standard output)")->check(non_empty);
  run->add_option("--trace", spec.trace_file, "write a Chrome/Perfetto trace here (see trace.start/trace.end)")
      ->check(non_empty);
  run->add_option("--output", spec.output_file, "write the workload's results here")->check(non_empty);
  run->add_option("--vcd", spec.vcd_file,
                  "write the worklist RTL's waveform here (worklist.backend=rtl; window: worklist.vcd_from/vcd_to)")
      ->check(non_empty);
  run->add_flag("--quiet", spec.quiet, "no end-of-run summary");
  run->add_flag("--progress", spec.progress,
                "a progress line on standard error every 2 s (default when standard error is a terminal)");

  app.add_subcommand("list", "list workloads and presets");
  std::string prefix, params_preset;
  auto* params = app.add_subcommand("params", "list parameters: name, type, default, unit, help");
  params->add_option("prefix", prefix, "only parameters whose name starts with this");
  params->add_option("--preset", params_preset, "show the values of this preset instead of the defaults")
      ->check(non_empty);
  bool params_json = false;
  params->add_flag("--json", params_json, "JSON: name, type, value, unit, help, min/max, choices");

  fg::CompareSpec cmp;
  auto* compare = app.add_subcommand(
      "compare", "run a workload once on each of its mechanisms (<workload>.mechanism) and print a table");
  compare->add_option("workload", cmp.run.workload, "workload name (see `fgsim list`)")->required();
  compare->add_option("--preset", cmp.run.preset, "machine preset (see `fgsim list`)")->check(non_empty);
  compare->add_option("--config", cmp.run.config_files, "YAML config file (repeatable, applied in order)")
      ->check(non_empty);
  compare->add_option("--set", cmp.run.sets, "override one parameter: key=value (repeatable)")->check(non_empty);
  compare->add_option("--seed", cmp.run.seed, "random seed (same as --set sim.seed=N)")->check(non_empty);
  compare->add_option("--input", cmp.run.input, "input file of the workload (its <workload>.input parameter)")
      ->check(non_empty);
  compare
      ->add_option("--mechanisms", cmp.mechanisms,
                   "the mechanisms to run, comma-separated (default: every value of <workload>.mechanism)")
      ->delimiter(',')
      ->check(non_empty);
  compare
      ->add_option("--baseline", cmp.baseline,
                   "the mechanism speed-ups are relative to (default: the default one if compared, else the first)")
      ->check(non_empty);
  compare->add_option("--json", cmp.json_file, "also write the rows as JSON here ('-': only JSON, on standard output)")
      ->check(non_empty);

  // A first word that is no option and no command (CLI11 would only say a
  // subcommand is required).
  if (argc > 1 && argv[1][0] != '-') {
    const std::string cmd = argv[1];
    bool known = false;
    for (const auto* sub : app.get_subcommands([](const CLI::App*) { return true; })) known |= sub->get_name() == cmd;
    if (!known) {
      std::fprintf(stderr,
                   "fgsim: error: unknown command '%s' (commands: run, list, params, compare; see fgsim --help)\n",
                   fg::shown(cmd).c_str());
      return fg::kExitUserError;
    }
  }

  try {
    app.parse(argc, argv);
  } catch (const CLI::CallForHelp& e) {
    return app.exit(e);
  } catch (const CLI::CallForAllHelp& e) {
    return app.exit(e);
  } catch (const CLI::CallForVersion& e) {
    return app.exit(e);
  } catch (const CLI::ParseError& e) {
    std::string msg = e.what();
    if (auto nl = msg.find('\n'); nl != std::string::npos) msg = msg.substr(0, nl);
    std::fprintf(stderr, "fgsim: error: %s (see fgsim --help)\n", fg::shown(msg, 300).c_str());
    return fg::kExitUserError;
  }

  try {
    if (app.got_subcommand("list")) return cmd_list();
    if (app.got_subcommand("params")) return cmd_params(prefix, params_preset, params_json);
    if (app.got_subcommand("compare")) return fg::compare(cmp);
    fg::Config cfg = fg::resolve_config(spec);
    return fg::simulate(spec, cfg);
  } catch (...) {
    // One line whatever a UserError's message holds (fg::describe_error).
    const auto [code, line] = fg::describe_error(std::current_exception());
    std::fprintf(stderr, "%s\n", line.c_str());
    return code;
  }
}
