//===- Knapsack.cpp - which contexts fill a tier over time ----------------===//
#include "Knapsack.h"

#include <algorithm>
#include <cmath>
#include <memory>
#include <numeric>

namespace hmplace {

int64_t IntervalLoad::query(size_t Node, size_t B, size_t E, size_t L,
                            size_t R) const {
  if (R < B || E < L)
    return INT64_MIN / 2; // outside: never the max
  if (L <= B && E <= R)
    return Max[Node];
  size_t M = (B + E) / 2;
  return Add[Node] + std::max(query(2 * Node, B, M, L, R),
                              query(2 * Node + 1, M + 1, E, L, R));
}

std::pair<int64_t, size_t> IntervalLoad::where(size_t Node, size_t B, size_t E,
                                               size_t L, size_t R) const {
  if (B == E)
    return {Max[Node], B};
  size_t M = (B + E) / 2;
  std::pair<int64_t, size_t> Out;
  if (L <= B && E <= R) // covered: down the side that holds the max
    Out = Max[2 * Node] >= Max[2 * Node + 1]
              ? where(2 * Node, B, M, B, M)
              : where(2 * Node + 1, M + 1, E, M + 1, E);
  else if (R <= M)
    Out = where(2 * Node, B, M, L, R);
  else if (L > M)
    Out = where(2 * Node + 1, M + 1, E, L, R);
  else
    Out = std::max(
        where(2 * Node, B, M, L, R), where(2 * Node + 1, M + 1, E, L, R),
        [](const auto &X, const auto &Y) { return X.first < Y.first; });
  Out.first += Add[Node];
  return Out;
}

void IntervalLoad::update(size_t Node, size_t B, size_t E, size_t L, size_t R,
                          int64_t V) {
  if (R < B || E < L)
    return;
  if (L <= B && E <= R) {
    Max[Node] += V;
    Min[Node] += V;
    Add[Node] += V;
    return;
  }
  size_t M = (B + E) / 2;
  update(2 * Node, B, M, L, R, V);
  update(2 * Node + 1, M + 1, E, L, R, V);
  Max[Node] = Add[Node] + std::max(Max[2 * Node], Max[2 * Node + 1]);
  Min[Node] = Add[Node] + std::min(Min[2 * Node], Min[2 * Node + 1]);
}

OverlapIndex::OverlapIndex(const std::vector<KnapItem> &Items,
                           const std::vector<size_t> &List, size_t Cuts)
    : Items(Items), List(List), ByStart(std::max<size_t>(Cuts, 1)) {
  for (size_t P = 0; P < List.size(); ++P) {
    const KnapItem &It = Items[List[P]];
    if (It.Hi - It.Lo < Short && It.Lo < ByStart.size())
      ByStart[It.Lo].push_back(P);
    else
      Long.push_back(P);
  }
}

const std::vector<size_t> &OverlapIndex::alive(size_t Lo, size_t Hi) {
  Pos.clear();
  size_t From = Lo >= Short ? Lo - Short + 1 : 0;
  for (size_t C = From; C <= Hi && C < ByStart.size(); ++C)
    for (size_t P : ByStart[C])
      if (Items[List[P]].Hi >= Lo)
        Pos.push_back(P);
  for (size_t P : Long)
    if (Items[List[P]].Lo <= Hi && Lo <= Items[List[P]].Hi)
      Pos.push_back(P);
  std::sort(Pos.begin(), Pos.end());
  Out.clear();
  for (size_t P : Pos)
    Out.push_back(List[P]);
  return Out;
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
    // The most room at any cut first: one compare spares most queries
    // once the tier is nearly full.
    return It.Weight + Load.least() <= Capacity &&
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
    Load.remove(Items[I].Lo, Items[I].Hi, Items[I].Weight);
  }
  /// Add every item of \p Order that fits, in that order.
  void fill(const std::vector<size_t> &Order) {
    for (size_t I : Order)
      if (!In[I] && fits(I))
        put(I);
  }
  /// Make room for \p X by taking out chosen items alive with it, in the
  /// order of \p Rank (least worth first), if they are worth less than X:
  /// then X goes in, Freed holds the cuts where room may have opened, and
  /// true is returned; else nothing changes.
  bool exchange(size_t X, OverlapIndex &Rank);
  std::pair<size_t, size_t> Freed;
  /// Take out chosen item \p Y and refill in the order of \p Order: kept
  /// if that gains, else undone.
  bool drop(size_t Y, OverlapIndex &Order);

  const std::vector<KnapItem> &Items;
  uint64_t Capacity;
  std::vector<bool> In;
  IntervalLoad Load;
  double Gain = 0;
};

bool Choice::exchange(size_t X, OverlapIndex &Rank) {
  const KnapItem &XI = Items[X];
  if (XI.Weight > Capacity || XI.Gain <= 0)
    return false;
  std::vector<size_t> Out;
  double Lost = 0;
  bool Room = false;
  for (size_t I : Rank.alive(XI.Lo, XI.Hi)) {
    if (!In[I])
      continue;
    const KnapItem &It = Items[I];
    take(I);
    Out.push_back(I);
    Lost += It.Gain;
    if (Lost >= XI.Gain)
      break;
    if ((Room = fits(X)))
      break;
  }
  if (Room && Lost < XI.Gain) {
    put(X);
    // Room can only have opened where the items taken out were alive.
    Freed = {Items[Out.front()].Lo, Items[Out.front()].Hi};
    for (size_t I : Out)
      Freed = {std::min(Freed.first, Items[I].Lo),
               std::max(Freed.second, Items[I].Hi)};
    return true;
  }
  for (size_t I : Out)
    put(I);
  return false;
}

bool Choice::drop(size_t Y, OverlapIndex &Order) {
  double Before = Gain;
  const KnapItem &YI = Items[Y];
  take(Y);
  // Only items alive with Y can use the room it leaves.
  std::vector<size_t> Added;
  for (size_t I : Order.alive(YI.Lo, YI.Hi))
    if (!In[I] && I != Y && fits(I)) {
      put(I);
      Added.push_back(I);
    }
  if (Gain > Before * (1 + 1e-12))
    return true;
  for (size_t I : Added)
    take(I);
  put(Y);
  return false;
}

/// Items by gain / (weight^Alpha x span^Beta), largest first: (1, 0) is
/// gain per byte, (0, 0) gain, (1, 1) gain per byte and moment of lifetime
/// (the room an item takes is bytes over time).
std::vector<size_t> orderBy(const std::vector<KnapItem> &Items, double Alpha,
                            double Beta = 0) {
  std::vector<size_t> O(Items.size());
  std::iota(O.begin(), O.end(), 0);
  std::vector<double> Key(Items.size());
  for (size_t I = 0; I < Items.size(); ++I)
    Key[I] = Items[I].Gain /
             (std::pow(double(std::max<uint64_t>(Items[I].Weight, 1)), Alpha) *
              std::pow(double(Items[I].Hi - Items[I].Lo + 1), Beta));
  std::stable_sort(O.begin(), O.end(),
                   [&](size_t A, size_t B) { return Key[A] > Key[B]; });
  return O;
}

/// Exchanges until a round changes nothing (or a few rounds): an item left
/// out enters for chosen ones alive with it, a chosen one leaves for what
/// fits in its place.
void improve(Choice &C, const std::vector<size_t> &Dense,
             const std::vector<size_t> &Big, size_t Cuts) {
  OverlapIndex DenseAlive(C.Items, Dense, Cuts);
  for (unsigned Round = 0; Round < 8; ++Round) {
    double Before = C.Gain;
    // The chosen items, least gain per byte first: what an exchange gives
    // up (items that enter during the round are not given up in it).
    std::vector<size_t> Rank;
    for (auto It = Dense.rbegin(); It != Dense.rend(); ++It)
      if (C.In[*It])
        Rank.push_back(*It);
    OverlapIndex RankAlive(C.Items, Rank, Cuts);
    // Every item left out did not fit before the exchange, and loads went
    // down only where the items it took out were alive: what may fit now
    // is alive there (the same items, in the same order, as a fill of all).
    for (size_t X : Big)
      if (!C.In[X] && C.exchange(X, RankAlive))
        C.fill(DenseAlive.alive(C.Freed.first, C.Freed.second));
    for (size_t Y : Rank)
      if (C.In[Y])
        C.drop(Y, DenseAlive);
    if (C.Gain <= Before * (1 + 1e-12))
      break;
  }
}

} // namespace

std::vector<size_t> chooseItems(const std::vector<KnapItem> &Items,
                                uint64_t Capacity, size_t Cuts) {
  std::vector<size_t> Dense = orderBy(Items, 1);
  std::vector<size_t> Big = orderBy(Items, 0);
  // Greedy passes from gain per byte and moment to gain alone, each
  // improved; the best.
  std::unique_ptr<Choice> Best;
  // Plain gain per byte first: of equal results, the first is kept.
  for (auto [Alpha, Beta] :
       {std::pair{1.0, 0.0}, {1.0, 0.5}, {1.0, 1.0}, {0.5, 0.0}, {0.0, 0.0}}) {
    auto C = std::make_unique<Choice>(Items, Capacity, Cuts);
    C->fill(Alpha == 1 && Beta == 0   ? Dense
            : Alpha == 0 && Beta == 0 ? Big
                                      : orderBy(Items, Alpha, Beta));
    improve(*C, Dense, Big, Cuts);
    if (!Best || C->Gain > Best->Gain)
      Best = std::move(C);
  }
  std::vector<size_t> Out;
  for (size_t I = 0; I < Items.size(); ++I)
    if (Best->In[I])
      Out.push_back(I);
  return Out;
}

} // namespace hmplace
