// SPDX-License-Identifier: Apache-2.0
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
  std::vector<std::string> sets;                    // "key=value", applied in order
  std::string seed;                                 // --seed, applied last (empty: not given)
  std::string input;                                // --input, sets the workload's input parameter
  std::string stats_file, trace_file, output_file;  // stats_file "-": standard output
  std::string vcd_file;                             // --vcd: the rtl worklist backend's waveform
  bool quiet = false;
  bool progress = false;  // a progress line on stderr every few seconds (also when stderr is a terminal)
};

// Exit code of a run ended by SIGINT or SIGTERM (128 + SIGINT, as shells report it).
inline constexpr int kExitInterrupted = 130;

// Defaults, then the preset, then config files, then --input, --set, --seed.
// Throws UserError naming the place of the first bad item.
Config resolve_config(const RunSpec& spec);

// Runs the simulation. Throws UserError / SimFault; stats are written (with
// the failure recorded in "run.status") before a SimFault propagates.
// SIGINT / SIGTERM end the run at the next slice of simulated time: the stats
// collected so far are written with "complete": false and the result is
// kExitInterrupted; otherwise 0.
int simulate(const RunSpec& spec, const Config& cfg);

}  // namespace fg
