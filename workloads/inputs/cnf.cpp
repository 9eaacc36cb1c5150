// SPDX-License-Identifier: Apache-2.0
#include "inputs/cnf.h"

#include <algorithm>
#include <cerrno>
#include <charconv>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <optional>
#include <sstream>
#include <string_view>

#include <fmt/format.h>

#include "inputs/lines.h"
#include "inputs/rng.h"
#include "sim/error.h"

namespace fg::cnf {
namespace {

using inputs::fields;
using inputs::Lines;
using inputs::to_uint;

using Rng = inputs::SplitMix64;  // inputs/rng.h

}  // namespace

Formula parse(const std::string& text, const std::string& name, const Limits& limits) {
  Lines in(text, name);
  std::string_view line;
  Formula f;
  f.origin = name;
  std::optional<std::uint64_t> declared;
  std::uint64_t header_line = 0;
  // The clause being read: its literals, and per variable the clause that
  // last had it (stamp) and with which signs (bit 0: +, bit 1: -).
  std::vector<std::uint32_t> stamp;
  std::vector<std::uint8_t> signs;
  bool open = false, tautology = false;
  while (in.next(line)) {
    const auto t = fields(line);
    if (t.empty()) continue;
    if (t[0][0] == 'c') continue;  // a comment
    if (t[0][0] == '%') break;     // SATLIB's end of the formula
    if (t[0] == "p") {
      if (declared) in.fail(fmt::format("second problem line (the first is line {})", header_line));
      if (t.size() != 4 || t[1] != "cnf") in.fail("expected the problem line 'p cnf VARS CLAUSES'");
      const auto vars = to_uint(in, t[2], "variable count");
      declared = to_uint(in, t[3], "clause count");
      header_line = in.number();
      if (vars == 0) in.fail("the formula has no variables");
      if (*declared == 0) in.fail("the formula has no clauses");
      if (vars > limits.max_vars)
        in.fail(fmt::format("{} variables is more than the reader's limit of {}", vars, limits.max_vars));
      if (*declared > limits.max_clauses)
        in.fail(fmt::format("{} clauses is more than the reader's limit of {}", *declared, limits.max_clauses));
      f.vars = static_cast<std::uint32_t>(vars);
      stamp.assign(f.vars + 1ull, 0);
      signs.assign(f.vars + 1ull, 0);
      // The declared count is checked at the end; reserve at most what the file can hold.
      f.start.reserve(std::min<std::uint64_t>(*declared, text.size() / 2) + 1);
      f.lits.reserve(std::min<std::uint64_t>(3 * *declared, text.size() / 2));
      continue;
    }
    for (const auto tok : t) {
      std::int64_t v = 0;
      const char* end = tok.data() + tok.size();
      const char* b = tok.data() + (tok[0] == '+' ? 1 : 0);
      auto [p, ec] = std::from_chars(b, end, v);
      if (ec != std::errc() || p != end || b == end)
        in.fail(fmt::format("'{}' is not a literal (a nonzero integer, 0 ending a clause)", shown(tok, 40)));
      if (!declared) in.fail("a literal before the problem line 'p cnf VARS CLAUSES'");
      if (v == 0) {
        if (!open) in.fail("an empty clause (0 with no literal before it): the formula is unsatisfiable");
        f.start.push_back(static_cast<std::uint32_t>(f.lits.size()));
        f.tautologies += tautology;
        open = tautology = false;
        continue;
      }
      const std::uint64_t var = v < 0 ? -static_cast<std::uint64_t>(v) : static_cast<std::uint64_t>(v);
      if (var > f.vars)
        in.fail(
            fmt::format("literal {} is out of range (the problem line declares {} variables)", shown(tok, 40), f.vars));
      if (!open) {
        if (f.clauses() == *declared)
          in.fail(fmt::format("more clauses than the {} the problem line declares", *declared));
        open = true;
      }
      if (f.lits.size() >= limits.max_literals)
        in.fail(fmt::format("more than the reader's limit of {} literals", limits.max_literals));
      const std::uint32_t id = f.clauses() + 1;
      if (stamp[var] != id) stamp[var] = id, signs[var] = 0;
      const std::uint8_t bit = v < 0 ? 2 : 1;
      if (signs[var] & bit) {
        ++f.duplicate_literals;
        continue;
      }
      if (signs[var]) tautology = true;
      signs[var] |= bit;
      f.lits.push_back(static_cast<std::int32_t>(v));
    }
  }
  if (!declared) in.fail("no problem line 'p cnf VARS CLAUSES'");
  if (open) in.fail("the last clause is not ended by 0");
  if (f.clauses() != *declared)
    in.fail_at(header_line,
               fmt::format("the problem line declares {} clauses, the file has {}", *declared, f.clauses()));
  return f;
}

Formula read_file(const std::string& path, const Limits& limits) {
  std::ifstream f(path, std::ios::binary);
  if (!f) throw UserError(fmt::format("{}: cannot open: {}", shown(path, 200), std::strerror(errno)));
  std::ostringstream s;
  s << f.rdbuf();
  if (f.bad()) throw UserError(fmt::format("{}: read error", shown(path, 200)));
  return parse(std::move(s).str(), path, limits);
}

Header read_header(const std::string& path) {
  std::ifstream f(path);
  std::string line;
  while (f && std::getline(f, line)) {
    const auto t = fields(line);
    if (t.empty() || t[0][0] == 'c') continue;
    Header h;
    if (t.size() != 4 || t[0] != "p" || t[1] != "cnf") return h;
    std::from_chars(t[2].data(), t[2].data() + t[2].size(), h.vars);
    std::from_chars(t[3].data(), t[3].data() + t[3].size(), h.clauses);
    return h;
  }
  return {};
}

Formula random_ksat(std::uint32_t vars, std::uint32_t clauses, std::uint32_t k, std::uint64_t seed) {
  Formula f;
  f.vars = vars;
  f.origin = fmt::format("random {}-SAT(vars={}, clauses={}, seed={})", k, vars, clauses, seed);
  f.start.reserve(clauses + 1ull);
  f.lits.reserve(std::uint64_t{clauses} * k);
  Rng r{seed};
  for (std::uint32_t c = 0; c < clauses; ++c) {
    const std::size_t first = f.lits.size();
    while (f.lits.size() - first < k) {
      const std::uint32_t v = r.below(vars) + 1;
      bool seen = false;
      for (std::size_t i = first; i < f.lits.size(); ++i)
        seen = seen || static_cast<std::uint32_t>(std::abs(f.lits[i])) == v;
      if (seen) continue;
      const bool neg = r.next() >> 63;
      f.lits.push_back(neg ? -static_cast<std::int32_t>(v) : static_cast<std::int32_t>(v));
    }
    f.start.push_back(static_cast<std::uint32_t>(f.lits.size()));
  }
  return f;
}

}  // namespace fg::cnf
