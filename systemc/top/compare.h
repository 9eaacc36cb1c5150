// SPDX-License-Identifier: Apache-2.0
// fgsim compare: one workload on every mechanism it can run on (the values of
// its `<workload>.mechanism` parameter), one run each, as a table
// (docs/usage.md, "Comparing mechanisms").
#pragma once

#include <string>
#include <vector>

#include "top/simulation.h"

namespace fg {

struct CompareSpec {
  RunSpec run;                          // workload, preset, config files, --set, --seed, --input
  std::vector<std::string> mechanisms;  // empty: every value of <workload>.mechanism
  std::string baseline;                 // empty: the parameter's default value
  std::string json_file;                // the rows as JSON ('-': standard output)
};

// Runs `fgsim run` (this executable) once per mechanism and prints the table.
// Bad input is a UserError (exit 2) before anything runs. Exit code: 3 when a
// run ended in a simulated fault (a failed workload check is one), 1 when a
// run ended otherwise (an internal error, a signal), 2 when every mechanism
// refused the configuration, else 0 (refusals of some are rows).
int compare(const CompareSpec& spec);

}  // namespace fg
