// SPDX-License-Identifier: Apache-2.0
// The line reader of the text input formats (graphs, CNF): lines of a file
// already in memory, numbered from 1 for messages, and their
// whitespace-separated fields. A message names the place as "FILE:LINE:
// what" (an empty file, before any line: "FILE: what").
#pragma once

#include <charconv>
#include <cstdint>
#include <string>
#include <string_view>
#include <system_error>
#include <vector>

#include <fmt/format.h>

#include "sim/error.h"

namespace fg::inputs {

class Lines {
 public:
  Lines(const std::string& data, const std::string& name) : data_(data), name_(name) {}
  // Next line (without the newline and a trailing CR); false at the end.
  bool next(std::string_view& line) {
    if (pos_ >= data_.size()) return false;
    auto nl = data_.find('\n', pos_);
    if (nl == std::string::npos) nl = data_.size();
    line = std::string_view(data_).substr(pos_, nl - pos_);
    if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
    pos_ = nl + 1;
    ++number_;
    return true;
  }
  [[noreturn]] void fail(const std::string& what) const { fail_at(number_, what); }
  [[noreturn]] void fail_at(std::uint64_t line, const std::string& what) const {
    if (line == 0) throw UserError(fmt::format("{}: {}", shown(name_, 200), what));
    throw UserError(fmt::format("{}:{}: {}", shown(name_, 200), line, what));
  }
  std::uint64_t number() const { return number_; }

 private:
  const std::string& data_;
  const std::string& name_;
  std::size_t pos_ = 0;
  std::uint64_t number_ = 0;
};

inline bool is_space(char c) { return c == ' ' || c == '\t' || c == '\v' || c == '\f' || c == '\r'; }

// Whitespace-separated fields of a line.
inline std::vector<std::string_view> fields(std::string_view line) {
  std::vector<std::string_view> f;
  std::size_t i = 0;
  while (i < line.size()) {
    while (i < line.size() && is_space(line[i])) ++i;
    const auto s = i;
    while (i < line.size() && !is_space(line[i])) ++i;
    if (i > s) f.push_back(line.substr(s, i - s));
  }
  return f;
}

// A field that must be a non-negative integer; `what` names it in the
// message ("FILE:LINE: what 'x' is not a non-negative integer").
inline std::uint64_t to_uint(const Lines& in, std::string_view f, const char* what) {
  std::uint64_t v = 0;
  const char* end = f.data() + f.size();
  auto [p, ec] = std::from_chars(f.data(), end, v);
  if (ec == std::errc::result_out_of_range) in.fail(fmt::format("{} '{}' is too large", what, shown(f, 40)));
  if (ec != std::errc() || p != end) in.fail(fmt::format("{} '{}' is not a non-negative integer", what, shown(f, 40)));
  return v;
}

}  // namespace fg::inputs
