// SPDX-License-Identifier: Apache-2.0
// The simulation driver's fault paths, in process: a workload that waits for
// an event nobody notifies leaves no events behind, which is a deadlock
// (a simulated fault: simulate() reports it and returns exit 3) with the
// stats still written.
#include <fstream>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "fg_test.h"
#include "gpu/host.h"
#include "sim/error.h"
#include "top/simulation.h"

namespace fg {
namespace {

void wait_forever(Host&) {
  sc_core::sc_event never;
  sc_core::wait(never);
}
const RegisterWorkload reg{
    {"test_wait_forever", "test only: waits for an event nobody notifies", "", wait_forever, {}}};

TEST(Driver, NoEventsLeftIsADeadlockFaultAndStatsAreStillWritten) {
  FG_REQUIRE_FRESH_KERNEL();
  RunSpec spec;
  spec.workload = "test_wait_forever";
  spec.quiet = true;
  spec.stats_file = (test::scratch_dir() / "s.json").string();
  const Config cfg = resolve_config(spec);
  EXPECT_EQ(simulate(spec, cfg), kExitSimFault);
  auto j = nlohmann::json::parse(test::slurp(spec.stats_file));
  EXPECT_EQ(j["run"]["status"], "fault");
  EXPECT_NE(j["run"]["message"].get<std::string>().find("deadlock"), std::string::npos);
}

}  // namespace
}  // namespace fg
