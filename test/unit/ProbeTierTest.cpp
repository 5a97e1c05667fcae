//===- ProbeTierTest.cpp - hmplan probe's tier names ----------------------===//
#include "Tiers.h"
#include "tier.h"

#include <gtest/gtest.h>

#include <string>

namespace {

std::string tier(int HBW, int CPUs, double Measured, double DDRBest) {
  return hmplace_probe_tier(HBW, CPUs, Measured, DDRBest);
}

TEST(ProbeTier, MemkindHBWIsHBMWhateverMeasured) {
  EXPECT_EQ(tier(1, 0, 0, 0), "hbm");
  EXPECT_EQ(tier(1, 1, 10e9, 100e9), "hbm");
}

TEST(ProbeTier, NodeWithCPUsIsDDR) {
  EXPECT_EQ(tier(0, 1, 500e9, 100e9), "ddr");
}

TEST(ProbeTier, MemoryOnlyNodeTwentyPercentFasterIsHBM) {
  EXPECT_EQ(tier(0, 0, 121e9, 100e9), "hbm");
  EXPECT_EQ(tier(0, 0, 1100e9, 370e9), "hbm"); // Xeon Max, flat mode
}

TEST(ProbeTier, MemoryOnlyNodeNotTwentyPercentFasterIsSlow) {
  EXPECT_EQ(tier(0, 0, 119e9, 100e9), "slow");
  EXPECT_EQ(tier(0, 0, 120e9, 100e9), "slow"); // 20% exactly: not faster
  EXPECT_EQ(tier(0, 0, 30e9, 100e9), "slow");  // PMem, CXL
}

TEST(ProbeTier, UnmeasuredMemoryOnlyNodeIsSlow) {
  EXPECT_EQ(tier(0, 0, 0, 0), "slow");
  EXPECT_EQ(tier(0, 0, 500e9, 0), "slow"); // no node with CPUs measured
}

// Every name the probe writes is a tier hmplan advise --machine reads (the
// probe is C, the advisor's table C++: this ties the two).
TEST(ProbeTier, EveryNameIsAnAdvisorTier) {
  for (int HBW = 0; HBW < 2; ++HBW)
    for (int CPUs = 0; CPUs < 2; ++CPUs)
      for (double Measured : {0.0, 50e9, 200e9}) {
        std::string T = tier(HBW, CPUs, Measured, 100e9);
        EXPECT_NE(hmplace::findAdvisorTier(T), nullptr) << T;
      }
}

} // namespace
