// SPDX-License-Identifier: Apache-2.0
// The simulation driver's fault paths, in process: a workload that waits for
// an event nobody notifies leaves no events behind, which is a deadlock
// (a simulated fault: simulate() reports it and returns exit 3) with the
// stats still written; a workload that loops in zero simulated time is
// ended by the stall watchdog (exit 3, no statistics, no temporary files
// left) once the host-time limit or a SIGTERM asks for a stop it cannot get.
#include <unistd.h>

#include <csignal>
#include <filesystem>
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

// Delta cycles without end at 0 ns: the slice never returns.
void zero_time_livelock(Host&) {
  for (;;) sc_core::wait(sc_core::SC_ZERO_TIME);
}
const RegisterWorkload reg_livelock{
    {"test_zero_time_livelock", "test only: waits for zero time forever", "", zero_time_livelock, {}}};
// The signal inside a slice (not in the one delta cycle of the first).
void sigterm_then_livelock(Host&) {
  sc_core::wait(1, sc_core::SC_NS);
  std::raise(SIGTERM);
  for (;;) sc_core::wait(sc_core::SC_ZERO_TIME);
}
const RegisterWorkload reg_sigterm{{"test_sigterm_then_livelock",
                                    "test only: at 1 ns raises SIGTERM, then waits for zero time forever",
                                    "",
                                    sigterm_then_livelock,
                                    {}}};

// The livelock run in a child process (it ends with _Exit): its stats and
// output files must not appear, nor their temporary files stay behind.
void expect_livelock_fault(const std::string& workload, const std::vector<std::string>& sets,
                           const std::string& cause) {
  const std::filesystem::path dir = test::scratch_dir() / workload;
  std::filesystem::create_directories(dir);
  RunSpec spec;
  spec.workload = workload;
  spec.quiet = true;
  spec.stats_file = (dir / "s.json").string();
  spec.output_file = (dir / "out.txt").string();
  spec.sets = sets;
  spec.sets.push_back("sim.stall_seconds=0.5");
  const Config cfg = resolve_config(spec);
  // SIGALRM ends a child that the watchdog fails to end (the test then fails, it does not hang).
  EXPECT_EXIT((::alarm(20), simulate(spec, cfg)), testing::ExitedWithCode(kExitSimFault),
              "fgsim: simulated fault: livelock: " + cause +
                  " at [0-9.]+ s of host time, but the time slice from 0 ns to 1000 ns was still running");
  EXPECT_TRUE(std::filesystem::is_empty(dir)) << "files left in " << dir;
}

TEST(DriverDeathTest, AZeroTimeLivelockPastTheHostLimitIsAFault) {
  FG_REQUIRE_FRESH_KERNEL();
  expect_livelock_fault("test_zero_time_livelock", {"sim.max_host_seconds=0.2"},
                        "sim.max_host_seconds \\(0.2 s\\) passed");
}

TEST(DriverDeathTest, AZeroTimeLivelockAfterASigtermIsAFault) {
  FG_REQUIRE_FRESH_KERNEL();
  expect_livelock_fault("test_sigterm_then_livelock", {}, "SIGTERM arrived");
}

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
