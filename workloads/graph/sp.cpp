// SPDX-License-Identifier: Apache-2.0
// sp: survey propagation on a k-SAT formula (the worklist paper, Sec. II-B;
// LonestarGPU's SP, whose data layout, update rules and constants we read;
// Braunstein, Mezard and Zecchina's algorithm), on a DIMACS CNF file or a
// seeded random k-SAT formula (workloads/inputs/cnf.h), in the
// topology-driven, shared-software-worklist and hardware-worklist variants
// of bfs, sssp and mst.
//
// The formula is a factor graph: clause a and variable j are joined by an
// edge e for every literal of j in a (edges numbered in clause order,
// elit[e] = j << 1 | negated; each variable lists its edges and their
// clauses). The survey eta[e] of edge a -> j is the probability that a
// warns j to take the value that satisfies a. One iteration has two phases:
//   pi   each free variable j, for each edge a -> j of an unsatisfied
//        clause, multiplies (1 - eta) over its other unsatisfied clauses b:
//        Vs over those where j has the sign it has in a, Vu over the others;
//        pi_U = (1 - Vu) Vs, pi_S = (1 - Vs) Vu, pi_0 = Vs Vu, and stores
//        ratio[e] = pi_U / (pi_U + pi_S + pi_0) (0 when the sum is 0);
//   eta  each unsatisfied clause a, for each free literal i, stores
//        eta[a -> i] = the product of ratio over a's other free literals.
// Iterations repeat until no survey moves by more than epsilon (or the
// iteration cap). Then bias: each free variable's W+ and W- (the same
// products over all its unsatisfied clauses, by sign); if the mean of
// max(W+, W-) over the free variables is below `paramagnet`, the surveys are
// trivial (the paramagnetic state) and SP stops; else the host sorts the
// free variables by |W+ - W-| and decimate fixes the most biased fraction
// (each to the value of the larger W), marking the clauses they satisfy.
// Rounds repeat until the paramagnetic state, no unsatisfied clause left, a
// clause with all its literals fixed false (a contradiction) or no
// convergence; a host WalkSAT then assigns the free variables of the
// remaining formula.
//
// Variants (`sp.mechanism`):
//   topo  every iteration launches pi over every variable and eta over every
//         clause; eta sets a flag when a survey moved by more than epsilon.
//   swwl  data-driven with shared software worklists (by default one atomic
//         add per push), double-buffered: pi over a list of variables pushes
//         each unsatisfied clause of theirs (once per phase: a per-clause
//         stamp, atomic exchange) to the clause list; eta over the clause
//         list pushes the variable of every survey that moved by more than
//         epsilon (once: a per-variable stamp) to the next variable list. A
//         round's first list is every variable (round 1) or decimate's: the
//         free variables of every clause a fixed variable was in. Each of pi,
//         eta and decimate is a step of runtime/swwl.h with swwl's options
//         (Sec. II-D, Table II): `sp.swwl.push` atomic / chunk (WCH) / aru
//         (ARU), `sp.swwl.threads` 0 (one work-item per item: VKC) or a fixed
//         count with even shares, `sp.swwl.donate` (WDO; an item's estimated
//         work is its edge count: a variable's occurrences, a clause's
//         literals).
//   hwwl  the same work through the hardware worklist, double-buffered as
//         bfs's and mst's hwwl: persistent threads pull until DONE and the
//         sides swap after each kernel (pi's pushes are clauses, eta's and
//         decimate's variables); the first pi has one work-item per variable.
// bias and decimate are the same kernels in every variant (one work-item
// per variable, per fixed variable).
//
// Every run checks the device's surveys after the first iteration against
// a host implementation of the same phases (all edges, within 1e-5), the
// first bias against the host's from the device's surveys and the device's
// fixed variables, values and satisfied clauses against the host's record
// of the decimation, and at the end that SP's fixed variables falsify a
// clause exactly when decimation reported a contradiction. The end is a
// result: outcome "satisfied" (SP's fixed variables and WalkSAT's satisfy
// every clause) or "unsolved" (SP ended in the paramagnetic state, without
// converging or at a contradiction, and WalkSAT found no assignment of the
// rest in its flips; `sp_end` says which), exit 0 either way: SP is a
// heuristic and fails on hard formulas near the threshold (ratio 4.2 is
// close to 3-SAT's 4.27), which is not a fault of the simulated machine
// (until 2026-11-28 all but the paramagnetic case were exit 3; half the
// default formula's seeds then failed). `--output FILE`: "v value" per variable (DIMACS ids, 0/1); an
// unsolved run writes SP's fixed variables only.
#include <algorithm>
#include <chrono>
#include <cmath>
#include <filesystem>
#include <numeric>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "gpu/dispatcher.h"
#include "gpu/gpu.h"
#include "gpu/host.h"
#include "gpu/kernel.h"
#include "inputs/cnf.h"
#include "inputs/rng.h"
#include "runtime/swwl.h"
#include "sim/config.h"
#include "sim/error.h"
#include "sim/workload.h"
#include "worklist/worklist.h"

namespace fg {
namespace {

constexpr std::uint32_t kGroup = 256;      // work-items per workgroup, as bfs, sssp and mst
constexpr std::uint32_t kUnstamped = ~0u;  // not yet pushed in any phase
constexpr double kTolerance = 1e-5;        // device against host: first surveys, first bias
constexpr std::uint32_t kMaxWorkId = 1u << 24;

struct Params {
  Param<std::string> mechanism{"sp.mechanism", "topo", std::vector<std::string>{"topo", "swwl", "hwwl"},
                               "how the work is scheduled: topo: topology-driven; swwl: shared software "
                               "worklists; hwwl: the hardware worklist, double-buffered (docs/worklists.md)"};
  Param<std::string> input{"sp.input", "", "", "DIMACS CNF file (--input FILE); empty: a random k-SAT formula"};
  Param<std::uint64_t> vars{"sp.vars", 400, "", "generator: variables", {{1}, {1u << 24}}};
  Param<double> ratio{"sp.ratio",
                      4.2,
                      "",
                      "generator: clauses per variable (4.2: issue 38's hard random 3-SAT, below the threshold 4.27)",
                      {{0}, {100}}};
  Param<std::uint64_t> k{"sp.k", 3, "", "generator: literals per clause (distinct variables)", {{1}, {16}}};
  Param<double> epsilon{
      "sp.epsilon", 0.01, "", "convergence: no survey moved by more than this (LonestarGPU's EPSILON)", {{1e-7}, {1}}};
  Param<std::uint64_t> max_iterations{"sp.max_iterations",
                                      100,
                                      "",
                                      "iterations per round before SP gives up converging (LonestarGPU's "
                                      "MAXITERATION is 1000; docs/worklists.md says why ours is 100)",
                                      {{1}, {1000000}}};
  Param<double> paramagnet{"sp.paramagnet",
                           0.01,
                           "",
                           "paramagnetic state: the mean of max(W+, W-) over the free variables below this "
                           "(LonestarGPU's PARAMAGNET)",
                           {{0}, {1}}};
  Param<double> fix_fraction{"sp.fix_fraction",
                             0.01,
                             "",
                             "variables fixed per decimation round, a fraction of all (at least one; "
                             "LonestarGPU: 1%)",
                             {{1e-6}, {1}}};
  Param<double> noise{"sp.walksat.noise", 0.5, "", "WalkSAT: probability of a random walk step", {{0}, {1}}};
  Param<std::uint64_t> flips{"sp.walksat.flips",
                             1000000,
                             "",
                             "WalkSAT: flips before it gives up on the remaining formula",
                             {{0}, {1ull << 40}}};
  Param<std::int64_t> overflow{"sp.hwwl.overflow",
                               -1,
                               "entries",
                               "hwwl overflow buffer per core, given to wlinit (Sec. III-D): -1: two per variable or "
                               "clause, whichever are more (a phase pushes each at most once); 0: none",
                               {{-1}, {1ll << 32}}};
  // The software worklist's options (Sec. II-D, Table II; swwl only).
  swwl::Params sw{"sp"};
};

const Params kSp;

// ---- the factor graph ---------------------------------------------------------

struct Factor {
  std::uint32_t vars = 0, clauses = 0, edges = 0;
  std::vector<std::uint32_t> crow, elit;         // clause a's edges [crow[a], crow[a + 1]); var << 1 | negated
  std::vector<std::uint32_t> vrow, vedge, vocc;  // variable j's edges, and each one's clause << 1 | negated
  std::vector<std::uint32_t> sat0;               // 1: a tautology (v and -v), satisfied from the start
};

Factor factor_graph(const cnf::Formula& f) {
  Factor g;
  g.vars = f.vars;
  g.clauses = f.clauses();
  g.edges = static_cast<std::uint32_t>(f.lits.size());
  g.crow = f.start;
  g.elit.resize(g.edges);
  g.vrow.assign(g.vars + 1ull, 0);
  g.sat0.assign(g.clauses, 0);
  for (std::uint32_t e = 0; e < g.edges; ++e) {
    const std::int32_t lit = f.lits[e];
    const auto v = static_cast<std::uint32_t>(std::abs(lit)) - 1;
    g.elit[e] = v << 1 | (lit < 0 ? 1u : 0u);
    ++g.vrow[v + 1];
  }
  for (std::uint32_t v = 0; v < g.vars; ++v) g.vrow[v + 1] += g.vrow[v];
  g.vedge.resize(g.edges), g.vocc.resize(g.edges);
  std::vector<std::uint32_t> next(g.vrow.begin(), g.vrow.end() - 1);
  for (std::uint32_t a = 0; a < g.clauses; ++a) {
    for (std::uint32_t e = g.crow[a]; e < g.crow[a + 1]; ++e) {
      const std::uint32_t v = g.elit[e] >> 1, k = next[v]++;
      g.vedge[k] = e, g.vocc[k] = a << 1 | (g.elit[e] & 1);
    }
  }
  // Tautologies: a variable twice in one clause (the reader drops repeated
  // literals, so with both signs).
  std::vector<std::uint32_t> last(g.vars, ~0u);
  for (std::uint32_t a = 0; a < g.clauses; ++a)
    for (std::uint32_t e = g.crow[a]; e < g.crow[a + 1]; ++e) {
      const std::uint32_t v = g.elit[e] >> 1;
      if (last[v] == a) g.sat0[a] = 1;
      last[v] = a;
    }
  return g;
}

// ---- host reference: the first iteration ---------------------------------------

// pi then eta over every edge, from the initial surveys (nothing fixed yet;
// tautologies satisfied), written apart from the device code.
std::vector<float> host_first_iteration(const Factor& g, const std::vector<float>& eta0) {
  std::vector<float> ratio(g.edges, 0.0f), eta = eta0;
  for (std::uint32_t j = 0; j < g.vars; ++j) {
    std::vector<std::uint32_t> ks;
    for (std::uint32_t k = g.vrow[j]; k < g.vrow[j + 1]; ++k)
      if (!g.sat0[g.vocc[k] >> 1]) ks.push_back(k);
    for (const std::uint32_t p : ks) {
      float same = 1.0f, other = 1.0f;
      for (const std::uint32_t q : ks) {
        if (q == p) continue;
        const float keep = 1.0f - eta0[g.vedge[q]];
        if ((g.vocc[q] & 1) == (g.vocc[p] & 1))
          same *= keep;
        else
          other *= keep;
      }
      const float unsat = (1.0f - other) * same, satis = (1.0f - same) * other, none = same * other;
      const float total = unsat + satis + none;
      ratio[g.vedge[p]] = total == 0.0f ? 0.0f : unsat / total;
    }
  }
  for (std::uint32_t a = 0; a < g.clauses; ++a) {
    if (g.sat0[a]) continue;
    for (std::uint32_t e = g.crow[a]; e < g.crow[a + 1]; ++e) {
      float s = 1.0f;
      for (std::uint32_t f = g.crow[a]; f < g.crow[a + 1]; ++f)
        if (f != e) s *= ratio[f];
      eta[e] = s;
    }
  }
  return eta;
}

// Every free variable's |W+ - W-|, W+ > W- and max(W+, W-) from the surveys
// `eta` (the bias kernel's formulas, written apart from it).
struct HostBias {
  std::vector<float> bias, mag;
  std::vector<std::uint8_t> value;
};

HostBias host_bias(const Factor& g, const std::vector<float>& eta, const std::vector<std::uint8_t>& fixed,
                   const std::vector<std::uint8_t>& sat) {
  HostBias b{std::vector<float>(g.vars, 0.0f), std::vector<float>(g.vars, 0.0f), std::vector<std::uint8_t>(g.vars, 0)};
  for (std::uint32_t j = 0; j < g.vars; ++j) {
    if (fixed[j]) continue;
    float pos = 1.0f, neg = 1.0f;  // no clause forces j to true; to false
    for (std::uint32_t k = g.vrow[j]; k < g.vrow[j + 1]; ++k) {
      if (sat[g.vocc[k] >> 1]) continue;
      (g.vocc[k] & 1 ? neg : pos) *= 1.0f - eta[g.vedge[k]];
    }
    const float to_true = (1.0f - pos) * neg, to_false = (1.0f - neg) * pos, free_ = pos * neg;
    const float all = free_ + to_true + to_false;
    const float wt = all == 0.0f ? 0.0f : to_true / all, wf = all == 0.0f ? 0.0f : to_false / all;
    b.bias[j] = std::fabs(wt - wf), b.value[j] = wt > wf, b.mag[j] = std::max(wt, wf);
  }
  return b;
}

// ---- host WalkSAT ---------------------------------------------------------------

using Rng = inputs::SplitMix64;  // inputs/rng.h

struct WalkResult {
  bool solved = false;
  std::uint64_t flips = 0;
};

// WalkSAT (Selman, Kautz and Cohen) on clauses of literals var << 1 | negated
// (start/lits as cnf::Formula's): a random start for the variables that
// occur; each step takes a random unsatisfied clause and flips one of its
// variables: one that breaks no clause if any, else with probability
// `noise` a random one, else one that breaks the fewest (ties at random).
// `value` (0/1 per variable) is read for nothing and written for the
// variables that occur.
WalkResult walksat(std::uint32_t vars, const std::vector<std::uint32_t>& start, const std::vector<std::uint32_t>& lits,
                   std::vector<std::uint8_t>& value, std::uint64_t max_flips, double noise, std::uint64_t seed,
                   double max_host_seconds) {
  // WalkSAT is host code between kernels, where the host-time limit
  // (sim.max_host_seconds, measured between simulated slices) does not
  // reach: it keeps its own, from its start.
  const auto t0 = std::chrono::steady_clock::now();
  const auto clauses = static_cast<std::uint32_t>(start.size() - 1);
  WalkResult res;
  if (clauses == 0) return res.solved = true, res;
  Rng r{seed};
  // Occurrences per literal (2 v + negated).
  std::vector<std::uint32_t> orow(2ull * vars + 1, 0), occ(lits.size());
  for (const auto l : lits) ++orow[l + 1];
  for (std::size_t i = 0; i + 1 < orow.size(); ++i) orow[i + 1] += orow[i];
  {
    std::vector<std::uint32_t> next(orow.begin(), orow.end() - 1);
    for (std::uint32_t c = 0; c < clauses; ++c)
      for (std::uint32_t i = start[c]; i < start[c + 1]; ++i) occ[next[lits[i]]++] = c;
  }
  for (std::uint32_t v = 0; v < vars; ++v)
    if (orow[2 * v + 2] > orow[2 * v]) value[v] = static_cast<std::uint8_t>(r.next() >> 63);
  auto is_true = [&](std::uint32_t l) { return value[l >> 1] != (l & 1); };
  std::vector<std::uint32_t> ntrue(clauses, 0), unsat, where(clauses, ~0u);
  for (std::uint32_t c = 0; c < clauses; ++c) {
    for (std::uint32_t i = start[c]; i < start[c + 1]; ++i) ntrue[c] += is_true(lits[i]);
    if (!ntrue[c]) where[c] = static_cast<std::uint32_t>(unsat.size()), unsat.push_back(c);
  }
  auto breaks = [&](std::uint32_t v) {  // clauses whose only true literal is v's
    const std::uint32_t t = v << 1 | (value[v] ? 0u : 1u);
    std::uint32_t b = 0;
    for (std::uint32_t i = orow[t]; i < orow[t + 1]; ++i) b += ntrue[occ[i]] == 1;
    return b;
  };
  std::uint32_t longest = 1;
  for (std::uint32_t c = 0; c < clauses; ++c) longest = std::max(longest, start[c + 1] - start[c]);
  std::vector<std::uint32_t> cand(longest);  // the variables of least break
  while (!unsat.empty() && res.flips < max_flips) {
    if (max_host_seconds > 0 && (res.flips & 0x3fff) == 0x3fff) {
      const double host = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
      if (host >= max_host_seconds)
        throw UserError(fmt::format("sim.max_host_seconds: WalkSAT stopped after {:.1f} s of host time and {} flips",
                                    host, res.flips));
    }
    const std::uint32_t c = unsat[r.below(unsat.size())];
    const std::uint32_t len = start[c + 1] - start[c];
    std::uint32_t best = ~0u, ties = 0;
    for (std::uint32_t i = start[c]; i < start[c + 1]; ++i) {
      const std::uint32_t b = breaks(lits[i] >> 1);
      if (b < best) best = b, ties = 0;
      if (b == best) cand[ties++] = lits[i] >> 1;
    }
    std::uint32_t pick = cand[r.below(ties)];
    if (best > 0 && r.unit() < noise) pick = lits[start[c] + r.below(len)] >> 1;
    // Flip: the literal that was true loses, the other gains.
    const std::uint32_t was = pick << 1 | (value[pick] ? 0u : 1u), now = was ^ 1u;
    value[pick] ^= 1;
    ++res.flips;
    for (std::uint32_t i = orow[was]; i < orow[was + 1]; ++i) {
      const std::uint32_t d = occ[i];
      if (--ntrue[d] == 0) where[d] = static_cast<std::uint32_t>(unsat.size()), unsat.push_back(d);
    }
    for (std::uint32_t i = orow[now]; i < orow[now + 1]; ++i) {
      const std::uint32_t d = occ[i];
      if (ntrue[d]++ == 0) {
        const std::uint32_t at = where[d], last = unsat.back();
        unsat[at] = last, where[last] = at;
        unsat.pop_back(), where[d] = ~0u;
      }
    }
  }
  res.solved = unsat.empty();
  return res;
}

// ---- device ----------------------------------------------------------------------

struct Dev {
  std::uint64_t crow, elit;         // clause CSR: its edges; var << 1 | negated
  std::uint64_t vrow, vedge, vocc;  // variable CSR: its edges; clause << 1 | negated
  std::uint64_t eta, ratio;         // per edge: the survey a -> j, pi_U / (pi_U + pi_S + pi_0) of j -> a
  std::uint64_t sat, fixed, value;  // per clause: satisfied; per variable: fixed, its value (0/1)
  std::uint64_t bias, mag;          // per variable: |W+ - W-|, max(W+, W-)
  std::uint64_t flag;               // topo: a survey moved by more than eps
  std::uint32_t vars = 0, clauses = 0;
  float eps = 0;
};

// The software worklists (swwl) and the stamps (swwl, hwwl).
struct Lists {
  std::uint64_t var_in = 0, var_out = 0, var_count = 0, cls = 0, cls_count = 0;
  std::uint64_t var_stamp = 0, cls_stamp = 0;
  std::uint64_t donated = 0;  // WDO: items donated (one atomic add per workgroup that donated)
  std::uint32_t var_in_count = 0, var_capacity = 0, cls_capacity = 0;
};

enum class Mode { kTopo, kSwwl, kHwwl };

std::uint64_t at(std::uint64_t base, std::uint32_t i) { return base + 4ull * i; }

// Push id once per phase: the first to stamp it (a plain load first, then
// an atomic exchange, as mst's component list), through the step's Pusher
// (swwl: runtime/swwl.h, atomic, chunk or aru; its list 0) or wlpush (hwwl).
Task<> push_once(Lane& l, Mode m, swwl::Pusher* p, std::uint64_t stamp, std::uint32_t phase, std::uint32_t id) {
  const auto seen = co_await l.load<std::uint32_t>(at(stamp, id));
  if (seen == phase) co_return;
  const auto old = co_await l.atomic_exch<std::uint32_t>(at(stamp, id), phase);
  if (old == phase) co_return;
  if (m == Mode::kSwwl)
    co_await p->push(l, 0, id);
  else
    co_await wl::wl_push(l, id);
}

struct Occ {
  std::uint32_t edge, occ;  // the edge, its clause << 1 | negated
  float keep;               // 1 - eta
};

// pi: variable j's ratio on each edge of an unsatisfied clause; swwl and
// hwwl push those clauses.
Task<> pi_visit(Lane& l, Dev d, Lists w, Mode m, std::uint32_t phase, std::uint32_t j, swwl::Pusher* pusher) {
  const auto fixed = co_await l.load<std::uint32_t>(at(d.fixed, j));
  if (fixed) co_return;
  const auto begin = co_await l.load<std::uint32_t>(at(d.vrow, j));
  const auto end = co_await l.load<std::uint32_t>(at(d.vrow, j + 1));
  std::vector<Occ> live;
  for (auto k = begin; k < end; ++k) {
    const auto o = co_await l.load<std::uint32_t>(at(d.vocc, k));
    const auto s = co_await l.load<std::uint32_t>(at(d.sat, o >> 1));
    if (s) continue;
    const auto e = co_await l.load<std::uint32_t>(at(d.vedge, k));
    const auto eta = co_await l.load<float>(at(d.eta, e));
    live.push_back({e, o, 1.0f - eta});
  }
  // Per edge: a product over the others (two multiplies and a compare each)
  // and the ratio (eight).
  const std::uint64_t n = live.size();
  co_await l.alu(n * (3 * n + 8));
  for (const Occ& p : live) {
    float vs = 1.0f, vu = 1.0f;
    for (const Occ& q : live) {
      if (q.edge == p.edge) continue;
      if ((q.occ & 1) == (p.occ & 1))
        vs *= q.keep;
      else
        vu *= q.keep;
    }
    const float pu = (1.0f - vu) * vs, ps = (1.0f - vs) * vu, p0 = vs * vu;
    const float sum = pu + ps + p0;
    co_await l.store<float>(at(d.ratio, p.edge), sum == 0.0f ? 0.0f : pu / sum);
  }
  if (m == Mode::kTopo) co_return;
  for (const Occ& p : live) co_await push_once(l, m, pusher, w.cls_stamp, phase, p.occ >> 1);
}

struct Lit {
  std::uint32_t edge, var;
  float ratio;
};

// eta: clause a's surveys; a survey that moved by more than eps sets the
// flag (topo) or pushes its variable (swwl, hwwl).
Task<> eta_visit(Lane& l, Dev d, Lists w, Mode m, std::uint32_t phase, std::uint32_t a, swwl::Pusher* pusher) {
  const auto s = co_await l.load<std::uint32_t>(at(d.sat, a));
  if (s) co_return;
  const auto begin = co_await l.load<std::uint32_t>(at(d.crow, a));
  const auto end = co_await l.load<std::uint32_t>(at(d.crow, a + 1));
  std::vector<Lit> live;
  for (auto e = begin; e < end; ++e) {
    const auto lit = co_await l.load<std::uint32_t>(at(d.elit, e));
    const auto fx = co_await l.load<std::uint32_t>(at(d.fixed, lit >> 1));
    if (fx) continue;
    const auto r = co_await l.load<float>(at(d.ratio, e));
    live.push_back({e, lit >> 1, r});
  }
  const std::uint64_t n = live.size();
  co_await l.alu(n * (n + 3));
  bool moved = false;
  for (const Lit& p : live) {
    float eta = 1.0f;
    for (const Lit& q : live)
      if (q.edge != p.edge) eta *= q.ratio;
    const auto old = co_await l.load<float>(at(d.eta, p.edge));
    co_await l.store<float>(at(d.eta, p.edge), eta);
    if (std::fabs(eta - old) <= d.eps) continue;
    moved = true;
    if (m != Mode::kTopo) co_await push_once(l, m, pusher, w.var_stamp, phase, p.var);
  }
  if (m == Mode::kTopo && moved) co_await l.store<std::uint32_t>(d.flag, 1);
}

// bias: W+ and W- of free variable j (every variant, every variable).
Task<> bias_kernel(Lane& l, Dev d) {
  const std::uint32_t j = l.global_id();
  if (j >= d.vars) co_return;
  const auto fixed = co_await l.load<std::uint32_t>(at(d.fixed, j));
  if (fixed) co_return;
  const auto begin = co_await l.load<std::uint32_t>(at(d.vrow, j));
  const auto end = co_await l.load<std::uint32_t>(at(d.vrow, j + 1));
  float plus = 1.0f, minus = 1.0f;  // no clause forces j to true; to false
  for (auto k = begin; k < end; ++k) {
    const auto o = co_await l.load<std::uint32_t>(at(d.vocc, k));
    const auto s = co_await l.load<std::uint32_t>(at(d.sat, o >> 1));
    if (s) continue;
    const auto e = co_await l.load<std::uint32_t>(at(d.vedge, k));
    const auto eta = co_await l.load<float>(at(d.eta, e));
    co_await l.alu(2);
    if (o & 1)
      minus *= 1.0f - eta;
    else
      plus *= 1.0f - eta;
  }
  co_await l.alu(12);
  const float pp = (1.0f - plus) * minus, pm = (1.0f - minus) * plus, p0 = plus * minus;
  const float sum = p0 + pp + pm;
  const float wp = sum == 0.0f ? 0.0f : pp / sum, wm = sum == 0.0f ? 0.0f : pm / sum;
  co_await l.store<float>(at(d.bias, j), std::fabs(wp - wm));
  co_await l.store<std::uint32_t>(at(d.value, j), wp > wm ? 1u : 0u);
  co_await l.store<float>(at(d.mag, j), std::max(wp, wm));
}

// decimate: fix chosen variable j at its value, mark the clauses its literal
// satisfies; swwl and hwwl push the other free variables of every
// unsatisfied clause j was in (their pi changes: a clause gone, or one
// literal fewer in a clause).
Task<> decimate_visit(Lane& l, Dev d, Lists w, Mode m, std::uint32_t phase, std::uint32_t j, swwl::Pusher* pusher) {
  co_await l.store<std::uint32_t>(at(d.fixed, j), 1);
  const auto val = co_await l.load<std::uint32_t>(at(d.value, j));
  const auto begin = co_await l.load<std::uint32_t>(at(d.vrow, j));
  const auto end = co_await l.load<std::uint32_t>(at(d.vrow, j + 1));
  for (auto k = begin; k < end; ++k) {
    const auto o = co_await l.load<std::uint32_t>(at(d.vocc, k));
    const auto s = co_await l.load<std::uint32_t>(at(d.sat, o >> 1));
    if (s) continue;
    if ((o & 1) != val) co_await l.store<std::uint32_t>(at(d.sat, o >> 1), 1);  // j's literal is true
    if (m == Mode::kTopo) continue;
    const auto cb = co_await l.load<std::uint32_t>(at(d.crow, o >> 1));
    const auto ce = co_await l.load<std::uint32_t>(at(d.crow, (o >> 1) + 1));
    for (auto e = cb; e < ce; ++e) {
      const auto lit = co_await l.load<std::uint32_t>(at(d.elit, e));
      if (lit >> 1 == j) continue;
      const auto fx = co_await l.load<std::uint32_t>(at(d.fixed, lit >> 1));
      if (fx) continue;
      co_await push_once(l, m, pusher, w.var_stamp, phase, lit >> 1);
    }
  }
}

// decimate over the chosen variables, topo and hwwl (swwl: decimate_swwl).
Task<> decimate_kernel(Lane& l, Dev d, Lists w, Mode m, std::uint32_t phase, std::uint64_t chosen,
                       std::uint32_t count) {
  const std::uint32_t i = l.global_id();
  if (i >= count) co_return;
  const auto j = co_await l.load<std::uint32_t>(at(chosen, i));
  co_await decimate_visit(l, d, w, m, phase, j, nullptr);
}

// ---- topology-driven ------------------------------------------------------------

Task<> pi_topo(Lane& l, Dev d) {
  const std::uint32_t j = l.global_id();
  if (j >= d.vars) co_return;
  co_await pi_visit(l, d, Lists{}, Mode::kTopo, 0, j, nullptr);
}

Task<> eta_topo(Lane& l, Dev d) {
  const std::uint32_t a = l.global_id();
  if (a >= d.clauses) co_return;
  co_await eta_visit(l, d, Lists{}, Mode::kTopo, 0, a, nullptr);
}

// ---- shared software worklists ----------------------------------------------------

// Each swwl kernel is one step of runtime/swwl.h over its in-list (its
// options: push atomic / chunk / aru, a fixed work-item count, donating);
// its pushes go to one out-list through the step's Pusher. WDO's estimate
// of an item's work is its edge count, two loads of a CSR row a kernel
// reads anyway: a variable's occurrences (pi: its loads are per occurrence,
// its products quadratic in the live ones; decimate: per occurrence and the
// clause's literals), a clause's literals (eta).
Task<std::uint32_t> row_length(Lane& l, std::uint64_t row, std::uint32_t i) {
  const auto b = co_await l.load<std::uint32_t>(at(row, i));
  const auto e = co_await l.load<std::uint32_t>(at(row, i + 1));
  co_return e - b;
}

// pi over the variable list (`all`: every variable, the items their ids),
// pushing clauses.
Task<> pi_swwl(Lane& l, Dev d, Lists w, std::uint32_t phase, bool all, swwl::Opts o) {
  swwl::Pusher p(o.push, {swwl::List{w.cls, w.cls_count, w.cls_capacity}});
  co_await swwl::step(
      l, o, all ? 0 : w.var_in, w.var_in_count, w.donated, p,
      [&](Lane& lane, std::uint32_t j) { return row_length(lane, d.vrow, j); },
      [&](Lane& lane, std::uint32_t j, swwl::Pusher& q) { return pi_visit(lane, d, w, Mode::kSwwl, phase, j, &q); });
}

// eta over the clause list, pushing variables.
Task<> eta_swwl(Lane& l, Dev d, Lists w, std::uint32_t phase, std::uint32_t count, swwl::Opts o) {
  swwl::Pusher p(o.push, {swwl::List{w.var_out, w.var_count, w.var_capacity}});
  co_await swwl::step(
      l, o, w.cls, count, w.donated, p, [&](Lane& lane, std::uint32_t a) { return row_length(lane, d.crow, a); },
      [&](Lane& lane, std::uint32_t a, swwl::Pusher& q) { return eta_visit(lane, d, w, Mode::kSwwl, phase, a, &q); });
}

// decimate over the host's chosen variables, pushing variables.
Task<> decimate_swwl(Lane& l, Dev d, Lists w, std::uint32_t phase, std::uint64_t chosen, std::uint32_t count,
                     swwl::Opts o) {
  swwl::Pusher p(o.push, {swwl::List{w.var_out, w.var_count, w.var_capacity}});
  co_await swwl::step(
      l, o, chosen, count, w.donated, p, [&](Lane& lane, std::uint32_t j) { return row_length(lane, d.vrow, j); },
      [&](Lane& lane, std::uint32_t j, swwl::Pusher& q) {
        return decimate_visit(lane, d, w, Mode::kSwwl, phase, j, &q);
      });
}

// ---- hardware worklist ---------------------------------------------------------------

Task<> hwwl_init(Lane& l, std::uint64_t overflow, std::uint64_t entries) {
  co_await wl::wl_init(l, overflow, entries);
  co_await wl::wl_cfg(l, true);
}

Task<> pi_hwwl_first(Lane& l, Dev d, Lists w, std::uint32_t phase) {
  const std::uint32_t j = l.global_id();
  if (j >= d.vars) co_return;
  co_await pi_visit(l, d, w, Mode::kHwwl, phase, j, nullptr);
}

// Persistent threads pull until DONE (WAIT: pull again); the pull at the
// bottom of the loop, as bfs_sssp.cpp's and mst.cpp's pull_loop.
template <class Visit>
Task<> pull_loop(Lane& l, Visit visit) {
  std::uint32_t id = co_await wl::wl_pull(l);
  for (;;) {
    if (id == wl::kDone) break;
    if (id != wl::kWait) co_await visit(id);
    id = co_await wl::wl_pull_spin(l);
  }
}

Task<> pi_hwwl(Lane& l, Dev d, Lists w, std::uint32_t phase) {
  return pull_loop(l, [=, &l](std::uint32_t j) { return pi_visit(l, d, w, Mode::kHwwl, phase, j, nullptr); });
}

Task<> eta_hwwl(Lane& l, Dev d, Lists w, std::uint32_t phase) {
  return pull_loop(l, [=, &l](std::uint32_t a) { return eta_visit(l, d, w, Mode::kHwwl, phase, a, nullptr); });
}

Task<> nothing(Lane&) { co_return; }

// Pulls what a round left in the unit when SP stops right after decimate
// (a contradiction, every clause satisfied) or without converging.
Task<> drain_hwwl(Lane& l) {
  return pull_loop(l, [&l](std::uint32_t) { return nothing(l); });
}

// ---- host side ----------------------------------------------------------------------

std::uint64_t overflow_entries(const Config& c, std::uint64_t vars, std::uint64_t clauses) {
  const std::int64_t ov = kSp.overflow.get(c);
  return ov < 0 ? 2 * std::max(vars, clauses) : static_cast<std::uint64_t>(ov);
}

void refuse(const Config& cfg, const std::vector<std::string>& keys, const std::string& why) {
  for (const auto& key : keys)
    if (!cfg.is_default(key))
      throw UserError(fmt::format("{} (set by {}) does not apply: {}", key, cfg.origin(key), why));
}

// The generator's clause count, or exit 2.
std::uint64_t generated_clauses(const Config& cfg) {
  const double c = std::round(kSp.ratio.get(cfg) * static_cast<double>(kSp.vars.get(cfg)));
  return static_cast<std::uint64_t>(c);
}

cnf::Formula load(const Config& cfg, std::uint64_t seed) {
  const std::string path = kSp.input.get(cfg);
  if (!path.empty()) {
    refuse(cfg, {kSp.vars.name(), kSp.ratio.name(), kSp.k.name()},
           fmt::format("the formula is read from {}", kSp.input.name()));
    return cnf::read_file(path);
  }
  const std::uint64_t vars = kSp.vars.get(cfg), k = kSp.k.get(cfg), clauses = generated_clauses(cfg);
  if (k > vars)
    throw UserError(fmt::format("{} = {} (set by {}) is fewer than {} = {}: a clause takes {} distinct variables",
                                kSp.vars.name(), vars, cfg.origin(kSp.vars.name()), kSp.k.name(), k, kSp.k.name()));
  if (clauses == 0)
    throw UserError(fmt::format("{} = {} x {} = {} gives no clauses: there is nothing to solve", kSp.ratio.name(),
                                kSp.ratio.get(cfg), kSp.vars.name(), vars));
  const cnf::Limits lim;
  if (clauses > lim.max_clauses || clauses * k > lim.max_literals)
    throw UserError(fmt::format("{} x {}: {} clauses of {} literals is more than the limit of {} literals",
                                kSp.ratio.name(), kSp.vars.name(), clauses, k, lim.max_literals));
  return cnf::random_ksat(static_cast<std::uint32_t>(vars), static_cast<std::uint32_t>(clauses),
                          static_cast<std::uint32_t>(k), seed);
}

void run(Host& h) {
  const Config& cfg = h.config();
  const std::uint64_t formula_seed = h.rng()(), eta_seed = h.rng()(), walk_seed = h.rng()();
  const std::string mech = kSp.mechanism.get(cfg);
  if (mech != "hwwl") refuse(cfg, {kSp.overflow.name()}, fmt::format("{} is {}, not hwwl", kSp.mechanism.name(), mech));
  // The software worklist's options apply to swwl only (every swwl kernel,
  // pi, eta and decimate, pushes); donating needs work-items with more than
  // one item.
  const swwl::Opts sw = kSp.sw.get(cfg, kSp.mechanism.name(), mech);
  const cnf::Formula formula = load(cfg, formula_seed);
  const Factor g = factor_graph(formula);
  const std::uint32_t V = g.vars, C = g.clauses;
  if (mech == "hwwl" && (V > kMaxWorkId || C > kMaxWorkId))
    throw UserError(fmt::format("{}: {} variables and {} clauses do not all fit in the worklist's 24-bit work IDs",
                                formula.origin, V, C));
  const Mode mode = mech == "topo" ? Mode::kTopo : mech == "swwl" ? Mode::kSwwl : Mode::kHwwl;
  const float eps = static_cast<float>(kSp.epsilon.get(cfg));
  const std::uint64_t max_iterations = kSp.max_iterations.get(cfg);
  const double paramagnet = kSp.paramagnet.get(cfg);
  const auto fix_per_round =
      std::max<std::uint64_t>(1, static_cast<std::uint64_t>(kSp.fix_fraction.get(cfg) * static_cast<double>(V)));

  // Initial surveys uniform in [0, 1) (LonestarGPU: rand() / RAND_MAX), seeded.
  std::vector<float> eta0(g.edges);
  {
    Rng r{eta_seed};
    for (auto& x : eta0) x = static_cast<float>(r.next() >> 40) * 0x1.0p-24f;
  }

  Dev d;
  d.crow = h.upload(g.crow), d.elit = h.upload(g.elit);
  d.vrow = h.upload(g.vrow), d.vedge = h.upload(g.vedge), d.vocc = h.upload(g.vocc);
  d.eta = h.upload(eta0), d.ratio = h.upload(std::vector<float>(g.edges, 0.0f));
  d.sat = h.upload(g.sat0), d.fixed = h.upload(std::vector<std::uint32_t>(V, 0));
  d.value = h.upload(std::vector<std::uint32_t>(V, 0));
  d.bias = h.upload(std::vector<float>(V, 0.0f)), d.mag = h.upload(std::vector<float>(V, 0.0f));
  d.flag = h.alloc(4);
  d.vars = V, d.clauses = C, d.eps = eps;
  const std::uint64_t chosen = h.alloc(4ull * V);

  Lists w;
  w.var_stamp = h.upload(std::vector<std::uint32_t>(V, kUnstamped));
  w.cls_stamp = h.upload(std::vector<std::uint32_t>(C, kUnstamped));
  if (mode == Mode::kSwwl) {
    w.var_in = h.alloc(4ull * V), w.var_out = h.alloc(4ull * V), w.cls = h.alloc(4ull * C);
    w.var_in_count = V;  // round 1's first list: every variable (pi's items are their ids)
    w.var_count = h.alloc(4), w.cls_count = h.alloc(4);
    w.var_capacity = V, w.cls_capacity = C;
    if (sw.donate) w.donated = h.upload(std::vector<std::uint32_t>(1, 0));
  }
  wl::Worklist* unit = nullptr;
  std::uint64_t threads = 0;
  if (mode == Mode::kHwwl) {
    unit = &h.gpu().get<wl::Worklist>("sp");
    threads = h.dispatcher().resident_capacity({"hwwl", 0, kGroup, 16, 0, {}}) * kGroup;
    const std::uint64_t entries = overflow_entries(cfg, V, C);
    const std::uint64_t overflow = entries ? h.alloc(4ull * entries * h.cus()) : 0;
    h.run_kernel({"hwwl_init", 1, kGroup, 4, 0, [=](Lane& l) { return hwwl_init(l, overflow, entries); }});
    unit->kernel_done();
  }

  sc_core::sc_time kernel_time = sc_core::SC_ZERO_TIME;
  std::uint64_t kernels = 0, items = 0, pushes = 0, iterations = 0, rounds = 0;
  std::uint32_t phase = 0;
  auto launch = [&](const char* name, std::uint64_t count, KernelBody body, std::uint32_t lds = 0) {
    ++kernels;
    items += count;
    kernel_time += h.run_kernel({name, count, kGroup, 16, lds, std::move(body)});
  };
  // A swwl step over `count` items: swwl::threads work-items (count, or the
  // fixed number), the LDS that ARU and WDO use.
  auto launch_swwl = [&](const char* name, std::uint32_t count, KernelBody body) {
    launch(name, swwl::threads(sw, count), std::move(body), swwl::lds_bytes(sw));
  };
  auto zero = [&](std::uint64_t addr) {
    const std::uint32_t z = 0;
    h.copy_in(addr, &z, 4);
  };
  auto read = [&](std::uint64_t addr) {
    std::uint32_t v = 0;
    h.copy_out(&v, addr, 4);
    return v;
  };
  auto overflowed = [&](const char* what, std::uint32_t count, std::uint32_t capacity) {
    if (count > capacity)
      throw SimFault(
          fmt::format("sp: software worklist overflow: {} {} pushed into {} entries", count, what, capacity));
  };

  // The host's record of the decimation.
  std::vector<std::uint8_t> fixed(V, 0), value(V, 0), sat(g.sat0.begin(), g.sat0.end());
  std::uint64_t unsat_left = C - std::count(g.sat0.begin(), g.sat0.end(), 1u);
  std::uint64_t free_vars = V, fixed_by_sp = 0;
  std::string sp_end;
  double first_diff = -1, bias_diff = -1;
  std::uint64_t value_mismatch = 0;
  std::uint32_t contradiction = 0;
  bool first_round = true;

  for (;;) {
    // ---- converge ----
    bool converged = false;
    for (std::uint64_t it = 0;; ++it) {
      if (it == max_iterations) break;
      const bool first = first_round && it == 0;
      if (mode == Mode::kTopo) {
        launch("sp_pi", V, [=](Lane& l) { return pi_topo(l, d); });
        zero(d.flag);
        launch("sp_eta", C, [=](Lane& l) { return eta_topo(l, d); });
        ++iterations;
        converged = read(d.flag) == 0;
      } else if (mode == Mode::kSwwl) {
        if (w.var_in_count == 0) {
          converged = true;
          break;
        }
        zero(w.cls_count);
        const std::uint32_t pi_phase = ++phase;
        launch_swwl("sp_pi_swwl", w.var_in_count, [=](Lane& l) { return pi_swwl(l, d, w, pi_phase, first, sw); });
        const std::uint32_t ncls = read(w.cls_count);
        overflowed("clauses", ncls, C);
        pushes += ncls;
        zero(w.var_count);
        const std::uint32_t eta_phase = ++phase;
        if (ncls) launch_swwl("sp_eta_swwl", ncls, [=](Lane& l) { return eta_swwl(l, d, w, eta_phase, ncls, sw); });
        const std::uint32_t nvars = ncls ? read(w.var_count) : 0;
        overflowed("variables", nvars, V);
        pushes += nvars;
        ++iterations;
        std::swap(w.var_in, w.var_out);
        w.var_in_count = nvars;
        converged = nvars == 0;
      } else {
        if (!first && unit->work_inside() == 0) {
          converged = true;
          break;
        }
        const std::uint32_t pi_phase = ++phase;
        if (first)
          launch("sp_pi_hwwl", V, [=](Lane& l) { return pi_hwwl_first(l, d, w, pi_phase); });
        else
          launch("sp_pi_hwwl", threads, [=](Lane& l) { return pi_hwwl(l, d, w, pi_phase); });
        unit->kernel_done();
        const std::uint32_t eta_phase = ++phase;
        if (unit->work_inside() > 0) {
          launch("sp_eta_hwwl", threads, [=](Lane& l) { return eta_hwwl(l, d, w, eta_phase); });
          unit->kernel_done();
        }
        ++iterations;
        converged = unit->work_inside() == 0;
      }
      if (first) {
        // The device's surveys after the first iteration against the host's.
        const auto got = h.download<float>(d.eta, g.edges);
        const auto want = host_first_iteration(g, eta0);
        first_diff = 0;
        std::uint32_t worst = 0;
        for (std::uint32_t e = 0; e < g.edges; ++e)
          if (const double x = std::fabs(static_cast<double>(got[e]) - want[e]); x > first_diff || std::isnan(x))
            first_diff = std::isnan(x) ? INFINITY : x, worst = e;
        const bool ok = first_diff <= kTolerance;
        h.check(ok, ok ? fmt::format("sp: the device's {} surveys after the first iteration are the host's "
                                     "(largest difference {:.3g}, tolerance {:g})",
                                     g.edges, first_diff, kTolerance)
                       : fmt::format("sp: after the first iteration the device's survey of edge {} (clause {}, "
                                     "variable {}) is {}, the host's {} (tolerance {:g})",
                                     worst, std::upper_bound(g.crow.begin(), g.crow.end(), worst) - g.crow.begin(),
                                     (g.elit[worst] >> 1) + 1, got[worst], want[worst], kTolerance));
      }
      if (converged) break;
    }
    first_round = false;
    if (!converged) {
      sp_end = "unconverged";
      break;
    }
    // ---- bias; the paramagnetic test ----
    launch("sp_bias", V, [=](Lane& l) { return bias_kernel(l, d); });
    const auto bias = h.download<float>(d.bias, V);
    const auto mag = h.download<float>(d.mag, V);
    const auto dval = h.download<std::uint32_t>(d.value, V);
    if (bias_diff < 0) {
      // The first bias against the host's, from the device's surveys.
      const HostBias hb = host_bias(g, h.download<float>(d.eta, g.edges), fixed, sat);
      bias_diff = 0;
      for (std::uint32_t j = 0; j < V; ++j) {
        if (fixed[j]) continue;
        for (const double x : {std::fabs(double{bias[j]} - hb.bias[j]), std::fabs(double{mag[j]} - hb.mag[j])})
          bias_diff = std::isnan(x) ? INFINITY : std::max(bias_diff, x);
        value_mismatch += hb.bias[j] > kTolerance && dval[j] != hb.value[j];
      }
    }
    std::vector<std::uint32_t> order;
    order.reserve(free_vars);
    double summag = 0;
    for (std::uint32_t j = 0; j < V; ++j)
      if (!fixed[j]) order.push_back(j), summag += mag[j];
    if (order.empty()) {
      sp_end = "all_fixed";
      break;
    }
    if (summag / static_cast<double>(order.size()) < paramagnet) {
      sp_end = "paramagnetic";
      break;
    }
    // ---- decimate the most biased ----
    const auto fix = static_cast<std::uint32_t>(std::min<std::uint64_t>(fix_per_round, order.size()));
    std::stable_sort(order.begin(), order.end(), [&](std::uint32_t x, std::uint32_t y) { return bias[x] > bias[y]; });
    order.resize(fix);
    h.copy_in(chosen, order.data(), 4ull * fix);
    const std::uint32_t dec_phase = ++phase;
    if (mode == Mode::kSwwl) zero(w.var_count);
    if (mode == Mode::kSwwl)
      launch_swwl("sp_decimate", fix, [=](Lane& l) { return decimate_swwl(l, d, w, dec_phase, chosen, fix, sw); });
    else
      launch("sp_decimate", fix, [=](Lane& l) { return decimate_kernel(l, d, w, mode, dec_phase, chosen, fix); });
    if (mode == Mode::kSwwl) {
      const std::uint32_t nvars = read(w.var_count);
      overflowed("variables", nvars, V);
      pushes += nvars;
      std::swap(w.var_in, w.var_out);
      w.var_in_count = nvars;
    } else if (mode == Mode::kHwwl) {
      unit->kernel_done();
    }
    ++rounds;
    fixed_by_sp += fix, free_vars -= fix;
    for (const std::uint32_t j : order) fixed[j] = 1, value[j] = static_cast<std::uint8_t>(dval[j]);
    for (const std::uint32_t j : order)
      for (std::uint32_t k = g.vrow[j]; k < g.vrow[j + 1]; ++k) {
        const std::uint32_t a = g.vocc[k] >> 1;
        if (!sat[a] && (g.vocc[k] & 1) != value[j]) sat[a] = 1, --unsat_left;
      }
    // A clause whose literals are all fixed and false: SP contradicted itself.
    for (const std::uint32_t j : order)
      for (std::uint32_t k = g.vrow[j]; k < g.vrow[j + 1] && !contradiction; ++k) {
        const std::uint32_t a = g.vocc[k] >> 1;
        if (sat[a]) continue;
        bool any_free = false;
        for (std::uint32_t e = g.crow[a]; e < g.crow[a + 1]; ++e) any_free = any_free || !fixed[g.elit[e] >> 1];
        if (!any_free) contradiction = a + 1;
      }
    if (contradiction) {
      sp_end = "contradiction";
      break;
    }
    if (unsat_left == 0) {
      sp_end = "all_satisfied";
      break;
    }
  }
  if (mode == Mode::kHwwl && unit->work_inside() > 0) {
    launch("sp_drain_hwwl", threads, [=](Lane& l) { return drain_hwwl(l); });
    unit->kernel_done();
  }

  // The device's decimation against the host's record.
  {
    const auto dfixed = h.download<std::uint32_t>(d.fixed, V);
    const auto dvalue = h.download<std::uint32_t>(d.value, V);
    const auto dsat = h.download<std::uint32_t>(d.sat, C);
    std::uint64_t bad_vars = 0, bad_clauses = 0;
    for (std::uint32_t j = 0; j < V; ++j) bad_vars += dfixed[j] != fixed[j] || (fixed[j] && dvalue[j] != value[j]);
    for (std::uint32_t a = 0; a < C; ++a) bad_clauses += dsat[a] != sat[a];
    const bool ok = bad_vars == 0 && bad_clauses == 0 && bias_diff <= kTolerance && value_mismatch == 0;
    const std::string first_bias =
        bias_diff < 0 ? "no bias computed (SP did not converge)"
                      : fmt::format(
                            "the first bias as the host's from the device's surveys (largest difference "
                            "{:.3g}, {} values differ)",
                            bias_diff, value_mismatch);
    h.check(ok, ok ? fmt::format("sp: {}; the device fixed the {} variables the host chose, at their values, and "
                                 "satisfied the {} clauses they satisfy",
                                 first_bias, fixed_by_sp, C - unsat_left)
                   : fmt::format("sp: {} (tolerance {:g}); the device's decimation differs from the host's record "
                                 "in {} variables (fixed or value) and {} clauses (satisfied or not)",
                                 first_bias, kTolerance, bad_vars, bad_clauses));
  }

  // ---- WalkSAT on the remaining formula (unless SP contradicted itself) ----
  std::vector<std::uint32_t> rstart{0}, rlits;
  std::vector<std::uint8_t> occurs(V, 0);
  WalkResult walk;
  if (!contradiction) {
    for (std::uint32_t a = 0; a < C; ++a) {
      if (sat[a]) continue;
      for (std::uint32_t e = g.crow[a]; e < g.crow[a + 1]; ++e)
        if (!fixed[g.elit[e] >> 1]) rlits.push_back(g.elit[e]), occurs[g.elit[e] >> 1] = 1;
      rstart.push_back(static_cast<std::uint32_t>(rlits.size()));
    }
    walk = walksat(V, rstart, rlits, value, kSp.flips.get(cfg), kSp.noise.get(cfg), walk_seed,
                   std::get<double>(cfg.value("sim.max_host_seconds")));
  }
  const std::uint64_t by_walksat = std::count(occurs.begin(), occurs.end(), 1);

  // The full assignment against every clause of the formula.
  std::uint64_t unsatisfied = 0, falsified_by_sp = 0;
  std::uint32_t first_unsat = 0;
  for (std::uint32_t a = 0; a < C; ++a) {
    bool yes = false, open = false;
    for (std::uint32_t i = formula.start[a]; i < formula.start[a + 1]; ++i) {
      const std::int32_t lit = formula.lits[i];
      const auto v = static_cast<std::uint32_t>(std::abs(lit)) - 1;
      yes = yes || (value[v] == (lit > 0 ? 1 : 0));
      open = open || !fixed[v] || (value[v] == (lit > 0 ? 1 : 0));
    }
    if (!yes && unsatisfied++ == 0) first_unsat = a;
    falsified_by_sp += !open;
  }
  const bool satisfied = unsatisfied == 0;
  h.result("formula", formula.origin);
  h.result("vars", V);
  h.result("clauses", C);
  h.result("literals", g.edges);
  if (formula.duplicate_literals) h.result("duplicate_literals", formula.duplicate_literals);
  if (formula.tautologies) h.result("tautologies", formula.tautologies);
  h.result("iterations", iterations);
  h.result("rounds", rounds);
  h.result("sp_end", sp_end);
  h.result("fixed_by_sp", fixed_by_sp);
  h.result("fixed_by_walksat", by_walksat);
  h.result("unconstrained", V - fixed_by_sp - by_walksat);
  h.result("remaining_clauses", rstart.size() - 1);
  h.result("walksat_flips", walk.flips);
  h.result("outcome", satisfied ? "satisfied" : "unsolved");
  h.result("unsatisfied_clauses", unsatisfied);
  h.result("first_iteration_max_diff", first_diff);
  h.result("kernels", kernels);
  h.result("work_items", items);
  if (mode == Mode::kSwwl) h.result("pushes", pushes);
  if (sw.donate) h.result("donated", h.download<std::uint32_t>(w.donated, 1)[0]);
  h.result("kernel_ns", kernel_time.to_seconds() * 1e9);

  // SP is a heuristic: a run that ends without an assignment (the
  // paramagnetic state, no convergence or a contradiction, and WalkSAT
  // failing on the rest) is a result, outcome "unsolved", not a fault; the
  // device's work was checked against the host's above. The check here:
  // the fixed variables falsify a clause exactly when decimation reported a
  // contradiction.
  const bool consistent = contradiction ? falsified_by_sp > 0 : falsified_by_sp == 0;
  const std::string ended =
      sp_end == "unconverged" ? fmt::format("without converging in {} iterations", max_iterations)
      : contradiction ? fmt::format("at a contradiction (decimation round {} fixed every literal of clause {} false)",
                                    rounds, contradiction)
                      : "in state " + sp_end;
  h.check(consistent,
          !consistent ? fmt::format("sp: SP's fixed variables falsify {} clauses, but decimation {}", falsified_by_sp,
                                    contradiction ? fmt::format("reported a contradiction at clause {}", contradiction)
                                                  : "reported none")
          : satisfied
              ? fmt::format("sp: the assignment ({} variables fixed by SP in {} rounds, {} by WalkSAT) "
                            "satisfies all {} clauses",
                            fixed_by_sp, rounds, by_walksat, C)
              : fmt::format("sp: outcome unsolved: SP ended {} after {} rounds{}; SP's {} fixed variables "
                            "falsify {} clauses{}",
                            ended, rounds,
                            contradiction ? std::string()
                                          : fmt::format(" and WalkSAT left {} of the remaining {} clauses "
                                                        "unsatisfied after {} flips (first: clause {})",
                                                        unsatisfied, rstart.size() - 1, walk.flips, first_unsat + 1),
                            fixed_by_sp, falsified_by_sp, contradiction ? ", its contradiction" : ""));

  // --output: the assignment, or SP's fixed variables when unsolved.
  for (std::uint32_t j = 0; j < V; ++j)
    if (satisfied || fixed[j]) h.output() << j + 1 << ' ' << int{value[j]} << '\n';
}

std::uint64_t device_bytes(const Config& c) {
  std::uint64_t vars = 0, clauses = 0, literals = 0;
  const std::string path = kSp.input.get(c);
  if (path.empty()) {
    vars = kSp.vars.get(c), clauses = generated_clauses(c), literals = clauses * kSp.k.get(c);
  } else {
    const cnf::Header hd = cnf::read_header(path);
    std::error_code ec;
    const auto size = std::filesystem::file_size(path, ec);
    // A literal takes two bytes at least ("1 "); a missing file is reported when it is read.
    // Counts above the reader's limits are refused when it reads the file.
    const cnf::Limits lim;
    if (hd.vars <= lim.max_vars && hd.clauses <= lim.max_clauses) vars = hd.vars, clauses = hd.clauses;
    literals = ec ? 0 : size / 2 + 1;
  }
  // Per literal: elit, vedge, vocc, eta, ratio (20 bytes); per clause: crow,
  // sat, stamp, list (16); per variable: vrow, fixed, value, bias, mag,
  // chosen, stamp, two lists (36).
  std::uint64_t bytes = 20 * literals + 16 * (clauses + 1) + 36 * (vars + 1) + 64;
  if (kSp.mechanism.get(c) == "hwwl")
    bytes += 4 * overflow_entries(c, vars, clauses) * std::get<std::uint64_t>(c.value("gpu.cus"));
  return bytes;
}

std::vector<std::string> mechanisms(const Config& c) {
  if (kSp.mechanism.get(c) == "hwwl") return {wl::Worklist::kName};
  return {};
}

const RegisterWorkload r_sp{{"sp",
                             "survey propagation on random k-SAT or a DIMACS CNF file (topo, swwl or hwwl), "
                             "finished by a host WalkSAT",
                             kSp.input.name(), run, device_bytes, mechanisms}};

}  // namespace
}  // namespace fg
