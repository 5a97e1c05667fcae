//===- ShareChoiceTest.cpp - the advisor's whole and split choice ---------===//
//
// Without bandwidths, whole and split choices are made together
// (Shares.cpp, chooseFill): a fractional knapsack at the margin. The cases
// here are the ones a greedy fill after the whole knapsack got wrong: a hot
// array too big to go whole beside a cold one that fits, and a whole array
// whose split form holds less than its size class. And the interval load's
// argmax, which finds the moment a split context is held back by.
//
//===----------------------------------------------------------------------===//
#include "Knapsack.h"
#include "Shares.h"

#include "sizeclass.h"

#include "gtest/gtest.h"

using namespace hmplace;

namespace {

constexpr uint64_t MiB = 1 << 20;

ShareItem item(double Gain, uint64_t Object, uint64_t Objects,
               uint64_t Usable) {
  ShareItem I;
  I.Gain = Gain;
  I.Object = Object;
  I.Objects = Objects;
  I.Usable = Usable;
  I.Start = 0;
  I.End = 10;
  return I;
}

uint64_t held(const std::vector<ShareItem> &Items,
              const std::vector<unsigned> &Share) {
  uint64_t B = 0;
  for (size_t I = 0; I < Items.size(); ++I)
    B += Items[I].heldAt(Share[I]);
  return B;
}

// 2 MiB for a 4 MiB array with 3.7x the gain per byte of a 1.25 MiB one:
// the knapsack takes the cold one whole (the only one that fits); the
// choice gives the hot one the room instead.
TEST(ShareChoice, HotSplitBeatsColdWhole) {
  std::vector<ShareItem> Items = {item(4.6e6, 4 * MiB, 1, 4 * MiB),
                                  item(2.7e5, 5 * MiB / 4, 1, 5 * MiB / 4)};
  ShareChoice C = chooseShares(Items, {false, true}, 2 * MiB, Bandwidths());
  EXPECT_EQ(C.Share[0], 45u);
  EXPECT_EQ(C.Share[1], 10u);
  EXPECT_LE(held(Items, C.Share), 2 * MiB);
}

// Four objects of 684 KiB: whole, each holds its 768 KiB size class; a 95%
// split holds its pages. Stepping it down to 95% frees 14% of its bytes for
// 5% of its gain (0.11 of gain per byte), which a split item alive with it
// uses for 0.29 per byte: it enters at 10%.
TEST(ShareChoice, WholeStepsDownWhereItsPagesFreeRoom) {
  uint64_t Object = 684 * 1024;
  std::vector<ShareItem> Items = {
      item(1.0e6, Object, 4, 4 * 768 * 1024), // whole: 3 MiB
      item(1.2e6, MiB, 4, 4 * MiB)};          // 0.29 per byte
  uint64_t Cap = 3 * MiB + 200 * 1024;
  ShareChoice C = chooseShares(Items, {true, false}, Cap, Bandwidths());
  EXPECT_EQ(C.Share[0], 95u);
  EXPECT_EQ(C.Share[1], 10u);
  EXPECT_LE(held(Items, C.Share), Cap);
}

// Nothing fits at all: nothing chosen, nothing over the capacity.
TEST(ShareChoice, NothingFits) {
  std::vector<ShareItem> Items = {item(1e6, 64 * MiB, 1, 64 * MiB)};
  ShareChoice C = chooseShares(Items, {false}, 64 * 1024, Bandwidths());
  EXPECT_EQ(C.Share[0], 0u);
}

TEST(IntervalLoad, ArgmaxFindsThePeak) {
  IntervalLoad L(8);
  L.add(0, 7, 10);
  L.add(2, 4, 5);
  L.add(3, 6, 7);
  EXPECT_EQ(L.max(0, 7), 22u);
  EXPECT_EQ(L.argmax(0, 7), 3u); // 10 + 5 + 7 at 3 and 4: the first
  EXPECT_EQ(L.argmax(5, 7), 5u); // 17 at 5 and 6
  EXPECT_EQ(L.argmax(0, 1), 0u);
  L.remove(3, 6, 7); // the exact undo
  EXPECT_EQ(L.argmax(0, 7), 2u);
}

// A removal that undoes no add exactly (part of a range taken out): the
// maxima stay right. (With unsigned sums the root's maximum wrapped: 6 for
// 10 here.)
TEST(IntervalLoad, PartialRemoval) {
  IntervalLoad L(8);
  L.add(0, 7, 10);
  L.remove(2, 3, 4);
  EXPECT_EQ(L.max(0, 7), 10u);
  EXPECT_EQ(L.max(2, 3), 6u);
  EXPECT_EQ(L.max(1, 2), 10u);
  EXPECT_NE(L.argmax(0, 7), 2u);
  EXPECT_NE(L.argmax(0, 7), 3u);
  L.remove(0, 7, 10);
  L.add(5, 5, 1);
  EXPECT_EQ(L.max(0, 7), 1u);
  EXPECT_EQ(L.argmax(0, 7), 5u);
  EXPECT_EQ(L.max(0, 4), 0u); // -4 at 2 and 3: loads are never below 0
}

} // namespace
