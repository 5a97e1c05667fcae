//===- Shares.cpp - how much of each context goes to the fast tier --------===//
#include "Shares.h"

#include "sizeclass.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/SmallVector.h"

#include <algorithm>
#include <cmath>
#include <map>

using namespace llvm;

namespace hmplace {

std::string parseRate(StringRef Text, double &Out) {
  StringRef V = Text.trim();
  double Scale = 1;
  for (auto [Unit, S] : {std::pair{StringRef("GiB/s"), double(1ull << 30)},
                         {"GB/s", 1e9},
                         {"MiB/s", double(1 << 20)},
                         {"MB/s", 1e6},
                         {"B/s", 1.0}})
    if (V.consume_back(Unit)) {
      Scale = S;
      break;
    }
  double X;
  if (V.trim().getAsDouble(X) || X <= 0)
    return "'" + Text.trim().str() +
           "': expected a bandwidth, e.g. 1100GB/s (GB/s, GiB/s, MB/s, MiB/s)";
  Out = X * Scale;
  return "";
}

std::string parseBandwidths(StringRef Spec, Bandwidths &Out) {
  SmallVector<StringRef, 4> Items;
  Spec.split(Items, ',', -1, false);
  for (StringRef Item : Items) {
    auto [Name, Value] = Item.trim().split('=');
    Name = Name.trim();
    double Rate;
    std::string Err = parseRate(Value, Rate);
    if (!Err.empty())
      return Err;
    if (Name == "hbm" || Name == "hbw")
      Out.Fast = Rate;
    else if (Name == "ddr")
      Out.Slow = Rate;
    else
      return "unknown tier '" + Name.str() + "' (expected hbm and ddr)";
  }
  if (!Out.given())
    return "give both tiers' bandwidths, e.g. hbm=1100GB/s,ddr=370GB/s";
  return "";
}

bool ShareItem::splittable() const { return MaySplit && split_splits(Object); }

uint64_t ShareItem::heldAt(unsigned Share) const {
  if (Share == 0)
    return 0;
  if (Share >= 100 || !splittable())
    return Usable;
  uint64_t Pages = (Object + HM_PAGE - 1) / HM_PAGE * HM_PAGE;
  uint64_t Part = Pages * Share / 100 + split_run(Object);
  return std::min(Pages, Part) * Objects;
}

namespace {

/// The run cut into phases at the lifetimes' ends (at most MaxPhases; more
/// are merged), each with its length and the traffic per tier in it.
class Phases {
public:
  Phases(const std::vector<ShareItem> &Items) : Items(Items) {
    std::vector<uint64_t> Cuts;
    for (const ShareItem &I : Items) {
      Cuts.push_back(I.Start);
      Cuts.push_back(I.End + 1);
    }
    llvm::sort(Cuts);
    Cuts.erase(std::unique(Cuts.begin(), Cuts.end()), Cuts.end());
    // Merge to at most MaxPhases of about equal length.
    uint64_t Span = Cuts.empty() ? 1 : Cuts.back() - Cuts.front();
    uint64_t Step = std::max<uint64_t>(Span / MaxPhases, 1);
    for (uint64_t C : Cuts)
      if (Edges.empty() || C >= Edges.back() + Step)
        Edges.push_back(C);
    if (Edges.size() < 2)
      Edges.push_back(Edges.empty() ? 1 : Edges.back() + 1);
    Fast.assign(Edges.size() - 1, 0);
    Slow.assign(Edges.size() - 1, 0);
    for (const ShareItem &I : Items)
      Spans.push_back(span(I));
  }
  size_t size() const { return Fast.size(); }

  /// Add (or with \p Sign -1 take out) item \p I's traffic with \p Share
  /// percent in the fast tier.
  void add(size_t I, unsigned Share, double Sign) {
    for (const auto &[K, T] : Spans[I]) {
      Fast[K] += Sign * T * Share / 100.0;
      Slow[K] += Sign * T * (100 - Share) / 100.0;
    }
  }
  /// The predicted time change of moving item \p I from share \p From to
  /// \p To.
  double delta(size_t I, unsigned From, unsigned To,
               const Bandwidths &BW) const {
    double D = 0;
    for (const auto &[K, T] : Spans[I]) {
      double F = Fast[K], S = Slow[K];
      double Before = std::max(F / BW.Fast, S / BW.Slow);
      F += T * (double(To) - From) / 100.0;
      S -= T * (double(To) - From) / 100.0;
      D += std::max(F / BW.Fast, S / BW.Slow) - Before;
    }
    return D;
  }
  double time(const Bandwidths &BW) const {
    double T = 0;
    for (size_t K = 0; K < size(); ++K)
      T += std::max(Fast[K] / BW.Fast, Slow[K] / BW.Slow);
    return T;
  }

private:
  static constexpr uint64_t MaxPhases = 256;
  /// The phases item \p I lives in, with its traffic in each.
  std::vector<std::pair<size_t, double>> span(const ShareItem &I) const {
    size_t Lo =
        std::upper_bound(Edges.begin(), Edges.end(), I.Start) - Edges.begin();
    Lo = Lo ? Lo - 1 : 0;
    size_t Hi =
        std::upper_bound(Edges.begin(), Edges.end(), I.End) - Edges.begin();
    Hi = std::min(Hi ? Hi - 1 : 0, Edges.size() - 2);
    std::vector<std::pair<size_t, double>> Out;
    double Len = 0;
    for (size_t K = Lo; K <= Hi; ++K)
      Len += double(Edges[K + 1] - Edges[K]);
    for (size_t K = Lo; K <= Hi; ++K)
      Out.push_back(
          {K, I.Gain * double(Edges[K + 1] - Edges[K]) / std::max(Len, 1.0)});
    return Out;
  }
  const std::vector<ShareItem> &Items;
  std::vector<uint64_t> Edges;
  std::vector<double> Fast, Slow;
  std::vector<std::vector<std::pair<size_t, double>>> Spans;
};

/// The capacity's load over time, of the shares chosen.
struct Load {
  Load(const std::vector<ShareItem> &Items) : Items(Items), Cuts(), L(1) {
    for (const ShareItem &I : Items) {
      Cuts.push_back(I.Start);
      Cuts.push_back(I.End);
    }
    llvm::sort(Cuts);
    Cuts.erase(std::unique(Cuts.begin(), Cuts.end()), Cuts.end());
    L = IntervalLoad(std::max<size_t>(Cuts.size(), 1));
  }
  size_t at(uint64_t T) const {
    return std::lower_bound(Cuts.begin(), Cuts.end(), T) - Cuts.begin();
  }
  uint64_t peakOver(size_t I) const {
    return L.max(at(Items[I].Start), at(Items[I].End));
  }
  void add(size_t I, uint64_t Bytes, bool Take = false) {
    L.add(at(Items[I].Start), at(Items[I].End),
          Take ? uint64_t(0) - Bytes : Bytes);
  }
  const std::vector<ShareItem> &Items;
  std::vector<uint64_t> Cuts;
  IntervalLoad L;
};

/// The share values an item may take.
std::vector<unsigned> steps(const ShareItem &I) {
  if (!I.Candidate)
    return {0};
  if (!I.splittable())
    return {0, 100};
  std::vector<unsigned> S;
  for (unsigned V = 0; V <= 100; V += 5)
    S.push_back(V);
  return S;
}

/// Without bandwidths: the capacity left, filled by shares of the densest
/// items not chosen whole.
void fill(const std::vector<ShareItem> &Items, uint64_t Capacity, Load &Ld,
          std::vector<unsigned> &Share) {
  std::vector<size_t> Order;
  for (size_t I = 0; I < Items.size(); ++I)
    if (!Share[I] && Items[I].Candidate && Items[I].splittable())
      Order.push_back(I);
  auto Density = [&](size_t I) {
    return Items[I].Gain / double(std::max<uint64_t>(Items[I].Usable, 1));
  };
  llvm::stable_sort(
      Order, [&](size_t A, size_t B) { return Density(A) > Density(B); });
  for (size_t I : Order) {
    uint64_t Peak = Ld.peakOver(I);
    unsigned Best = 0;
    for (unsigned V = 95; V >= 10 && !Best; V -= 5)
      if (Peak + Items[I].heldAt(V) <= Capacity)
        Best = V;
    if (Best) {
      Share[I] = Best;
      Ld.add(I, Items[I].heldAt(Best));
    }
  }
}

/// With bandwidths: move one item's share at a time to the value that
/// lowers the predicted time most within the capacity.
void descend(const std::vector<ShareItem> &Items, uint64_t Capacity,
             const Bandwidths &BW, Load &Ld, Phases &Ph,
             std::vector<unsigned> &Share) {
  std::vector<size_t> Order(Items.size());
  for (size_t I = 0; I < Order.size(); ++I)
    Order[I] = I;
  llvm::stable_sort(
      Order, [&](size_t A, size_t B) { return Items[A].Gain > Items[B].Gain; });
  for (unsigned Round = 0; Round < 12; ++Round) {
    bool Moved = false;
    for (size_t I : Order) {
      std::vector<unsigned> Vs = steps(Items[I]);
      if (Vs.size() < 2)
        continue;
      uint64_t Own = Items[I].heldAt(Share[I]);
      uint64_t Others = Ld.peakOver(I) - Own;
      unsigned Best = Share[I];
      double BestD = 0;
      for (unsigned V : Vs) {
        if (V == Share[I] || Others + Items[I].heldAt(V) > Capacity)
          continue;
        double D = Ph.delta(I, Share[I], V, BW);
        if (D < BestD - 1e-12 * std::abs(Ph.time(BW))) {
          BestD = D;
          Best = V;
        }
      }
      if (Best == Share[I])
        continue;
      Ld.add(I, Own, /*Take=*/true);
      Ph.add(I, Share[I], -1);
      Share[I] = Best;
      Ld.add(I, Items[I].heldAt(Best));
      Ph.add(I, Best, 1);
      Moved = true;
    }
    if (!Moved)
      break;
  }
}

} // namespace

namespace {

/// The bandwidth model's descent from \p Start (percent per item); the
/// shares reached and their predicted time.
std::pair<std::vector<unsigned>, double>
descendFrom(const std::vector<ShareItem> &Items, std::vector<unsigned> Start,
            uint64_t Capacity, const Bandwidths &BW) {
  Load Ld(Items);
  Phases Ph(Items);
  for (size_t I = 0; I < Items.size(); ++I) {
    Ld.add(I, Items[I].heldAt(Start[I]));
    Ph.add(I, Start[I], 1);
  }
  descend(Items, Capacity, BW, Ld, Ph, Start);
  return {Start, Ph.time(BW)};
}

/// The model's time with every item at \p Share percent.
double timeAt(const std::vector<ShareItem> &Items, unsigned Share,
              const Bandwidths &BW) {
  Phases Ph(Items);
  for (size_t I = 0; I < Items.size(); ++I)
    Ph.add(I, Share, 1);
  return Ph.time(BW);
}

} // namespace

ShareChoice chooseShares(const std::vector<ShareItem> &Items,
                         const std::vector<bool> &Whole, uint64_t Capacity,
                         const Bandwidths &BW) {
  ShareChoice C;
  C.Share.assign(Items.size(), 0);
  for (size_t I = 0; I < Items.size(); ++I)
    C.Share[I] = Whole[I] ? 100 : 0;
  if (!BW.given()) {
    Load Ld(Items);
    for (size_t I = 0; I < Items.size(); ++I)
      Ld.add(I, Items[I].heldAt(C.Share[I]));
    fill(Items, Capacity, Ld, C.Share);
  } else {
    // From the knapsack's choice (most traffic in HBM) and from all in DDR
    // (which shares the bottleneck from the start); the faster.
    auto [FromWhole, T1] = descendFrom(Items, C.Share, Capacity, BW);
    auto [FromNone, T2] = descendFrom(
        Items, std::vector<unsigned>(Items.size(), 0), Capacity, BW);
    C.Share = T2 < T1 ? FromNone : FromWhole;
    C.Time = std::min(T1, T2);
    C.TimeAllSlow = timeAt(Items, 0, BW);
    C.TimeAllFast = timeAt(Items, 100, BW);
  }
  for (size_t I = 0; I < Items.size(); ++I)
    C.FastGain += Items[I].Gain * C.Share[I] / 100.0;
  return C;
}

} // namespace hmplace
