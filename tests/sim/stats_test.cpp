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
