// SPDX-License-Identifier: Apache-2.0
// Boolean formulas in conjunctive normal form for the sp workload
// (workloads/graph/sp.cpp): a reader for DIMACS CNF files and a seeded
// random k-SAT generator. No SystemC here.
//
// DIMACS CNF (the SAT competitions' format, as LonestarGPU's sp reads it):
// `c` comment lines anywhere; one problem line `p cnf VARS CLAUSES` before
// the first literal; then the clauses, each a sequence of nonzero literals
// (v or -v, v in 1..VARS) ended by 0, any number per line and across lines.
// A line `%` ends the formula (SATLIB's uf*.cnf files end so; what follows
// is ignored). Every problem is a UserError "file:line: what" (exit 2): no
// or a second problem line, a token that is not a literal, a literal out of
// range, more or fewer clauses than declared, a last clause without its 0,
// an empty clause (a formula with one is unsatisfiable: there is nothing to
// search), zero variables or zero clauses, counts above the reader's limits.
// A literal repeated in a clause is dropped (counted); a clause with both v
// and -v (a tautology) is kept and counted, and sp treats it as satisfied.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace fg::cnf {

struct Formula {
  std::uint32_t vars = 0;
  std::vector<std::uint32_t> start{0};   // clause c's literals: lits[start[c] .. start[c + 1])
  std::vector<std::int32_t> lits;        // DIMACS literals: +v or -v, v in 1..vars
  std::uint64_t duplicate_literals = 0;  // dropped by the reader
  std::uint64_t tautologies = 0;         // clauses with v and -v
  std::string origin;                    // the file, or the generator and its parameters

  std::uint32_t clauses() const { return static_cast<std::uint32_t>(start.size() - 1); }
};

struct Limits {
  std::uint64_t max_vars = 1ull << 24;
  std::uint64_t max_clauses = 1ull << 27;
  std::uint64_t max_literals = 1ull << 29;
};

// The formula of `text`, a file's content; `name` (the file) starts every message.
Formula parse(const std::string& text, const std::string& name, const Limits& limits = {});

// The formula of the file at `path`.
Formula read_file(const std::string& path, const Limits& limits = {});

// The problem line's counts of the file at `path` (for a memory estimate
// before the file is read): {0, 0} when it has none or cannot be read.
struct Header {
  std::uint64_t vars = 0, clauses = 0;
};
Header read_header(const std::string& path);

// Random k-SAT (the model of the SP papers and of Galois's generator): each
// of `clauses` clauses takes k distinct variables uniformly at random, each
// negated with probability 1/2 (splitmix64 seeded by `seed`: the same
// formula on every machine). Requires 1 <= k <= vars.
Formula random_ksat(std::uint32_t vars, std::uint32_t clauses, std::uint32_t k, std::uint64_t seed);

}  // namespace fg::cnf
