//===- AdvisedPlan.cpp - the advisor's decisions as a plan ----------------===//
//
// The shortest distinguishing entries come from a trie per allocation call
// over the contexts' caller frames: a context's entry ends at the first node
// under which every context goes to the same tier. The plan written is read
// back and every unit matched with the matcher both front ends use (the
// runtime's choice for call-stack entries included).
//
//===----------------------------------------------------------------------===//
#include "AdvisorParts.h"
#include "Tiers.h"
#include "plan/Context.h"
#include "plan/Kinds.h"
#include "plan/Plan.h"
#include "plan/SourceTokens.h"
#include "plan/Split.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/Format.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"

#include <set>

using namespace llvm;

namespace hmplace {

namespace {

struct TrieNode {
  std::map<std::string, unsigned> Kids;
  std::set<std::string> Tiers;
};
using Tries = std::map<std::string, std::vector<TrieNode>>;

/// Where a unit goes, as one word: its tier and, for a split, its share
/// ("hbm", "hbm:75", "" for where malloc puts it).
std::string placementOf(const ContextDecision &CD) {
  return CD.Tier.empty() || CD.Share == 100
             ? CD.Tier
             : CD.Tier + ":" + std::to_string(CD.Share);
}

/// The trie a unit belongs to: its allocation call's (all containers share
/// the standard allocator's).
std::string groupOf(const ProfileContext &C) {
  return isContainer(C) ? std::string(ContainerSite) : C.Frames.front().text();
}

/// Where a unit's path starts below its trie's root: a non-container's
/// first user frame is its allocation call, the group's key.
size_t firstCaller(const Item &I) { return isContainer(I.U->Sum) ? 0 : 1; }

Tries buildTries(const std::vector<const Item *> &Named, Decisions &Dec) {
  Tries T;
  for (const Item *I : Named) {
    std::vector<TrieNode> &Nodes = T[groupOf(I->U->Sum)];
    if (Nodes.empty())
      Nodes.emplace_back();
    unsigned N = 0;
    Nodes[N].Tiers.insert(placementOf(Dec[I]));
    const std::vector<const ProfileFrame *> &U = I->Frames;
    for (size_t K = firstCaller(*I); K < U.size(); ++K) {
      auto [It, New] = Nodes[N].Kids.try_emplace(U[K]->text(), Nodes.size());
      if (New)
        Nodes.emplace_back();
      N = It->second;
      Nodes[N].Tiers.insert(placementOf(Dec[I]));
    }
  }
  return T;
}

/// Each unit's entry frames: down its trie until the subtree goes to one
/// tier (a container needs its user frame at least).
std::map<const Item *, std::vector<std::string>>
entryFramesOf(const std::vector<const Item *> &Named, const Tries &T,
              const PlanPathNamer &Names) {
  std::map<const Item *, std::vector<std::string>> FramesOf;
  for (const Item *I : Named) {
    const std::vector<TrieNode> &Nodes = T.at(groupOf(I->U->Sum));
    bool Container = isContainer(I->U->Sum);
    const std::vector<const ProfileFrame *> &U = I->Frames;
    std::vector<std::string> &Frames = FramesOf[I];
    Frames.push_back(Container ? ContainerSite.str() : planFrame(*U[0], Names));
    unsigned N = 0;
    size_t K = firstCaller(*I);
    bool Distinct = Nodes[0].Tiers.size() == 1 && !Container;
    while (!Distinct && K < U.size()) {
      N = Nodes[N].Kids.at(U[K]->text());
      Frames.push_back(planFrame(*U[K], Names));
      ++K;
      Distinct = Nodes[N].Tiers.size() == 1;
    }
  }
  return FramesOf;
}

/// A plan entry being gathered: units that share its frames and tier.
struct Entry {
  std::vector<std::string> Frames;
  std::string Tier;
  unsigned Share = 100; ///< percent in Tier (a split below 100)
  uint64_t Bytes = 0, Objects = 0, Accesses = 0;
  unsigned Stacks = 0;
  double Gain = 0; ///< its units' gain
  std::vector<const ProfileContext *> Contexts;
};
using Entries =
    std::map<std::pair<std::vector<std::string>, std::string>, Entry>;

Entries collectEntries(
    const std::vector<const Item *> &Named, Decisions &Dec,
    const std::map<const Item *, std::vector<std::string>> &FramesOf) {
  Entries Out;
  auto Add = [&](const Item *I) {
    const std::vector<std::string> &Frames = FramesOf.at(I);
    ContextDecision &CD = Dec[I];
    CD.FramesUsed = Frames.size();
    Entry &E = Out[{Frames, placementOf(CD)}];
    E.Frames = Frames;
    E.Tier = CD.Tier;
    E.Share = CD.Share;
    E.Bytes += I->U->Peak;
    E.Objects += I->U->Sum.AllocCount;
    E.Accesses += I->U->Sum.Accesses;
    E.Stacks += I->U->Stacks;
    E.Gain += CD.Gain;
    E.Contexts.push_back(&I->U->Sum);
  };
  std::vector<const std::vector<std::string> *> PlacedPaths;
  for (const Item *I : Named)
    if (!Dec[I].Tier.empty()) {
      Add(I);
      PlacedPaths.push_back(&FramesOf.at(I));
    }
  // A unit kept in DDR needs no entry unless a shorter placed entry would
  // claim it (a stack that ends early: a thread's start routine, frames
  // outside the binary). It gets one for the reviewer where that costs
  // nothing (a site entry: no edit, no noted caller), not where its callers
  // would have to note themselves.
  for (const Item *I : Named) {
    const std::vector<std::string> &Frames = FramesOf.at(I);
    if (!Dec[I].Tier.empty())
      continue;
    bool Claimed = any_of(PlacedPaths, [&](const std::vector<std::string> *P) {
      return P->size() < Frames.size() &&
             std::equal(P->begin(), P->end(), Frames.begin());
    });
    if (Frames.size() == 1 || Claimed)
      Add(I);
  }
  return Out;
}

std::string perByte(uint64_t Accesses, uint64_t Bytes) {
  std::string S;
  raw_string_ostream(S) << format(
      "%.2f", double(Accesses) / double(std::max<uint64_t>(Bytes, 1)));
  return S;
}

/// An entry's note: what it allocates and its figures.
std::string entryNote(const Entry &E, const Advice &Out) {
  const ProfileContext &C0 = *E.Contexts.front();
  std::string What = isContainer(C0)
                         ? libraryName(libraryEntry(C0)->Function) + " in " +
                               entryFrames(C0).front()->Function
                         : "in " + C0.Frames.front().Function;
  std::string Note = What + ": " + count(E.Objects, "object", "objects") +
                     ", " + humanSize(E.Bytes) + " at once, " +
                     count(E.Accesses, "access", "accesses") + " (" +
                     perByte(E.Accesses, E.Bytes) + " per byte), " +
                     share(E.Accesses, Out.TotalAccesses) + " of all accesses";
  if (E.Stacks > 1)
    Note += " (" + std::to_string(E.Stacks) + " contexts)";
  // A split says why, and with which bandwidths where the model chose it.
  if (!E.Tier.empty() && E.Share && E.Share < 100)
    Note += Out.BW.given()
                ? "; split: both tiers serve it at once (bandwidth model: " +
                      E.Tier + " " + rateText(Out.BW.Fast) + ", ddr " +
                      rateText(Out.BW.Slow) + ")"
                : "; split: " + E.Tier +
                      " holds no more of it (no bandwidths given: shares "
                      "only fill the capacity)";
  return Note;
}

/// The entries in the plan's order: those that place, most gain first (the
/// order `hmplan try` places them in, HMPLACE_ENTRIES), then those kept
/// where malloc puts them, by their frames; ties by their frames.
std::vector<const Entry *> inGainOrder(const Entries &Es) {
  std::vector<const Entry *> Order;
  for (const auto &[Key, E] : Es)
    Order.push_back(&E);
  llvm::stable_sort(Order, [](const Entry *A, const Entry *B) {
    if (A->Tier.empty() != B->Tier.empty())
      return B->Tier.empty();
    return !A->Tier.empty() && A->Gain > B->Gain;
  });
  return Order;
}

/// The plan: a note, the tiers given, the entries.
/// The token of the call the source frame \p F of \p E names, where the
/// plan is made (SourceTokens.h: a front end then checks the call at the
/// key is still that one), or "" where no source of it can be read.
std::string tokenOf(const Frame &F, const Entry &E, SourceTokenFiles &Sources) {
  if (F.Kind != Frame::Form::Source || !F.Line || !F.Column)
    return "";
  StringRef Name = sys::path::filename(F.File);
  for (const ProfileContext *C : E.Contexts)
    for (const ProfileFrame &PF : C->Frames)
      if (PF.Line == F.Line && PF.Column == F.Column &&
          sys::path::filename(PF.File) == Name)
        if (std::optional<TokenId> Id = Sources.at(PF.File, PF.Line, PF.Column))
          return tokenText(*Id);
  return "";
}

bool makePlan(const Entries &Es, const AdviseOptions &Opts, size_t NumContexts,
              const Advice &Out, Plan &P, DiagEngine &D) {
  P.Note = "hmplan advise: " + count(Opts.Profiles, "profile", "profiles") +
           " of " + Opts.Binary + ", " +
           count(NumContexts, "context", "contexts") + "; LLC " +
           humanSize(Opts.LLC) + " (" + Opts.LLCSource + ")";
  for (const auto &[Name, Cap] : Opts.Capacity) {
    if (Name == "ddr")
      continue;
    auto T = std::make_unique<Tier>();
    T->Name = Name;
    T->KindSpelling = findAdvisorTier(Name)->Kind.str();
    const Tier *Unused = nullptr;
    T->Kind = P.resolveKind(T->KindSpelling, &Unused);
    T->Capacity = Cap;
    P.Tiers[Name] = std::move(T);
  }
  SourceTokenFiles Sources;
  for (const Entry *EP : inGainOrder(Es)) {
    const Entry &E = *EP;
    PlanEntry PE;
    for (const std::string &F : E.Frames) {
      std::string Err;
      std::optional<Frame> Fr = parseFrame(F, Err);
      if (!Fr) {
        D.report(Severity::Error, "internal: frame '" + F + "': " + Err);
        return false;
      }
      Fr->Token = tokenOf(*Fr, E, Sources);
      PE.Frames.push_back(*Fr);
    }
    PE.IsStack = PE.Frames.size() > 1;
    PE.To.Spelling = E.Tier.empty() ? "posix" : E.Tier;
    if (!E.Tier.empty() && E.Share && E.Share < 100) { // the rest in DDR
      SplitPart Fast{E.Tier, nullptr, nullptr, E.Share};
      SplitPart Rest{"ddr", nullptr, nullptr, 100 - E.Share};
      if (Rest.Percent > Fast.Percent) // the largest share first
        std::swap(Fast, Rest);
      PE.To.Parts = {Fast, Rest};
    }
    PE.Size = formatSize(E.Bytes);
    PE.Note = entryNote(E, Out);
    P.Entries.push_back(std::move(PE));
  }
  return true;
}

std::string kindText(const KindInfo *K) {
  return K->isHeap() ? std::string("the ordinary heap") : std::string(K->Name);
}

/// What the plan should give a unit decided \p CD: its tier's kind, or the
/// split of it and DDR, as Target::kindText says it.
std::string wantedText(const Plan &P, const ContextDecision &CD) {
  std::string Fast = P.findTier(CD.Tier)->Kind->Name;
  if (CD.Share == 100)
    return Fast;
  std::string F = Fast + " " + std::to_string(CD.Share) + "%";
  std::string S =
      std::string("MEMKIND_REGULAR ") + std::to_string(100 - CD.Share) + "%";
  return CD.Share >= 50 ? F + " + " + S : S + " + " + F;
}

/// Where a front end sees the call or caller \p F (a merged call: its
/// function, as the pass at the end of the pipeline does).
SourcePos positionOf(const ProfileFrame &F) {
  return {F.File, F.Line, F.Column, F.Line ? "" : F.Function};
}

/// The runtime code the plan's entries give a context whose entry frames
/// are \p U, as the front ends and the runtime would decide (a call-stack
/// entry: the noted frames on top of the stack); -1 the ordinary heap,
/// nothing where entries conflict.
std::optional<int> placedCode(ArrayRef<const ProfileFrame *> U,
                              const Placement &Pl, SiteMatcher &M) {
  if (Pl.State == Placement::Placed)
    return runtimeCode(Pl.Entry->To);
  if (Pl.State == Placement::Conflict)
    return std::nullopt;
  if (Pl.State != Placement::Contextual)
    return -1;
  std::vector<uint64_t> Noted;
  for (size_t K = Pl.Container ? 0 : 1; K < U.size(); ++K) {
    CallContext F;
    F.Frames.push_back(positionOf(*U[K]));
    if (M.isNoted(F))
      Noted.push_back(contextFrameId(U[K]->File, U[K]->Line, U[K]->Column));
  }
  return Pl.kindOnStack(Noted);
}

/// What the plan's entries give unit \p I, in words.
std::string placedAs(const Item &I, const Placement &Pl, SiteMatcher &M) {
  std::optional<int> Code = placedCode(I.Frames, Pl, M);
  return Code ? runtimeCodeName(*Code) : "nothing (" + Pl.Reason + ")";
}

/// The calls of \p Frames (each context's entry frames) added to \p M.
void addCalls(ArrayRef<std::vector<const ProfileFrame *>> Frames,
              const std::vector<bool> &Containers, SiteMatcher &M) {
  for (size_t N = 0; N < Frames.size(); ++N) {
    CallContext Ctx;
    Ctx.Frames.push_back(positionOf(*Frames[N].front()));
    Ctx.StdAllocator = Containers[N];
    M.addCall(std::move(Ctx));
  }
}

/// Read the plan back and warn about every unit its entries do not give
/// the tier chosen.
bool checkPlan(const std::vector<const Item *> &Named, Decisions &Dec,
               const Advice &Out, DiagEngine &D) {
  std::string Why;
  raw_string_ostream WhyOS(Why);
  DiagEngine Quiet(WhyOS);
  std::unique_ptr<Plan> Read = parsePlan(
      MemoryBuffer::getMemBufferCopy(Out.PlanText, "advised plan"), Quiet);
  if (!Read) {
    D.report(Severity::Error,
             "internal: the advised plan does not read back: " + WhyOS.str());
    return false;
  }
  SiteMatcher M(*Read);
  std::vector<std::vector<const ProfileFrame *>> Frames;
  std::vector<bool> Containers;
  for (const Item *I : Named) {
    Frames.push_back(I->Frames);
    Containers.push_back(isContainer(I->U->Sum));
  }
  addCalls(Frames, Containers, M);
  std::vector<Placement> Res = M.resolve();
  for (size_t N = 0; N < Named.size(); ++N) {
    const Item &I = *Named[N];
    const ContextDecision &CD = Dec[&I];
    std::string Want =
        CD.Tier.empty() ? "the ordinary heap" : wantedText(*Read, CD);
    std::string Got = placedAs(I, Res[N], M);
    if (Got != Want)
      D.report(Severity::Warning, "context " + describe(I.U->Sum) + " (" +
                                      planFrame(*I.Frames.front(), Out.Names) +
                                      "): the plan's entries give it " + Got +
                                      ", not " + Want);
  }
  return true;
}

} // namespace

std::vector<std::optional<int>>
planCodes(const std::vector<ProfileContext> &Contexts, const Plan &P) {
  SiteMatcher M(P);
  std::vector<std::vector<const ProfileFrame *>> Frames;
  std::vector<bool> Containers;
  std::vector<size_t> Of; // the contexts an entry can name
  for (size_t N = 0; N < Contexts.size(); ++N)
    if (nameable(Contexts[N])) {
      Frames.push_back(entryFrames(Contexts[N]));
      Containers.push_back(isContainer(Contexts[N]));
      Of.push_back(N);
    }
  addCalls(Frames, Containers, M);
  std::vector<Placement> Res = M.resolve();
  std::vector<std::optional<int>> Codes(Contexts.size(), -1);
  for (size_t K = 0; K < Of.size(); ++K)
    Codes[Of[K]] = placedCode(Frames[K], Res[K], M);
  return Codes;
}

bool writeAdvisedPlan(const std::vector<Item> &Items, Decisions &Dec,
                      const AdviseOptions &Opts, size_t NumContexts,
                      Advice &Out, DiagEngine &D) {
  std::vector<const Item *> Named; // those an entry can name
  for (const Item &I : Items)
    if (I.Nameable)
      Named.push_back(&I);
  Tries T = buildTries(Named, Dec);
  auto FramesOf = entryFramesOf(Named, T, Out.Names);
  Entries Es = collectEntries(Named, Dec, FramesOf);
  Plan P;
  if (!makePlan(Es, Opts, NumContexts, Out, P, D))
    return false;
  raw_string_ostream OS(Out.PlanText);
  writeYaml(P, OS);
  OS.flush();
  return checkPlan(Named, Dec, Out, D);
}

} // namespace hmplace
