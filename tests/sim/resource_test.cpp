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

}  // namespace
}  // namespace fg
