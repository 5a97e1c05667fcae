//===- Knapsack.cpp - which contexts fill a tier over time ----------------===//
#include "Knapsack.h"

#include <algorithm>
#include <numeric>

namespace hmplace {

uint64_t IntervalLoad::query(size_t Node, size_t B, size_t E, size_t L,
                             size_t R) const {
  if (R < B || E < L)
    return 0;
  if (L <= B && E <= R)
    return Max[Node];
  size_t M = (B + E) / 2;
  return Add[Node] + std::max(query(2 * Node, B, M, L, R),
                              query(2 * Node + 1, M + 1, E, L, R));
}

void IntervalLoad::update(size_t Node, size_t B, size_t E, size_t L, size_t R,
                          uint64_t V) {
  if (R < B || E < L)
    return;
  if (L <= B && E <= R) {
    Max[Node] += V;
    Add[Node] += V;
    return;
  }
  size_t M = (B + E) / 2;
  update(2 * Node, B, M, L, R, V);
  update(2 * Node + 1, M + 1, E, L, R, V);
  Max[Node] = Add[Node] + std::max(Max[2 * Node], Max[2 * Node + 1]);
}

namespace {

/// A choice being built: which items are in, and the load they make.
class Choice {
public:
  Choice(const std::vector<KnapItem> &Items, uint64_t Capacity, size_t Cuts)
      : Items(Items), Capacity(Capacity), In(Items.size(), false),
        Load(std::max<size_t>(Cuts, 1)) {}

  bool fits(size_t I) const {
    const KnapItem &It = Items[I];
    return It.Weight <= Capacity &&
           Load.max(It.Lo, It.Hi) + It.Weight <= Capacity;
  }
  void put(size_t I) {
    In[I] = true;
    Gain += Items[I].Gain;
    Load.add(Items[I].Lo, Items[I].Hi, Items[I].Weight);
  }
  void take(size_t I) {
    In[I] = false;
    Gain -= Items[I].Gain;
    Load.add(Items[I].Lo, Items[I].Hi, uint64_t(0) - Items[I].Weight);
  }
  /// Add every item of \p Order that fits, in that order.
  void fill(const std::vector<size_t> &Order) {
    for (size_t I : Order)
      if (!In[I] && fits(I))
        put(I);
  }
  /// Make room for \p X by taking out chosen items alive with it, in the
  /// order of \p Rank (least worth first), if they are worth less than X:
  /// then X goes in and true is returned; else nothing changes.
  bool exchange(size_t X, const std::vector<size_t> &Rank);

  const std::vector<KnapItem> &Items;
  uint64_t Capacity;
  std::vector<bool> In;
  IntervalLoad Load;
  double Gain = 0;
};

bool Choice::exchange(size_t X, const std::vector<size_t> &Rank) {
  const KnapItem &XI = Items[X];
  if (XI.Weight > Capacity)
    return false;
  std::vector<size_t> Out;
  double Lost = 0;
  for (size_t I : Rank) {
    if (fits(X))
      break;
    const KnapItem &It = Items[I];
    if (!In[I] || It.Hi < XI.Lo || XI.Hi < It.Lo)
      continue;
    take(I);
    Out.push_back(I);
    Lost += It.Gain;
    if (Lost >= XI.Gain)
      break;
  }
  if (Lost < XI.Gain && fits(X)) {
    put(X);
    return true;
  }
  for (size_t I : Out)
    put(I);
  return false;
}

std::vector<size_t> orderBy(const std::vector<KnapItem> &Items,
                            bool ByDensity) {
  std::vector<size_t> O(Items.size());
  std::iota(O.begin(), O.end(), 0);
  auto Key = [&](size_t I) {
    return ByDensity
               ? Items[I].Gain / double(std::max<uint64_t>(Items[I].Weight, 1))
               : Items[I].Gain;
  };
  std::stable_sort(O.begin(), O.end(),
                   [&](size_t A, size_t B) { return Key(A) > Key(B); });
  return O;
}

} // namespace

std::vector<size_t> chooseItems(const std::vector<KnapItem> &Items,
                                uint64_t Capacity, size_t Cuts) {
  std::vector<size_t> Dense = orderBy(Items, true);
  std::vector<size_t> Big = orderBy(Items, false);
  Choice A(Items, Capacity, Cuts), B(Items, Capacity, Cuts);
  A.fill(Dense);
  B.fill(Big);
  Choice &Best = B.Gain > A.Gain ? B : A;
  // Least gain per byte first: what an exchange gives up.
  std::vector<size_t> Rank(Dense.rbegin(), Dense.rend());
  for (unsigned Round = 0; Round < 8; ++Round) {
    double Before = Best.Gain;
    for (size_t X : Big)
      if (!Best.In[X] && Best.exchange(X, Rank))
        Best.fill(Dense);
    if (Best.Gain <= Before * (1 + 1e-12))
      break;
  }
  std::vector<size_t> Out;
  for (size_t I = 0; I < Items.size(); ++I)
    if (Best.In[I])
      Out.push_back(I);
  return Out;
}

} // namespace hmplace
