// SPDX-License-Identifier: Apache-2.0
// Shared helpers for FineGrain tests.
//
// One SystemC elaboration per process: ctest runs every test case in its own
// process (gtest_discover_tests). A case that finds the kernel already used
// (someone ran the binary without a filter) skips instead of failing oddly.
#pragma once

#include <cctype>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <functional>
#include <memory>
#include <sstream>
#include <string>
#include <vector>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>
#include <systemc>
#include <tlm>

// After <tlm>: the quantum keeper's header does not include SystemC itself.
#include <tlm_utils/tlm_quantumkeeper.h>

#include "gpu/host.h"
#include "mem/mem_port.h"
#include "sim/config.h"
#include "sim/guard.h"
#include "sim/setup.h"
#include "sim/stats.h"
#include "sim/workload.h"
#include "top/gpu_top.h"

namespace fg::test {

#define FG_REQUIRE_FRESH_KERNEL()                                                      \
  do {                                                                                 \
    if (sc_core::sc_get_status() != sc_core::SC_ELABORATION)                           \
      GTEST_SKIP() << "SystemC already elaborated in this process; run through ctest"; \
  } while (0)

// SystemC warnings and errors fail the test (as VCML's tests do): a model that
// provokes one is wrong even if the test's own checks pass.
inline void strict_systemc() {
  sc_core::sc_report_handler::set_handler([](const sc_core::sc_report& r, const sc_core::sc_actions& a) {
    if (r.get_severity() >= sc_core::SC_WARNING)
      ADD_FAILURE() << "SystemC " << (r.get_severity() == sc_core::SC_WARNING ? "warning" : "error") << ": "
                    << r.get_msg_type() << ": " << r.get_msg();
    sc_core::sc_report_handler::default_handler(r, a);
  });
}

// Config from a preset plus key=value overrides.
inline Config make_config(const std::string& preset, const std::vector<std::string>& sets = {}) {
  Config cfg;
  if (!preset.empty()) {
    const auto& p = presets().at(preset);
    cfg.apply_yaml(p.text, p.source, true);
  }
  for (const auto& s : sets) cfg.apply_assignment(s);
  return cfg;
}

// A GPU (memory system + per-CU ports) and agents that drive the ports.
class MemHarness {
 public:
  using Agent = std::function<void(MemPort&, tlm_utils::tlm_quantumkeeper&)>;

  explicit MemHarness(const Config& cfg, double quantum_ns = 20.0) : cfg_(cfg) {
    setup_systemc(quantum_ns);
    strict_systemc();
    top_ = std::make_unique<GpuTop>("gpu", cfg_);
    reaper_ = std::make_unique<Reaper>("reaper");  // a failing agent unwinds the others (sim/guard.h)
  }
  GpuTop& top() { return *top_; }
  MemorySystem& mem() { return top_->memory(); }

  // Agent i drives CU i's port; returns when all are done, with each agent's
  // finish time (ns) in finish_ns().
  void run(const std::vector<Agent>& agents) {
    finish_ns_.assign(agents.size(), 0.0);
    for (std::size_t i = 0; i < agents.size(); ++i) {
      sc_core::sc_spawn(
          [this, i, a = agents[i]] {
            run_guarded([&] {
              tlm_utils::tlm_quantumkeeper qk;
              qk.reset();
              a(top_->port(static_cast<int>(i)), qk);
              qk.sync();
              finish_ns_[i] = sc_core::sc_time_stamp().to_seconds() * 1e9;
            });
          },
          ("agent" + std::to_string(i)).c_str());
    }
    sc_core::sc_start();
    reaper_->reap();  // a deadlock (no events left) leaves threads suspended: unwind them
    if (auto f = first_failure()) std::rethrow_exception(f);
  }
  const std::vector<double>& finish_ns() const { return finish_ns_; }
  double makespan_ns() const {
    double m = 0;
    for (double f : finish_ns_) m = std::max(m, f);
    return m;
  }

 private:
  Config cfg_;
  std::unique_ptr<GpuTop> top_;
  std::unique_ptr<Reaper> reaper_;
  std::vector<double> finish_ns_;
};

// Builds the GPU with the mechanisms named in `cfg`'s gpu.mechanisms and runs
// `body` as the host program.
class HostHarness : public sc_core::sc_module {
 public:
  HostHarness(const Config& cfg, std::function<void(Host&)> body, double quantum_ns = 20.0,
              sc_core::sc_module_name name = "harness")
      : sc_module(name), cfg_(cfg), body_(std::move(body)) {
    setup_systemc(quantum_ns);
    strict_systemc();
    top_ = std::make_unique<GpuTop>("gpu", cfg_);
    host_ = std::make_unique<Host>(*top_, null_, 1);
    reaper_ = std::make_unique<Reaper>("reaper");
    SC_HAS_PROCESS(HostHarness);
    SC_THREAD(main);
  }
  void run() {
    sc_core::sc_start();
    reaper_->reap();  // a deadlock (no events left) leaves threads suspended: unwind them
    if (auto f = first_failure()) std::rethrow_exception(f);
  }
  GpuTop& top() { return *top_; }
  // Unwind the threads a test left suspended (a deadlock it inspected).
  void reap() { reaper_->reap(); }
  double stat(const std::string& n) { return StatRegistry::global().find(n)->scalar(); }

 private:
  void main() {
    run_guarded([&] { body_(*host_); });
    stop_simulation();
  }
  Config cfg_;
  std::function<void(Host&)> body_;
  std::ostream null_{nullptr};
  std::unique_ptr<GpuTop> top_;
  std::unique_ptr<Host> host_;
  std::unique_ptr<Reaper> reaper_;
};

// Runs fgsim with arguments; captures exit code, stdout and stderr.
struct ProcResult {
  int code = -1;
  std::string out, err;
};

inline std::string slurp(const std::string& path) {
  std::ifstream in(path);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

inline std::filesystem::path scratch_dir() {
  std::string name = ::testing::UnitTest::GetInstance()->current_test_info()->name();
  for (char& c : name)
    if (c == '/') c = '_';  // parameterised tests: one flat directory, ending in the pid
  auto d = std::filesystem::temp_directory_path() / ("fgtest_" + name + "_" + std::to_string(::getpid()));
  std::filesystem::create_directories(d);
  return d;
}

// Removes this process's scratch files (fgtest_<test>_<pid>/, fgcli_<pid>_*)
// from the temp directory when every test passed; a failing test's files stay
// for a look. One test per process (ctest), so "this process" is that test.
class ScratchCleanup : public ::testing::Environment {
 public:
  void TearDown() override {
    if (::testing::UnitTest::GetInstance()->failed_test_count() > 0) return;
    const std::string pid = std::to_string(::getpid());
    std::error_code ec;
    std::vector<std::filesystem::path> mine;
    for (const auto& e : std::filesystem::directory_iterator(std::filesystem::temp_directory_path(), ec)) {
      const std::string n = e.path().filename().string();
      const bool test_dir = n.rfind("fgtest_", 0) == 0 && n.size() > pid.size() &&
                            n.compare(n.size() - pid.size() - 1, pid.size() + 1, "_" + pid) == 0;
      const bool cli_file = n.rfind("fgcli_" + pid + "_", 0) == 0;
      if (test_dir || cli_file) mine.push_back(e.path());
    }
    for (const auto& p : mine) std::filesystem::remove_all(p, ec);
  }
};
inline ::testing::Environment* const kScratchCleanup = ::testing::AddGlobalTestEnvironment(new ScratchCleanup);

inline ProcResult run_fgsim(const std::string& args) {
  auto d = scratch_dir();
  std::string out = (d / "stdout").string(), err = (d / "stderr").string();
  std::string cmd = std::string(FGSIM_EXE) + " " + args + " >" + out + " 2>" + err + " </dev/null";
  int rc = std::system(cmd.c_str());
  ProcResult r;
  r.code = WIFEXITED(rc) ? WEXITSTATUS(rc) : -1;
  r.out = slurp(out);
  r.err = slurp(err);
  return r;
}

// The lines of fgsim's stderr, without ASan's three-line warning about an
// exception on a stack it does not know (a SystemC thread; Debian's libsystemc
// has no fiber annotations; google/sanitizers#189), which the sanitizer build
// prints before fgsim's own message: the one-line checks of bad input count
// these (tests/cli/asan_warning.py drops the same lines). A real sanitizer
// report is not dropped and still fails such a check.
inline long error_lines(const std::string& err) {
  long n = 0;
  std::istringstream in(err);
  for (std::string line; std::getline(in, line);) {
    if (line.find("ASan is ignoring requested __asan_handle_no_return") != std::string::npos ||
        line == "False positive error reports may follow" ||
        line == "For details see https://github.com/google/sanitizers/issues/189")
      continue;
    ++n;
  }
  return n;
}

// `fgsim run <args> --quiet --stats FILE`: the stats JSON (a non-zero exit
// fails the test and is reported with its stderr).
inline nlohmann::json run_stats(const std::string& args) {
  const std::string path = (scratch_dir() / "s.json").string();
  const ProcResult r = run_fgsim("run " + args + " --quiet --stats " + path);
  EXPECT_EQ(r.code, 0) << r.err;
  return nlohmann::json::parse(slurp(path));
}

// `fgsim <args> --quiet --stats -`: the stats JSON from standard output (a
// non-zero exit fails the test and gives an empty object).
inline nlohmann::json run_json(const std::string& args) {
  auto r = run_fgsim(args + " --quiet --stats -");
  EXPECT_EQ(r.code, 0) << args << "\n" << r.err;
  if (r.code != 0) return {};
  return nlohmann::json::parse(r.out);
}

// " --preset P", or nothing for "default" (the built-in machine).
inline std::string preset_arg(const std::string& p) { return p == "default" ? "" : " --preset " + p; }

// Test names "<mechanism>_<preset>" for suites parameterised by (mechanism, preset).
inline std::string mechanism_preset_name(const ::testing::TestParamInfo<std::tuple<const char*, const char*>>& i) {
  return std::string(std::get<0>(i.param)) + "_" + std::get<1>(i.param);
}

// A test name from an options string ("threads=256,donate=true" ->
// "threads_256_donate_true"): every character that is not a letter or a
// digit becomes '_'.
inline std::string options_name(std::string n) {
  for (char& c : n)
    if (!std::isalnum(static_cast<unsigned char>(c))) c = '_';
  return n;
}
inline std::string options_name(const ::testing::TestParamInfo<const char*>& i) { return options_name(i.param); }

// One statistic of a stats JSON by its dotted name (throws if absent).
inline double stat(const nlohmann::json& s, const std::string& name) {
  if (!s["stats"].contains(name)) throw std::runtime_error("no stat " + name);
  return s["stats"][name].get<double>();
}

}  // namespace fg::test
