//===- Knapsack.h - which contexts fill a tier over time --------*- C++ -*-===//
///
/// \file
/// The advisor's choice, apart from profiles and plans: items with a gain,
/// a weight (bytes they hold) and a lifetime (an interval of cut points);
/// choose items of the largest summed gain such that at every cut the
/// weights of the chosen items alive there stay within the capacity. An
/// interval knapsack (unsplittable flow on a path): NP-hard, so
///
///  1. the better of two greedy passes, by gain per byte and by gain, each
///     adding an item when it fits at every moment of its lifetime;
///  2. then exchanges: an item left out enters when taking out chosen items
///     that share its lifetime, least gain per byte first, frees the room
///     and loses less gain than it brings; what that frees is refilled;
///     until a round changes nothing.
///
/// A segment tree over the cut points answers "the most bytes held during
/// [lo, hi]" in O(log n). `scripts/bench advise` compares the result with
/// the exact optimum of the same model.
///
//===----------------------------------------------------------------------===//
#ifndef HMPLACE_HMPLAN_KNAPSACK_H
#define HMPLACE_HMPLAN_KNAPSACK_H

#include <cstddef>
#include <cstdint>
#include <utility>
#include <vector>

namespace hmplace {

struct KnapItem {
  double Gain = 0;
  uint64_t Weight = 0;
  size_t Lo = 0, Hi = 0; ///< cut indices of its lifetime, inclusive
};

/// Range add, range max over cut points. Loads are kept signed, so that a
/// removal need not undo an earlier add exactly (a part of an object taken
/// out of a range the whole was added to): a node's partial sums may go
/// below zero on the way, the maxima stay right.
class IntervalLoad {
public:
  explicit IntervalLoad(size_t N)
      : N(N), Max(4 * N + 4), Min(4 * N + 4), Add(4 * N + 4) {}
  /// The largest load over cut points [L, R] (never below 0: loads are
  /// bytes).
  uint64_t max(size_t L, size_t R) const {
    int64_t M = query(1, 0, N - 1, L, R);
    return M < 0 ? 0 : uint64_t(M);
  }
  /// The smallest load at any cut point: no item heavier than the
  /// capacity less this fits anywhere.
  uint64_t least() const { return Min[1] < 0 ? 0 : uint64_t(Min[1]); }
  /// A cut point in [L, R] where the load is max(L, R).
  size_t argmax(size_t L, size_t R) const {
    return where(1, 0, N - 1, L, R).second;
  }
  void add(size_t L, size_t R, uint64_t V) {
    update(1, 0, N - 1, L, R, int64_t(V));
  }
  void remove(size_t L, size_t R, uint64_t V) {
    update(1, 0, N - 1, L, R, -int64_t(V));
  }

private:
  int64_t query(size_t Node, size_t B, size_t E, size_t L, size_t R) const;
  /// The max over [L, R] within node's [B, E], and a cut holding it.
  std::pair<int64_t, size_t> where(size_t Node, size_t B, size_t E, size_t L,
                                   size_t R) const;
  void update(size_t Node, size_t B, size_t E, size_t L, size_t R, int64_t V);
  size_t N;
  std::vector<int64_t> Max, Min, Add;
};

/// The items of a list that share a lifetime with a given one, in the
/// list's order, without walking the whole list: short-lived items
/// (spanning at most Short cuts) by the cut they start at, long-lived ones
/// apart (always looked at). Exchanges and drops concern only items alive
/// together; on 10,000 contexts of a cut each, walking every item for each
/// candidate took most of advise's time.
class OverlapIndex {
public:
  /// \p List: indices into \p Items; lifetimes within \p Cuts cut points.
  OverlapIndex(const std::vector<KnapItem> &Items,
               const std::vector<size_t> &List, size_t Cuts);
  /// The items of the list alive during [Lo, Hi], in the list's order
  /// (valid until the next call).
  const std::vector<size_t> &alive(size_t Lo, size_t Hi);

private:
  static constexpr size_t Short = 16;
  const std::vector<KnapItem> &Items;
  const std::vector<size_t> &List;
  std::vector<std::vector<size_t>> ByStart;
  std::vector<size_t> Long, Pos, Out;
};

/// A choice as the model saw it: what `hmplan advise --dump-model` writes
/// for scripts/bench advise to compare with the exact optimum.
struct KnapModel {
  uint64_t Capacity = 0;
  size_t Cuts = 0;
  std::vector<KnapItem> Items;
  std::vector<bool> Chosen;
  /// Per item, how the final choice splits it: the percent in the tier,
  /// and what a share of it holds (an object's pages and the runtime's
  /// run, objects at once; Pages 0: it cannot be split).
  struct Split {
    unsigned Share = 0;
    uint64_t Pages = 0, Run = 0, Objects = 1;
  };
  std::vector<Split> Splits;
};

/// The items chosen (indices into \p Items, ascending) under \p Capacity,
/// with \p Cuts cut points.
std::vector<size_t> chooseItems(const std::vector<KnapItem> &Items,
                                uint64_t Capacity, size_t Cuts);

} // namespace hmplace

#endif
