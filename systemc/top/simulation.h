// One fgsim run: resolve the configuration, build the GPU, run a workload in
// the host thread, write stats / trace / output and the end-of-run summary.
#pragma once

#include <string>
#include <vector>

#include "sim/config.h"

namespace fg {

struct RunSpec {
  std::string workload;
  std::string preset;  // empty: defaults only
  std::vector<std::string> config_files;
  std::vector<std::string> sets;  // "key=value", applied in order
  std::string seed;               // --seed, applied last (empty: not given)
  std::string input;              // --input, sets the workload's input parameter
  std::string stats_file, trace_file, output_file;
  bool quiet = false;
};

// Defaults, then the preset, then config files, then --input, --set, --seed.
// Throws UserError naming the place of the first bad item.
Config resolve_config(const RunSpec& spec);

// Runs the simulation. Throws UserError / SimFault; stats are written (with
// the failure recorded in "run.status") before a SimFault propagates.
void simulate(const RunSpec& spec, const Config& cfg);

}  // namespace fg
