// SPDX-License-Identifier: Apache-2.0
// sp through fgsim: every mechanism on a small random 3-SAT formula on both
// presets passes its three checks (the first iteration's surveys equal the
// host's, the decimation the host's record, the assignment satisfies every
// clause; exit 3 otherwise); a satisfiable DIMACS file written here, whose
// --output assignment is checked against its clauses; the documented
// outcomes of an unsatisfiable formula; swwl's Table II options (each
// passes the checks and acts); malformed files and keys that do not apply
// are exit 2 naming the file and line or the key.
#include <algorithm>
#include <cctype>
#include <cstdint>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <tuple>
#include <vector>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "fg_test.h"

namespace fg {
namespace {

using test::preset_arg;
using test::run_fgsim;
using test::run_json;

// 48 variables, 187 clauses (ratio 3.9), seed 7, two variables fixed per
// round: SP converges, decimates a few rounds and reaches the paramagnetic
// state; WalkSAT completes the assignment. Sub-second for topo and swwl
// (hwwl: 1.5 s, its persistent threads on every kernel).
const char* kSmall =
    " --set gpu.cus=4 --seed 7 --set sp.vars=48 --set sp.ratio=3.9 --set sp.fix_fraction=0.05 "
    "--set sp.max_iterations=100";

using Case = std::tuple<const char*, const char*>;  // mechanism, preset
class SpWorkload : public ::testing::TestWithParam<Case> {};

TEST_P(SpWorkload, SatisfyingAssignmentAndChecks) {
  const auto [m, p] = GetParam();
  const std::string M = m;
  auto j = run_json("run sp" + preset_arg(p) + kSmall + " --set sp.mechanism=" + M);
  ASSERT_FALSE(j.is_null());
  EXPECT_EQ(j["run"]["status"], "ok");
  ASSERT_EQ(j["workload"]["checks"].size(), 3u) << j["workload"]["checks"].dump();
  const auto& r = j["workload"]["results"];
  EXPECT_EQ(r["vars"], 48);
  EXPECT_EQ(r["clauses"], 187);
  EXPECT_EQ(r["literals"], 3 * 187);
  EXPECT_EQ(r["outcome"], "satisfied") << r.dump();
  EXPECT_EQ(r["unsatisfied_clauses"], 0);
  EXPECT_EQ(r["sp_end"], "paramagnetic") << r.dump();
  EXPECT_EQ(r["first_iteration_max_diff"].get<double>(), 0.0);  // the same float operations in the same order
  const int iterations = r["iterations"], rounds = r["rounds"];
  EXPECT_GE(rounds, 2) << r.dump();
  EXPECT_EQ(r["fixed_by_sp"], 2 * rounds);  // max(1, 0.05 x 48) per round
  EXPECT_EQ(r["fixed_by_sp"].get<int>() + r["fixed_by_walksat"].get<int>() + r["unconstrained"].get<int>(), 48);
  EXPECT_GT(r["kernel_ns"].get<double>(), 0);
  // One bias per converged round, one decimate per round.
  if (M == "topo") {
    // pi over every variable and eta over every clause, each iteration.
    EXPECT_EQ(r["kernels"].get<int>(), 2 * iterations + 2 * rounds + 1);
    EXPECT_EQ(r["work_items"].get<int>(), (48 + 187) * iterations + 48 * (rounds + 1) + 2 * rounds);
    EXPECT_EQ(iterations, 68);
  } else {
    // swwl and hwwl run one algorithm: the same iterations and rounds.
    EXPECT_EQ(iterations, 71);
    EXPECT_EQ(rounds, 3);
    EXPECT_LE(r["kernels"].get<int>(), 2 * iterations + 2 * rounds + 1);
  }
  if (M == "swwl") {
    EXPECT_GT(r["pushes"].get<int>(), 187);  // the first pi pushes every clause
    EXPECT_LT(r["work_items"].get<int>(), (48 + 187) * iterations + 48 * (rounds + 1) + 2 * rounds);
  }
  if (M == "hwwl") {
    const auto& st = j["stats"];
    EXPECT_GT(st["gpu.worklist.pushes"].get<int>(), 187);
    EXPECT_EQ(st["gpu.worklist.pull_ids"], st["gpu.worklist.pushes"]);
  } else {
    EXPECT_FALSE(j["stats"].contains("gpu.worklist.pushes"));
  }
}

INSTANTIATE_TEST_SUITE_P(Generated, SpWorkload,
                         ::testing::Combine(::testing::Values("topo", "swwl", "hwwl"),
                                            ::testing::Values("kim2014", "default")),
                         test::mechanism_preset_name);

// The software worklist's options (Sec. II-D, Table II; runtime/swwl.h) on
// every swwl kernel (pi, eta and decimate push): each runs its checks and
// makes the default's surveys, iterations, rounds and pushes (no kernel's
// values depend on the order of its items); chunk (WCH) and aru (ARU) cut
// the atomic operations the L2 executes (the count's add per push becomes
// one per item, one per workgroup); a fixed thread count launches that
// many work-items for every swwl kernel; donating (WDO) donates. 300
// variables, 1,170 clauses (ratio 3.9), seed 3: 73 iterations, 2 rounds to
// the paramagnetic state, WalkSAT completes the assignment (1.3 s a run).
// With 256 work-items (one full workgroup: WDO's average is over the
// workgroup's size) the first pi gives 44 work-items two variables, and
// one whose first variable has at least the average degree donates the
// second (an exact average donates too, not only runtime/swwl.cpp's
// integer one, which is 0 for lists of total estimate below 256).
const char* kOptions =
    " --set gpu.cus=4 --seed 3 --set sp.vars=300 --set sp.ratio=3.9 --set sp.fix_fraction=0.05 "
    "--set sp.max_iterations=100";

double l2_atomics(const nlohmann::json& st) { return st["gpu.l2.atomics"].get<double>(); }

class SpSoftwareOptions : public ::testing::TestWithParam<const char*> {};

TEST_P(SpSoftwareOptions, ChecksPassAndTheOptionActs) {
  const std::string base = std::string("run sp --preset kim2014") + kOptions + " --set sp.mechanism=swwl";
  std::string sets, others;  // the options; those other than the push
  for (std::string o = GetParam(); !o.empty();) {
    const auto comma = o.find(',');
    const std::string set = " --set sp.swwl." + o.substr(0, comma);
    sets += set;
    if (o.rfind("push=", 0) != 0) others += set;
    o = comma == std::string::npos ? "" : o.substr(comma + 1);
  }
  auto j = run_json(base + sets);
  auto a = run_json(base);
  ASSERT_FALSE(j.is_null());
  ASSERT_FALSE(a.is_null());
  EXPECT_EQ(j["run"]["status"], "ok");
  ASSERT_EQ(j["workload"]["checks"].size(), 3u) << j["workload"]["checks"].dump();
  const auto& r = j["workload"]["results"];
  const auto& ra = a["workload"]["results"];
  EXPECT_EQ(r["outcome"], "satisfied") << r.dump();
  EXPECT_EQ(r["sp_end"], "paramagnetic") << r.dump();
  EXPECT_EQ(r["iterations"], 73);
  EXPECT_EQ(r["rounds"], 2);
  for (const char* k : {"iterations", "rounds", "fixed_by_sp", "pushes", "kernels"}) EXPECT_EQ(r[k], ra[k]) << k;
  const std::string o = GetParam();
  const double pushes = r["pushes"].get<double>();
  if (o.find("push=") != std::string::npos) {
    // Against one count add per push with the same other options: fewer
    // atomic operations, by at least a tenth of the pushes; ARU's one per
    // workgroup fewer than WCH's one per item.
    auto b = others.empty() ? a : run_json(base + others);
    ASSERT_FALSE(b.is_null());
    EXPECT_LT(l2_atomics(j["stats"]), l2_atomics(b["stats"]) - 0.1 * pushes) << o;
    if (o.find("push=aru") != std::string::npos) {
      auto c = run_json(base + others + " --set sp.swwl.push=chunk");
      ASSERT_FALSE(c.is_null());
      EXPECT_LT(l2_atomics(j["stats"]), l2_atomics(c["stats"])) << o;
    }
  }
  const int kernels = r["kernels"], rounds = r["rounds"], bias = rounds + 1;  // bias: every converged round
  if (o.find("threads=256") != std::string::npos) {
    // 256 work-items for each pi, eta and decimate; bias one per variable.
    EXPECT_EQ(r["work_items"].get<int>(), 256 * (kernels - bias) + 300 * bias) << r.dump();
  } else {
    EXPECT_EQ(r["work_items"], ra["work_items"]);
  }
  if (o.find("donate") != std::string::npos) {
    EXPECT_GT(r["donated"].get<int>(), 0) << r.dump();
  } else {
    EXPECT_FALSE(r.contains("donated"));
  }
}

INSTANTIATE_TEST_SUITE_P(Sec2, SpSoftwareOptions,
                         ::testing::Values("push=chunk", "push=aru", "threads=256", "threads=256,donate=true",
                                           "threads=256,donate=true,push=aru", "threads=256,push=chunk"),
                         [](const ::testing::TestParamInfo<const char*>& i) { return test::options_name(i); });

// The options apply to swwl only; donating needs a fixed thread count.
TEST(SpSoftwareOptions, RefusedOptionsAreExit2NamingTheKey) {
  struct Bad {
    std::string args, message;
  };
  const std::vector<Bad> bad{
      {"--set sp.swwl.push=aru",
       "sp.swwl.push (set by --set sp.swwl.push) does not apply: sp.mechanism is topo, not swwl"},
      {"--set sp.mechanism=hwwl --set sp.swwl.threads=256",
       "sp.swwl.threads (set by --set sp.swwl.threads) does not apply: sp.mechanism is hwwl, not swwl"},
      {"--set sp.mechanism=topo --set sp.swwl.donate=true",
       "sp.swwl.donate (set by --set sp.swwl.donate) does not apply: sp.mechanism is topo, not swwl"},
      {"--set sp.mechanism=swwl --set sp.swwl.donate=true",
       "sp.swwl.donate (set by --set sp.swwl.donate): work donating needs sp.swwl.threads > 0"},
      {"--set sp.mechanism=swwl --set sp.swwl.push=prefix", "sp.swwl.push"},
  };
  for (const auto& c : bad) {
    auto r = run_fgsim("run sp " + c.args + " --quiet");
    EXPECT_EQ(r.code, 2) << c.args << "\n" << r.err;
    EXPECT_NE(r.err.find(c.message), std::string::npos) << c.args << "\n" << r.err;
    EXPECT_EQ(test::error_lines(r.err), 1) << c.args << "\n" << r.err;
  }
}

// A planted 3-SAT formula (40 variables, 168 clauses: ratio 4.2), every
// clause true under a hidden assignment, written with what DIMACS allows:
// comments, a clause across two lines, two clauses on one line, a repeated
// literal, a tautology, SATLIB's closing "%" and "0".
struct Planted {
  std::vector<std::vector<int>> clauses;
  std::string text;
};

Planted planted() {
  std::uint64_t s = 12345;
  auto next = [&] {
    s = s * 6364136223846793005ull + 1442695040888963407ull;
    return static_cast<std::uint32_t>(s >> 33);
  };
  std::vector<int> hidden(41);
  for (int v = 1; v <= 40; ++v) hidden[v] = next() & 1;
  Planted p;
  while (p.clauses.size() < 166) {
    std::vector<int> c;
    while (c.size() < 3) {
      const int v = 1 + static_cast<int>(next() % 40);
      if (std::any_of(c.begin(), c.end(), [&](int x) { return std::abs(x) == v; })) continue;
      c.push_back(next() & 1 ? v : -v);
    }
    const bool sat = std::any_of(c.begin(), c.end(), [&](int x) { return (x > 0) == (hidden[std::abs(x)] == 1); });
    if (sat) p.clauses.push_back(c);
  }
  std::ostringstream o;
  o << "c planted 3-SAT\np cnf 40 168\n";
  for (std::size_t i = 0; i < p.clauses.size(); ++i) {
    const auto& c = p.clauses[i];
    if (i == 3)
      o << c[0] << ' ' << c[1] << "\n  " << c[2] << " 0\n";  // across two lines
    else if (i == 4)
      o << c[0] << ' ' << c[1] << ' ' << c[2] << " 0 ";  // two on one line
    else
      o << c[0] << ' ' << c[1] << ' ' << c[2] << " 0\n";
    if (i == 10) o << "c a comment between clauses\n";
  }
  o << "7 -9 7 0\n";   // a repeated literal: the clause is 7 -9
  o << "5 -5 12 0\n";  // a tautology
  o << "%\n0\n";
  p.clauses.push_back({7, -9});
  p.clauses.push_back({5, -5, 12});
  p.text = o.str();
  return p;
}

class SpFile : public ::testing::TestWithParam<const char*> {};

TEST_P(SpFile, OutputSatisfiesEveryClause) {
  const auto d = test::scratch_dir();
  const std::string in = (d / "planted.cnf").string(), out = (d / "assignment.txt").string();
  const Planted p = planted();
  std::ofstream(in) << p.text;
  auto j = run_json(std::string("run sp --preset kim2014 --set gpu.cus=2 --set sp.mechanism=") + GetParam() +
                    " --input " + in + " --output " + out);
  ASSERT_FALSE(j.is_null());
  const auto& r = j["workload"]["results"];
  EXPECT_EQ(r["vars"], 40);
  EXPECT_EQ(r["clauses"], 168);
  EXPECT_EQ(r["literals"], 3 * 168 - 1);
  EXPECT_EQ(r["duplicate_literals"], 1);
  EXPECT_EQ(r["tautologies"], 1);
  EXPECT_EQ(r["outcome"], "satisfied") << r.dump();
  // "v value" for v = 1..40 in order, and every clause true.
  std::istringstream o(test::slurp(out));
  std::vector<int> value(41, -1);
  int v = 0, x = 0, lines = 0;
  while (o >> v >> x) {
    ++lines;
    ASSERT_EQ(v, lines);
    ASSERT_TRUE(x == 0 || x == 1) << x;
    value[v] = x;
  }
  EXPECT_EQ(lines, 40);
  for (const auto& c : p.clauses)
    EXPECT_TRUE(std::any_of(c.begin(), c.end(), [&](int l) { return (l > 0) == (value[std::abs(l)] == 1); }))
        << c[0] << " " << c[1];
}

INSTANTIATE_TEST_SUITE_P(Mechanisms, SpFile, ::testing::Values("topo", "swwl", "hwwl"));

// With sp.paramagnet=0 SP decimates past the paramagnetic state, fixing
// variables of no bias at 0: on the planted formula topo fixes all 40 and
// satisfies every clause (sp_end all_satisfied, no WalkSAT); swwl, whose
// data-driven surveys differ (a survey that moved by epsilon or less
// wakes nothing), fixes every literal of a clause false in round 9: a
// contradiction, outcome unsolved (exit 0).
TEST(SpOutcome, DecimationPastTheParamagneticState) {
  const auto d = test::scratch_dir();
  const std::string in = (d / "planted.cnf").string();
  std::ofstream(in) << planted().text;
  const std::string args =
      "run sp --preset kim2014 --set gpu.cus=2 --set sp.paramagnet=0 --set sp.fix_fraction=0.1 --input " + in;
  auto j = run_json(args);
  ASSERT_FALSE(j.is_null());
  const auto& r = j["workload"]["results"];
  EXPECT_EQ(r["sp_end"], "all_satisfied");
  EXPECT_EQ(r["outcome"], "satisfied");
  EXPECT_EQ(r["fixed_by_sp"], 40);
  EXPECT_EQ(r["rounds"], 10);
  EXPECT_EQ(r["fixed_by_walksat"], 0);
  auto f = run_json(args + " --set sp.mechanism=swwl");
  ASSERT_FALSE(f.is_null());
  const auto& fr = f["workload"]["results"];
  EXPECT_EQ(fr["outcome"], "unsolved");
  EXPECT_EQ(fr["sp_end"], "contradiction");
  EXPECT_EQ(fr["rounds"], 9);
  EXPECT_EQ(fr["walksat_flips"], 0);  // WalkSAT does not run after a contradiction
  EXPECT_NE(f["workload"]["checks"].back().get<std::string>().find(
                "at a contradiction (decimation round 9 fixed every literal of clause"),
            std::string::npos)
      << f["workload"]["checks"].dump();
}

// Every sign pattern of three variables: unsatisfiable. SP's surveys go
// trivial at once (the paramagnetic state) and WalkSAT finds nothing: the
// documented outcome "unsolved", exit 0, an empty --output (nothing fixed).
// Capped at one iteration, SP does not converge: outcome unsolved too.
const char* kUnsat = "p cnf 3 8\n1 2 3 0\n1 2 -3 0\n1 -2 3 0\n1 -2 -3 0\n-1 2 3 0\n-1 2 -3 0\n-1 -2 3 0\n-1 -2 -3 0\n";

TEST(SpOutcome, UnsatisfiableFormula) {
  const auto d = test::scratch_dir();
  const std::string in = (d / "unsat.cnf").string(), out = (d / "out.txt").string();
  std::ofstream(in) << kUnsat;
  auto j = run_json("run sp --set gpu.cus=2 --set sp.walksat.flips=10000 --input " + in + " --output " + out);
  ASSERT_FALSE(j.is_null());
  const auto& r = j["workload"]["results"];
  EXPECT_EQ(r["outcome"], "unsolved");
  EXPECT_EQ(r["sp_end"], "paramagnetic");
  EXPECT_EQ(r["walksat_flips"], 10000);
  EXPECT_EQ(r["unsatisfied_clauses"], 1);
  EXPECT_EQ(test::slurp(out), "");
  auto f = run_json("run sp --set gpu.cus=2 --set sp.walksat.flips=10000 --set sp.max_iterations=1 --input " + in);
  ASSERT_FALSE(f.is_null());
  EXPECT_EQ(f["workload"]["results"]["outcome"], "unsolved");
  EXPECT_EQ(f["workload"]["results"]["sp_end"], "unconverged");
}

// The hardware worklist's golden model and its Verilated RTL give the same
// run (kim2014's 4 cores, 32-entry banks that spill).
TEST(SpHardwareWorklist, ModelAndRtlBackendsAgree) {
  const std::string base =
      std::string("run sp --preset kim2014") + kSmall + " --set sp.mechanism=hwwl --set worklist.backend=";
  auto a = run_json(base + "model"), b = run_json(base + "rtl");
  ASSERT_FALSE(a.is_null());
  ASSERT_FALSE(b.is_null());
  EXPECT_EQ(a["workload"]["results"], b["workload"]["results"]);
  for (const char* k :
       {"gpu.worklist.pushes", "gpu.worklist.pull_ids", "gpu.worklist.pull_waits", "gpu.worklist.hvu.spills"})
    EXPECT_EQ(a["stats"][k], b["stats"][k]) << k;
  EXPECT_GT(a["stats"]["gpu.worklist.hvu.spills"].get<int>(), 0);
}

// Bad input: one line naming the file and line, or the key; exit 2.
TEST(SpBadInput, MalformedFilesAreExit2NamingFileAndLine) {
  struct Bad {
    std::string text, message;
  };
  const std::vector<Bad> bad{
      {"p cnf 3 2\n1 -2 0\n4 1 0\n", ":3: literal 4 is out of range (the problem line declares 3 variables)"},
      {"p cnf 3 1\n1 x 0\n", ":2: 'x' is not a literal"},
      {"c hello\n1 2 0\n", ":2: a literal before the problem line 'p cnf VARS CLAUSES'"},
      {"p cnf 3 2\n1 2 0\n0\n", ":3: an empty clause"},
      {"p cnf 3 3\n1 2 0\n2 3 0\n", ":1: the problem line declares 3 clauses, the file has 2"},
      {"p cnf 3 1\n1 2\n", ":2: the last clause is not ended by 0"},
      {"p cnf 3 1\n1 2 0\n3 0\n", ":3: more clauses than the 1 the problem line declares"},
      {"p cnf 3 1\np cnf 3 1\n", ":2: second problem line (the first is line 1)"},
      {"p cnf 0 0\n", ":1: the formula has no variables"},
      {"p cnf 3 0\n", ":1: the formula has no clauses"},
      {"p sp 3 1\n", ":1: expected the problem line 'p cnf VARS CLAUSES'"},
      {"p cnf 99999999999 1\n", ":1: 99999999999 variables is more than the reader's limit"},
      {"", ": no problem line 'p cnf VARS CLAUSES'"},
  };
  const std::string in = (test::scratch_dir() / "bad.cnf").string();
  for (const auto& c : bad) {
    std::ofstream(in, std::ios::trunc) << c.text;
    auto r = run_fgsim("run sp --input " + in + " --quiet");
    EXPECT_EQ(r.code, 2) << c.text << "\n" << r.err;
    EXPECT_NE(r.err.find(in + c.message), std::string::npos) << c.text << "\n" << r.err;
    EXPECT_EQ(test::error_lines(r.err), 1) << c.text << "\n" << r.err;
  }
  auto r = run_fgsim("run sp --input " + in + ".missing --quiet");
  EXPECT_EQ(r.code, 2) << r.err;
  EXPECT_NE(r.err.find(in + ".missing: input file (sp.input) does not exist"), std::string::npos) << r.err;
}

TEST(SpBadInput, KeysThatDoNotApplyAreExit2NamingTheKey) {
  struct Bad {
    std::string args, message;
  };
  const std::string in = (test::scratch_dir() / "small.cnf").string();
  std::ofstream(in) << "p cnf 3 2\n1 2 3 0\n-1 -2 0\n";
  const std::vector<Bad> bad{
      {"--set sp.hwwl.overflow=8",
       "sp.hwwl.overflow (set by --set sp.hwwl.overflow) does not apply: sp.mechanism is topo, not hwwl"},
      {"--set sp.mechanism=swwl --set worklist.depth=64", "worklist.depth"},
      {"--input " + in + " --set sp.vars=10", "sp.vars (set by --set sp.vars) does not apply: the formula is read"},
      {"--input " + in + " --set sp.ratio=3", "sp.ratio (set by --set sp.ratio) does not apply"},
      {"--set sp.vars=2", "sp.vars = 2 (set by --set sp.vars) is fewer than sp.k = 3: a clause takes sp.k distinct"},
      {"--set sp.ratio=0.001", "sp.ratio = 0.001 x sp.vars = 400 gives no clauses"},
      {"--set sp.mechanism=bogus", "sp.mechanism"},
      {"--set sp.epsilon=0", "sp.epsilon"},
  };
  for (const auto& c : bad) {
    auto r = run_fgsim("run sp " + c.args + " --quiet");
    EXPECT_EQ(r.code, 2) << c.args << "\n" << r.err;
    EXPECT_NE(r.err.find(c.message), std::string::npos) << c.args << "\n" << r.err;
    EXPECT_EQ(test::error_lines(r.err), 1) << c.args << "\n" << r.err;
  }
}

}  // namespace
}  // namespace fg
