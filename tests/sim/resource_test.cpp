// SPDX-License-Identifier: Apache-2.0
// The reservation calendar behind every contended resource.
#include <gtest/gtest.h>

#include "mem/resource.h"

namespace fg {
namespace {

TEST(Resource, InOrderRequestsQueueBehindEachOther) {
  Resource r;
  EXPECT_EQ(r.reserve(0, 10, 0), 0u);
  EXPECT_EQ(r.reserve(0, 10, 0), 10u);
  EXPECT_EQ(r.reserve(5, 10, 0), 20u);
  EXPECT_EQ(r.reserve(100, 10, 0), 100u);
  EXPECT_EQ(r.busy_ticks(), 40u);
}

TEST(Resource, LateArrivalInTheHostOrderFillsAnEarlierGap) {
  Resource r;
  EXPECT_EQ(r.reserve(100, 10, 0), 100u);  // ran first on the host, later in simulated time
  EXPECT_EQ(r.reserve(0, 10, 0), 0u);      // earlier in simulated time: not queued behind it
  EXPECT_EQ(r.reserve(95, 10, 0), 110u);   // does not fit in [10,100) after 95: next free slot
  EXPECT_EQ(r.reserve(50, 40, 0), 50u);    // fits exactly into the gap
  EXPECT_EQ(r.reserve(50, 20, 0), 120u);
}

TEST(Resource, ZeroOccupancyNeverQueues) {
  Resource r;
  r.reserve(0, 100, 0);
  EXPECT_EQ(r.reserve(10, 0, 0), 10u);
}

TEST(Resource, PastReservationsArePruned) {
  Resource r;
  r.reserve(0, 10, 0);
  // Global time moved past the old interval: a request at 5 can no longer exist,
  // one at 1000 sees a free resource.
  EXPECT_EQ(r.reserve(1000, 10, 500), 1000u);
}

// Many reservations dropped as time passes, then one placed out of order: the
// calendar's dropped prefix must not hide or shift the live intervals.
TEST(Resource, OutOfOrderPlacementAfterManyDropped) {
  Resource r;
  for (Tick t = 0; t < 1000; ++t) r.reserve(t * 10, 5, t * 10);  // each dropped by the next
  EXPECT_EQ(r.reserve(10000, 5, 9990), 10000u);
  EXPECT_EQ(r.reserve(10020, 5, 9990), 10020u);
  EXPECT_EQ(r.reserve(10003, 5, 9990), 10005u);   // after [10000, 10005)
  EXPECT_EQ(r.reserve(10003, 15, 9990), 10025u);  // no 15-tick gap before 10025
  EXPECT_EQ(r.reserve(10010, 10, 9990), 10010u);  // exactly fills [10010, 10020)
}

// Bounded queue / MSHRs: k entries, granted in arrival order; an entry is held
// until its leave time.
TEST(Slots, TheKthLatestLeaveTimeFreesTheNextEntry) {
  Slots q(2);
  EXPECT_EQ(q.earliest(0), 0u);
  q.hold(0, 10);
  EXPECT_EQ(q.earliest(0), 0u);  // one held, one free
  q.hold(0, 30);
  EXPECT_EQ(q.earliest(5), 10u);  // both held: the first leaves at 10
  q.hold(10, 20);
  EXPECT_EQ(q.earliest(12), 20u);  // held until 30 and 20
  EXPECT_EQ(q.earliest(25), 25u);  // only the one until 30 is still held
  q.hold(40, 40);                  // zero length: never held
  EXPECT_EQ(q.earliest(25), 25u);
}

TEST(Slots, UnlimitedNeverWaits) {
  Slots q(0);
  for (Tick t = 0; t < 100; ++t) q.hold(0, 1000);
  EXPECT_EQ(q.earliest(3), 3u);
}

// Per-line calendars (the L2's atomics in flight and directory transactions):
// every line keeps its own reservations however many lines the table holds,
// and a prune forgets only lines with nothing pending.
TEST(LineCalendars, EachLineKeepsItsOwnCalendarAcrossGrowth) {
  LineCalendars c;
  EXPECT_EQ(c.find(7), nullptr);
  constexpr std::uint64_t kLines = 20000;
  for (std::uint64_t i = 0; i < kLines; ++i) c[i * 4096 + (i & 3)].reserve(0, 1 + i % 97, 0);  // strided lines
  EXPECT_EQ(c.size(), kLines);
  for (std::uint64_t i = 0; i < kLines; ++i) {
    Resource* r = c.find(i * 4096 + (i & 3));
    ASSERT_NE(r, nullptr) << i;
    EXPECT_EQ(r->busy_ticks(), 1 + i % 97) << i;
    EXPECT_EQ(&c[i * 4096 + (i & 3)], r) << i;  // the same calendar, not a new one
  }
  EXPECT_EQ(c.size(), kLines);
  EXPECT_EQ(c.find(4096 + 2), nullptr);
}

TEST(LineCalendars, PruneForgetsOnlyIdleLines) {
  LineCalendars c;
  for (std::uint64_t i = 0; i < 5000; ++i) c[i].reserve(0, i % 2 ? 1000 : 10, 0);  // odd lines busy until 1000
  c.prune(500);                                                                    // 5,000 > 4,096 lines: prunes
  EXPECT_EQ(c.size(), 2500u);
  for (std::uint64_t i = 0; i < 5000; ++i) {
    Resource* r = c.find(i);
    if (i % 2 == 0) {
      EXPECT_EQ(r, nullptr) << i;
    } else {
      ASSERT_NE(r, nullptr) << i;
      EXPECT_EQ(r->earliest(600, 1, 500), 1000u) << i;
    }
  }
  c.prune(2000);  // 2,500 lines: under the new limit, nothing scanned
  EXPECT_EQ(c.size(), 2500u);
}

}  // namespace
}  // namespace fg
