// SPDX-License-Identifier: Apache-2.0
// The task metrics every mechanism reports alike (gpu/task_metrics.h): each
// value agrees with the mechanism-specific counters it derives from.
#include <string>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "fg_test.h"

namespace fg {
namespace {

using test::run_stats;
using test::stat;

double sum(const nlohmann::json& s, const std::string& prefix, const std::string& suffix) {
  double v = 0;
  for (const auto& [k, x] : s["stats"].items())
    if (k.rfind(prefix, 0) == 0 && k.size() >= suffix.size() &&
        k.compare(k.size() - suffix.size(), suffix.size(), suffix) == 0 && x.is_number())
      v += x.get<double>();
  return v;
}

// Channels: a CE is a task. fib with narrow channels, so wavefronts yield too.
TEST(TaskMetrics, ChannelsAgreeWithTheChannelAndAggregatorCounters) {
  const auto s = run_stats("fib --preset orr2014 --set gpu.cus=4 --set fib.n=16 --set fib.capacity=256");
  ASSERT_GT(stat(s, "yield.yields"), 0) << "the run is meant to yield";
  EXPECT_EQ(stat(s, "tasks.channels.created"), sum(s, "channels.", ".produced"));
  EXPECT_EQ(stat(s, "tasks.channels.run"), stat(s, "aggregator.ces_dispatched"));
  EXPECT_EQ(stat(s, "tasks.channels.run"), stat(s, "tasks.channels.created"));  // every CE consumed
  EXPECT_EQ(stat(s, "tasks.channels.control_instructions"), stat(s, "aggregator.instructions"));
  // The runtime's atomics: every CAS it tried, and one done-count add per CE.
  EXPECT_EQ(stat(s, "tasks.channels.sched_atomics"),
            sum(s, "channels.", ".cas_attempts") + stat(s, "aggregator.ces_dispatched"));
  const double instr = sum(s, "gpu.cu", ".wavefront_instructions");
  EXPECT_GT(stat(s, "tasks.channels.sched_instructions"), 0);
  EXPECT_LT(stat(s, "tasks.channels.sched_instructions"), instr);
  // Yielded contexts are task state moved, and their spill blocks task storage.
  EXPECT_GT(stat(s, "tasks.channels.state_bytes"), stat(s, "yield.save_bytes") + stat(s, "yield.restore_bytes"));
  EXPECT_GT(stat(s, "tasks.channels.peak_storage_bytes"), stat(s, "yield.spill_bytes"));
  EXPECT_EQ(stat(s, "tasks.channels.wait_ns"), 0);  // consumers are launched with their CE
}

// The hardware worklist: a work ID is a task; small banks, so it spills.
TEST(TaskMetrics, WorklistAgreesWithTheWorklistCounters) {
  const auto s = run_stats("bfs --preset kim2014 --set bfs.mechanism=hwwl --set bfs.scale=10 --set worklist.depth=8");
  EXPECT_EQ(stat(s, "tasks.worklist.created"), stat(s, "gpu.worklist.pushes"));
  EXPECT_EQ(stat(s, "tasks.worklist.run"), stat(s, "gpu.worklist.pull_ids"));
  ASSERT_GT(stat(s, "gpu.worklist.hvu.spills"), 0) << "the run is meant to spill";
  EXPECT_EQ(stat(s, "tasks.worklist.state_bytes"),
            stat(s, "gpu.worklist.hvu.bytes_written") + stat(s, "gpu.worklist.hvu.bytes_read"));
  EXPECT_EQ(stat(s, "tasks.worklist.control_instructions"), 0);  // no firmware
  EXPECT_EQ(stat(s, "tasks.worklist.sched_atomics"), 0);         // no atomics: hardware queues
  // wlpull / wlpush / wlcfg / wlinit: at least one instruction per pull or push of a wavefront.
  EXPECT_GT(stat(s, "tasks.worklist.sched_instructions"), 0);
  EXPECT_LT(stat(s, "tasks.worklist.sched_instructions"), sum(s, "gpu.cu", ".wavefront_instructions"));
  // Spinning waiters (the default): their wait is the time from a wavefront's first all-WAIT pull to its next
  // answer that is not all WAIT.
  ASSERT_GT(stat(s, "gpu.worklist.wait_spins"), 0);
  EXPECT_EQ(stat(s, "gpu.worklist.wait_blocks"), 0);
  EXPECT_GT(stat(s, "tasks.worklist.wait_ns"), 0);
  EXPECT_GE(stat(s, "tasks.worklist.peak_storage_bytes"), 4 * 8);
  EXPECT_LE(stat(s, "tasks.worklist.peak_storage_bytes"), 4 * stat(s, "gpu.worklist.pushes"));
}

// A run that uses no mechanism reports none.
TEST(TaskMetrics, APlainKernelHasNone) {
  const auto s = run_stats("bfs --preset kim2014 --set bfs.mechanism=topo --set bfs.scale=8");
  for (const auto& [k, v] : s["stats"].items()) EXPECT_NE(k.rfind("tasks.", 0), 0u) << k;
}

}  // namespace
}  // namespace fg
