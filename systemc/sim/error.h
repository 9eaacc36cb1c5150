// SPDX-License-Identifier: Apache-2.0
// FineGrain error types and their exit codes.
//
// UserError: bad input a user gave (CLI, config key or value, input file). The
// message is one line that names the place (file:line or key); fgsim exits 2.
// SimFault: the simulated machine failed (deadlock, overflow, wrong workload
// result). The message is a diagnosis; fgsim exits 3.
#pragma once

#include <stdexcept>
#include <string>

namespace fg {

inline constexpr int kExitUserError = 2;
inline constexpr int kExitSimFault = 3;

struct UserError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

struct SimFault : std::runtime_error {
  using std::runtime_error::runtime_error;
};

}  // namespace fg
