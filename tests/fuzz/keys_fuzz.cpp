// SPDX-License-Identifier: Apache-2.0
// libFuzzer harness of the sort-key reader (workloads/inputs/keys.cpp, the
// sort workload's --input). Properties: no crash, hang or leak (libFuzzer,
// ASan, UBSan); every rejection is a UserError whose message is one line of
// printable UTF-8 text with a bounded length (binary input escaped, never
// echoed); and the reader agrees with a reference written here from its
// documented grammar (keys.h): a line is blanks (space, tab, CR), at most one
// sign, decimal digits, blanks; blank lines are skipped; a key must fit in 32
// bits signed; at most `max_keys` keys, at least one. Accepted: the same keys
// in the same order; refused: the reference refuses too.
//
// Input: byte 0 picks the key limit (1 + byte 0, so the limit itself is hit);
// the rest is the file.
//
// Build and run: tools/fuzz.sh (make fuzz); CI runs a short campaign.
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "inputs/keys.h"
#include "sim/error.h"

namespace {

using namespace fg;

[[noreturn]] void fail(const char* what, const std::string& detail = {}) {
  std::fprintf(stderr, "property violated: %s %s\n", what, shown(detail, 300).c_str());
  std::abort();
}

void check_message(const std::string& m) {
  if (m.size() > 4096) fail("message longer than 4096 bytes", m);
  for (std::size_t i = 0; i < m.size();) {
    const std::size_t n = printable_utf8(m, i);
    if (n == 0) fail("a control byte or a byte that is not UTF-8 in the message", m);
    i += n;
  }
}

// The grammar of keys.h, independently: the keys, or nothing when refused.
std::optional<std::vector<std::int32_t>> reference(std::string_view text, std::uint64_t max_keys) {
  std::vector<std::int32_t> keys;
  std::size_t at = 0;
  while (at < text.size()) {
    std::size_t nl = text.find('\n', at);
    if (nl == std::string_view::npos) nl = text.size();
    std::string_view line = text.substr(at, nl - at);
    at = nl + 1;
    auto blank = [](char c) { return c == ' ' || c == '\t' || c == '\r'; };
    while (!line.empty() && blank(line.front())) line.remove_prefix(1);
    while (!line.empty() && blank(line.back())) line.remove_suffix(1);
    if (line.empty()) continue;
    bool neg = false;
    if (line.front() == '+' || line.front() == '-') {
      neg = line.front() == '-';
      line.remove_prefix(1);
    }
    if (line.empty()) return std::nullopt;
    std::int64_t v = 0;
    for (char c : line) {
      if (c < '0' || c > '9') return std::nullopt;
      v = v * 10 + (c - '0');
      if (v > (std::int64_t{1} << 31)) return std::nullopt;  // past the range (and no overflow here)
    }
    if (neg) v = -v;
    if (v < INT32_MIN || v > INT32_MAX) return std::nullopt;
    keys.push_back(static_cast<std::int32_t>(v));
    if (keys.size() > max_keys) return std::nullopt;
  }
  if (keys.empty()) return std::nullopt;
  return keys;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  if (size == 0) return 0;
  const std::uint64_t max_keys = 1u + data[0];
  const std::string_view text(reinterpret_cast<const char*>(data + 1), size - 1);
  const auto want = reference(text, max_keys);
  try {
    const std::vector<std::int32_t> got = keys::parse(text, "fuzz.txt", max_keys);
    if (!want) fail("accepted a file the grammar refuses", std::string(text));
    if (got != *want) fail("keys differ from the grammar's", std::string(text));
  } catch (const UserError& e) {
    check_message(e.what());
    if (want) fail("refused a file the grammar accepts", std::string(e.what()) + " | " + std::string(text));
  }
  return 0;
}
