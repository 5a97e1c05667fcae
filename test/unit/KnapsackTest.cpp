//===- KnapsackTest.cpp - the interval knapsack's indexes -----------------===//
//
// The advisor's exchanges look only at the items alive with a candidate
// (OverlapIndex) and skip, with one compare, items heavier than the most
// room at any cut (IntervalLoad::least). Both against a plain walk on random
// lifetimes, short (bucketed by their first cut) and long (kept apart), and
// chooseItems' result within the capacity at every cut.
//
//===----------------------------------------------------------------------===//
#include "Knapsack.h"

#include "gtest/gtest.h"

#include <algorithm>
#include <random>

using namespace hmplace;

namespace {

std::vector<KnapItem> randomItems(std::mt19937 &R, size_t N, size_t Cuts) {
  std::vector<KnapItem> Items(N);
  for (KnapItem &It : Items) {
    It.Lo = R() % Cuts;
    // Spans of one cut, of a few, and past the index's short bound.
    size_t Span = R() % 3 == 0 ? R() % Cuts : R() % 4;
    It.Hi = std::min(Cuts - 1, It.Lo + Span);
    It.Weight = 1 + R() % 1000;
    It.Gain = double(R() % 1000);
  }
  return Items;
}

TEST(OverlapIndex, ItemsAliveInTheListsOrder) {
  std::mt19937 R(7);
  for (size_t Cuts : {1u, 5u, 40u, 200u}) {
    std::vector<KnapItem> Items = randomItems(R, 300, Cuts);
    std::vector<size_t> List;
    for (size_t I = 0; I < Items.size(); I += 1 + R() % 3)
      List.push_back(I);
    std::shuffle(List.begin(), List.end(), R);
    OverlapIndex Index(Items, List, Cuts);
    for (int Q = 0; Q < 200; ++Q) {
      size_t Lo = R() % Cuts, Hi = std::min(Cuts - 1, Lo + R() % 20);
      std::vector<size_t> Want;
      for (size_t I : List)
        if (Items[I].Lo <= Hi && Lo <= Items[I].Hi)
          Want.push_back(I);
      EXPECT_EQ(Index.alive(Lo, Hi), Want)
          << "cuts " << Cuts << " [" << Lo << ", " << Hi << "]";
    }
  }
}

TEST(IntervalLoad, LeastIsTheSmallestLoadAtAnyCut) {
  std::mt19937 R(11);
  const size_t Cuts = 37;
  IntervalLoad Load(Cuts);
  std::vector<int64_t> Plain(Cuts, 0);
  std::vector<std::pair<std::pair<size_t, size_t>, uint64_t>> Added;
  for (int Step = 0; Step < 500; ++Step) {
    if (!Added.empty() && R() % 3 == 0) {
      size_t K = R() % Added.size();
      auto [Span, W] = Added[K];
      Load.remove(Span.first, Span.second, W);
      for (size_t C = Span.first; C <= Span.second; ++C)
        Plain[C] -= int64_t(W);
      Added.erase(Added.begin() + K);
    } else {
      size_t Lo = R() % Cuts, Hi = std::min(Cuts - 1, Lo + R() % 10);
      uint64_t W = 1 + R() % 100;
      Load.add(Lo, Hi, W);
      for (size_t C = Lo; C <= Hi; ++C)
        Plain[C] += int64_t(W);
      Added.push_back({{Lo, Hi}, W});
    }
    EXPECT_EQ(int64_t(Load.least()),
              *std::min_element(Plain.begin(), Plain.end()));
  }
}

TEST(ChooseItems, WithinTheCapacityAtEveryCut) {
  std::mt19937 R(3);
  for (int Case = 0; Case < 20; ++Case) {
    const size_t Cuts = 30;
    std::vector<KnapItem> Items = randomItems(R, 120, Cuts);
    const uint64_t Cap = 2000 + R() % 4000;
    std::vector<uint64_t> Held(Cuts, 0);
    double Gain = 0;
    for (size_t I : chooseItems(Items, Cap, Cuts)) {
      for (size_t C = Items[I].Lo; C <= Items[I].Hi; ++C)
        Held[C] += Items[I].Weight;
      Gain += Items[I].Gain;
    }
    EXPECT_LE(*std::max_element(Held.begin(), Held.end()), Cap);
    EXPECT_GT(Gain, 0);
  }
}

} // namespace
