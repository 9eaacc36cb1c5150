// SPDX-License-Identifier: Apache-2.0
// One fgsim run: resolve the configuration, build the GPU, run a workload in
// the host thread, write stats / trace / output and the end-of-run summary.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "sim/config.h"

namespace fg {

struct WorkloadInfo;

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
// An output (`option` `path`) naming a file the run reads (a --config file, the
// workload's input file) would overwrite it: a UserError.
void refuse_overwriting_inputs(const RunSpec& spec, const Config& cfg, const std::string& option,
                               const std::string& path);

// The device memory a run of `w` needs for `cfg`, estimated before anything
// is built: the workload's buffers (WorkloadInfo::device_bytes), those of the
// mechanisms it builds (MechanismInfo::device_bytes) and 64 KiB of small
// allocations. More than gpu.mem.size is exit 2; the stats report it beside
// the run's high-water mark (sim.device_bytes: estimate, peak).
std::uint64_t device_bytes_estimate(const WorkloadInfo& w, const Config& cfg);

// Runs the simulation and returns fgsim's exit code. A run that started
// reports how it ended itself, on standard error, the cause first: a failure
// inside it (UserError: 2, SimFault: 3, as describe_error), the host-time
// limit (2), SIGINT / SIGTERM at the next slice of simulated time
// (kExitInterrupted), then the outputs' write errors (2) and an --output not
// written; the stats are written in every case ("run.status", "complete":
// false when stopped early). Throws UserError when the run cannot be set up
// (nothing is written then).
int simulate(const RunSpec& spec, const Config& cfg);

}  // namespace fg
