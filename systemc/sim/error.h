// SPDX-License-Identifier: Apache-2.0
// FineGrain error types and their exit codes.
//
// UserError: bad input a user gave (CLI, config key or value, input file). The
// message is one line that names the place (file:line or key); fgsim exits 2.
// SimFault: the simulated machine failed (deadlock, overflow, wrong workload
// result). The message is a diagnosis; fgsim exits 3.
#pragma once

#include <cstdio>
#include <stdexcept>
#include <string>
#include <string_view>

namespace fg {

inline constexpr int kExitUserError = 2;
inline constexpr int kExitSimFault = 3;

struct UserError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

struct SimFault : std::runtime_error {
  using std::runtime_error::runtime_error;
};

// A user-given text as messages show it: control characters escaped (a
// message stays one line) and at most `max` characters, then the length.
inline std::string shown(std::string_view v, std::size_t max = 64) {
  std::string o;
  for (std::size_t i = 0; i < v.size() && i < max; ++i) {
    const auto c = static_cast<unsigned char>(v[i]);
    if (c == '\n')
      o += "\\n";
    else if (c == '\t')
      o += "\\t";
    else if (c == '\r')
      o += "\\r";
    else if (c < 0x20 || c == 0x7f) {
      char buf[8];
      std::snprintf(buf, sizeof buf, "\\x%02x", c);
      o += buf;
    } else {
      o += static_cast<char>(c);
    }
  }
  if (v.size() > max) o += "... (" + std::to_string(v.size()) + " bytes)";
  return o;
}

}  // namespace fg
