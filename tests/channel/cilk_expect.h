// SPDX-License-Identifier: Apache-2.0
// Expectations the channel and Cilk tests share: Table 3's context size, the
// yield books of a run, the same stats twice, the (CUs, capacity) test names.
#pragma once

#include <fmt/format.h>

#include <nlohmann/json.hpp>
#include <string>
#include <tuple>

#include "fg_test.h"

namespace fg::test {

// A context save (Orr et al. Sec. 6, Table 3): 856 B plus a 64-lane
// wavefront's s (4 B), d (8 B) and c (1 bit) registers.
constexpr double context_bytes(int s, int d, int c) { return 856 + s * 64 * 4 + d * 64 * 8 + c * 64 / 8; }

// No yields at a wide channel, some at a narrow one; every yield restarted;
// each saved `context` bytes.
inline void expect_yields_restarted(const nlohmann::json& s, bool narrow, double context) {
  if (narrow)
    EXPECT_GT(stat(s, "yield.yields"), 0);
  else
    EXPECT_EQ(stat(s, "yield.yields"), 0);
  EXPECT_EQ(stat(s, "yield.restarts"), stat(s, "yield.yields"));
  EXPECT_EQ(stat(s, "yield.save_bytes"), stat(s, "yield.yields") * context);
}

// Same config and seed, byte-identical stats (the host section aside).
inline void expect_same_stats(const std::string& args) {
  auto a = run_stats(args), b = run_stats(args);
  a.erase("host"), b.erase("host");
  EXPECT_EQ(a.dump(), b.dump());
}

// "<cus>cu_<capacity>" for tests parameterised by (CUs, channel capacity).
inline std::string cus_capacity_name(const ::testing::TestParamInfo<std::tuple<int, int>>& i) {
  return fmt::format("{}cu_{}", std::get<0>(i.param), std::get<1>(i.param));
}

}  // namespace fg::test
