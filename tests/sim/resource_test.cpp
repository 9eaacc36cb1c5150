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

}  // namespace
}  // namespace fg
