// SPDX-License-Identifier: Apache-2.0
// FineGrain error types and their exit codes.
//
// UserError: bad input a user gave (CLI, config key or value, input file). The
// message is one line that names the place (file:line or key); fgsim exits 2.
// SimFault: the simulated machine failed (deadlock, overflow, wrong workload
// result). The message is a diagnosis; fgsim exits 3.
#pragma once

#include <cstdio>
#include <exception>
#include <stdexcept>
#include <string>
#include <string_view>
#include <utility>

namespace fg {

inline constexpr int kExitUserError = 2;
inline constexpr int kExitSimFault = 3;

struct UserError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

struct SimFault : std::runtime_error {
  using std::runtime_error::runtime_error;
};

// The length of the UTF-8 sequence of a printable character at v[i] (1 to
// 4 bytes); 0 for a byte that does not start one (a stray continuation byte,
// an overlong form, a surrogate, past U+10FFFF, a C1 control, cut short).
inline std::size_t printable_utf8(std::string_view v, std::size_t i) {
  const auto b = [&](std::size_t k) { return static_cast<unsigned char>(v[i + k]); };
  const unsigned c = b(0);
  const std::size_t n = c < 0x80                 ? 1
                        : c >= 0xc2 && c <= 0xdf ? 2
                        : c >= 0xe0 && c <= 0xef ? 3
                        : c >= 0xf0 && c <= 0xf4 ? 4
                                                 : 0;
  if (n == 0 || i + n > v.size()) return 0;
  if (n == 1) return c >= 0x20 && c != 0x7f ? 1 : 0;
  for (std::size_t k = 1; k < n; ++k)
    if ((b(k) & 0xc0) != 0x80) return 0;
  if ((c == 0xc2 && b(1) < 0xa0) || (c == 0xe0 && b(1) < 0xa0) || (c == 0xed && b(1) >= 0xa0) ||
      (c == 0xf0 && b(1) < 0x90) || (c == 0xf4 && b(1) >= 0x90))
    return 0;
  return n;
}

// A user-given text as messages show it: control characters and bytes that
// are not UTF-8 escaped (a message stays one line of text, whatever a binary
// input held) and at most `max` bytes of it, then its length.
inline std::string shown(std::string_view v, std::size_t max = 64) {
  std::string o;
  std::size_t i = 0;
  while (i < v.size() && i < max) {
    const auto c = static_cast<unsigned char>(v[i]);
    const std::size_t n = printable_utf8(v, i);
    if (c == '\n') {
      o += "\\n";
    } else if (c == '\t') {
      o += "\\t";
    } else if (c == '\r') {
      o += "\\r";
    } else if (n == 0) {
      char buf[8];
      std::snprintf(buf, sizeof buf, "\\x%02x", c);
      o += buf;
    } else {
      if (i + n > max) break;  // not a character cut in two
      o.append(v.substr(i, n));
      i += n;
      continue;
    }
    ++i;
  }
  if (v.size() > max) o += "... (" + std::to_string(v.size()) + " bytes)";
  return o;
}

// An error as fgsim prints it (one line; a simulated fault's diagnosis may
// go on) and its exit code: UserError "fgsim: error: ..." (2), SimFault
// "fgsim: simulated fault: ..." (3), anything else "fgsim: internal error:
// ..." (1).
inline std::pair<int, std::string> describe_error(std::exception_ptr e) {
  try {
    std::rethrow_exception(e);
  } catch (const UserError& x) {
    return {kExitUserError, "fgsim: error: " + shown(x.what(), 2000)};
  } catch (const SimFault& x) {
    return {kExitSimFault, std::string("fgsim: simulated fault: ") + x.what()};
  } catch (const std::exception& x) {
    return {1, std::string("fgsim: internal error: ") + x.what()};
  } catch (...) {
    return {1, "fgsim: internal error: an exception of unknown type"};
  }
}

}  // namespace fg
