//===- Advisor.cpp - a placement plan from a memory profile ---------------===//
//
// The capacity check is an interval problem: time is cut at every context's
// first and last moment, and a segment tree holds, per cut, the bytes the
// chosen contexts of a tier keep live there; a context fits when the
// largest sum over its lifetime plus its peak stays within the capacity.
// Each greedy pass is O(n log n) in the contexts.
//
// The shortest distinguishing entries come from a trie per allocation call
// over the contexts' caller frames: a context's entry ends at the first node
// under which every context goes to the same tier.
//
//===----------------------------------------------------------------------===//
#include "Advisor.h"
#include "plan/AllocFns.h"
#include "plan/Context.h"
#include "plan/Plan.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Format.h"
#include "llvm/Support/MemoryBuffer.h"

#include <algorithm>
#include <numeric>
#include <set>

using namespace llvm;

namespace hmplace {

uint64_t detectLLC(std::string &Source) {
  uint64_t Best = 0;
  for (unsigned I = 0; I < 8; ++I) {
    std::string Dir =
        "/sys/devices/system/cpu/cpu0/cache/index" + std::to_string(I) + "/";
    auto Level = MemoryBuffer::getFile(Dir + "level");
    auto Size = MemoryBuffer::getFile(Dir + "size");
    if (!Level || !Size)
      continue;
    std::string Err;
    std::optional<uint64_t> B = parseSize((*Size)->getBuffer().trim(), Err);
    if (B && *B > Best)
      Best = *B;
  }
  if (Best) {
    Source = "this machine's largest cache";
    return Best;
  }
  Source = "the default: this machine does not say; --llc sets it";
  return 32ull << 20;
}

namespace {

/// Range add, range max over cut points.
class IntervalLoad {
public:
  explicit IntervalLoad(size_t N) : N(N), Max(4 * N + 4), Add(4 * N + 4) {}
  uint64_t max(size_t L, size_t R) const { return query(1, 0, N - 1, L, R); }
  void add(size_t L, size_t R, uint64_t V) { update(1, 0, N - 1, L, R, V); }

private:
  uint64_t query(size_t Node, size_t B, size_t E, size_t L, size_t R) const {
    if (R < B || E < L)
      return 0;
    if (L <= B && E <= R)
      return Max[Node];
    size_t M = (B + E) / 2;
    return Add[Node] + std::max(query(2 * Node, B, M, L, R),
                                query(2 * Node + 1, M + 1, E, L, R));
  }
  void update(size_t Node, size_t B, size_t E, size_t L, size_t R, uint64_t V) {
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
  size_t N;
  std::vector<uint64_t> Max, Add;
};

/// Time cut at every unit's first and last moment: the points the capacity
/// is checked at.
struct Timeline {
  std::vector<uint64_t> Cuts;
  explicit Timeline(const std::vector<PlanUnit> &Units) {
    for (const PlanUnit &U : Units) {
      Cuts.push_back(U.Sum.Start);
      Cuts.push_back(U.Sum.End);
    }
    llvm::sort(Cuts);
    Cuts.erase(std::unique(Cuts.begin(), Cuts.end()), Cuts.end());
  }
  size_t at(uint64_t T) const {
    return std::lower_bound(Cuts.begin(), Cuts.end(), T) - Cuts.begin();
  }
  size_t size() const { return std::max<size_t>(Cuts.size(), 1); }
};

struct Item {
  const PlanUnit *U;
  double Gain, Miss;
  uint64_t Peak;
  size_t Lo, Hi;   ///< cut indices of its lifetime
  std::string Key; ///< frames, for a stable order
  bool Nameable;   ///< an entry can name its allocation call
  std::vector<const ProfileFrame *> Frames; ///< entryFrames
};

/// The contexts of \p Order added greedily under \p Capacity; their gain.
double greedy(const std::vector<const Item *> &Order, uint64_t Capacity,
              size_t Cuts, std::vector<const Item *> &Chosen) {
  IntervalLoad Load(Cuts);
  double Sum = 0;
  for (const Item *I : Order) {
    if (I->Peak > Capacity || Load.max(I->Lo, I->Hi) + I->Peak > Capacity)
      continue;
    Load.add(I->Lo, I->Hi, I->Peak);
    Chosen.push_back(I);
    Sum += I->Gain;
  }
  return Sum;
}

/// Whether \p C is allocated inside the C++ library (a container's buffer,
/// make_unique): an entry names it by `std::allocator` and the user's
/// frames (Context.h).
bool isContainer(const ProfileContext &C) {
  return !C.Frames.empty() && isStdLibraryFile(C.Frames.front().File);
}

/// The frames a plan entry may name, innermost first: the allocation call
/// (for a container, none: `std::allocator` stands for it), then the
/// user's. Library frames past the allocation call are never noted, so
/// leaving them out keeps the chain the runtime sees.
std::vector<const ProfileFrame *> entryFrames(const ProfileContext &C) {
  std::vector<const ProfileFrame *> Out;
  bool Container = isContainer(C);
  for (size_t I = 0; I < C.Frames.size(); ++I)
    if ((I == 0 && !Container) || !isStdLibraryFile(C.Frames[I].File))
      Out.push_back(&C.Frames[I]);
  return Out;
}

/// The outermost of the library frames a context starts with: the
/// function the user called (`std::vector<double>::vector`).
const ProfileFrame *libraryEntry(const ProfileContext &C) {
  const ProfileFrame *Last = nullptr;
  for (const ProfileFrame &F : C.Frames) {
    if (!isStdLibraryFile(F.File))
      break;
    Last = &F;
  }
  return Last;
}

/// How the plan names a file: relative to the plan's directory when inside
/// it (the plan then works in any checkout of the tree), else absolute.
std::string planFile(StringRef File, StringRef PlanDir) {
  StringRef Rel = File;
  if (!PlanDir.empty() && Rel.consume_front(PlanDir) &&
      (PlanDir.ends_with("/") || Rel.consume_front("/")))
    return Rel.str();
  return File.str();
}

std::string planFrame(const ProfileFrame &F, StringRef PlanDir) {
  return planFile(F.File, PlanDir) + ":" + utostr(F.Line) + ":" +
         utostr(F.Column);
}

std::string percent(double V) {
  std::string S;
  raw_string_ostream(S) << format("%.1f%%", 100 * V);
  return S;
}

std::string perByte(uint64_t Accesses, uint64_t Bytes) {
  std::string S;
  raw_string_ostream(S) << format(
      "%.2f", double(Accesses) / double(std::max<uint64_t>(Bytes, 1)));
  return S;
}

std::string share(double Part, double Whole) {
  return Whole > 0 ? percent(Part / Whole) : "0.0%";
}

/// A library function as people call it: `std::vector::vector`, not the
/// instantiation's full name (its arguments repeat the allocator).
std::string libraryName(StringRef Name) {
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

/// A context's stack for people: function (frame), innermost first; a run
/// of library frames is shown by the outermost, the one the user called.
std::string stackText(const ProfileContext &C, StringRef PlanDir) {
  std::string S;
  for (size_t I = 0; I < C.Frames.size(); ++I) {
    const ProfileFrame &F = C.Frames[I];
    bool Library = isStdLibraryFile(F.File);
    if (Library && I + 1 < C.Frames.size() &&
        isStdLibraryFile(C.Frames[I + 1].File))
      continue;
    S += (S.empty() ? "" : " < ") +
         (Library ? libraryName(F.Function) + " (C++ library)"
                  : F.Function + " (" + planFrame(F, PlanDir) + ")");
  }
  return S;
}

/// "xmalloc < main" for warnings: the functions of the frames an entry
/// can name.
std::string describe(const ProfileContext &C) {
  std::string S;
  for (const ProfileFrame *F : entryFrames(C))
    S += (S.empty() ? "" : " < ") + F->Function;
  return S.empty() ? "(no frame in the program)" : S;
}

/// Whether an entry can name \p C's allocation call at all.
bool nameable(const ProfileContext &C) {
  return C.Unnameable.empty() && !entryFrames(C).empty();
}

/// What an entry can name of \p C: its allocation call (or std::allocator)
/// and the user frames; contexts with the same key are one unit.
std::string unitKey(const ProfileContext &C) {
  if (!C.Unnameable.empty())
    return "?" + C.framesKey(); // never placed: kept apart, as profiled
  std::string K = isContainer(C) ? std::string(ContainerSite) + ">" : "";
  for (const ProfileFrame *F : entryFrames(C))
    K += F->text() + ">";
  return K;
}

/// The chance that an access to \p C misses the last-level cache.
double missChance(const ProfileContext &C, uint64_t LLC) {
  uint64_t PerObject = std::max<uint64_t>(
      C.MaxSize, C.AllocCount ? C.TotalSize / C.AllocCount : 0);
  return double(PerObject) / double(PerObject + LLC);
}

/// Contexts an entry cannot tell apart, summed: the units decided.
std::vector<PlanUnit> planUnits(const std::vector<ProfileContext> &Contexts) {
  std::vector<PlanUnit> Units;
  std::map<std::string, size_t> ByKey;
  for (const ProfileContext &C : Contexts) {
    auto [It, New] = ByKey.try_emplace(unitKey(C), Units.size());
    if (New) {
      Units.push_back({C, C.peakBytes(), 1});
      continue;
    }
    // Both may be live at once: their peaks add up.
    PlanUnit &U = Units[It->second];
    U.Sum.add(C);
    U.Peak += C.peakBytes();
    ++U.Stacks;
  }
  return Units;
}

} // namespace

bool advise(const std::vector<ProfileContext> &Contexts,
            const AdviseOptions &Opts, Advice &Out, DiagEngine &D) {
  Out.PlanDir = Opts.PlanDir;
  Out.Units = planUnits(Contexts);
  // Items, in a stable order (by frames), with their cut indices.
  std::vector<Item> Items;
  Items.reserve(Out.Units.size());
  Timeline Time(Out.Units);
  for (const PlanUnit &U : Out.Units) {
    Item I;
    I.U = &U;
    I.Miss = missChance(U.Sum, Opts.LLC);
    I.Gain = double(U.Sum.Accesses) * I.Miss;
    I.Peak = U.Peak;
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

  std::map<const Item *, ContextDecision> Dec;
  for (const Item &I : Items) {
    ContextDecision &CD = Dec[&I];
    CD.U = I.U;
    CD.Gain = I.Gain;
    CD.MissChance = I.Miss;
  }
  // Fast tier: units worth placing, by two greedy orders.
  std::vector<const Item *> Worth;
  for (const Item &I : Items) {
    bool Enough = Out.TotalGain > 0 && I.Gain / Out.TotalGain >= Opts.MinShare;
    if (Enough && I.Nameable) {
      Worth.push_back(&I);
      continue;
    }
    ContextDecision &CD = Dec[&I];
    if (!Enough) {
      std::string Small;
      raw_string_ostream(Small) << format(
          "%.3f%%", Out.TotalGain > 0 ? 100 * I.Gain / Out.TotalGain : 0.0);
      CD.Reason = "kept: " + Small + " of the weighted accesses, below the " +
                  percent(Opts.MinShare) + " worth placing";
      continue;
    }
    // Worth placing, but no entry can name it: say so, it is a miss.
    CD.Reason =
        "kept: " +
        (I.U->Sum.Unnameable.empty() ? std::string("every frame is in the C++ "
                                                   "library")
                                     : I.U->Sum.Unnameable) +
        "; no entry can name it";
    D.report(Severity::Warning,
             "context " + describe(I.U->Sum) + " (" +
                 planFrame(I.U->Sum.Frames.front(), Opts.PlanDir) + ", " +
                 share(I.Gain, Out.TotalGain) +
                 " of the weighted accesses) stays in DDR: " +
                 StringRef(CD.Reason).drop_front(6).str());
  }
  auto ByDensity = [](const Item *A, const Item *B) {
    double DA = A->Gain / double(std::max<uint64_t>(A->Peak, 1));
    double DB = B->Gain / double(std::max<uint64_t>(B->Peak, 1));
    return DA != DB ? DA > DB : A->Key < B->Key;
  };
  auto ByGain = [](const Item *A, const Item *B) {
    return A->Gain != B->Gain ? A->Gain > B->Gain : A->Key < B->Key;
  };
  std::string Fast;
  for (StringRef T : {"hbm", "hbw"})
    if (Opts.Capacity.count(T.str()))
      Fast = T.str();
  std::set<const Item *> InFast;
  if (!Fast.empty()) {
    uint64_t Cap = Opts.Capacity.at(Fast);
    std::vector<const Item *> A(Worth), B(Worth), CA, CB;
    llvm::sort(A, ByDensity);
    llvm::sort(B, ByGain);
    double GA = greedy(A, Cap, Time.size(), CA);
    double GB = greedy(B, Cap, Time.size(), CB);
    const std::vector<const Item *> &Chosen = GB > GA ? CB : CA;
    InFast.insert(Chosen.begin(), Chosen.end());
    for (const Item *I : Worth) {
      ContextDecision &CD = Dec[I];
      if (InFast.count(I)) {
        CD.Tier = Fast;
        CD.Reason = "in " + Fast + ": " + share(I->Gain, Out.TotalGain) +
                    " of the weighted accesses";
      } else if (I->Peak > Cap) {
        CD.Reason = "kept: its " + humanSize(I->Peak) + " exceed the " + Fast +
                    " capacity, " + humanSize(Cap);
      } else {
        CD.Reason = "kept: " + Fast +
                    " is full of contexts with more gain while it lives";
      }
    }
  }
  // Slow tier: only when DDR cannot hold what stays there.
  std::string Slow;
  for (StringRef T : {"pmem", "cxl"})
    if (Opts.Capacity.count(T.str()))
      Slow = T.str();
  if (Opts.Capacity.count("ddr")) {
    uint64_t Cap = Opts.Capacity.at("ddr");
    IntervalLoad Load(Time.size());
    std::vector<const Item *> InDDR;
    for (const Item &I : Items)
      if (!InFast.count(&I)) {
        InDDR.push_back(&I);
        Load.add(I.Lo, I.Hi, I.Peak);
      }
    // The least gain per byte leaves first.
    llvm::sort(InDDR,
               [&](const Item *A, const Item *B) { return ByDensity(B, A); });
    for (const Item *I : InDDR) {
      if (Load.max(0, Time.size() - 1) <= Cap)
        break;
      if (Slow.empty()) {
        D.report(Severity::Warning,
                 "the contexts kept in DDR need " +
                     humanSize(Load.max(0, Time.size() - 1)) +
                     " at their peak, more than the ddr capacity " +
                     humanSize(Cap) +
                     "; give a slow tier (pmem=SIZE or cxl=SIZE) to move "
                     "the coldest there");
        break;
      }
      if (!I->Nameable)
        continue;
      Load.add(I->Lo, I->Hi, uint64_t(0) - I->Peak);
      ContextDecision &CD = Dec[I];
      CD.Tier = Slow;
      CD.Reason = "in " + Slow +
                  ": DDR is over its capacity, and this has the least gain "
                  "per byte";
    }
  }
  for (auto &[I, CD] : Dec)
    if (CD.Reason.empty())
      CD.Reason = "kept: no fast tier given";

  // Shortest distinguishing entries: a trie per allocation call (all
  // containers share the standard allocator's) over the user frames.
  struct Node {
    std::map<std::string, unsigned> Kids;
    std::set<std::string> Tiers;
  };
  std::map<std::string, std::vector<Node>> Tries;
  auto GroupOf = [](const ProfileContext &C) {
    return isContainer(C) ? std::string(ContainerSite)
                          : C.Frames.front().text();
  };
  std::vector<const Item *> Named; // those an entry can name
  for (const Item &I : Items)
    if (I.Nameable)
      Named.push_back(&I);
  for (const Item *I : Named) {
    const ProfileContext &C = I->U->Sum;
    std::vector<Node> &T = Tries[GroupOf(C)];
    if (T.empty())
      T.emplace_back();
    unsigned N = 0;
    T[N].Tiers.insert(Dec[I].Tier);
    // A non-container's first user frame is its allocation call, the
    // group's key: the path below starts after it.
    const std::vector<const ProfileFrame *> &U = I->Frames;
    for (size_t K = isContainer(C) ? 0 : 1; K < U.size(); ++K) {
      auto [It, New] = T[N].Kids.try_emplace(U[K]->text(), T.size());
      if (New)
        T.emplace_back();
      N = It->second;
      T[N].Tiers.insert(Dec[I].Tier);
    }
  }
  // Entries, by frames text and tier (units that share both share one).
  struct Entry {
    std::vector<std::string> Frames;
    std::string Tier;
    uint64_t Bytes = 0, Objects = 0, Accesses = 0;
    unsigned Stacks = 0;
    std::vector<const ProfileContext *> Contexts;
  };
  std::map<std::pair<std::vector<std::string>, std::string>, Entry> Entries;
  std::map<const Item *, std::vector<std::string>> FramesOf;
  for (const Item *I : Named) {
    const ProfileContext &C = I->U->Sum;
    const std::vector<Node> &T = Tries[GroupOf(C)];
    bool Container = isContainer(C);
    const std::vector<const ProfileFrame *> &U = I->Frames;
    // Walk down until the subtree goes to one tier (a container needs its
    // user frame at least).
    std::vector<std::string> &Frames = FramesOf[I];
    Frames.push_back(Container ? ContainerSite.str()
                               : planFrame(*U[0], Opts.PlanDir));
    unsigned N = 0;
    size_t K = Container ? 0 : 1;
    bool Distinct = T[0].Tiers.size() == 1 && !Container;
    while (!Distinct && K < U.size()) {
      N = T[N].Kids.at(U[K]->text());
      Frames.push_back(planFrame(*U[K], Opts.PlanDir));
      ++K;
      Distinct = T[N].Tiers.size() == 1;
    }
  }
  auto AddEntry = [&](const Item *I) {
    const ProfileContext &C = I->U->Sum;
    const std::vector<std::string> &Frames = FramesOf[I];
    ContextDecision &CD = Dec[I];
    CD.FramesUsed = Frames.size();
    Entry &E = Entries[{Frames, CD.Tier}];
    E.Frames = Frames;
    E.Tier = CD.Tier;
    E.Bytes += I->Peak;
    E.Objects += C.AllocCount;
    E.Accesses += C.Accesses;
    E.Stacks += I->U->Stacks;
    E.Contexts.push_back(&C);
  };
  std::vector<const std::vector<std::string> *> PlacedPaths;
  for (const Item *I : Named)
    if (!Dec[I].Tier.empty()) {
      AddEntry(I);
      PlacedPaths.push_back(&FramesOf[I]);
    }
  // A unit kept in DDR needs no entry unless a shorter placed entry would
  // claim it (a stack that ends early: a thread's start routine, frames
  // outside the binary). It gets one for the reviewer where that costs
  // nothing (a site entry: no edit, no noted caller), not where its callers
  // would have to note themselves.
  for (const Item *I : Named) {
    const std::vector<std::string> &Frames = FramesOf[I];
    if (!Dec[I].Tier.empty())
      continue;
    bool Claimed = any_of(PlacedPaths, [&](const std::vector<std::string> *P) {
      return P->size() < Frames.size() &&
             std::equal(P->begin(), P->end(), Frames.begin());
    });
    if (Frames.size() == 1 || Claimed)
      AddEntry(I);
  }

  // The plan.
  Plan P;
  P.Note = "hmplan advise: " + std::to_string(Opts.Profiles) + " profile" +
           (Opts.Profiles == 1 ? "" : "s") + " of " + Opts.Binary + ", " +
           std::to_string(Contexts.size()) + " context" +
           (Contexts.size() == 1 ? "" : "s") + "; LLC " + humanSize(Opts.LLC) +
           " (" + Opts.LLCSource + ")";
  for (const auto &[Name, Cap] : Opts.Capacity) {
    if (Name == "ddr")
      continue;
    auto T = std::make_unique<Tier>();
    T->Name = Name;
    T->KindSpelling = Name == "hbw" ? "hbm" : Name == "cxl" ? "pmem" : Name;
    const Tier *Unused = nullptr;
    T->Kind = P.resolveKind(T->KindSpelling, &Unused);
    T->Capacity = Cap;
    P.Tiers[Name] = std::move(T);
  }
  for (auto &[Key, E] : Entries) {
    PlanEntry PE;
    for (const std::string &F : E.Frames) {
      std::string Err;
      std::optional<Frame> Fr = parseFrame(F, Err);
      if (!Fr) {
        D.report(Severity::Error, "internal: frame '" + F + "': " + Err);
        return false;
      }
      PE.Frames.push_back(*Fr);
    }
    PE.IsStack = PE.Frames.size() > 1;
    PE.To.Spelling = E.Tier.empty() ? "posix" : E.Tier;
    PE.Size = formatSize(E.Bytes);
    const ProfileContext &C0 = *E.Contexts.front();
    std::string What = isContainer(C0)
                           ? libraryName(libraryEntry(C0)->Function) + " in " +
                                 entryFrames(C0).front()->Function
                           : "in " + C0.Frames.front().Function;
    PE.Note = What + ": " + std::to_string(E.Objects) + " object" +
              (E.Objects == 1 ? "" : "s") + ", " + humanSize(E.Bytes) +
              " at once, " + std::to_string(E.Accesses) + " accesses (" +
              perByte(E.Accesses, E.Bytes) + " per byte), " +
              share(E.Accesses, Out.TotalAccesses) + " of all accesses";
    if (E.Stacks > 1)
      PE.Note += " (" + std::to_string(E.Stacks) + " contexts)";
    P.Entries.push_back(std::move(PE));
  }
  raw_string_ostream OS(Out.PlanText);
  writeYaml(P, OS);
  OS.flush();

  // Check the plan with the matcher both front ends use: does every unit
  // get the tier chosen for it?
  DiagEngine Quiet(nulls());
  std::unique_ptr<Plan> Read = parsePlan(
      MemoryBuffer::getMemBufferCopy(Out.PlanText, "advised plan"), Quiet);
  if (!Read) {
    D.report(Severity::Error, "internal: the advised plan does not read back");
    return false;
  }
  SiteMatcher M(*Read);
  for (const Item *I : Named) {
    const std::vector<const ProfileFrame *> &U = I->Frames;
    CallContext Ctx;
    Ctx.Frames.push_back({U[0]->File, U[0]->Line, U[0]->Column});
    Ctx.StdAllocator = isContainer(I->U->Sum);
    M.addCall(std::move(Ctx));
  }
  std::vector<Placement> Res = M.resolve();
  auto KindText = [](const KindInfo *K) {
    return K->isHeap() ? std::string("the ordinary heap")
                       : std::string(K->Name);
  };
  for (size_t N = 0; N < Named.size(); ++N) {
    const Item &I = *Named[N];
    const Placement &Pl = Res[N];
    const std::vector<const ProfileFrame *> &U = I.Frames;
    std::string Got = "the ordinary heap";
    std::string Want = Dec[&I].Tier.empty()
                           ? Got
                           : KindText(Read->findTier(Dec[&I].Tier)->Kind);
    if (Pl.State == Placement::Placed) {
      Got = KindText(Pl.Entry->To.Kind);
    } else if (Pl.State == Placement::Contextual) {
      // As the runtime chooses: the noted frames on top of the stack.
      std::vector<uint64_t> Noted;
      for (size_t K = Pl.Container ? 0 : 1; K < U.size(); ++K) {
        CallContext F;
        F.Frames.push_back({U[K]->File, U[K]->Line, U[K]->Column});
        if (M.isNoted(F))
          Noted.push_back(contextFrameId(U[K]->File, U[K]->Line, U[K]->Column));
      }
      int Kind = Pl.kindOnStack(Noted);
      Got = Kind < 0 ? "the ordinary heap" : KindText(&allKinds()[Kind]);
    } else if (Pl.State == Placement::Conflict) {
      Got = "nothing (" + Pl.Reason + ")";
    }
    if (Got != Want)
      D.report(Severity::Warning, "context " + describe(I.U->Sum) + " (" +
                                      planFrame(*U[0], Opts.PlanDir) +
                                      "): the plan's entries give it " + Got +
                                      ", not " + Want);
  }

  for (const Item &I : Items)
    Out.Decisions.push_back(Dec[&I]);
  llvm::stable_sort(Out.Decisions,
                    [](const ContextDecision &A, const ContextDecision &B) {
                      return A.Gain > B.Gain;
                    });
  return true;
}

void printExplanation(const Advice &A, raw_ostream &OS) {
  // Each unit: a row of figures under its allocation call, its stack
  // (function and frame, innermost first), and why it goes where it goes.
  std::vector<std::string> Where;
  size_t Width = 7;
  for (const ContextDecision &CD : A.Decisions) {
    const ProfileContext &C = CD.U->Sum;
    Where.push_back(isContainer(C) ? std::string(ContainerSite)
                    : C.Frames.empty()
                        ? "(no frame)"
                        : planFrame(C.Frames.front(), A.PlanDir));
    Width = std::max(Width, Where.back().size());
  }
  OS << left_justify("#", 4) << " " << left_justify("context", Width)
     << "   objects       peak       accesses  per byte   share   miss  "
        "decision\n";
  for (size_t N = 0; N < A.Decisions.size(); ++N) {
    const ContextDecision &CD = A.Decisions[N];
    const ProfileContext &C = CD.U->Sum;
    uint64_t Peak = CD.U->Peak;
    OS << left_justify(utostr(N + 1), 4) << " " << left_justify(Where[N], Width)
       << format(" %9llu %10s %14llu %9.2f %7s %6s  %s\n",
                 (unsigned long long)C.AllocCount, humanSize(Peak).c_str(),
                 (unsigned long long)C.Accesses,
                 double(C.Accesses) / double(std::max<uint64_t>(Peak, 1)),
                 share(C.Accesses, A.TotalAccesses).c_str(),
                 percent(CD.MissChance).c_str(),
                 (CD.Tier.empty() ? std::string("DDR") : CD.Tier).c_str());
    OS << "     " << stackText(C, A.PlanDir);
    if (CD.U->Stacks > 1)
      OS << " (" << CD.U->Stacks
         << " call stacks that differ only in the library's frames)";
    OS << "\n     " << CD.Reason;
    if (!CD.FramesUsed && CD.Tier.empty() && nameable(C))
      OS << "; no entry: none claims it, so malloc places it";
    OS << "\n";
  }
}

void printCurve(const Advice &A, raw_ostream &OS) {
  // Units by gain per byte (the gains the decisions weighed); each step's
  // capacity is the peak of what is live at once so far.
  std::vector<double> GainOf(A.Units.size());
  for (const ContextDecision &CD : A.Decisions)
    GainOf[CD.U - A.Units.data()] = CD.Gain;
  std::vector<size_t> Steps(A.Units.size());
  std::iota(Steps.begin(), Steps.end(), 0);
  auto Density = [&](size_t U) {
    return GainOf[U] / double(std::max<uint64_t>(A.Units[U].Peak, 1));
  };
  llvm::stable_sort(
      Steps, [&](size_t X, size_t Y) { return Density(X) > Density(Y); });
  Timeline Time(A.Units);
  IntervalLoad Load(Time.size());
  OS << "   HBM bytes  contexts  of all accesses    of the gain\n";
  double Gain = 0;
  uint64_t Acc = 0;
  unsigned N = 0;
  double NextMark = 0.1;
  bool Knee = false;
  for (size_t S : Steps) {
    const PlanUnit &U = A.Units[S];
    Load.add(Time.at(U.Sum.Start), Time.at(U.Sum.End), U.Peak);
    Gain += GainOf[S];
    Acc += U.Sum.Accesses;
    ++N;
    double G = A.TotalGain > 0 ? Gain / A.TotalGain : 1;
    // A row per tenth of the gain (and every row of a short profile).
    if (Steps.size() > 20 && G < NextMark && N != Steps.size())
      continue;
    while (NextMark <= G)
      NextMark += 0.1;
    OS << format("%12s %9u %16s %14s",
                 humanSize(Load.max(0, Time.size() - 1)).c_str(), N,
                 share(Acc, A.TotalAccesses).c_str(), percent(G).c_str());
    if (!Knee && G >= 0.9) {
      OS << "  <- 90% of the gain";
      Knee = true;
    }
    OS << "\n";
  }
}

} // namespace hmplace
