// Synchronisation timing does not depend on the quantum: the pingpong
// hand-off (release store + acquire polling, or atomics) at every quantum up
// to the default is within 5% of its one-cycle-quantum value on both presets,
// and never below the physical round trip (L1 + L2 hit latency). Negative
// control: with sim.sync_order off the same measurement moves by more.
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <fmt/format.h>

#include "fg_test.h"

namespace fg {
namespace {

double handoff(const std::string& preset, const std::string& via, double quantum, bool order = true) {
  const auto path = (test::scratch_dir() / "pp.json").string();
  const auto r = test::run_fgsim(fmt::format("run pingpong --preset {} --quiet --set gpu.cus=2 --set pingpong.via={} "
                                             "--set sim.quantum={} --set sim.sync_order={} --stats {}",
                                             preset, via, quantum, order ? "true" : "false", path));
  EXPECT_EQ(r.code, 0) << r.err;
  const auto j = nlohmann::json::parse(test::slurp(path));
  return j["workload"]["results"]["handoff_ns"].get<double>();
}

struct Case {
  std::string preset, via;
  double cycle_ns, round_trip_ns;  // one CU cycle; L1 hit + L2 hit latency (the presets' cycles)
};

void PrintTo(const Case& c, std::ostream* os) { *os << c.preset << " via " << c.via; }

class HandOff : public ::testing::TestWithParam<Case> {};

TEST_P(HandOff, IndependentOfTheQuantumAndNeverBelowTheRoundTrip) {
  const Case c = GetParam();
  const double ref = handoff(c.preset, c.via, c.cycle_ns);
  EXPECT_GE(ref, c.round_trip_ns);
  for (double q : {5.0, 10.0, 15.0, 20.0, 30.0, 50.0}) {  // up to the default and beyond
    const double h = handoff(c.preset, c.via, q);
    EXPECT_NEAR(h, ref, 0.05 * ref) << "quantum " << q << " ns";
    EXPECT_GE(h, c.round_trip_ns) << "quantum " << q << " ns";
  }
}

INSTANTIATE_TEST_SUITE_P(Routes, HandOff,
                         ::testing::Values(Case{"orr2014", "store", 1.0, 20.0}, Case{"orr2014", "atomic", 1.0, 20.0},
                                           Case{"kim2014", "store", 1.0 / 0.7, 124.0 / 0.7},
                                           Case{"kim2014", "atomic", 1.0 / 0.7, 124.0 / 0.7}),
                         [](const auto& i) { return i.param.preset + "_" + i.param.via; });

TEST(HandOff, WithoutOrderingTheQuantumMovesIt) {  // shows the test above can fail
  const double ref = handoff("orr2014", "store", 1.0, false);
  double worst = 0;
  for (double q : {5.0, 10.0, 20.0}) worst = std::max(worst, std::abs(handoff("orr2014", "store", q, false) - ref) / ref);
  EXPECT_GT(worst, 0.05);
}

}  // namespace
}  // namespace fg
