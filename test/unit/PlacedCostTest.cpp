//===- PlacedCostTest.cpp - the placed path's cost, HBM's saving ---------===//
//
// The advisor's cost term (PlacedCost.h): a placed allocation's cost follows
// the measured curve, flat below 16 KiB, linear between the points and past
// the last; --alloc-cost replaces it for every size; what HBM saves a miss
// is a 64-byte line at each tier's per-core share of its bandwidth, from
// the given bandwidths and cores or the defaults, and never below zero.
//
//===----------------------------------------------------------------------===//
#include "PlacedCost.h"

#include "gtest/gtest.h"

using namespace hmplace;

namespace {

TEST(PlacedCost, MeasuredCurve) {
  PlacedCost C = PlacedCost::make({}, 0, -1);
  EXPECT_TRUE(C.on());
  EXPECT_DOUBLE_EQ(C.allocCost(1), 13);
  EXPECT_DOUBLE_EQ(C.allocCost(16384), 13);
  EXPECT_DOUBLE_EQ(C.allocCost(262144), 205);
  EXPECT_DOUBLE_EQ(C.allocCost(1048576), 335);
  // Halfway between 256 KiB and 1 MiB; past 1 MiB at the last slope.
  EXPECT_DOUBLE_EQ(C.allocCost(655360), 270);
  EXPECT_DOUBLE_EQ(C.allocCost(1048576 + 786432), 465);
}

TEST(PlacedCost, FlatCost) {
  PlacedCost C = PlacedCost::make({}, 0, 40);
  EXPECT_DOUBLE_EQ(C.allocCost(64), 40);
  EXPECT_DOUBLE_EQ(C.allocCost(1 << 30), 40);
  EXPECT_FALSE(PlacedCost::make({}, 0, 0).on());
}

TEST(PlacedCost, SavedPerMiss) {
  // 64 B x 56 x (1/370 GB/s - 1/1100 GB/s) = 6.43 ns.
  PlacedCost D = PlacedCost::make({}, 0, -1);
  EXPECT_NEAR(D.SavedPerMiss, 6.428, 0.001);
  EXPECT_EQ(D.Cores, DefaultCores);
  PlacedCost G = PlacedCost::make({1100e9, 100e9}, 1, -1);
  EXPECT_NEAR(G.SavedPerMiss, 0.582, 0.001);
  // A "fast" tier slower than the slow one saves nothing.
  EXPECT_DOUBLE_EQ(PlacedCost::make({100e9, 370e9}, 56, -1).SavedPerMiss, 0);
}

} // namespace
