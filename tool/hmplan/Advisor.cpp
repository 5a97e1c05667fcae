//===- Advisor.cpp - a placement plan from a memory profile: the choice ---===//
//
// Contexts an entry cannot tell apart become one unit; each unit gets its
// gain (accesses x the chance they miss the cache) and the bytes it holds
// of a tier (the runtime's usable bytes); the units worth placing fill the
// fast tier (Knapsack.h), the least dense leave DDR for a slow tier when
// DDR is short. AdvisedPlan.cpp turns the decisions into entries.
//
//===----------------------------------------------------------------------===//
#include "Advisor.h"
#include "AdvisorParts.h"
#include "Knapsack.h"
#include "Shares.h"
#include "Tiers.h"
#include "plan/Context.h"
#include "plan/Kinds.h"

#include "sizeclass.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/Format.h"

#include <algorithm>
#include <set>

using namespace llvm;

namespace hmplace {

Timeline::Timeline(const std::vector<PlanUnit> &Units) {
  for (const PlanUnit &U : Units) {
    Cuts.push_back(U.Sum.Start);
    Cuts.push_back(U.Sum.End);
  }
  llvm::sort(Cuts);
  Cuts.erase(std::unique(Cuts.begin(), Cuts.end()), Cuts.end());
}

size_t Timeline::at(uint64_t T) const {
  return std::lower_bound(Cuts.begin(), Cuts.end(), T) - Cuts.begin();
}

bool isContainer(const ProfileContext &C) {
  return !C.Frames.empty() && isStdLibraryFile(C.Frames.front().File);
}

std::vector<const ProfileFrame *> entryFrames(const ProfileContext &C) {
  // Library frames past the allocation call are never noted, so leaving
  // them out keeps the chain the runtime sees.
  std::vector<const ProfileFrame *> Out;
  bool Container = isContainer(C);
  for (size_t I = 0; I < C.Frames.size(); ++I)
    if ((I == 0 && !Container) || !isStdLibraryFile(C.Frames[I].File))
      Out.push_back(&C.Frames[I]);
  return Out;
}

const ProfileFrame *libraryEntry(const ProfileContext &C) {
  const ProfileFrame *Last = nullptr;
  for (const ProfileFrame &F : C.Frames) {
    if (!isStdLibraryFile(F.File))
      break;
    Last = &F;
  }
  return Last;
}

std::string libraryName(StringRef Name) {
  // The instantiation's arguments repeat the allocator: left out.
  std::string S;
  int Depth = 0;
  for (size_t I = 0; I < Name.size(); ++I) {
    if (Depth == 0 && Name.substr(I).starts_with("operator")) {
      S += Name.substr(I).str(); // operator< is a name, not an argument
      break;
    }
    char Ch = Name[I];
    if (Ch == '<')
      ++Depth;
    else if (Ch == '>' && Depth > 0)
      --Depth;
    else if (Depth == 0)
      S += Ch;
  }
  return S;
}

std::string describe(const ProfileContext &C) {
  std::string S;
  for (const ProfileFrame *F : entryFrames(C))
    S += (S.empty() ? "" : " < ") + F->Function;
  return S.empty() ? "(no frame in the program)" : S;
}

bool nameable(const ProfileContext &C) {
  return C.Unnameable.empty() && !entryFrames(C).empty();
}

std::string unitKey(const ProfileContext &C) {
  if (!C.Unnameable.empty())
    return "?" + C.framesKey(); // never placed: kept apart, as profiled
  std::string K = isContainer(C) ? std::string(ContainerSite) + ">" : "";
  for (const ProfileFrame *F : entryFrames(C))
    K += F->text() + ">";
  return K;
}

std::string planFrame(const ProfileFrame &F, const PlanPathNamer &Names) {
  return F.File.empty() ? F.text() : F.text(Names.name(F.File));
}

std::string percent(double V) {
  std::string S;
  raw_string_ostream(S) << format("%.1f%%", 100 * V);
  return S;
}

std::string share(double Part, double Whole) {
  return Whole > 0 ? percent(Part / Whole) : "0.0%";
}

std::string count(uint64_t N, StringRef One, StringRef Many) {
  return utostr(N) + " " + (N == 1 ? One : Many).str();
}

namespace {

/// The bytes \p C holds of a tier at its peak, as the runtime counts them:
/// each object's usable size (its size class, for its assumed alignment)
/// times the objects live at once. Objects of different sizes: the largest
/// stands for each, bounded by the requested peak and the most a class
/// adds (a quarter above 128 bytes, 16 bytes below).
uint64_t usablePeak(const ProfileContext &C) {
  uint64_t AtOnce = C.objectsAtOnce();
  uint64_t Each =
      usable_aligned(std::max<uint64_t>(C.objectBytes(), 1), C.Align);
  uint64_t Bound = Each * AtOnce;
  if (C.Align > 16 || AtOnce == 1)
    return Bound;
  uint64_t Peak = C.peakBytes();
  return std::min(Bound, Peak + Peak / 4 + 16 * AtOnce);
}

/// The chance that an access to a context keeping \p Bytes live together
/// misses the last-level cache.
double missChance(uint64_t Bytes, uint64_t LLC) {
  return double(Bytes) / double(Bytes + LLC);
}

/// Contexts an entry cannot tell apart, summed: the units decided.
std::vector<PlanUnit> planUnits(const std::vector<ProfileContext> &Contexts) {
  std::vector<PlanUnit> Units;
  std::map<std::string, size_t> ByKey;
  for (const ProfileContext &C : Contexts) {
    auto [It, New] = ByKey.try_emplace(unitKey(C), Units.size());
    if (New) {
      Units.push_back({C, C.peakBytes(), usablePeak(C), 1});
      continue;
    }
    // Both may be live at once: their peaks add up.
    PlanUnit &U = Units[It->second];
    U.Sum.add(C);
    U.Peak += C.peakBytes();
    U.Usable += usablePeak(C);
    ++U.Stacks;
  }
  return Units;
}

/// The units as the choice sees them, in a stable order (by frames).
std::vector<Item> makeItems(Advice &Out, const AdviseOptions &Opts,
                            const Timeline &Time) {
  std::vector<Item> Items;
  Items.reserve(Out.Units.size());
  for (const PlanUnit &U : Out.Units) {
    Item I;
    I.U = &U;
    if (Out.Measured) {
      // The misses its accesses made at the LLC's size, as measured.
      double Misses =
          U.Sum.Misses.missesAt(double(Opts.LLC) / 64, Opts.LLCWays);
      double Sampled = U.Sum.Misses.accesses();
      I.Miss = Sampled > 0 ? Misses / Sampled : 0;
      I.Gain = Misses;
    } else {
      I.Miss = missChance(U.Peak, Opts.LLC);
      I.Gain = double(U.Sum.Accesses) * I.Miss;
    }
    I.Key = unitKey(U.Sum);
    I.Lo = Time.at(U.Sum.Start);
    I.Hi = Time.at(U.Sum.End);
    I.Nameable = nameable(U.Sum);
    I.Frames = entryFrames(U.Sum);
    Items.push_back(std::move(I));
    Out.TotalGain += Items.back().Gain;
    Out.TotalAccesses += U.Sum.Accesses;
  }
  llvm::sort(Items, [](const Item &A, const Item &B) { return A.Key < B.Key; });
  return Items;
}

/// "0.004%": a share too small for percent()'s one decimal.
std::string smallShare(double Part, double Whole) {
  std::string S;
  raw_string_ostream(S) << format("%.3f%%",
                                  Whole > 0 ? 100 * Part / Whole : 0.0);
  return S;
}

/// "1.23 s", "45.6 ms": \p Ns nanoseconds.
std::string duration(double Ns) {
  std::string S;
  raw_string_ostream OS(S);
  if (Ns >= 1e9)
    OS << format("%.2f s", Ns / 1e9);
  else if (Ns >= 1e6)
    OS << format("%.1f ms", Ns / 1e6);
  else
    OS << format("%.1f us", Ns / 1e3);
  return S;
}

/// Why \p I's allocations cost more on the placed path than HBM saves it
/// (PlacedCost.h), or "" where HBM pays for them.
std::string costsMore(const Item &I, const Advice &Out) {
  const PlacedCost &C = Out.Cost;
  const ProfileContext &Ctx = I.U->Sum;
  if (!C.on() || !Ctx.AllocCount)
    return "";
  double Misses = Out.Measured ? I.Gain : I.Gain / 8; // 8 words a line
  double Saves = Misses * C.SavedPerMiss;
  double Each = C.allocCost(Ctx.objectBytes());
  double Cost = double(Ctx.AllocCount) * Each;
  if (Cost < Saves)
    return "";
  std::string S;
  raw_string_ostream OS(S);
  OS << "kept: its " << count(Ctx.AllocCount, "allocation", "allocations")
     << " would cost " << duration(Cost) << " on the placed path ("
     << format("%.0f ns", Each) << " each), more than the " << duration(Saves)
     << " HBM would save (" << format("%.0f", Misses)
     << (Out.Measured ? " misses" : " misses guessed") << " x "
     << format("%.1f ns", C.SavedPerMiss) << ")";
  return S;
}

/// The units that may be placed; the others are decided here: below the
/// share worth placing, costing more on the placed path than HBM saves, or
/// worth it but no entry can name them (a miss, warned about).
std::vector<const Item *> worthPlacing(const std::vector<Item> &Items,
                                       const AdviseOptions &Opts,
                                       const Advice &Out, Decisions &Dec,
                                       DiagEngine &D) {
  std::vector<const Item *> Worth;
  for (const Item &I : Items) {
    double Share = Out.TotalGain > 0 ? I.Gain / Out.TotalGain : 0;
    bool Enough = Out.TotalGain > 0 && Share >= Opts.MinShare;
    // The placed path's cost decides a context worth placing, and one that
    // churns (more allocations than objects live at once: temporaries),
    // whose cost is then the reason it stays, whatever its share.
    const ProfileContext &C = I.U->Sum;
    bool Churns = C.AllocCount > C.objectsAtOnce();
    if (I.Nameable && (Enough || Churns))
      if (std::string Why = costsMore(I, Out); !Why.empty()) {
        Dec[&I].Reason = Why;
        continue;
      }
    if (Enough && I.Nameable) {
      Worth.push_back(&I);
      Dec[&I].Candidate = true;
      continue;
    }
    ContextDecision &CD = Dec[&I];
    if (!Enough && I.U->Sum.Foreign) { // its gain is not all there is
      CD.Reason = "kept: allocated inside a shared library, which no front "
                  "end places; the library's own accesses to it are not "
                  "counted (unknown), the program's are " +
                  smallShare(I.Gain, Out.TotalGain) + " of the gain";
      continue;
    }
    if (!Enough) {
      CD.Reason = "kept: " + smallShare(I.Gain, Out.TotalGain) +
                  " of the gain, below the " + percent(Opts.MinShare) +
                  " worth placing";
      continue;
    }
    std::string Why = I.U->Sum.Unnameable.empty()
                          ? std::string("every frame is in the C++ library")
                          : I.U->Sum.Unnameable;
    CD.Reason = "kept: " + share(I.Gain, Out.TotalGain) + " of the gain, " +
                "but " + Why + "; no entry can name it";
    D.report(Severity::Warning,
             "context " + describe(I.U->Sum) + " (" +
                 planFrame(I.U->Sum.Frames.front(), Out.Names) + ", " +
                 share(I.Gain, Out.TotalGain) + " of the gain) stays in DDR: " +
                 Why + "; no entry can name it");
  }
  return Worth;
}

/// The tier of \p Role named in the capacities (Tiers.h), or "".
std::string tierOf(const AdviseOptions &Opts, TierRole Role) {
  const std::string *T = tierOfRole(Opts.Capacity, Role);
  return T ? *T : "";
}

/// \p I as the share choice sees it (Shares.h).
ShareItem shareItem(const Item &I, bool Movable, bool MaySplit) {
  const ProfileContext &C = I.U->Sum;
  return {I.Gain,      C.objectBytes(), C.objectsAtOnce() * I.U->Stacks,
          I.U->Usable, C.Start,         C.End,
          Movable,     MaySplit};
}

/// Whole contexts first (the knapsack), then shares (Shares.h): those that
/// fill what the whole ones leave, or, with bandwidths, those that make both
/// tiers serve at once. Returns the share (percent) per item in the fast
/// tier.
std::map<const Item *, unsigned>
chooseFastShares(const std::vector<Item> &Items,
                 const std::vector<const Item *> &Worth,
                 const AdviseOptions &Opts, uint64_t Cap, const Timeline &Time,
                 Advice &Out) {
  std::vector<KnapItem> K;
  for (const Item *I : Worth)
    K.push_back({I->Gain, I->U->Usable, I->Lo, I->Hi});
  Out.Model = {Cap, Time.size(), K, std::vector<bool>(K.size(), false)};
  std::set<const Item *> Whole;
  for (size_t N : chooseItems(K, Cap, Time.size())) {
    Whole.insert(Worth[N]);
    Out.Model.Chosen[N] = true;
  }
  // Every context's traffic counts in the time model; only the ones worth
  // placing may move.
  std::set<const Item *> Movable(Worth.begin(), Worth.end());
  std::vector<ShareItem> S;
  std::vector<bool> W;
  for (const Item &I : Items) {
    S.push_back(shareItem(I, Movable.count(&I) > 0, !Opts.Whole));
    W.push_back(Whole.count(&I) > 0);
  }
  Out.Shares = chooseShares(S, W, Cap, Opts.BW);
  std::map<const Item *, unsigned> Share;
  for (size_t N = 0; N < Items.size(); ++N)
    Share[&Items[N]] = Out.Shares.Share[N];
  for (const Item *I : Worth) { // the model's items, as split
    const ShareItem &SI = S[I - Items.data()];
    KnapModel::Split Sp;
    Sp.Share = Share[I];
    if (SI.splittable()) {
      Sp.Pages = SI.pages();
      Sp.Run = split_run(SI.Object);
      Sp.Objects = SI.Objects;
    }
    Out.Model.Splits.push_back(Sp);
  }
  return Share;
}

/// Fill the fast tier from \p Worth; the units placed (some in part).
std::set<const Item *> chooseFast(const std::vector<Item> &Items,
                                  const std::vector<const Item *> &Worth,
                                  const AdviseOptions &Opts, Advice &Out,
                                  const Timeline &Time, Decisions &Dec) {
  std::set<const Item *> InFast;
  std::string Fast = tierOf(Opts, TierRole::Fast);
  if (Fast.empty())
    return InFast;
  uint64_t Cap = Opts.Capacity.at(Fast);
  std::map<const Item *, unsigned> Share =
      chooseFastShares(Items, Worth, Opts, Cap, Time, Out);
  for (const Item *I : Worth) {
    ContextDecision &CD = Dec[I];
    CD.Share = Share[I];
    std::string Gain = share(I->Gain, Out.TotalGain) + " of the gain";
    if (CD.Share == 100) {
      InFast.insert(I);
      CD.Tier = Fast;
      CD.Reason = "in " + Fast + ": " + Gain;
    } else if (CD.Share) {
      InFast.insert(I);
      CD.Tier = Fast;
      CD.Reason = "split: " + std::to_string(CD.Share) + "% of its pages in " +
                  Fast + ", the rest in DDR: " + Gain +
                  (Opts.BW.given()
                       ? "; both tiers serve it at once (bandwidth model: " +
                             Fast + " " + rateText(Opts.BW.Fast) + ", ddr " +
                             rateText(Opts.BW.Slow) + ")"
                       : "; " + Fast + " holds no more of it while it lives");
    } else if (I->U->Usable > Cap) {
      auto [Its, Capacity] = humanSizes(I->U->Usable, Cap);
      CD.Reason = "kept: " + Gain + ", but its " + Its + " exceed the " + Fast +
                  " capacity, " + Capacity +
                  (split_splits(I->U->Sum.objectBytes())
                       ? ""
                       : " (its objects are too small to split)");
    } else if (Opts.BW.given()) {
      CD.Reason = "kept: " + Gain +
                  ", but the bandwidth model is faster with it in DDR (or " +
                  Fast + " is full of contexts with more gain while it lives)";
    } else {
      CD.Reason = "kept: " + Gain + ", but " + Fast +
                  " is full of contexts with more gain while it lives";
    }
  }
  return InFast;
}

/// The bytes a unit split \p Share percent into the fast tier keeps in DDR
/// (its other pages, counted as the runtime lays them out).
uint64_t ddrPart(const Item &I, unsigned Share) {
  return shareItem(I, /*Movable=*/true, /*MaySplit=*/true).heldAt(100 - Share);
}

/// Move the least dense units kept in DDR to the slow tier until DDR holds
/// the rest (split units' DDR parts included), when a DDR capacity is
/// given.
void chooseSlow(const std::vector<Item> &Items,
                const std::set<const Item *> &InFast, const AdviseOptions &Opts,
                const Timeline &Time, Decisions &Dec, DiagEngine &D) {
  if (!Opts.Capacity.count("ddr"))
    return;
  std::string Slow = tierOf(Opts, TierRole::Slow);
  uint64_t Cap = Opts.Capacity.at("ddr");
  IntervalLoad Load(Time.size());
  std::vector<const Item *> InDDR;
  for (const Item &I : Items)
    if (!InFast.count(&I)) {
      InDDR.push_back(&I);
      Load.add(I.Lo, I.Hi, I.U->Usable);
    } else if (Dec[&I].Share < 100) {
      Load.add(I.Lo, I.Hi, ddrPart(I, Dec[&I].Share));
    }
  auto Density = [](const Item *I) {
    return I->Gain / double(std::max<uint64_t>(I->U->Usable, 1));
  };
  llvm::stable_sort(InDDR, [&](const Item *A, const Item *B) {
    return Density(A) != Density(B) ? Density(A) < Density(B) : A->Key < B->Key;
  });
  for (const Item *I : InDDR) {
    if (Load.max(0, Time.size() - 1) <= Cap)
      break;
    if (Slow.empty()) {
      D.report(Severity::Warning,
               "the contexts kept in DDR need " +
                   humanSize(Load.max(0, Time.size() - 1)) +
                   " at their peak, more than the ddr capacity " +
                   humanSize(Cap) + "; give a slow tier (" +
                   advisorTierList(TierRole::Slow, "=SIZE") +
                   ") to move the coldest there");
      return;
    }
    if (!I->Nameable)
      continue;
    Load.remove(I->Lo, I->Hi, I->U->Usable);
    ContextDecision &CD = Dec[I];
    CD.Tier = Slow;
    CD.Share = 100;
    CD.Reason = "in " + Slow +
                ": DDR is over its capacity, and this has the least gain "
                "per byte";
  }
  uint64_t Peak = Load.max(0, Time.size() - 1);
  if (!Slow.empty() && Peak > Cap)
    D.report(Severity::Warning,
             "DDR still holds " + humanSize(Peak) +
                 " at its peak, more than the ddr capacity " + humanSize(Cap) +
                 ": the rest is split parts and contexts no entry can name");
}

/// The names the plan gives files: relative, as PlanPaths.h says, over
/// every file an entry may name.
PlanPathNamer fileNames(const std::vector<Item> &Items, StringRef PlanDir) {
  std::vector<std::string> Files;
  for (const Item &I : Items)
    for (const ProfileFrame &F : I.U->Sum.Frames)
      if (!F.File.empty() && !isStdLibraryFile(F.File))
        Files.push_back(F.File);
  llvm::sort(Files);
  Files.erase(std::unique(Files.begin(), Files.end()), Files.end());
  return PlanPathNamer(PlanDir, Files);
}

/// Whether the gain is the measured misses (Advice::Measured): where every
/// profile has them, unless told otherwise. False with an error where
/// --gain=misses asks for what the profiles do not have.
bool gainFromMisses(const AdviseOptions &Opts, const ProfileMisses &M,
                    bool &Measured, DiagEngine &D) {
  using G = AdviseOptions::GainFrom;
  Measured = Opts.Gain != G::LiveBytes && M.complete();
  if (Opts.Gain != G::Misses || Measured)
    return true;
  D.report(Severity::Error,
           "--gain=misses: " +
               (M.Unmeasured.empty()
                    ? std::string("no profile has its misses")
                    : M.Unmeasured.front() +
                          " has no misses file beside it (PROFILE.misses)"));
  return false;
}

} // namespace

bool advise(const std::vector<ProfileContext> &Contexts,
            const AdviseOptions &Opts, Advice &Out, DiagEngine &D) {
  if (!gainFromMisses(Opts, Out.Misses, Out.Measured, D))
    return false;
  Out.LLC = Opts.LLC;
  Out.LLCWays = Opts.LLCWays;
  Out.Units = planUnits(Contexts);
  Out.BW = Opts.BW;
  Out.Whole = Opts.Whole;
  Out.Cost = Opts.Cost;
  Timeline Time(Out.Units);
  std::vector<Item> Items = makeItems(Out, Opts, Time);
  Out.Names = fileNames(Items, Opts.PlanDir);
  Decisions Dec;
  for (const Item &I : Items) {
    ContextDecision &CD = Dec[&I];
    CD.U = I.U;
    CD.Gain = I.Gain;
    CD.MissChance = I.Miss;
  }
  std::vector<const Item *> Worth = worthPlacing(Items, Opts, Out, Dec, D);
  std::set<const Item *> InFast =
      chooseFast(Items, Worth, Opts, Out, Time, Dec);
  chooseSlow(Items, InFast, Opts, Time, Dec, D);
  for (auto &[I, CD] : Dec)
    if (CD.Reason.empty())
      CD.Reason = "kept: no fast tier given";
  if (!writeAdvisedPlan(Items, Dec, Opts, Contexts.size(), Out, D))
    return false;
  for (const Item &I : Items)
    Out.Decisions.push_back(Dec[&I]);
  llvm::stable_sort(Out.Decisions,
                    [](const ContextDecision &A, const ContextDecision &B) {
                      return A.Gain > B.Gain;
                    });
  return true;
}

} // namespace hmplace
