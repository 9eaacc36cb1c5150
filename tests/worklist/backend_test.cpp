// SPDX-License-Identifier: Apache-2.0
// The worklist's two backends: the same run with worklist.backend=model (the
// golden model) and =rtl (the Verilated RTL) gives the same workload results,
// distances and statistics, byte for byte (only the host section and the
// backend's own config line may differ); the waveform of the rtl backend
// (--vcd) and its cycle window. The configurations are the ones built into
// fgsim for this test (FG_HWWL_RTL_CONFIGS; `fgsim list`).
#include <cmath>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "fg_test.h"

namespace fg {
namespace {

using test::run_fgsim;

struct Case {
  const char* name;
  const char* workload;
  const char* args;  // machine, worklist configuration and graph
};

// gpu.cus 2 and worklist.depth 64 with graphs small enough not to overflow;
// three schemes of the RTL, bank sharing (8 banks for 16 lanes), both
// presets' timing; and the paper's 32-entry banks on 4 cores, where the
// virtualization unit spills and refills through the RTL's refill port (both
// refill schemes; "Spill" in the name: spills are required), also under
// gsorting.
const Case kCases[] = {
    {"BfsGridLsorting", "bfs",
     "--preset kim2014 --set gpu.cus=2 --set worklist.depth=64 "
     "--set bfs.generator=grid --set bfs.scale=8"},
    {"SsspGridLsorting", "sssp",
     "--preset kim2014 --set gpu.cus=2 --set worklist.depth=64 "
     "--set sssp.generator=grid --set sssp.scale=8"},
    {"BfsUniformThreshold", "bfs",
     "--preset kim2014 --set gpu.cus=2 --set worklist.depth=64 "
     "--set worklist.scheme=threshold --set worklist.threshold=3 --set worklist.interval=4 "
     "--set bfs.generator=uniform --set bfs.scale=7 --set bfs.edge_factor=2"},
    {"SsspUniformThreshold", "sssp",
     "--set gpu.cus=2 --set worklist.depth=64 --set worklist.scheme=threshold "
     "--set worklist.threshold=3 --set worklist.interval=4 "
     "--set sssp.generator=uniform --set sssp.scale=8 --set sssp.edge_factor=4"},
    {"BfsGridNoneSharedBanks", "bfs",
     "--preset orr2014 --set gpu.cus=2 --set gpu.cu.simd_width=16 "
     "--set worklist.lanes=8 --set worklist.depth=64 --set worklist.scheme=none "
     "--set bfs.generator=grid --set bfs.scale=8"},
    {"BfsRmatSpillInterval", "bfs", "--preset kim2014 --set gpu.cus=4 --set bfs.scale=9"},
    {"SsspRmatSpillOnDemand", "sssp",
     "--preset kim2014 --set gpu.cus=4 --set worklist.refill=on_demand "
     "--set sssp.scale=9"},
    // gsorting on the paper's machine: the global ranking (hwwl_grank) of all
    // 64 banks feeding every core's WRU, spilling and refilling.
    {"SsspRmatGsortingSpillOnDemand", "sssp",
     "--preset kim2014 --set gpu.cus=4 --set worklist.scheme=gsorting --set worklist.refill=on_demand "
     "--set sssp.scale=9"},
    {"BfsRmatGsortingSpillInterval", "bfs",
     "--preset kim2014 --set gpu.cus=4 --set worklist.scheme=gsorting --set bfs.scale=9"},
    // Single-buffer mode (one persistent kernel; the unit's DONE rule).
    {"BfsGridSingleBuffer", "bfs",
     "--preset kim2014 --set gpu.cus=2 --set worklist.depth=64 "
     "--set bfs.generator=grid --set bfs.scale=8 --set bfs.hwwl.buffer=single"},
};

// ctest lists the case by name (not its bytes).
void PrintTo(const Case& c, std::ostream* os) { *os << c.name; }

class Backends : public ::testing::TestWithParam<Case> {};

TEST_P(Backends, ModelAndRtlGiveIdenticalResultsAndStatistics) {
  const Case& c = GetParam();
  const std::string W = c.workload;
  const auto dir = test::scratch_dir();
  nlohmann::json j[2];
  std::string dist[2];
  const char* backends[2] = {"model", "rtl"};
  for (int b = 0; b < 2; ++b) {
    const std::string out = (dir / (std::string(backends[b]) + ".dist")).string();
    const auto r =
        run_fgsim("run " + W + " " + c.args + " --set " + W + ".mechanism=hwwl --set worklist.backend=" + backends[b] +
                  " --quiet --stats - --output " + out);
    ASSERT_EQ(r.code, 0) << backends[b] << ": " << r.err;
    j[b] = nlohmann::json::parse(r.out);
    dist[b] = test::slurp(out);
  }
  // A real run through the worklist, checked against the host reference.
  ASSERT_EQ(j[0]["workload"]["checks"].size(), 1u);
  EXPECT_GT(j[0]["workload"]["results"]["reached"].get<int>(), 50);
  EXPECT_GT(j[0]["stats"]["gpu.worklist.pushes"].get<int>(), 50);
  EXPECT_GT(j[0]["stats"]["gpu.worklist.pull_waits"].get<int>() + j[0]["stats"]["gpu.worklist.port_retries"].get<int>(),
            0);
  if (std::string(c.name).find("Spill") != std::string::npos) {
    EXPECT_GT(j[0]["stats"]["gpu.worklist.hvu.spills"].get<int>(), 20);
    EXPECT_EQ(j[0]["stats"]["gpu.worklist.hvu.refills"], j[0]["stats"]["gpu.worklist.hvu.spills"]);
  }
  EXPECT_EQ(dist[0], dist[1]) << "distances differ";
  EXPECT_FALSE(dist[0].empty());
  for (auto& x : j) {
    x.erase("host");
    ASSERT_TRUE(x["config"].contains("worklist.backend"));
    x["config"].erase("worklist.backend");
  }
  for (const auto& [k, v] : j[0].items()) {
    if (k == "stats") {
      for (const auto& [s, n] : v.items()) EXPECT_EQ(n, j[1]["stats"][s]) << "stat " << s;
    } else {
      EXPECT_EQ(v, j[1][k]) << "section " << k;
    }
  }
  EXPECT_EQ(j[0].dump(), j[1].dump());
}

INSTANTIATE_TEST_SUITE_P(Rtl, Backends, ::testing::ValuesIn(kCases),
                         [](const ::testing::TestParamInfo<Case>& i) { return std::string(i.param.name); });

// The waveform tests' run: bfs with the rtl backend, the waveform in vcd.
const char* const kWaveRun =
    "run bfs --preset kim2014 --set gpu.cus=2 --set worklist.depth=64 --set bfs.generator=grid --set bfs.scale=6 "
    "--set bfs.mechanism=hwwl --set worklist.backend=rtl --quiet --stats - ";

// A VCD text's time stamps (#t lines): the first, the last and how many.
struct Stamps {
  std::uint64_t first = ~0ull, last = 0, count = 0;
};
Stamps stamps_of(const std::string& text) {
  Stamps s;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);)
    if (line.size() > 1 && line[0] == '#') {
      const std::uint64_t t = std::stoull(line.substr(1));
      s.first = std::min(s.first, t);
      s.last = std::max(s.last, t);
      ++s.count;
    }
  return s;
}

// --vcd: the RTL's waveform, dumped within the cycle window (at the clock
// period of the GPU: 700 MHz on kim2014, 1428 ps per cycle).
TEST(BackendWave, VcdWithinTheCycleWindow) {
  const auto dir = test::scratch_dir();
  const std::string vcd = (dir / "wl.vcd").string();
  const auto r =
      run_fgsim(std::string(kWaveRun) + "--set worklist.vcd_from=100 --set worklist.vcd_to=199 --vcd " + vcd);
  ASSERT_EQ(r.code, 0) << r.err;
  const auto period_ps = std::llround(1e6 / 700.0);
  const std::string text = test::slurp(vcd);
  ASSERT_NE(text.find("$enddefinitions"), std::string::npos);
  EXPECT_NE(text.find("pull_i"), std::string::npos);
  const auto [first, last, stamps] = stamps_of(text);
  // Two time stamps per cycle (inputs and outputs, rising edge).
  EXPECT_EQ(stamps, 200u);
  EXPECT_NEAR(static_cast<double>(first), 100.0 * static_cast<double>(period_ps), 100.0);
  EXPECT_NEAR(static_cast<double>(last), 199.5 * static_cast<double>(period_ps), 300.0);
}

// A window open to the end: every unit cycle from vcd_from on is in the
// waveform, at its simulated time, including those the unit fast-forwards
// (the rtl backend clocks them then) and after cycles it skipped before the
// window (it sets the RTL's counters there and keeps the waveform's time).
TEST(BackendWave, VcdToTheEndHasEveryCycleAtItsTime) {
  const auto dir = test::scratch_dir();
  const std::string vcd = (dir / "wl.vcd").string();
  const auto r = run_fgsim(std::string(kWaveRun) + "--set worklist.vcd_from=100 --vcd " + vcd);
  ASSERT_EQ(r.code, 0) << r.err;
  const auto j = nlohmann::json::parse(r.out);
  const auto cycles = j["stats"]["gpu.worklist.cycles"].get<std::uint64_t>();
  ASSERT_GT(j["stats"]["gpu.worklist.skipped_cycles"].get<std::uint64_t>(), cycles / 2);
  const auto [first, last, stamps] = stamps_of(test::slurp(vcd));
  EXPECT_EQ(stamps, 2 * (cycles - 100));
  // The clock period in the file (whole picoseconds of 700 MHz), from cycle
  // 100's stamp; the last stamp is the last cycle's rising edge.
  ASSERT_EQ(first % 100, 0u);
  const std::uint64_t period = first / 100;
  EXPECT_NEAR(static_cast<double>(period), 1e6 / 700.0, 1.0);
  EXPECT_EQ(last, (2 * cycles - 1) * period / 2);
}

}  // namespace
}  // namespace fg
