//===- RoomTest.cpp - the margin kept split pages give way to -------------===//
//
// runtime/room_limit.h: before a placed allocation, kept split objects give
// their pages back where the allocation's nodes would keep less than a
// margin free, max(64 MiB, 1/32 of the nodes), after it. The limit it sets
// on what the process uses of the kind, for nodes of several sizes; a
// request that fits in the nodes' free memory but not with the margin is
// over it (the pages are given back); nodes short already give no room.
//
//===----------------------------------------------------------------------===//
#include "room_limit.h"

#include "gtest/gtest.h"

namespace {

constexpr int64_t MiB = int64_t(1) << 20, GiB = int64_t(1) << 30;

TEST(RoomTest, MarginIsAFloorOrAThirtySecond) {
  EXPECT_EQ(hm_room_margin(1 * GiB), 64 * MiB);
  EXPECT_EQ(hm_room_margin(2 * GiB), 64 * MiB);
  EXPECT_EQ(hm_room_margin(16 * GiB), 512 * MiB);
  EXPECT_EQ(hm_room_margin(0), 64 * MiB);
}

TEST(RoomTest, LimitIsWhatWasUsedAndTheFreePastTheMargin) {
  // A 1 GiB HBM node with 500 MiB free while the process used 100 MiB.
  EXPECT_EQ(hm_room_limit_of(100 * MiB, 500 * MiB, GiB), 536 * MiB);
  // A 16 GiB tile, 8 GiB free, nothing used yet.
  EXPECT_EQ(hm_room_limit_of(0, 8 * GiB, 16 * GiB), 8 * GiB - 512 * MiB);
}

TEST(RoomTest, ARequestInsideTheMarginIsOver) {
  // 1000 MiB free: a 950 MiB request fits the free memory, not the margin.
  int64_t Limit = hm_room_limit_of(0, 1000 * MiB, GiB);
  EXPECT_LT(950 * MiB, 1000 * MiB);
  EXPECT_GT(950 * MiB, Limit);
  EXPECT_LE(900 * MiB, Limit);
}

TEST(RoomTest, NodesShortAlreadyGiveNoRoom) {
  EXPECT_EQ(hm_room_limit_of(0, 10 * MiB, GiB), 0);
  EXPECT_EQ(hm_room_limit_of(20 * MiB, 30 * MiB, 4 * GiB), 0);
}

} // namespace
