// SPDX-License-Identifier: Apache-2.0
// End-of-run outputs: the stats JSON document and the readable summary.
#pragma once

#include <iosfwd>
#include <string>

#include <nlohmann/json.hpp>

#include "sim/config.h"

namespace fg {

struct RunSpec;
class Host;
class GpuTop;

struct RunReport {
  const RunSpec& spec;
  const Config& cfg;
  Host& host;
  GpuTop& top;
  std::string status;   // "ok", "fault", "input error", "internal error"
  std::string message;  // empty when ok
  double wall_seconds;
};

// {"fgsim", "run", "config", "sim", "workload", "stats", "descriptions", "host"};
// everything but "host" is a function of configuration and seed alone.
nlohmann::ordered_json stats_json(const RunReport& r);
void print_summary(std::ostream& os, const RunReport& r);

}  // namespace fg
