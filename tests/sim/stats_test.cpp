// SPDX-License-Identifier: Apache-2.0
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "sim/stats.h"

namespace fg {
namespace {

TEST(Stats, HierarchicalNamesDescriptionsAndValues) {
  StatGroup g("gpu.cu3.l1");
  Counter hits(g, "hits", "read hits", "");
  Average q(g, "queue_delay", "wait", "ns");
  Distribution d(g, "util", "lanes", "", 0, 10, 5);
  ++hits;
  hits += 2;
  q.sample(1.0);
  q.sample(3.0);
  d.sample(1);
  d.sample(9);
  d.sample(12);
  nlohmann::ordered_json v, desc;
  StatRegistry::global().dump(v, desc);
  EXPECT_EQ(v["gpu.cu3.l1.hits"], 3);
  EXPECT_DOUBLE_EQ(v["gpu.cu3.l1.queue_delay"]["mean"].get<double>(), 2.0);
  EXPECT_EQ(v["gpu.cu3.l1.util"]["buckets"][0], 1);
  EXPECT_EQ(v["gpu.cu3.l1.util"]["buckets"][4], 1);
  EXPECT_EQ(v["gpu.cu3.l1.util"]["overflow"], 1);
  EXPECT_EQ(desc["gpu.cu3.l1.queue_delay"], "wait [ns]");
  EXPECT_DOUBLE_EQ(StatRegistry::global().sum_matching("gpu.cu", ".l1.hits"), 3.0);
}

// A sample of weight 0 (the SIMD utilization at a reconvergence point, which issues nothing) is no sample: the
// count, mean, minimum, maximum and buckets stay as they were.
TEST(Stats, ZeroWeightSampleIsNoSample) {
  StatGroup g("zw");
  Distribution d(g, "util", "lanes", "", 0, 1, 4);
  d.sample(0.5, 3);
  d.sample(0.03125, 0);
  d.sample(2.0, 0);
  EXPECT_EQ(d.count(), 3u);
  EXPECT_DOUBLE_EQ(d.mean(), 0.5);
  EXPECT_DOUBLE_EQ(d.min(), 0.5);
  EXPECT_DOUBLE_EQ(d.max(), 0.5);
  nlohmann::ordered_json v, desc;
  StatRegistry::global().dump(v, desc);
  EXPECT_EQ(v["zw.util"]["buckets"][0], 0);
  EXPECT_EQ(v["zw.util"]["buckets"][2], 3);
  EXPECT_EQ(v["zw.util"]["overflow"], 0);
}

// A series from changes: sample k is the value at the start of tick 10k,
// after every change before it; a change at tick 10 shows from sample 2 on.
TEST(Stats, SeriesSamplesTheValueAtTheStartOfEachInterval) {
  Series s(StatGroup("w"), "active", "threads", "threads", 10);
  s.set(0, 3);  // sample 0 (tick 0) sees 0, the value before this change
  s.set(4, 5);
  s.set(10, 7);  // sample 1 (tick 10) sees 5
  s.set(35, 1);  // samples 2 and 3 (ticks 20, 30) see 7
  EXPECT_EQ(s.samples(), (std::vector<std::uint64_t>{0, 5, 7, 7}));
  EXPECT_EQ(s.current(), 1u);
  EXPECT_DOUBLE_EQ(s.scalar(), 19.0 / 4);
  nlohmann::ordered_json v, desc;
  StatRegistry::global().dump(v, desc);
  EXPECT_EQ(v["w.active"]["interval"], 10);
  EXPECT_EQ(v["w.active"]["samples"].size(), 4u);
}

TEST(Stats, DestroyedStatsLeaveTheRegistry) {
  auto before = StatRegistry::global().all().size();
  {
    Counter c(StatGroup("x"), "y", "z", "");
    EXPECT_EQ(StatRegistry::global().all().size(), before + 1);
  }
  EXPECT_EQ(StatRegistry::global().all().size(), before);
}

}  // namespace
}  // namespace fg
