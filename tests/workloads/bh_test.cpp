// SPDX-License-Identifier: Apache-2.0
// bh through fgsim: every mechanism on both presets passes its host checks
// (each step's tree, positions against the host Barnes-Hut, the first step's
// accelerations against direct sums; the workload exits 3 otherwise); the
// uniform sphere; bodies files with exact answers (one free body, a
// symmetric pair, coincident bodies) and their --output; the hardware
// worklist's two backends agree; the software worklist's options (VKC, N
// work-items, WDO, the atomic head) and those that do not apply; bad input is
// exit 2 naming the key, or the file and line.
#include <algorithm>
#include <cmath>
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

// kim2014 with 4 cores; the default machine as it is.
std::string machine_arg(const std::string& p) { return p == "default" ? "" : preset_arg(p) + " --set gpu.cus=4"; }

// The --output file: one row of six numbers per body.
std::vector<std::vector<double>> read_rows(const std::string& path) {
  std::vector<std::vector<double>> rows;
  std::istringstream in(test::slurp(path));
  std::string line;
  while (std::getline(in, line)) {
    std::istringstream ls(line);
    std::vector<double> v;
    double x = 0;
    while (ls >> x) v.push_back(x);
    rows.push_back(v);
  }
  return rows;
}

using Case = std::tuple<const char*, const char*>;  // mechanism, preset
class BhWorkload : public ::testing::TestWithParam<Case> {};

TEST_P(BhWorkload, PassesTheHostChecks) {
  const auto [m, p] = GetParam();
  const std::string M = m;
  auto j = run_json("run bh" + machine_arg(p) + " --set bh.mechanism=" + M + " --set bh.bodies=128");
  ASSERT_FALSE(j.is_null());
  EXPECT_EQ(j["run"]["status"], "ok");
  // The tree, the positions and (128 <= 2048 bodies) the direct forces.
  ASSERT_EQ(j["workload"]["checks"].size(), 3u) << j["workload"].dump();
  const auto& r = j["workload"]["results"];
  EXPECT_EQ(r["bodies"], 128);
  EXPECT_EQ(r["steps"], 2);
  EXPECT_GT(r["depth"].get<int>(), 4) << r.dump();
  EXPECT_GT(r["cells"].get<int>(), 32) << r.dump();
  EXPECT_LE(r["cells"].get<int>(), 2 * 128 + 64);
  // theta 0.5 opens most of a small tree, but not all of it.
  EXPECT_GT(r["interactions_per_body"].get<double>(), 40) << r.dump();
  EXPECT_LT(r["interactions_per_body"].get<double>(), 128) << r.dump();
  EXPECT_LT(r["position_error"].get<double>(), 1e-6);
  EXPECT_GT(r["force_error_rms"].get<double>(), 0);  // an approximation
  EXPECT_LT(r["force_error_rms"].get<double>(), 3e-3);
  EXPECT_GT(r["force_ns"].get<double>(), 0);
  EXPECT_LT(r["force_ns"].get<double>(), r["kernel_ns"].get<double>());
  // Seven kernels a step (bbox, root, build, summarize, sort, force,
  // integrate), hwwl also the push.
  EXPECT_EQ(r["kernels"].get<int>(), M == "hwwl" ? 16 : 14);
  if (M == "hwwl") {
    const auto& st = j["stats"];
    EXPECT_EQ(st["gpu.worklist.pushes"], 2 * 128);
    EXPECT_EQ(st["gpu.worklist.pull_ids"], 2 * 128);
  } else {
    EXPECT_FALSE(j["stats"].contains("gpu.worklist.pushes"));
  }
}

INSTANTIATE_TEST_SUITE_P(Mechanisms, BhWorkload,
                         ::testing::Combine(::testing::Values("topo", "swwl", "hwwl"),
                                            ::testing::Values("kim2014", "default")),
                         test::mechanism_preset_name);

// The uniform sphere (a cold collapse) and the Plummer sphere give the same
// results on every mechanism (the force walk does not depend on which
// bodies share a wavefront).
TEST(BhGenerated, MechanismsAgreeOnTheUniformSphere) {
  nlohmann::json first;
  for (const std::string m : {"topo", "swwl", "hwwl"}) {
    auto j = run_json(
        "run bh --preset kim2014 --set gpu.cus=4 --set bh.bodies=100 --set bh.steps=1 "
        "--set bh.distribution=uniform --set bh.mechanism=" +
        m);
    ASSERT_FALSE(j.is_null()) << m;
    auto r = j["workload"]["results"];
    EXPECT_EQ(r["input"], "uniform");
    for (const char* k : {"kernels", "kernel_ns", "force_ns", "force_threads"}) r.erase(k);
    if (first.is_null())
      first = r;
    else
      EXPECT_EQ(r, first) << m;
  }
}

// One body alone feels nothing (its own term is zero): it moves by its
// velocity, x = 1 + 2 (0.5 * 0.025) in float arithmetic.
TEST(BhFile, AFreeBodyMovesByItsVelocity) {
  const auto d = test::scratch_dir();
  const std::string in = (d / "one.txt").string(), out = (d / "one.out").string();
  std::ofstream(in) << "# one body\n1 2 3 0.5 0 0\n";
  auto j = run_json("run bh --preset kim2014 --set gpu.cus=2 --input " + in + " --output " + out);
  ASSERT_FALSE(j.is_null());
  EXPECT_EQ(j["workload"]["results"]["bodies"], 1);
  const auto rows = read_rows(out);
  ASSERT_EQ(rows.size(), 1u);
  ASSERT_EQ(rows[0].size(), 6u);
  float x = 1;
  const float dx = 0.5f * 0.025f;
  x += dx, x += dx;
  EXPECT_EQ(static_cast<float>(rows[0][0]), x);
  EXPECT_EQ(rows[0][1], 2);
  EXPECT_EQ(rows[0][2], 3);
  EXPECT_EQ(rows[0][3], 0.5);
}

// Two equal bodies at rest fall towards each other symmetrically, by the
// softened force: after one step x = 1 - (dt^2 / 2) m d / (d^2 + eps^2)^1.5.
TEST(BhFile, ASymmetricPairFallsTogether) {
  const auto d = test::scratch_dir();
  const std::string in = (d / "pair.txt").string(), out = (d / "pair.out").string();
  std::ofstream(in) << "1 0 0 0 0 0 0.5\n-1 0 0 0 0 0 0.5\n";
  for (const std::string m : {"topo", "hwwl"}) {
    auto j = run_json("run bh --preset kim2014 --set gpu.cus=2 --set bh.steps=1 --set bh.mechanism=" + m + " --input " +
                      in + " --output " + out);
    ASSERT_FALSE(j.is_null()) << m;
    EXPECT_EQ(j["workload"]["results"]["interactions_per_body"], 2) << m;  // the other body and itself
    const auto rows = read_rows(out);
    ASSERT_EQ(rows.size(), 2u) << m;
    const double a = 0.5 * 2 / std::pow(4 + 0.05 * 0.05, 1.5), want = 1 - 0.5 * 0.025 * 0.025 * a;
    EXPECT_NEAR(rows[0][0], want, 1e-6) << m;
    EXPECT_EQ(rows[0][0], -rows[1][0]) << m;
    EXPECT_NEAR(rows[0][3], -0.025 * a, 1e-6) << m;
    EXPECT_EQ(rows[0][1], 0) << m;
  }
}

// Bodies at one point: the tree splits to the depth limit (32) and chains
// them; the root's only cell has no size, so it acts as one body at the
// bodies' centre of mass: no force while that is exactly their position
// (here every sum is exact: masses 1/32, positions and dtime with few bits;
// otherwise its rounding is a small force), the bodies move by their
// velocity.
TEST(BhFile, CoincidentBodiesAreChainedAndFeelNoForce) {
  const auto d = test::scratch_dir();
  const std::string in = (d / "point.txt").string(), out = (d / "point.out").string();
  {
    std::ofstream f(in);
    for (int i = 0; i < 32; ++i) f << "0.5 -0.25 2 1 0 0\n";  // masses 1/32: the centres of mass are exact
  }
  for (const std::string m : {"topo", "swwl", "hwwl"}) {
    auto j = run_json("run bh --preset kim2014 --set gpu.cus=2 --set bh.dtime=0.25 --set bh.mechanism=" + m +
                      " --input " + in + " --output " + out);
    ASSERT_FALSE(j.is_null()) << m;
    const auto& r = j["workload"]["results"];
    EXPECT_EQ(r["depth"], 32) << m;
    EXPECT_EQ(r["cells"], 32) << m;  // the root and 31 below it
    EXPECT_EQ(r["interactions_per_body"], 1) << m;
    const auto rows = read_rows(out);
    ASSERT_EQ(rows.size(), 32u);
    const float x = 1.0f;  // 0.5 + 2 x 0.25, exact
    for (const auto& row : rows) {
      EXPECT_EQ(static_cast<float>(row[0]), x) << m;
      EXPECT_EQ(row[1], -0.25) << m;
    }
  }
}

// --output on generated bodies: one line "x y z vx vy vz" per body, finite.
TEST(BhOutput, OneLinePerBody) {
  const std::string out = (test::scratch_dir() / "bodies.txt").string();
  auto j =
      run_json("run bh --preset kim2014 --set gpu.cus=4 --set bh.bodies=64 --set bh.mechanism=swwl --output " + out);
  ASSERT_FALSE(j.is_null());
  const auto rows = read_rows(out);
  ASSERT_EQ(rows.size(), 64u);
  for (const auto& row : rows) {
    ASSERT_EQ(row.size(), 6u);
    for (const double v : row) EXPECT_TRUE(std::isfinite(v));
  }
}

// The hardware worklist's golden model and its Verilated RTL give the same
// run.
TEST(BhHardwareWorklist, ModelAndRtlBackendsAgree) {
  const std::string base =
      "run bh --preset kim2014 --set gpu.cus=4 --set bh.mechanism=hwwl --set bh.bodies=96 --set bh.steps=1 "
      "--set worklist.backend=";
  auto a = run_json(base + "model"), b = run_json(base + "rtl");
  ASSERT_FALSE(a.is_null());
  ASSERT_FALSE(b.is_null());
  EXPECT_EQ(a["workload"]["results"], b["workload"]["results"]);
  for (const char* k : {"gpu.worklist.pushes", "gpu.worklist.pull_ids", "gpu.worklist.pull_waits"})
    EXPECT_EQ(a["stats"][k], b["stats"][k]) << k;
}

// The global atomic instructions of a run (gpu.cu<i>.atomics summed).
double atomics(const nlohmann::json& j) {
  double n = 0;
  for (const auto& [k, v] : j["stats"].items())
    if (k.rfind("gpu.cu", 0) == 0 && k.find(".l1.") == std::string::npos && k.size() > 8 &&
        k.compare(k.size() - 8, 8, ".atomics") == 0)
      n += v.get<double>();
  return n;
}

// The software worklist's options (the worklist paper, Sec. II-D, Table II;
// runtime/swwl.h). Each run passes the host checks (the tree, the positions,
// the direct forces: exit 3 otherwise).
const std::string kSw = "run bh --preset kim2014 --set gpu.cus=4 --set bh.mechanism=swwl ";

// The default (bh.swwl.pull=share, threads 0: VKC) launches one work-item
// per body and pulls without atomics; pull=atomic launches the resident
// capacity, which takes bodies by atomic adds on the list's head: at least
// one atomic instruction per wavefront and step more.
TEST(BhSoftwareOptions, VkcIsOneWorkItemPerBodyWithoutPullAtomics) {
  auto vkc = run_json(kSw + "--set bh.bodies=128");
  auto head = run_json(kSw + "--set bh.bodies=128 --set bh.swwl.pull=atomic");
  ASSERT_FALSE(vkc.is_null());
  ASSERT_FALSE(head.is_null());
  for (const auto* j : {&vkc, &head}) EXPECT_EQ((*j)["workload"]["checks"].size(), 3u);
  const auto &rv = vkc["workload"]["results"], &rh = head["workload"]["results"];
  EXPECT_EQ(rv["force_threads"], 128);
  EXPECT_EQ(rh["force_threads"], 4 * 48 * 32);  // kim2014: every warp slot of 4 cores
  EXPECT_FALSE(rv.contains("donated"));
  EXPECT_EQ(rv["interactions_per_body"], rh["interactions_per_body"]);
  EXPECT_GE(atomics(head), atomics(vkc) + 2 * 4 * 48) << atomics(head) << " " << atomics(vkc);
}

// N fixed work-items launch N, each with an even share of the tree order.
TEST(BhSoftwareOptions, FixedThreadsLaunchN) {
  auto j = run_json(kSw + "--set bh.bodies=128 --set bh.swwl.threads=32");
  ASSERT_FALSE(j.is_null());
  EXPECT_EQ(j["workload"]["checks"].size(), 3u);
  EXPECT_EQ(j["workload"]["results"]["force_threads"], 32);
  EXPECT_FALSE(j["workload"]["results"].contains("donated"));
}

// WDO with 4 bodies per work-item (1,024 bodies, 256 work-items: one whole
// workgroup): the first step donates by the bodies' depths (written by the
// sort kernel), the second also by the interactions of the first; the same
// physics as without donating; the stats are the same run to run.
TEST(BhSoftwareOptions, DonatingDonatesByDepthThenByInteractions) {
  const std::string base = kSw + "--set bh.swwl.threads=256 --set bh.steps=";
  auto one = run_json(base + "1 --set bh.swwl.donate=true");
  auto two = run_json(base + "2 --set bh.swwl.donate=true");
  auto plain = run_json(base + "2");
  ASSERT_FALSE(one.is_null());
  ASSERT_FALSE(two.is_null());
  ASSERT_FALSE(plain.is_null());
  for (const auto* j : {&one, &two, &plain}) EXPECT_EQ((*j)["workload"]["checks"].size(), 3u);
  const int d1 = one["workload"]["results"]["donated"].get<int>(), d2 = two["workload"]["results"]["donated"];
  EXPECT_GT(d1, 0);       // step 0: the depth estimate
  EXPECT_GT(d2, d1);      // step 1: the previous step's interactions
  EXPECT_LT(d2, 2 * 64);  // at most a few bodies of a 4-body share, from a minority of the work-items
  EXPECT_EQ(two["workload"]["results"]["interactions_per_body"], plain["workload"]["results"]["interactions_per_body"]);
  EXPECT_EQ(two["workload"]["results"]["force_threads"], 256);
  auto again = run_json(base + "2 --set bh.swwl.donate=true");
  ASSERT_FALSE(again.is_null());
  two.erase("host"), again.erase("host");
  EXPECT_EQ(two, again);
}

// Options that do not apply: exit 2, one line naming the key and why.
TEST(BhSoftwareOptions, RefusedOptionsAreExit2) {
  struct Bad {
    std::string args, message;
  };
  const std::vector<Bad> bad{
      // bh's swwl pushes nothing: it has no bh.swwl.push key.
      {"--set bh.mechanism=swwl --set bh.swwl.push=chunk", "--set bh.swwl.push: unknown parameter 'bh.swwl.push'"},
      {"--set bh.mechanism=swwl --set bh.swwl.push=atomic", "--set bh.swwl.push: unknown parameter 'bh.swwl.push'"},
      {"--set bh.swwl.threads=64",
       "bh.swwl.threads (set by --set bh.swwl.threads) does not apply: bh.mechanism is topo, not swwl"},
      {"--set bh.mechanism=hwwl --set bh.swwl.donate=true",
       "bh.swwl.donate (set by --set bh.swwl.donate) does not apply: bh.mechanism is hwwl, not swwl"},
      {"--set bh.mechanism=hwwl --set bh.swwl.pull=atomic",
       "bh.swwl.pull (set by --set bh.swwl.pull) does not apply: bh.mechanism is hwwl, not swwl"},
      {"--set bh.mechanism=swwl --set bh.swwl.donate=true",
       "bh.swwl.donate (set by --set bh.swwl.donate): work donating needs bh.swwl.threads > 0"},
      {"--set bh.mechanism=swwl --set bh.swwl.pull=atomic --set bh.swwl.threads=64",
       "bh.swwl.threads (set by --set bh.swwl.threads) does not apply: bh.swwl.pull is atomic"},
      {"--set bh.mechanism=swwl --set bh.swwl.pull=atomic --set bh.swwl.threads=64 --set bh.swwl.donate=true",
       "bh.swwl.threads (set by --set bh.swwl.threads) does not apply: bh.swwl.pull is atomic"},
      {"--set bh.mechanism=swwl --set bh.swwl.pull=bogus", "bh.swwl.pull"},
  };
  for (const auto& c : bad) {
    auto r = run_fgsim("run bh --set bh.bodies=16 " + c.args + " --quiet");
    EXPECT_EQ(r.code, 2) << c.args << "\n" << r.err;
    EXPECT_NE(r.err.find(c.message), std::string::npos) << c.args << "\n" << r.err;
    EXPECT_EQ(test::error_lines(r.err), 1) << c.args << "\n" << r.err;
  }
}

// Bad input: one line naming the key, or the file and line; exit 2.
TEST(BhBadInput, IsExit2NamingTheKeyOrTheLine) {
  const auto d = test::scratch_dir();
  auto file = [&](const std::string& name, const std::string& text) {
    const std::string p = (d / name).string();
    std::ofstream(p) << text;
    return p;
  };
  struct Bad {
    std::string args, message;
  };
  const std::string good = file("good.txt", "0 0 0\n1 1 1\n");
  const std::vector<Bad> bad{
      {"--set bh.bodies=0", "bh.bodies"},
      {"--set bh.mechanism=bogus", "bh.mechanism"},
      {"--set bh.theta=-1", "bh.theta"},
      {"--set bh.hwwl.overflow=8",
       "bh.hwwl.overflow (set by --set bh.hwwl.overflow) does not apply: bh.mechanism is topo, not hwwl"},
      {"--set bh.mechanism=swwl --set worklist.depth=64", "worklist.depth"},
      {"--input " + good + " --set bh.bodies=5", "bh.bodies (set by --set bh.bodies) does not apply"},
      {"--input " + good + " --set bh.distribution=uniform", "bh.distribution"},
      {"--input " + file("word.txt", "# x y z\n0 0 0\n1 2 x\n"), "word.txt:3: not a number: \"x\""},
      {"--input " + file("four.txt", "1 2 3 4\n"), "four.txt:1: 4 numbers"},
      {"--input " + file("mass.txt", "\n1 2 3 0 0 0 0\n"), "mass.txt:2: the mass 0 is not positive"},
      {"--input " + file("inf.txt", "1 2 inf\n"), "inf.txt:1: inf is not a finite float"},
      {"--input " + file("empty.txt", "# nothing\n\n"), "empty.txt: no bodies (bh.input)"},
      {"--input " + (d / "missing.txt").string(), "missing.txt"},
  };
  for (const auto& c : bad) {
    const bool from_file = c.args.find("--input") != std::string::npos;
    auto r = run_fgsim(std::string("run bh ") + (from_file ? "" : "--set bh.bodies=16 ") + c.args + " --quiet");
    EXPECT_EQ(r.code, 2) << c.args << "\n" << r.err;
    EXPECT_NE(r.err.find(c.message), std::string::npos) << c.args << "\n" << r.err;
    EXPECT_EQ(test::error_lines(r.err), 1) << c.args << "\n" << r.err;
  }
}

}  // namespace
}  // namespace fg
