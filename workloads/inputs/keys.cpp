// SPDX-License-Identifier: Apache-2.0
#include "inputs/keys.h"

#include <charconv>
#include <fstream>
#include <limits>

#include <fmt/format.h>

#include "sim/error.h"

namespace fg::keys {

namespace {

// Line `no` of `file` (already shown()): its key appended to `keys`, or
// nothing for a blank line.
void parse_line(std::string_view line, const std::string& file, std::uint64_t no, std::uint64_t max_keys,
                std::vector<std::int32_t>& keys) {
  const auto b = line.find_first_not_of(" \t\r");
  if (b == std::string_view::npos) return;
  const auto e = line.find_last_not_of(" \t\r") + 1;
  const std::string_view f = line.substr(b, e - b);
  const char* const end = f.data() + f.size();
  // One sign, '+' or '-', then digits: from_chars takes '-' only, so a '+'
  // is skipped here, and what follows it must be a digit ('+-5' is no key).
  const bool plus = f[0] == '+';
  if (plus && (f.size() == 1 || f[1] < '0' || f[1] > '9'))
    throw UserError(fmt::format("{}:{}: expected one integer, got '{}'", file, no, shown(f)));
  std::int64_t v = 0;
  const auto [p, ec] = std::from_chars(f.data() + (plus ? 1 : 0), end, v);
  // A number that is all of the field but too large; anything else that does
  // not parse to the end is not a number.
  if (p == end &&
      (ec == std::errc::result_out_of_range || (ec == std::errc{} && (v < std::numeric_limits<std::int32_t>::min() ||
                                                                      v > std::numeric_limits<std::int32_t>::max()))))
    throw UserError(fmt::format("{}:{}: key '{}' is outside the 32-bit signed range", file, no, shown(f)));
  if (ec != std::errc{} || p != end)
    throw UserError(fmt::format("{}:{}: expected one integer, got '{}'", file, no, shown(f)));
  keys.push_back(static_cast<std::int32_t>(v));
  if (keys.size() > max_keys) throw UserError(fmt::format("{}:{}: more than {} keys", file, no, max_keys));
}

std::vector<std::int32_t> checked(std::vector<std::int32_t> keys, const std::string& file) {
  if (keys.empty()) throw UserError(fmt::format("{}: no keys (sort.input)", file));
  return keys;
}

}  // namespace

std::vector<std::int32_t> parse(std::string_view text, const std::string& name, std::uint64_t max_keys) {
  const std::string file = shown(name, 200);
  std::vector<std::int32_t> keys;
  std::uint64_t no = 0;
  for (std::size_t at = 0; at < text.size();) {
    const std::size_t nl = text.find('\n', at);
    const std::size_t stop = nl == std::string_view::npos ? text.size() : nl;
    parse_line(text.substr(at, stop - at), file, ++no, max_keys, keys);
    at = stop + 1;
  }
  return checked(std::move(keys), file);
}

std::vector<std::int32_t> read_file(const std::string& path, std::uint64_t max_keys) {
  const std::string file = shown(path, 200);
  std::ifstream f(path, std::ios::binary);
  if (!f) throw UserError(fmt::format("{}: cannot open (sort.input)", file));
  std::vector<std::int32_t> keys;
  std::string line;
  for (std::uint64_t no = 1; std::getline(f, line); ++no) parse_line(line, file, no, max_keys, keys);
  if (f.bad()) throw UserError(fmt::format("{}: read error (sort.input)", file));
  return checked(std::move(keys), file);
}

}  // namespace fg::keys
