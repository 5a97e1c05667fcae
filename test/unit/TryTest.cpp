//===- TryTest.cpp - `hmplan try`'s statistics, points and chart ----------===//
//
// The rank test's exact p-values on cases worked by hand (with and without
// ties), its normal approximation beyond 80 values, Holm's adjustment, the
// least p a number of runs can give; the plan's placing entries in order
// (the ordinary heap's left out, one key once), the points by count and by
// capacity with their errors, a point's entries file; and the chart's dots.
//
//===----------------------------------------------------------------------===//
#include "TryPoints.h"
#include "TryStats.h"
#include "TrySvg.h"
#include "plan/Plan.h"

#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/raw_ostream.h"

#include "gtest/gtest.h"

using namespace hmplace;

namespace {

TEST(TryStats, SpreadOfOddAndEvenCounts) {
  Spread S = spreadOf({3, 1, 2});
  EXPECT_EQ(S.Median, 2);
  EXPECT_EQ(S.Min, 1);
  EXPECT_EQ(S.Max, 3);
  EXPECT_EQ(spreadOf({4, 1, 3, 2}).Median, 2.5);
}

TEST(TryStats, ExactPSeparatedSamples) {
  // Only the two complete separations of C(10, 5) = 252 orderings.
  EXPECT_NEAR(mannWhitneyP({1, 2, 3, 4, 5}, {6, 7, 8, 9, 10}), 2.0 / 252,
              1e-12);
  EXPECT_NEAR(mannWhitneyP({6, 7, 8, 9, 10}, {1, 2, 3, 4, 5}), 2.0 / 252,
              1e-12);
  EXPECT_NEAR(mannWhitneyP({1, 2, 3}, {4, 5, 6}), 0.1, 1e-12);
}

TEST(TryStats, ExactPByHand) {
  // Ranks 1, 2, 4 of 6: sum 7 against a mean of 10.5; as far out: the
  // sums 6, 7, 14 and 15, four subsets of 20.
  EXPECT_NEAR(mannWhitneyP({1, 2, 4}, {3, 5, 6}), 0.2, 1e-12);
  // Interleaved: sum 9, 1.5 from the mean; as far out: the sums up to 9
  // (1 + 1 + 2 + 3 subsets) and from 12, 14 of 20.
  EXPECT_NEAR(mannWhitneyP({1, 3, 5}, {2, 4, 6}), 0.7, 1e-12);
}

TEST(TryStats, TiesUseTheirMidranks) {
  EXPECT_EQ(mannWhitneyP({1, 1, 1}, {1, 1, 1}), 1.0);
  // Pooled 1 1 2 2 | midranks 1.5 1.5 3.5 3.5: A takes both 1s, one of six
  // subsets per side is as far out.
  EXPECT_NEAR(mannWhitneyP({1, 1}, {2, 2}), 2.0 / 6, 1e-12);
  // A tie across the samples lowers the evidence of a separation.
  EXPECT_GT(mannWhitneyP({1, 2, 3, 4, 5}, {5, 6, 7, 8, 9}),
            mannWhitneyP({1, 2, 3, 4, 5}, {6, 7, 8, 9, 10}));
}

TEST(TryStats, EmptySampleIsNoEvidence) {
  EXPECT_EQ(mannWhitneyP({}, {1, 2}), 1.0);
}

TEST(TryStats, NormalApproximationBeyondEightyValues) {
  std::vector<double> A, B, C, E;
  for (int I = 0; I < 45; ++I) {
    A.push_back(I);
    B.push_back(45 + I);
    C.push_back(2 * I);
    E.push_back(2 * I + 1);
  }
  EXPECT_LT(mannWhitneyP(A, B), 1e-10);
  EXPECT_GT(mannWhitneyP(C, E), 0.8);
  // At the boundary the exact and the approximate test agree closely.
  std::vector<double> X(A.begin(), A.begin() + 40), Y, X2(A), Y2;
  for (int I = 0; I < 40; ++I)
    Y.push_back(I * 1.1 + 3);
  for (int I = 0; I < 45; ++I)
    Y2.push_back(I * 1.1 + 3);
  EXPECT_NEAR(mannWhitneyP(X, Y), mannWhitneyP(X2, Y2), 0.1);
}

TEST(TryStats, SmallestP) {
  EXPECT_NEAR(smallestP(5, 5), 2.0 / 252, 1e-12);
  EXPECT_NEAR(smallestP(3, 3), 0.1, 1e-12);
  EXPECT_EQ(smallestP(1, 1), 1.0);
}

TEST(TryStats, HolmStepsDown) {
  std::vector<double> Adj = holmAdjust({0.01, 0.04, 0.03});
  ASSERT_EQ(Adj.size(), 3u);
  EXPECT_NEAR(Adj[0], 0.03, 1e-12); // 3 x 0.01
  EXPECT_NEAR(Adj[2], 0.06, 1e-12); // 2 x 0.03
  EXPECT_NEAR(Adj[1], 0.06, 1e-12); // 1 x 0.04, but not below the step
  EXPECT_EQ(holmAdjust({0.6, 0.9})[0], 1.0);
}

std::unique_ptr<Plan> parse(const std::string &Text) {
  std::string Diags;
  llvm::raw_string_ostream OS(Diags);
  DiagEngine D(OS);
  return parsePlan(llvm::MemoryBuffer::getMemBufferCopy(Text, "plan.yaml"), D);
}

const char *ThreePlan = "version: 1\nsites:\n"
                        "  - {site: a.c:1:1, kind: hbm, size: 4MiB}\n"
                        "  - {site: b.c:2:2, kind: posix}\n"
                        "  - {stack: [m.h:3:3, c.c:4:4], kind: hbm, size: "
                        "2MiB}\n"
                        "  - {site: a.c:1:1, kind: hbm, size: 1MiB}\n"
                        "  - {site: d.c:5:5, kind: hbm, size: 8MiB}\n";

TEST(TryPoints, PlacingEntriesInPlanOrder) {
  std::unique_ptr<Plan> P = parse(ThreePlan);
  ASSERT_TRUE(P);
  std::vector<TryEntry> E = placingEntries(*P);
  ASSERT_EQ(E.size(), 3u);
  EXPECT_EQ(E[0].Key, "a.c:1:1");
  EXPECT_EQ(E[1].Key, "m.h:3:3 > c.c:4:4");
  EXPECT_EQ(E[2].Key, "d.c:5:5");
  EXPECT_EQ(*E[1].Size, 2u << 20);
  EXPECT_EQ(entriesFileText(E, 2, "plan.yaml"),
            "# hmplan try: the first 2 of 3 placing entries of plan.yaml\n"
            "a.c:1:1\nm.h:3:3 > c.c:4:4\n");
}

TEST(TryPoints, DefaultPoints) {
  std::unique_ptr<Plan> P = parse(ThreePlan);
  std::vector<TryEntry> E = placingEntries(*P);
  std::vector<TryPoint> Pts = defaultPoints(E, 12);
  ASSERT_EQ(Pts.size(), 4u);
  EXPECT_EQ(Pts[3].N, 3u);
  EXPECT_EQ(*Pts[3].Bytes, 14u << 20);
  std::vector<TryEntry> Many(30, TryEntry{"x", "hbm", std::nullopt});
  Pts = defaultPoints(Many, 12);
  ASSERT_EQ(Pts.size(), 12u);
  EXPECT_EQ(Pts.front().N, 0u);
  EXPECT_EQ(Pts.back().N, 30u);
  for (size_t I = 1; I < Pts.size(); ++I)
    EXPECT_GT(Pts[I].N, Pts[I - 1].N);
  EXPECT_FALSE(Pts.back().Bytes); // sizes unknown
}

TEST(TryPoints, PointsByCount) {
  std::vector<TryEntry> E = placingEntries(*parse(ThreePlan));
  std::vector<TryPoint> Pts;
  std::string Err;
  ASSERT_TRUE(pointsFromList({"0", "2", "all", "2"}, E, Pts, Err)) << Err;
  ASSERT_EQ(Pts.size(), 3u);
  EXPECT_EQ(Pts[1].N, 2u);
  EXPECT_EQ(Pts[2].N, 3u);
  Pts.clear();
  // N = 0, the baseline, always; the points in increasing order.
  ASSERT_TRUE(pointsFromList({"all", "1"}, E, Pts, Err)) << Err;
  ASSERT_EQ(Pts.size(), 3u);
  EXPECT_EQ(Pts[0].N, 0u);
  EXPECT_EQ(Pts[1].N, 1u);
  EXPECT_EQ(Pts[2].N, 3u);
  Pts.clear();
  EXPECT_FALSE(pointsFromList({"4"}, E, Pts, Err));
  EXPECT_EQ(Err, "the plan has 3 placing entries, not 4");
  EXPECT_FALSE(pointsFromList({"two"}, E, Pts, Err));
  EXPECT_EQ(Err, "'two' is not a count of entries (0, 1, ... or all)");
}

TEST(TryPoints, PointsByCapacity) {
  std::vector<TryEntry> E = placingEntries(*parse(ThreePlan));
  std::vector<TryPoint> Pts;
  std::string Err;
  // 4 MiB: the first; 5 MiB: still only it (the same run, left out);
  // 6 MiB: two; 1 GiB: all three.
  ASSERT_TRUE(
      pointsFromCapacities({"4MiB", "5MiB", "6MiB", "1GiB"}, E, Pts, Err))
      << Err;
  ASSERT_EQ(Pts.size(), 4u);
  EXPECT_EQ(Pts[0].N, 0u);
  EXPECT_EQ(Pts[1].N, 1u);
  EXPECT_EQ(*Pts[1].Capacity, 4u << 20);
  EXPECT_EQ(Pts[2].N, 2u);
  EXPECT_EQ(Pts[3].N, 3u);
  Pts.clear();
  EXPECT_FALSE(pointsFromCapacities({"lots"}, E, Pts, Err));
  std::vector<TryEntry> NoSize = {{"a.c:1:1", "hbm", std::nullopt}};
  Pts.clear();
  EXPECT_FALSE(pointsFromCapacities({"1GiB"}, NoSize, Pts, Err));
  EXPECT_NE(Err.find("entry a.c:1:1 has no size"), std::string::npos) << Err;
}

size_t count(const std::string &S, const std::string &Of) {
  size_t N = 0;
  for (size_t At = S.find(Of); At != std::string::npos; At = S.find(Of, At + 1))
    ++N;
  return N;
}

TEST(TrySvg, ADotPerPointFilledBeyondTheNoise) {
  CurveChart C;
  C.Title = "plan <a&b>";
  C.YLabel = "s";
  C.Points.push_back({"N=0", "", {1.0, 0.9, 1.1}, false});
  C.Points.push_back({"N=1", "", {1.0, 0.95, 1.05}, false});
  C.Points.push_back({"N=2", "", {0.5, 0.45, 0.55}, true});
  std::string S = drawCurve(C);
  EXPECT_EQ(count(S, "<circle"), 3u);
  EXPECT_EQ(count(S, "fill=\"#c33\">"), 1u);
  EXPECT_NE(S.find("plan &lt;a&amp;b&gt;"), std::string::npos);
  EXPECT_EQ(S.rfind("</svg>\n"), S.size() - 7);
}

} // namespace
