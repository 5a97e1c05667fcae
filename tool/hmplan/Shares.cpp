//===- Shares.cpp - how much of each context goes to the fast tier --------===//
#include "Shares.h"
#include "Tiers.h"

#include "sizeclass.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/SmallVector.h"
#include "llvm/Support/Format.h"
#include "llvm/Support/raw_ostream.h"

#include <algorithm>
#include <cmath>
#include <limits>
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
  if (V.trim().getAsDouble(X))
    return "'" + Text.trim().str() +
           "': expected a bandwidth, e.g. 1100GB/s (GB/s, GiB/s, MB/s, MiB/s)";
  if (!std::isfinite(X * Scale) || !(X > 0))
    return "'" + Text.trim().str() +
           "': a bandwidth must be finite and above 0, e.g. 1100GB/s";
  Out = X * Scale;
  return "";
}

std::string rateText(double BytesPerSecond) {
  std::string S;
  raw_string_ostream(S) << format("%.0f GB/s", BytesPerSecond / 1e9);
  return S;
}

std::string parseBandwidths(StringRef Spec, Bandwidths &Out) {
  SmallVector<StringRef, 4> Items;
  Spec.split(Items, ',', -1, false);
  bool Seen[2] = {false, false};
  for (StringRef Item : Items) {
    auto [Name, Value] = Item.trim().split('=');
    Name = Name.trim();
    const AdvisorTier *T = findAdvisorTier(Name.lower());
    if (!T || T->Role == TierRole::Slow)
      return "unknown tier '" + Name.str() + "' (expected hbm and ddr)";
    double Rate;
    std::string Err = parseRate(Value, Rate);
    if (!Err.empty())
      return Err;
    bool Fast = T->Role == TierRole::Fast;
    if (Seen[Fast])
      return std::string(Fast ? "the fast tier (hbm)" : "ddr") +
             "'s bandwidth given twice";
    Seen[Fast] = true;
    (Fast ? Out.Fast : Out.Slow) = Rate;
  }
  if (!Out.given())
    return "give both tiers' bandwidths, e.g. hbm=1100GB/s,ddr=370GB/s";
  return "";
}

bool ShareItem::splittable() const { return MaySplit && split_splits(Object); }

uint64_t ShareItem::pages() const {
  return (Object + HM_PAGE - 1) / HM_PAGE * HM_PAGE;
}

uint64_t ShareItem::heldAt(unsigned Share) const {
  if (Share == 0)
    return 0;
  if (Share >= 100 || !splittable())
    return Usable;
  uint64_t Pages = pages();
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
  Load(const std::vector<ShareItem> &Items) : Items(&Items), Cuts(), L(1) {
    for (const ShareItem &I : Items) {
      Cuts.push_back(I.Start);
      Cuts.push_back(I.End);
    }
    llvm::sort(Cuts);
    Cuts.erase(std::unique(Cuts.begin(), Cuts.end()), Cuts.end());
    L = IntervalLoad(std::max<size_t>(Cuts.size(), 1));
  }
  /// A cut in item \p I's lifetime where the load peaks.
  size_t bottleneck(size_t I) const {
    return L.argmax(at((*Items)[I].Start), at((*Items)[I].End));
  }
  bool covers(size_t I, size_t Cut) const {
    return at((*Items)[I].Start) <= Cut && Cut <= at((*Items)[I].End);
  }
  size_t at(uint64_t T) const {
    return std::lower_bound(Cuts.begin(), Cuts.end(), T) - Cuts.begin();
  }
  uint64_t peakOver(size_t I) const {
    return L.max(at((*Items)[I].Start), at((*Items)[I].End));
  }
  /// Add \p Bytes of item \p I (\p Take: take them out again).
  void add(size_t I, uint64_t Bytes, bool Take = false) {
    size_t Lo = at((*Items)[I].Start), Hi = at((*Items)[I].End);
    if (Take)
      L.remove(Lo, Hi, Bytes);
    else
      L.add(Lo, Hi, Bytes);
  }
  const std::vector<ShareItem> *Items; ///< a pointer: a Load is copied
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

double density(const ShareItem &I) {
  return I.Gain / double(std::max<uint64_t>(I.Usable, 1));
}

/// The smallest share a fill gives an item.
constexpr unsigned MinShare = 10;

/// What every step of the choice without bandwidths reads: the items, the
/// capacity, the candidates densest first (gain per byte).
struct Problem {
  Problem(const std::vector<ShareItem> &Items, uint64_t Capacity)
      : Items(Items), Capacity(Capacity) {
    for (size_t I = 0; I < Items.size(); ++I)
      if (Items[I].Candidate)
        Order.push_back(I);
    llvm::stable_sort(Order, [&](size_t A, size_t B) {
      return density(Items[A]) > density(Items[B]);
    });
  }
  const std::vector<ShareItem> &Items;
  uint64_t Capacity;
  std::vector<size_t> Order;
};

/// The largest share of item \p I that fits beside what \p Ld holds
/// (whole where \p Whole, else split only), or 0.
unsigned largestFit(const Problem &P, size_t I, const Load &Ld, unsigned Own,
                    bool Whole) {
  const ShareItem &It = P.Items[I];
  uint64_t Others = Ld.peakOver(I) - It.heldAt(Own);
  if (Whole && Others + It.heldAt(100) <= P.Capacity)
    return 100;
  if (!It.splittable())
    return 0;
  for (unsigned V = 95; V >= MinShare; V -= 5)
    if (Others + It.heldAt(V) <= P.Capacity)
      return V;
  return 0;
}

bool overlap(const ShareItem &A, const ShareItem &B) {
  return A.Start <= B.End && B.Start <= A.End;
}

/// Item \p I from its share to \p To, in \p Share and \p Ld.
void setShare(const Problem &P, size_t I, unsigned To,
              std::vector<unsigned> &Share, Load &Ld) {
  Ld.add(I, P.Items[I].heldAt(Share[I]), /*Take=*/true);
  Share[I] = To;
  Ld.add(I, P.Items[I].heldAt(To));
}

/// Without bandwidths: the capacity left, filled by the densest items, each
/// grown to the largest share that fits (with \p Whole, whole where it
/// fits; else an item at 0 gets a split share, and a split one grows).
/// With \p Freed, only items alive with one of those can gain room (after
/// a fill, none else can: the load only falls where they are).
void fill(const Problem &P, Load &Ld, std::vector<unsigned> &Share,
          bool Whole = false, const std::vector<size_t> *Freed = nullptr) {
  for (size_t I : P.Order) {
    if (Share[I] == 100 || (!Share[I] && !Whole && !P.Items[I].splittable()))
      continue;
    if (Freed && none_of(*Freed, [&](size_t J) {
          return overlap(P.Items[I], P.Items[J]);
        }))
      continue;
    unsigned Best = largestFit(P, I, Ld, Share[I], Whole);
    if (Best > Share[I])
      setShare(P, I, Best, Share, Ld);
  }
}

double fastGain(const std::vector<ShareItem> &Items,
                const std::vector<unsigned> &Share) {
  double G = 0;
  for (size_t I = 0; I < Items.size(); ++I)
    G += Items[I].Gain * Share[I] / 100.0;
  return G;
}

Load loadOf(const std::vector<ShareItem> &Items,
            const std::vector<unsigned> &Share) {
  Load Ld(Items);
  for (size_t I = 0; I < Items.size(); ++I)
    Ld.add(I, Items[I].heldAt(Share[I]));
  return Ld;
}

/// The share an item steps down to when it gives room: 5 points less
/// while it stays a split of at least MinShare, else nothing.
unsigned stepDown(const ShareItem &I, unsigned Share) {
  if (!I.splittable() || Share < MinShare + 5)
    return 0;
  return Share == 100 ? 95 : Share - 5;
}

/// What stepping \p I down from \p Share costs per byte it frees.
double stepCost(const ShareItem &I, unsigned Share) {
  unsigned To = stepDown(I, Share);
  uint64_t Freed = I.heldAt(Share) - I.heldAt(To);
  return Freed ? I.Gain * (Share - To) / 100.0 / double(Freed)
               : std::numeric_limits<double>::infinity();
}

/// \p I grown to what fits, then the room the items \p Stepped down left
/// filled.
void settle(const Problem &P, size_t I, std::vector<unsigned> &Try, Load &Ld,
            const std::vector<size_t> &Stepped) {
  unsigned To = largestFit(P, I, Ld, Try[I], true);
  if (To > Try[I])
    setShare(P, I, To, Try, Ld);
  fill(P, Ld, Try, /*Whole=*/true, &Stepped);
}

/// Try to grow split item \p I: the items alive at its bottleneck (the cut
/// of its lifetime where the load peaks) step down, the cheapest bytes
/// first (gain lost per byte freed, below what \p I gains per byte), until
/// it fits whole or nothing cheaper is left. Of those
/// steps, all of them and the first so many that leave the most gain (\p
/// I's share then against what the steps lost) are each settled; the
/// better is kept. \p Try and \p Ld come in as the current choice and leave
/// as the one tried.
void growAtMargin(const Problem &P, size_t I, std::vector<unsigned> &Try,
                  Load &Ld) {
  const std::vector<ShareItem> &Items = P.Items;
  const ShareItem &It = Items[I];
  // What a step of I gains per byte it holds.
  double Worth = It.Gain / double(std::max<uint64_t>(It.heldAt(100), 1));
  std::vector<size_t> Alive;
  for (size_t J : P.Order)
    if (J != I && Try[J] && overlap(It, Items[J]))
      Alive.push_back(J);
  std::vector<std::pair<size_t, unsigned>> Steps; // item, share before
  unsigned Fit = largestFit(P, I, Ld, Try[I], true);
  double Lost = 0, Best = It.Gain * std::max(Fit, Try[I]) / 100.0;
  size_t Keep = 0;
  while (Fit < 100) {
    size_t Cut = Ld.bottleneck(I), J = Items.size();
    double Cost = Worth;
    for (size_t K : Alive)
      if (Try[K] && Ld.covers(K, Cut) && stepCost(Items[K], Try[K]) < Cost) {
        Cost = stepCost(Items[K], Try[K]);
        J = K;
      }
    if (J == Items.size())
      break; // nothing at the bottleneck gives room for less
    unsigned To = stepDown(Items[J], Try[J]);
    Lost += Items[J].Gain * (Try[J] - To) / 100.0;
    Steps.push_back({J, Try[J]});
    setShare(P, J, To, Try, Ld);
    Fit = largestFit(P, I, Ld, Try[I], true);
    double Now = It.Gain * std::max(Fit, Try[I]) / 100.0 - Lost;
    if (Now > Best) {
      Best = Now;
      Keep = Steps.size();
    }
  }
  std::vector<size_t> Stepped;
  for (auto [J, From] : Steps)
    Stepped.push_back(J);
  std::vector<unsigned> All = Try;
  Load AllLd = Ld;
  settle(P, I, All, AllLd, Stepped);
  for (; Steps.size() > Keep; Steps.pop_back()) // undo past the best
    setShare(P, Steps.back().first, Steps.back().second, Try, Ld);
  Stepped.resize(Keep);
  settle(P, I, Try, Ld, Stepped);
  if (fastGain(Items, All) > fastGain(Items, Try)) {
    Try = std::move(All);
    Ld = std::move(AllLd);
  }
}

/// The fractional knapsack at the margin: a splittable item held in part
/// (or not at all) grows where the items alive with it give room at a
/// lower cost per byte (growAtMargin). Kept where the summed gain grows;
/// until a round changes nothing.
void exchangeAtMargin(const Problem &P, std::vector<unsigned> &Share) {
  Load Cur = loadOf(P.Items, Share);
  double Gain = fastGain(P.Items, Share);
  for (unsigned Round = 0; Round < 4; ++Round) {
    bool Changed = false;
    for (size_t I : P.Order) {
      if (Share[I] == 100 || !P.Items[I].splittable())
        continue; // whole items are the knapsack's exchanges' (Knapsack.h)
      std::vector<unsigned> Try = Share;
      Load Ld = Cur;
      growAtMargin(P, I, Try, Ld);
      double G = fastGain(P.Items, Try);
      if (G > Gain * (1 + 1e-9)) {
        Share = std::move(Try);
        Cur = std::move(Ld);
        Gain = G;
        Changed = true;
      }
    }
    if (!Changed)
      break;
  }
}

/// Without bandwidths, whole and split choices together: from the
/// knapsack's whole items and from nothing (a pass by density that splits
/// the item at the margin), each filled; the better, improved by
/// exchangeAtMargin (which also splits whole items whose pages hold less
/// than their size class, where that gives room for more gain).
std::vector<unsigned> chooseFill(const std::vector<ShareItem> &Items,
                                 std::vector<unsigned> FromWhole,
                                 uint64_t Capacity) {
  Problem P(Items, Capacity);
  Load Ld = loadOf(Items, FromWhole);
  fill(P, Ld, FromWhole);
  std::vector<unsigned> ByDensity(Items.size(), 0);
  Load Empty = loadOf(Items, ByDensity);
  fill(P, Empty, ByDensity, /*Whole=*/true);
  std::vector<unsigned> &Best =
      fastGain(Items, ByDensity) > fastGain(Items, FromWhole) * (1 + 1e-12)
          ? ByDensity
          : FromWhole;
  exchangeAtMargin(P, Best);
  return Best;
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
    C.Share = chooseFill(Items, C.Share, Capacity);
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
