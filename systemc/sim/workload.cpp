// SPDX-License-Identifier: Apache-2.0
#include "sim/workload.h"

#include <cstdio>
#include <cstdlib>

#include <yaml-cpp/yaml.h>

namespace fg {

WorkloadRegistry& WorkloadRegistry::global() {
  static WorkloadRegistry r;
  return r;
}

namespace {
std::vector<CoRunnerInfo>& co_runner_list() {
  static std::vector<CoRunnerInfo> v;
  return v;
}
}  // namespace

const std::vector<CoRunnerInfo>& co_runners() { return co_runner_list(); }
RegisterCoRunner::RegisterCoRunner(CoRunnerInfo c) { co_runner_list().push_back(std::move(c)); }

void WorkloadRegistry::add(WorkloadInfo w) {
  if (workloads_.count(w.name)) {
    std::fprintf(stderr, "fgsim: internal error: workload '%s' registered twice\n", w.name.c_str());
    std::abort();
  }
  std::string n = w.name;
  workloads_.emplace(n, std::move(w));
}

const WorkloadInfo* WorkloadRegistry::find(const std::string& name) const {
  auto it = workloads_.find(name);
  return it == workloads_.end() ? nullptr : &it->second;
}

std::string preset_description(const PresetInfo& p) {
  try {
    YAML::Node n = YAML::Load(p.text);
    if (n["description"]) return n["description"].as<std::string>();
  } catch (const YAML::Exception&) {
  }
  return "";
}

}  // namespace fg
