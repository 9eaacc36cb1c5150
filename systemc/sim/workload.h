// SPDX-License-Identifier: Apache-2.0
// Workload registry. Each workload (workloads/) registers itself with a static
// RegisterWorkload object; fgsim finds it by name. Its parameters are ordinary
// fg::Param declarations under its name ("fib.n"); `input_param` names the one
// that `--input FILE` sets, if any.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <string>
#include <vector>

namespace fg {

class Config;
class Host;

struct WorkloadInfo {
  std::string name;
  std::string description;  // one line, for `fgsim list`
  std::string input_param;  // e.g. "bfs.input"; empty: no input file
  std::function<void(Host&)> run;
  // Device memory the workload allocates for a configuration (its buffers),
  // checked before the run against gpu.mem.size and, with the host copies,
  // against sim.max_memory. Empty: a few kilobytes.
  std::function<std::uint64_t(const Config&)> device_bytes = {};
  // The mechanisms (gpu/mechanism.h) this configuration of the workload uses:
  // the GPU builds those and no others. Empty: none.
  std::function<std::vector<std::string>(const Config&)> mechanisms = {};
};

class WorkloadRegistry {
 public:
  static WorkloadRegistry& global();
  void add(WorkloadInfo w);
  const WorkloadInfo* find(const std::string& name) const;
  const std::map<std::string, WorkloadInfo>& all() const { return workloads_; }

 private:
  std::map<std::string, WorkloadInfo> workloads_;
};

struct RegisterWorkload {
  explicit RegisterWorkload(WorkloadInfo w) { WorkloadRegistry::global().add(std::move(w)); }
};

// Co-runners: host-side agents that share the GPU with any workload (the
// plain graphics-like kernel of runtime/graphics.cpp). Before the workload's
// host function starts, in its thread, fgsim calls each registered `start`;
// one that the configuration enables does its set-up (in simulated time) and
// returns the body of its own process, which runs beside the workload until
// the workload's host function returns, and what to do then (`finish`, in
// the host's thread, at the workload's end); a disabled one returns no body.
struct CoRunner {
  std::function<void()> body, finish;
};
struct CoRunnerInfo {
  std::string name;
  std::function<CoRunner(Host&)> start;
};
const std::vector<CoRunnerInfo>& co_runners();
struct RegisterCoRunner {
  explicit RegisterCoRunner(CoRunnerInfo c);
};

// Presets: YAML machine descriptions from models/presets/, embedded at build time.
struct PresetInfo {
  std::string name;
  std::string source;  // "models/presets/orr2014.yaml", for messages
  std::string text;
};
const std::map<std::string, PresetInfo>& presets();
// The preset's `description:` line.
std::string preset_description(const PresetInfo& p);

}  // namespace fg
