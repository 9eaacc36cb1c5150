// SPDX-License-Identifier: Apache-2.0
// dmr through fgsim: every mechanism on generated meshes on kim2014 and the
// default machine passes its host checks (a valid triangulation of the
// square, Delaunay, no bad triangle left; the workload exits 3 otherwise)
// and obeys Euler's formula; every mechanism refines alike; a mesh read from .node/.ele files written here
// (zero-based numbers, attributes, markers, comments, a clockwise triangle);
// the --output round trip through the reader, as one file and split into
// .node and .ele; the hardware worklist's two backends agree; bad input is
// exit 2 naming the file and line or the key; running out of triangle slots
// is exit 3 naming dmr.max_factor.
#include <algorithm>
#include <cctype>
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

using Case = std::tuple<const char*, const char*>;  // mechanism, preset
class DmrWorkload : public ::testing::TestWithParam<Case> {};

TEST_P(DmrWorkload, RefinedDelaunayMeshWithoutBadTriangles) {
  const auto [m, p] = GetParam();
  const std::string M = m;
  auto j = run_json("run dmr" + preset_arg(p) + " --set gpu.cus=4 --set dmr.mechanism=" + M + " --set dmr.points=100");
  ASSERT_FALSE(j.is_null());
  EXPECT_EQ(j["run"]["status"], "ok");
  ASSERT_EQ(j["workload"]["checks"].size(), 3u);  // triangulation, Delaunay, quality
  const auto& r = j["workload"]["results"];
  EXPECT_EQ(r["points_in"], 104);  // and the square's corners
  EXPECT_EQ(r["triangles_in"], 202);
  EXPECT_GT(r["bad_in"].get<int>(), 20) << r.dump();
  EXPECT_EQ(r["bad_out"], 0);
  const int points = r["points_out"].get<int>(), splits = r["boundary_splits"].get<int>();
  EXPECT_EQ(r["insertions"].get<int>(), points - 104);
  EXPECT_GT(points, 2 * 104) << r.dump();
  EXPECT_GT(splits, 0) << r.dump();  // circumcentres outside the square split its sides
  // Euler on a disc: T = 2 V - B - 2, B boundary points (the corners and the splits).
  EXPECT_EQ(r["triangles_out"].get<int>(), 2 * points - (4 + splits) - 2) << r.dump();
  EXPECT_GE(r["triangle_slots"].get<int>(), r["triangles_out"].get<int>());
  const int rounds = r["rounds"].get<int>(), kernels = r["kernels"].get<int>();
  EXPECT_GT(rounds, 3) << r.dump();
  EXPECT_GT(r["conflicts"].get<int>(), 0) << r.dump();  // neighbouring bad triangles' cavities overlap
  EXPECT_GT(r["kernel_ns"].get<double>(), 0);
  if (M == "topo") {
    EXPECT_EQ(kernels, 2 + 2 * rounds);  // check, mark and commit per round, the last mark finding none
  } else {
    EXPECT_GE(kernels, 1 + 2 * rounds);  // a last mark may find only deleted triangles
    EXPECT_LE(kernels, 2 + 2 * rounds);
  }
  if (M == "swwl") {
    EXPECT_GT(r["pushes"].get<int>(), r["bad_in"].get<int>());
  }
  if (M == "hwwl") {
    const auto& st = j["stats"];
    // check's, mark's (every triangle that marked) and commit's pushes.
    EXPECT_GT(st["gpu.worklist.pushes"].get<int>(),
              r["bad_in"].get<int>() + r["conflicts"].get<int>() + r["insertions"].get<int>());
    EXPECT_EQ(st["gpu.worklist.pull_ids"], st["gpu.worklist.pushes"]);
  } else {
    EXPECT_FALSE(j["stats"].contains("gpu.worklist.pushes"));
  }
}

INSTANTIATE_TEST_SUITE_P(Generated, DmrWorkload,
                         ::testing::Combine(::testing::Values("topo", "swwl", "hwwl"),
                                            ::testing::Values("kim2014", "default")),
                         test::mechanism_preset_name);

// The priorities come from the geometry, not from the slots the atomic adds
// hand out: every mechanism, on any machine and quantum, makes the same mesh
// in the same rounds with the same conflicts.
TEST(DmrMechanisms, SameRefinementEverywhere) {
  const std::string base = "run dmr --preset kim2014 --set dmr.points=60 --set dmr.mechanism=";
  auto topo = run_json(base + "topo --set gpu.cus=4");
  ASSERT_FALSE(topo.is_null());
  const auto& want = topo["workload"]["results"];
  for (const std::string other : {"swwl --set gpu.cus=4", "hwwl --set gpu.cus=2 --set sim.quantum=50"}) {
    auto j = run_json(base + other);
    ASSERT_FALSE(j.is_null()) << other;
    const auto& r = j["workload"]["results"];
    for (const char* k : {"bad_in", "points_out", "triangles_out", "insertions", "boundary_splits", "triangle_slots",
                          "rounds", "conflicts"})
      EXPECT_EQ(r[k], want[k]) << other << " " << k;
  }
}

// A 4 x 1 rectangle as two triangles (angles of 14 degrees), numbered from
// 0, with an attribute and a marker per point, comments, and its second
// triangle clockwise (turned by the reader).
const char* kRectNode =
    "# a rectangle\n"
    "4 2 1 1\n"
    "0 0 0 7.5 1\n"
    "1 4 0 7.5 1   # a corner\n"
    "2 4 1 7.5 1\n"
    "\n"
    "3 0 1 7.5 1\n";
const char* kRectEle =
    "2 3 0\n"
    "0 0 1 2\n"
    "1 0 3 2\n";

void write(const std::filesystem::path& p, const std::string& text) { std::ofstream(p) << text; }

class DmrFile : public ::testing::TestWithParam<const char*> {};

TEST_P(DmrFile, RectangleFromNodeAndEleFiles) {
  const auto d = test::scratch_dir();
  write(d / "rect.node", kRectNode);
  write(d / "rect.ele", kRectEle);
  // The .node's path for one mechanism, the .ele's for the others.
  const std::string in = (d / (std::string(GetParam()) == "topo" ? "rect.node" : "rect.ele")).string();
  auto j = run_json(std::string("run dmr --preset kim2014 --set gpu.cus=2 --set dmr.mechanism=") + GetParam() +
                    " --input " + in);
  ASSERT_FALSE(j.is_null());
  const auto& r = j["workload"]["results"];
  EXPECT_EQ(r["points_in"], 4);
  EXPECT_EQ(r["triangles_in"], 2);
  EXPECT_EQ(r["bad_in"], 2);
  EXPECT_EQ(r["flipped_triangles"], 1);
  EXPECT_EQ(r["bad_out"], 0);
  const int points = r["points_out"].get<int>(), splits = r["boundary_splits"].get<int>();
  EXPECT_GT(points, 4);
  EXPECT_EQ(r["triangles_out"].get<int>(), 2 * points - (4 + splits) - 2) << r.dump();
  EXPECT_NE(r["mesh"].get<std::string>().find("rect.node"), std::string::npos);
}

INSTANTIATE_TEST_SUITE_P(Mechanisms, DmrFile, ::testing::Values("topo", "swwl", "hwwl"));

// --output: the .node then the .ele; read back (as one file, and split into
// a .node and a .ele) it is a valid Delaunay mesh with nothing to refine.
TEST(DmrOutput, RoundTripThroughTheReader) {
  const auto d = test::scratch_dir();
  const std::string out = (d / "refined.mesh").string();
  auto j = run_json("run dmr --preset kim2014 --set gpu.cus=4 --set dmr.mechanism=hwwl --set dmr.points=100 --output " +
                    out);
  ASSERT_FALSE(j.is_null());
  const auto& r = j["workload"]["results"];
  const int points = r["points_out"].get<int>(), triangles = r["triangles_out"].get<int>();
  std::istringstream text(test::slurp(out));
  std::vector<std::string> lines;
  for (std::string line; std::getline(text, line);) lines.push_back(line);
  ASSERT_EQ(lines.size(), static_cast<std::size_t>(points + triangles + 2));
  EXPECT_EQ(lines[0], std::to_string(points) + " 2 0 0");
  EXPECT_EQ(lines[1].rfind("1 0 0", 0), 0u) << lines[1];  // point 1 is the corner (0, 0)
  EXPECT_EQ(lines[points + 1], std::to_string(triangles) + " 3 0");
  std::ofstream node(d / "split.node"), ele(d / "split.ele");
  for (int i = 0; i < points + 1; ++i) node << lines[i] << '\n';
  for (std::size_t i = points + 1; i < lines.size(); ++i) ele << lines[i] << '\n';
  node.close(), ele.close();
  for (const std::string& in : {out, (d / "split.ele").string()}) {
    auto k = run_json("run dmr --preset kim2014 --set gpu.cus=2 --input " + in);
    ASSERT_FALSE(k.is_null()) << in;
    const auto& s = k["workload"]["results"];
    EXPECT_EQ(s["points_in"], points) << in;
    EXPECT_EQ(s["triangles_in"], triangles) << in;
    EXPECT_EQ(s["bad_in"], 0) << in;
    EXPECT_EQ(s["insertions"], 0) << in;
    EXPECT_EQ(s["rounds"], 0) << in;
  }
}

// The hardware worklist's golden model and its Verilated RTL give the same run.
TEST(DmrHardwareWorklist, ModelAndRtlBackendsAgree) {
  const std::string base =
      "run dmr --preset kim2014 --set gpu.cus=4 --set dmr.mechanism=hwwl --set dmr.points=60 --set "
      "worklist.backend=";
  auto a = run_json(base + "model"), b = run_json(base + "rtl");
  ASSERT_FALSE(a.is_null());
  ASSERT_FALSE(b.is_null());
  EXPECT_EQ(a["workload"]["results"], b["workload"]["results"]);
  for (const char* k : {"gpu.worklist.pushes", "gpu.worklist.pull_ids", "gpu.worklist.pull_waits"})
    EXPECT_EQ(a["stats"][k], b["stats"][k]) << k;
}

// Bad input: one line naming the key, or the file and line, exit 2.
TEST(DmrBadInput, KeysAndFilesAreExit2NamingThem) {
  const auto d = test::scratch_dir();
  auto file = [&](const std::string& name, const std::string& text) {
    write(d / name, text);
    return (d / name).string();
  };
  const std::string rect_ele = file("ok.ele", kRectEle);
  file("ok.node", kRectNode);
  struct Bad {
    std::string args, message;
  };
  const std::vector<Bad> bad{
      {"--set dmr.hwwl.overflow=8",
       "dmr.hwwl.overflow (set by --set dmr.hwwl.overflow) does not apply: dmr.mechanism is topo, not hwwl"},
      {"--set dmr.mechanism=swwl --set worklist.depth=64", "worklist.depth"},
      {"--set dmr.mechanism=bogus", "dmr.mechanism"},
      {"--set dmr.points=0", "dmr.points"},
      {"--input " + rect_ele + " --set dmr.points=50",
       "dmr.points (set by --set dmr.points) does not apply: the mesh is read from dmr.input"},
      {"--input " + (d / "missing.ele").string(), "missing.ele: input file (dmr.input) does not exist"},
      {"--input " + file("nan.node", "4 2 0 0\n1 0 0\n2 1 zero\n3 1 1\n4 0 1\n"),
       "nan.node:3: y 'zero' is not a finite number"},
      {"--input " + file("dim.node", "4 3 0 0\n"), "dim.node:1: dimension 3, not 2"},
      {"--input " + file("none.node", "# nothing\n0 2 0 0\n"), "none.node:2: no points"},
      {"--input " + file("gap.node", "3 2 0 0\n1 0 0\n3 1 0\n"), "gap.node:3: point number 3, not 2"},
      {"--input " + file("alone.node", "3 2 0 0\n1 0 0\n2 1 0\n3 0 1\n") + " --set dmr.mechanism=swwl",
       "alone.ele: cannot open"},
      {"--input " + file("short.mesh", "3 2 0 0\n1 0 0\n2 1 0\n3 0 1\n2 3 0\n1 1 2 3\n"),
       "short.mesh:6: the file ends after 1 of its 2 triangles"},
      {"--input " + file("far.mesh", "3 2 0 0\n1 0 0\n2 1 0\n3 0 1\n1 3 0\n1 1 2 9\n"),
       "far.mesh:6: node 9 is not a point (they are numbered 1..3)"},
      {"--input " + file("line.mesh", "3 2 0 0\n1 0 0\n2 1 1\n3 2 2\n1 3 0\n1 1 2 3\n"),
       "line.mesh:6: triangle 1 is degenerate: its nodes 1 2 3 are collinear or repeated"},
      {"--input " + file("lonely.mesh", "4 2 0 0\n1 0 0\n2 1 0\n3 0 1\n4 5 5\n1 3 0\n1 1 2 3\n"),
       "lonely.mesh:5: point 4 is in no triangle"},
      {"--input " + file("kite.mesh", "4 2 0 0\n1 -2 0\n2 0 -1\n3 2 0\n4 0 1\n2 3 0\n1 1 2 3\n2 1 3 4\n"),
       "kite.mesh:7: triangle 1: not Delaunay: point 4"},
      {"--input " + file("arrow.mesh", "4 2 0 0\n1 0 0\n2 2 1\n3 0 2\n4 1 1\n2 3 0\n1 1 2 4\n2 4 2 3\n"),
       "the domain is not convex"},
      {"--input " + file("overlap.mesh", "4 2 0 0\n1 0 0\n2 1 0\n3 0 1\n4 1 1\n2 3 0\n1 1 2 3\n2 1 2 4\n"),
       "overlap.mesh:8: triangle 2: its edge 1-2 is also in triangle 1 the same way round"},
  };
  for (const auto& c : bad) {
    auto r = run_fgsim("run dmr " + c.args + " --quiet");
    EXPECT_EQ(r.code, 2) << c.args << "\n" << r.err;
    EXPECT_NE(r.err.find(c.message), std::string::npos) << c.args << "\n" << r.err;
    EXPECT_EQ(test::error_lines(r.err), 1) << c.args << "\n" << r.err;
  }
}

// Too few triangle slots: exit 3 naming the key that raises them.
TEST(DmrBadInput, RunningOutOfSlotsIsExit3NamingTheKey) {
  auto r = run_fgsim("run dmr --preset kim2014 --set gpu.cus=2 --set dmr.points=200 --set dmr.max_factor=1 --quiet");
  EXPECT_EQ(r.code, 3) << r.err;
  EXPECT_NE(r.err.find("triangle slots"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("raise dmr.max_factor"), std::string::npos) << r.err;
}

// The software worklist's options (Table II; runtime/swwl.h) on swwl's three
// kernels: push (atomic / chunk / aru) in check and commit, mark pushing
// nothing; threads (0: VKC, N fixed) in all three; donate (WDO) in mark and
// commit. Every combination passes the host checks and, the priorities
// coming from the geometry, makes the default run's refinement.
const std::string kSwBase = "run dmr --preset kim2014 --set gpu.cus=4 --set dmr.mechanism=swwl --set dmr.points=100";

std::string sw_sets(const std::string& opts) {
  std::string sets;
  for (std::string o = opts; !o.empty();) {
    const auto comma = o.find(',');
    sets += " --set dmr.swwl." + o.substr(0, comma);
    o = comma == std::string::npos ? "" : o.substr(comma + 1);
  }
  return sets;
}

double stat_sum(const nlohmann::json& st, const std::string& suffix) {
  double n = 0;
  for (const auto& [k, v] : st.items())
    if (k.rfind("gpu.cu", 0) == 0 && k.find(".l1.") == std::string::npos && k.size() > suffix.size() &&
        k.compare(k.size() - suffix.size(), suffix.size(), suffix) == 0)
      n += v.get<double>();
  return n;
}

class DmrSoftwareOptions : public ::testing::TestWithParam<const char*> {};

TEST_P(DmrSoftwareOptions, EachOptionRunsChecksAndShows) {
  const std::string o = GetParam();
  auto base = run_json(kSwBase);
  auto j = run_json(kSwBase + sw_sets(o));
  ASSERT_FALSE(base.is_null());
  ASSERT_FALSE(j.is_null());
  EXPECT_EQ(j["run"]["status"], "ok");
  ASSERT_EQ(j["workload"]["checks"].size(), 3u);
  const auto &r = j["workload"]["results"], &want = base["workload"]["results"];
  EXPECT_EQ(r["bad_out"], 0);
  for (const char* k :
       {"bad_in", "points_out", "triangles_out", "insertions", "boundary_splits", "rounds", "conflicts"})
    EXPECT_EQ(r[k], want[k]) << o << " " << k;
  const bool aru = o.find("push=aru") != std::string::npos, chunk = o.find("push=chunk") != std::string::npos,
             donate = o.find("donate") != std::string::npos;
  const auto threads_at = o.find("threads=");
  const int threads = threads_at == std::string::npos ? 0 : std::stoi(o.substr(threads_at + 8));
  const auto& st = j["stats"];
  // Per kernel: the workgroups of check, mark and commit.
  double wg_check = 0, wg_mark = 0, wg_commit = 0;
  for (const auto& k : j["kernels"]) {
    const std::string name = k["name"];
    const double wg = k["workgroups"].get<double>();
    (name == "dmr_check_swwl" ? wg_check : name == "dmr_mark_swwl" ? wg_mark : wg_commit) += wg;
    // threads=N: every kernel, check included, launches N work-items.
    if (threads) {
      EXPECT_EQ(wg, (threads + 255) / 256) << name;
    }
  }
  if (threads) {
    EXPECT_EQ(r["work_items"].get<int>(), threads * r["kernels"].get<int>()) << r.dump();
    EXPECT_NE(r["work_items"], want["work_items"]);
  }
  // ARU's two barriers per workgroup in check and commit, WDO's two in mark
  // and commit: mark does no ARU (it pushes nothing), check no WDO.
  EXPECT_EQ(stat_sum(st, ".barriers"), 2 * (aru ? wg_check + wg_commit : 0) + 2 * (donate ? wg_mark + wg_commit : 0))
      << o;
  if (donate) {
    EXPECT_GT(r["donated_mark"].get<int>(), 0) << r.dump();
    EXPECT_GT(r["donated_commit"].get<int>(), 0) << r.dump();
    EXPECT_EQ(r["donated"].get<int>(), r["donated_mark"].get<int>() + r["donated_commit"].get<int>());
  } else {
    EXPECT_FALSE(r.contains("donated"));
  }
  if ((aru || chunk) && !threads) {
    // Against one atomic add on the list's count per push: chunk saves a
    // winner's extra pushes (an item pushes one triangle, or a winner its new
    // bad ones), aru nearly every push.
    const double pushes = r["pushes"].get<double>(), a = base["stats"]["gpu.l2.atomics"].get<double>(),
                 got = st["gpu.l2.atomics"].get<double>();
    EXPECT_LT(got, a - (aru ? 0.8 : 0.05) * pushes) << o << ": " << got << " against " << a << ", pushes " << pushes;
  }
}

INSTANTIATE_TEST_SUITE_P(Table2, DmrSoftwareOptions,
                         ::testing::Values("push=chunk", "push=aru", "threads=64", "threads=1024",
                                           "threads=64,donate=true", "threads=64,donate=true,push=aru",
                                           "threads=40,donate=true,push=chunk"),
                         [](const ::testing::TestParamInfo<const char*>& i) { return test::options_name(i); });

// The same configuration and seed give the same statistics (all but the
// host section), with every option on.
TEST(DmrSoftwareOptionsDeterminism, SameRunTwice) {
  const std::string args = kSwBase + sw_sets("threads=64,donate=true,push=aru");
  auto a = run_json(args), b = run_json(args);
  ASSERT_FALSE(a.is_null());
  ASSERT_FALSE(b.is_null());
  a.erase("host"), b.erase("host");
  EXPECT_EQ(a, b);
}

// The options apply to swwl only, and donating needs a fixed thread count:
// exit 2, one line naming the key.
TEST(DmrSoftwareOptionsRefused, Exit2NamingTheKey) {
  struct Bad {
    std::string args, message;
  };
  const std::vector<Bad> bad{
      {"--set dmr.swwl.push=chunk",
       "dmr.swwl.push (set by --set dmr.swwl.push) does not apply: dmr.mechanism is topo, not swwl"},
      {"--set dmr.mechanism=hwwl --set dmr.swwl.threads=512",
       "dmr.swwl.threads (set by --set dmr.swwl.threads) does not apply: dmr.mechanism is hwwl, not swwl"},
      {"--set dmr.mechanism=hwwl --set dmr.swwl.donate=true",
       "dmr.swwl.donate (set by --set dmr.swwl.donate) does not apply: dmr.mechanism is hwwl, not swwl"},
      {"--set dmr.mechanism=swwl --set dmr.swwl.donate=true",
       "dmr.swwl.donate (set by --set dmr.swwl.donate): work donating needs dmr.swwl.threads > 0"},
  };
  for (const auto& c : bad) {
    auto r = run_fgsim("run dmr " + c.args + " --quiet");
    EXPECT_EQ(r.code, 2) << c.args << "\n" << r.err;
    EXPECT_NE(r.err.find(c.message), std::string::npos) << c.args << "\n" << r.err;
    EXPECT_EQ(test::error_lines(r.err), 1) << c.args << "\n" << r.err;
  }
}

}  // namespace
}  // namespace fg
