//===- SiteMatcher.cpp - decide which plan entry places which call --------===//
//
// The one place where a call is matched against a plan, for hmrewrite and
// HmPlace.so alike. Entries are indexed by the line of their innermost frame,
// so a lookup costs a few comparisons whatever the plan's size.
//
// A call stack entry longer than what a front end knows about the call (the
// rewriter sees one frame; the pass sees the inlined-at chain) is a *partial*
// match: its outer frames were not checked. A partial match never places a
// call by itself, even when every entry agrees: that would place the object
// for every caller of a wrapper (793 blocks where the plan named 3). Instead
// the call becomes a context site and the outer frames are checked at run
// time against the shadow stack (Context.h); a full match (a site entry, or a
// stack whose frames were all checked) is the fallback for callers no
// stack entry names.
//
//===----------------------------------------------------------------------===//
#include "plan/AllocFns.h"
#include "plan/Plan.h"
#include "plan/Split.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/Path.h"

#include <map>

using namespace llvm;

namespace hmplace {

/// The innermost frame as far as the plan text tells (basename and line):
/// entries that may share an allocation call. All container entries share
/// the standard library's allocator.
static std::pair<std::string, unsigned> innerKey(const PlanEntry &E,
                                                 const EntryShape &S) {
  if (S.How == EntryShape::Container)
    return {"", 0};
  const Frame &F = E.Frames.front();
  return {sys::path::filename(F.File).lower(), F.Line};
}

SiteMatcher::SiteMatcher(const Plan &P) : P(P) {
  Shapes.reserve(P.Entries.size());
  for (const PlanEntry &E : P.Entries)
    Shapes.push_back(shapeOf(E));
  // Whether a `files:` entry (which may be any call's fallback) places
  // anything.
  for (size_t I = 0; I < P.Entries.size(); ++I)
    PlacingFiles |= P.Entries[I].isFileSet() && !P.Entries[I].To.isHeap() &&
                    Shapes[I].How != EntryShape::Unusable;
  // A caller chain matters only where the allocation call would go
  // somewhere else without it for a stack it matches (to the fallback: a
  // site entry's kind or the heap; to an overlapping chain of another
  // kind): otherwise its table leaves it out (pruneChoices), and noting its
  // callers would cost time for nothing.
  std::vector<bool> Needed = chainsNeeded();
  for (size_t N = 0; N < P.Entries.size(); ++N) {
    const PlanEntry &E = P.Entries[N];
    const EntryShape &S = Shapes[N];
    if (E.isFileSet()) {
      FileSetEntries.push_back(&E);
      continue;
    }
    if (S.How == EntryShape::Unusable) {
      if (E.Frames.front().namesFile())
        UnusableByLine.emplace(E.Frames.front().Line, &E);
      continue;
    }
    if (S.How == EntryShape::Container)
      ContainerEntries.push_back(&E);
    else
      ByLine.emplace(E.Frames.front().Line, &E);
    if (!Needed[N])
      continue;
    for (unsigned I = S.FirstCaller; I < S.EndCaller; ++I)
      OuterByLine.emplace(E.Frames[I].Line, std::make_pair(&E, I));
    if (S.FirstCaller < S.EndCaller)
      Noting.insert(&E);
  }
}

/// The caller frames of \p E that a context site checks, as frame ids.
static std::vector<uint64_t> chainOf(const PlanEntry &E, const EntryShape &S) {
  std::vector<uint64_t> Ids;
  for (unsigned I = S.FirstCaller; I < S.EndCaller; ++I)
    Ids.push_back(
        contextFrameId(E.Frames[I].File, E.Frames[I].Line, E.Frames[I].Column));
  return Ids;
}

bool SiteMatcher::placesNothingAnywhere(const PlanEntry &E) const {
  EntryShape::Mode How = shape(E).How;
  return keepsHeapEitherWay(E) &&
         (How == EntryShape::Site || How == EntryShape::Stack) &&
         E.innermostIs(Frame::Form::Source);
}

bool SiteMatcher::keepsHeapEitherWay(const PlanEntry &E) const {
  return E.To.isHeap() && !PlacingFiles;
}

std::vector<bool> SiteMatcher::chainsNeeded() const {
  std::vector<bool> Needed(P.Entries.size(), true);
  // Entries by the allocation call they may share.
  std::map<std::pair<std::string, unsigned>, std::vector<size_t>> Shared;
  for (size_t I = 0; I < P.Entries.size(); ++I) {
    const PlanEntry &E = P.Entries[I];
    if (Shapes[I].How != EntryShape::Unusable && !E.isFileSet())
      Shared[innerKey(E, Shapes[I])].push_back(I);
  }
  auto Same = [](const PlanEntry &A, const PlanEntry &B) {
    return A.To.isHeap() ? B.To.isHeap() : A.To.samePlacement(B.To);
  };
  for (auto &[Key, Group] : Shared)
    for (size_t I : Group) {
      const PlanEntry &E = P.Entries[I];
      if (Shapes[I].How == EntryShape::Site || PlacingFiles)
        continue;
      // Its chain matters if the call's fallback differs from its kind, or
      // a chain of another kind could match the same stacks.
      bool SiteEntry = false, Matters = false;
      std::vector<uint64_t> Mine = chainOf(E, Shapes[I]);
      for (size_t J : Group) {
        const PlanEntry &F = P.Entries[J];
        if (Shapes[J].How == EntryShape::Site) {
          SiteEntry = true;
          Matters |= !Same(E, F);
        } else if (J != I && !Same(E, F) &&
                   chainsOverlap(Mine, chainOf(F, Shapes[J]))) {
          Matters = true;
        }
      }
      if (!SiteEntry && !E.To.isHeap())
        Matters = true; // the fallback is the heap
      Needed[I] = Matters;
    }
  return Needed;
}

unsigned SiteMatcher::addCall(CallContext C) {
  assert(!C.Frames.empty() && "a call has at least its own frame");
  Calls.push_back(std::move(C));
  return Calls.size() - 1;
}

PathMatch SiteMatcher::matchFrame(const Frame &F, const SourcePos &S,
                                  StringRef CompileDir) const {
  // A call in a function without debug info is named by the function alone.
  if (F.Kind == Frame::Form::NoDebug)
    return S.File.empty() && S.Line == 0 && F.Function == S.Function
               ? PathMatch::Absolute
               : PathMatch::None;
  // A merged call (line 0) is named by its function; a source frame by its
  // line and column.
  if (F.Kind == Frame::Form::Merged
          ? S.Line != 0 || F.Function != S.Function
          : F.Kind != Frame::Form::Source || F.Line != S.Line ||
                (F.Column && F.Column != S.Column))
    return PathMatch::None;
  // Many calls share a file and many entries a path: remember each answer.
  auto Key = std::make_tuple(&F.File, S.File, CompileDir.str());
  auto It = PathCache.find(Key);
  PathMatch M = It != PathCache.end() ? It->second
                                      : matchPath(F.File, S.File, P.PlanDir,
                                                  CompileDir, P.IgnoreCase);
  if (It == PathCache.end())
    PathCache.emplace(std::move(Key), M);
  // The call the plan was made from, or another one a reformat or an edit
  // put at its key.
  if (M == PathMatch::None || F.Token.empty())
    return M;
  std::string Now = S.Token;
  if (Now.empty() && Sources && S.Column)
    if (std::optional<TokenId> Id = Sources->at(S.File, S.Line, S.Column))
      Now = tokenText(*Id);
  if (!Now.empty() && !StringRef(Now).equals_insensitive(F.Token)) {
    TokenMoved.try_emplace(&F, Now + " at " + S.str());
    return PathMatch::None;
  }
  return M;
}

std::string SiteMatcher::tokenMoved(const PlanEntry &E) const {
  for (const Frame &F : E.Frames)
    if (auto It = TokenMoved.find(&F); It != TokenMoved.end())
      return "its frame '" + F.str() + "' was made from the call " + F.Token +
             ", but the source now has " + It->second +
             " (a reformat or an edit moved the calls since the plan was "
             "made): it names no call there; make the plan again from this "
             "source";
  return "";
}

bool SiteMatcher::fileSetNames(const PlanEntry &E, const SourcePos &S,
                               StringRef CompileDir) const {
  auto Key = std::make_tuple(&E, S.File, CompileDir.str());
  auto It = FileSetCache.find(Key);
  if (It != FileSetCache.end())
    return It->second;
  bool Named = llvm::any_of(E.Files, [&](const std::string &G) {
    return matchPathGlob(G, S.File, P.PlanDir, CompileDir, P.IgnoreCase) !=
           PathMatch::None;
  });
  FileSetCache.emplace(std::move(Key), Named);
  return Named;
}

std::vector<SiteMatcher::Candidate>
SiteMatcher::candidatesFor(const CallContext &C) const {
  std::vector<Candidate> Out;
  if (C.StdAllocator) {
    // Every container entry may claim the allocator's allocation; which one
    // does is decided by the caller frames at run time.
    for (const PlanEntry *Ent : ContainerEntries)
      Out.push_back({Ent, false, 0, shape(*Ent).FirstCaller});
    return Out;
  }
  const SourcePos &Call = C.Frames.front();
  auto [B, E] = ByLine.equal_range(Call.Line);
  for (auto It = B; It != E; ++It) {
    const PlanEntry *Ent = It->second;
    if (!Ent->Object.empty() && Ent->Object != C.Object)
      continue;
    PathMatch PM = matchFrame(Ent->Frames.front(), Call, C.CompileDir);
    if (PM == PathMatch::None)
      continue;
    // Specificity: verified frames first, then columns and objects, then
    // path precision.
    unsigned Score = unsigned(PM) + (Ent->Frames.front().Column ? 8 : 0) +
                     (Ent->Object.empty() ? 0 : 12);
    unsigned End = shape(*Ent).EndCaller;
    unsigned Checked = std::min<unsigned>(End, C.Frames.size());
    bool Full = End <= C.Frames.size(), Mismatch = false;
    for (unsigned I = 1; I < Checked; ++I) {
      const Frame &F = Ent->Frames[I];
      PathMatch FM = matchFrame(F, C.Frames[I], C.CompileDir);
      if (FM == PathMatch::None) {
        Mismatch = true;
        break;
      }
      Score += 16 + (F.Column ? 8 : 0);
    }
    if (!Mismatch)
      Out.push_back({Ent, Full, Score, Checked});
  }
  // Below any site entry (scores from 1): a site entry for the call decides.
  // A call the optimizer merged is no call of the files' text: `files:`
  // entries placed the calls it was merged from, or not.
  if (Call.Line == 0)
    return Out;
  for (const PlanEntry *Ent : FileSetEntries)
    if (fileSetNames(*Ent, Call, C.CompileDir))
      Out.push_back({Ent, true, 0, 1});
  return Out;
}

/// The run-time check of a partial candidate: its frames the front end could
/// not verify, as frame ids (column 0: any column).
static ContextChoice choiceFor(const PlanEntry &E, unsigned From,
                               unsigned End) {
  ContextChoice Ch;
  Ch.Entry = &E;
  Ch.Kind = runtimeCode(E.To);
  for (unsigned I = From; I < End; ++I) {
    const Frame &F = E.Frames[I];
    Ch.Callers.push_back(contextFrameId(F.File, F.Line, F.Column));
    Ch.CallerText.push_back(contextFrameText(F.File, F.Line, F.Column));
  }
  return Ch;
}

std::vector<const PlanEntry *> Placement::entries() const {
  std::vector<const PlanEntry *> Out;
  if (Entry)
    Out.push_back(Entry);
  for (const ContextChoice &Ch : Choices)
    Out.push_back(Ch.Entry);
  Out.insert(Out.end(), Candidates.begin(), Candidates.end());
  return Out;
}

int Placement::fallbackKind() const {
  return Entry ? runtimeCode(Entry->To) : -1;
}

int Placement::kindOnStack(ArrayRef<uint64_t> Noted) const {
  for (const ContextChoice &Ch : Choices) {
    if (Ch.Callers.size() > Noted.size())
      continue;
    bool All = true;
    for (size_t F = 0; All && F < Ch.Callers.size(); ++F)
      All = contextFrameMatches(Noted[F], Ch.Callers[F]);
    if (All)
      return Ch.Kind;
  }
  return fallbackKind();
}

std::optional<int> Placement::choiceWithTop(uint64_t Top) const {
  for (size_t I = 0; I < Choices.size(); ++I) {
    const std::vector<uint64_t> &Callers = Choices[I].Callers;
    if (!Callers.empty() && !contextFrameMatches(Top, Callers.front()))
      continue;
    if (Callers.size() > 1)
      return std::nullopt;
    return static_cast<int>(I);
  }
  return -1;
}

std::string Placement::contextSummary() const {
  std::string S = "call-stack entries:";
  for (const ContextChoice &Ch : Choices)
    S += " '" + Ch.Entry->key() + "'";
  return S + "; otherwise " +
         (Entry ? Entry->To.kindText() : std::string("the ordinary heap"));
}

bool SiteMatcher::isNoted(const CallContext &C,
                          std::vector<const PlanEntry *> *Through) {
  const SourcePos &Call = C.Frames.front();
  bool Noted = false;
  auto [B, E] = OuterByLine.equal_range(Call.Line);
  for (auto It = B; It != E; ++It) {
    auto [Ent, I] = It->second;
    if (matchFrame(Ent->Frames[I], Call, C.CompileDir) == PathMatch::None)
      continue;
    NotedFrames.insert(It->second);
    Noted = true;
    if (Through)
      Through->push_back(Ent);
  }
  return Noted;
}

bool SiteMatcher::wouldNote(const SourcePos &S, StringRef CompileDir) const {
  auto [B, E] = OuterByLine.equal_range(S.Line);
  for (auto It = B; It != E; ++It)
    if (matchFrame(It->second.first->Frames[It->second.second], S,
                   CompileDir) != PathMatch::None)
      return true;
  return false;
}

bool SiteMatcher::hasUnnotedCallerIn(const SourcePos &S,
                                     StringRef CompileDir) const {
  for (const auto &[Line, EF] : OuterByLine) {
    const Frame &F = EF.first->Frames[EF.second];
    if (!NotedFrames.count(EF) && F.Kind == Frame::Form::Source &&
        matchPath(F.File, S.File, P.PlanDir, CompileDir, P.IgnoreCase) !=
            PathMatch::None)
      return true;
  }
  return false;
}

std::vector<std::pair<unsigned, unsigned>>
SiteMatcher::placingSitesIn(const SourcePos &S, StringRef CompileDir) const {
  std::vector<std::pair<unsigned, unsigned>> Out;
  for (const auto &[Line, E] : ByLine) {
    const Frame &F = E->Frames.front();
    if (!E->To.isHeap() && E->Object.empty() && F.Line &&
        F.Kind == Frame::Form::Source &&
        matchPath(F.File, S.File, P.PlanDir, CompileDir, P.IgnoreCase) !=
            PathMatch::None)
      Out.push_back({F.Line, F.Column});
  }
  llvm::sort(Out);
  Out.erase(std::unique(Out.begin(), Out.end()), Out.end());
  return Out;
}

std::vector<ContextChoice>
SiteMatcher::containerChoicesFor(const CallContext &C) const {
  std::vector<const PlanEntry *> Ents;
  for (const PlanEntry *E : ContainerEntries) {
    const EntryShape &S = shape(*E);
    if (matchFrame(E->Frames[S.FirstCaller], C.Frames.front(), C.CompileDir) !=
        PathMatch::None)
      Ents.push_back(E);
  }
  // As resolve() orders a context site's choices: most caller frames first,
  // then plan order.
  llvm::stable_sort(Ents, [this](const PlanEntry *A, const PlanEntry *B) {
    const EntryShape &SA = shape(*A), &SB = shape(*B);
    return SA.EndCaller - SA.FirstCaller > SB.EndCaller - SB.FirstCaller;
  });
  std::vector<ContextChoice> Out;
  for (const PlanEntry *E : Ents)
    Out.push_back(choiceFor(*E, shape(*E).FirstCaller, shape(*E).EndCaller));
  pruneChoices(Out, -1);
  return Out;
}

std::vector<Placement> SiteMatcher::resolve() {
  std::vector<std::vector<Candidate>> All;
  All.reserve(Calls.size());
  for (const CallContext &C : Calls) {
    // Entries that are not applied but name this call: the front end says so
    // where it matters, at the call they would have placed.
    auto [UB, UE] = UnusableByLine.equal_range(C.Frames.front().Line);
    for (auto It = UB; It != UE; ++It)
      if (!C.StdAllocator &&
          matchFrame(It->second->Frames.front(), C.Frames.front(),
                     C.CompileDir) != PathMatch::None &&
          !is_contained(UnusableHit, It->second))
        UnusableHit.push_back(It->second);
    All.push_back(candidatesFor(C));
    const SourcePos &Call = C.Frames.front();
    for (const Candidate &Cd : All.back()) {
      Usage &U = Used[Cd.E];
      ++U.Hits;
      // A file set names many files and calls by design; a container
      // entry's first frame is the standard allocator, which has no
      // columns to tell apart (its callers are checked at run time).
      if (Cd.E->isFileSet() || C.StdAllocator)
        continue;
      if (!is_contained(U.Files, Call.File))
        U.Files.push_back(Call.File);
      // A column-less entry competes only for calls no column entry claims.
      bool Claimed = llvm::any_of(All.back(), [](const Candidate &O) {
        return O.E->Frames.front().Column != 0;
      });
      if (!Cd.E->Frames.front().Column && !Claimed) {
        auto &Cols = U.ColumnsOnLine[{Call.File, Call.Line}];
        if (!is_contained(Cols, Call.Column))
          Cols.push_back(Call.Column);
      }
    }
  }
  for (auto &[E, U] : Used)
    for (auto &[FL, Cols] : U.ColumnsOnLine)
      if (Cols.size() > 1)
        NeedsColumn[E] = true;

  std::vector<Placement> Out(Calls.size());
  for (size_t I = 0; I < Calls.size(); ++I) {
    Placement &Pl = Out[I];
    std::vector<Candidate> Cands;
    for (const Candidate &Cd : All[I])
      if (!NeedsColumn.count(Cd.E))
        Cands.push_back(Cd);
    if (Cands.empty()) {
      if (!All[I].empty()) {
        Pl.State = Placement::Conflict;
        Pl.Candidates.push_back(All[I].front().E);
        Pl.Reason = "plan entry '" + All[I].front().E->key() +
                    "' has no column and this line has several allocation "
                    "calls; add the column of the call to place";
      }
      continue;
    }
    // The best full match decides unless a better one disagrees equally
    // well; partial matches are checked at run time, the full one being
    // their fallback.
    const Candidate *Best = nullptr;
    std::vector<const Candidate *> Partial;
    for (const Candidate &Cd : Cands) {
      if (!Cd.Full)
        Partial.push_back(&Cd);
      else if (!Best || Cd.Score > Best->Score)
        Best = &Cd;
    }
    for (const Candidate &Cd : Cands) {
      if (!Best || !Cd.Full || &Cd == Best ||
          Cd.E->To.samePlacement(Best->E->To) || Cd.Score != Best->Score)
        continue;
      Pl.State = Placement::Conflict;
      for (const Candidate &X : Cands)
        Pl.Candidates.push_back(X.E);
      Pl.Reason = "plan entries '" + Best->E->key() + "' and '" + Cd.E->key() +
                  "' match equally well and disagree";
      break;
    }
    if (Pl.State == Placement::Conflict)
      continue;
    Pl.Entry = Best ? Best->E : nullptr;
    if (Partial.empty()) {
      Pl.State = Placement::Placed;
      continue;
    }
    // Most caller frames first (the most specific chain wins at run time),
    // then the static score, then plan order.
    llvm::sort(Partial, [this](const Candidate *A, const Candidate *B) {
      unsigned NA = shape(*A->E).EndCaller - A->Checked;
      unsigned NB = shape(*B->E).EndCaller - B->Checked;
      if (NA != NB)
        return NA > NB;
      return A->Score != B->Score ? A->Score > B->Score : A->E < B->E;
    });
    for (const Candidate *Cd : Partial)
      Pl.Choices.push_back(choiceFor(*Cd->E, std::max(Cd->Checked, 1u),
                                     shape(*Cd->E).EndCaller));
    pruneChoices(Pl.Choices, Pl.fallbackKind());
    if (Pl.Choices.empty()) {
      // Every caller chain gets what the others get: nothing to decide at
      // run time (all on the ordinary heap: the call stays as written).
      Pl.State = Placement::Placed;
      if (!Pl.Entry)
        Pl.Entry = Partial.front()->E;
      continue;
    }
    Pl.State = Placement::Contextual;
    Pl.Container = Calls[I].StdAllocator;
  }
  return Out;
}

std::vector<const PlanEntry *> SiteMatcher::unmatched() const {
  std::vector<const PlanEntry *> Out;
  for (const PlanEntry &E : P.Entries) {
    // A container entry is applied where its user frame is noted: the
    // standard allocator's call is the pass's to see, not hmrewrite's.
    const EntryShape &S = shape(E);
    if (Used.count(&E) || (S.How == EntryShape::Container &&
                           NotedFrames.count({&E, S.FirstCaller})))
      continue;
    Out.push_back(&E);
  }
  return Out;
}

std::vector<const PlanEntry *> SiteMatcher::reportUnnoted(DiagEngine &D) const {
  std::vector<const PlanEntry *> Out;
  for (const PlanEntry &E : P.Entries) {
    if (!Used.count(&E) || !Noting.count(&E))
      continue; // reported as unmatched, or needs no caller chain
    const EntryShape &S = shape(E);
    for (unsigned I = S.FirstCaller; I < S.EndCaller; ++I) {
      if (NotedFrames.count({&E, I}))
        continue;
      D.report(E.KeyLoc, Severity::Warning,
               "plan entry '" + E.key() + "': caller frame '" +
                   E.Frames[I].str() +
                   "' matched no call in the processed files, so the entry "
                   "can never apply and places nothing");
      Out.push_back(&E);
      break;
    }
  }
  return Out;
}

std::vector<const PlanEntry *>
SiteMatcher::reportUsage(DiagEngine &D, const Coverage *C,
                         unsigned *HeapNoted) const {
  std::vector<const PlanEntry *> Out;
  FileSet Read(P.IgnoreCase), Failed(P.IgnoreCase);
  if (C) {
    for (const std::string &F : C->Read)
      Read.add(F);
    for (const std::string &F : C->Failed)
      Failed.add(F);
  }
  unsigned Unexamined = 0;
  for (const PlanEntry *E : unmatched()) {
    const EntryShape &S = shape(*E);
    if (E->isFileSet()) {
      Out.push_back(E);
      D.report(E->KeyLoc, Severity::Warning,
               "plan entry '" + E->key() +
                   "' matched no allocation call in the files given");
      continue;
    }
    // A container entry is examined where its user frame's file is read.
    const Frame &F = S.How == EntryShape::Container ? E->Frames[S.FirstCaller]
                                                    : E->Frames.front();
    if (C && F.namesFile() && S.How != EntryShape::Unusable) {
      if (Failed.namedBy(F.File, P.PlanDir)) {
        D.report(E->KeyLoc, Severity::Warning,
                 "plan entry '" + E->key() + "' not examined: " + F.File +
                     " did not compile");
        continue;
      }
      if (!Read.namedBy(F.File, P.PlanDir)) {
        ++Unexamined;
        if (C->ListUnexamined)
          D.report(E->KeyLoc, Severity::Note,
                   "plan entry '" + E->key() + "' not examined: no file " +
                       "given reads " + F.File);
        continue;
      }
    }
    if (C && F.Kind == Frame::Form::Source) {
      auto Hit = llvm::find_if(C->Inactive, [&](const auto &FL) {
        return FL.second == F.Line &&
               matchPath(F.File, FL.first, P.PlanDir, "", P.IgnoreCase) !=
                   PathMatch::None;
      });
      if (Hit != C->Inactive.end()) {
        D.report(E->KeyLoc, Severity::Warning,
                 "plan entry '" + E->key() +
                     "' names an allocation call in "
                     "an inactive preprocessor branch (" +
                     Hit->first + ":" + Twine(Hit->second) +
                     "); build with the macros that activate it");
        Out.push_back(E);
        continue;
      }
    }
    if (placesNothingAnywhere(*E)) {
      D.report(E->KeyLoc, Severity::Note,
               "plan entry '" + E->key() + "' (" + E->To.Spelling +
                   ": the ordinary heap) matched no allocation call: the "
                   "plan is stale or its call moved (a reformat, an edit); "
                   "it places nothing either way, its call stays on the "
                   "ordinary heap");
      if (HeapNoted)
        ++*HeapNoted;
      continue;
    }
    if (S.How == EntryShape::Unusable && keepsHeapEitherWay(*E)) {
      D.report(E->KeyLoc, Severity::Note, heapUnusableText(*E, S));
      if (HeapNoted)
        ++*HeapNoted;
      continue;
    }
    Out.push_back(E);
    if (S.How == EntryShape::Unusable)
      D.report(E->KeyLoc, Severity::Warning,
               "plan entry '" + E->key() +
                   "' places nothing: " + notAppliedReason(S));
    else if (F.Kind == Frame::Form::NoDebug)
      D.report(E->KeyLoc, Severity::Warning,
               "plan entry '" + E->key() + "' names the allocation calls of " +
                   F.Function +
                   " where it is built without debug info: HmPlace.so places "
                   "them; the rewrite places nothing for it");
    else if (F.Kind == Frame::Form::Merged)
      D.report(E->KeyLoc, Severity::Warning,
               "plan entry '" + E->key() +
                   "' names a call the optimizer merges (line 0 in " +
                   F.Function +
                   ") from several calls of the source: which of them it "
                   "was made from cannot be told, so it places nothing in "
                   "either front end (profile with hmcc --profile, which "
                   "keeps the calls apart, and advise again)");
    else if (S.How == EntryShape::Container)
      D.report(E->KeyLoc, Severity::Warning,
               "plan entry '" + E->key() +
                   "' names a container allocation whose user frame '" +
                   E->Frames[S.FirstCaller].str() +
                   "' matched no call in the processed files (stale plan?)");
    else if (std::string Moved = tokenMoved(*E); !Moved.empty())
      D.report(E->KeyLoc, Severity::Warning,
               "plan entry '" + E->key() + "' places nothing: " + Moved);
    else
      D.report(E->KeyLoc, Severity::Warning,
               "plan entry '" + E->key() +
                   "' matched no allocation call (stale plan?)");
  }
  if (C)
    Unexamined += C->NotLoaded;
  if (Unexamined && !C->ListUnexamined)
    D.report(P.Path, Severity::Note,
             Twine(Unexamined) + " plan entr" +
                 (Unexamined == 1 ? "y names a file" : "ies name files") +
                 " that no file given reads: not examined (-v lists them)");
  for (const PlanEntry &E : P.Entries) {
    auto It = Used.find(&E);
    if (It == Used.end())
      continue;
    const Usage &U = It->second;
    if (U.Files.size() > 1)
      D.report(E.KeyLoc, Severity::Warning,
               "plan entry '" + E.key() + "' matches calls in " +
                   Twine(U.Files.size()) + " files (" + join(U.Files, ", ") +
                   "); write a longer path to name one");
    for (const auto &[FL, Cols] : U.ColumnsOnLine) {
      if (Cols.size() < 2)
        continue;
      std::vector<std::string> C;
      for (unsigned Col : Cols)
        C.push_back(std::to_string(Col));
      D.report(E.KeyLoc, Severity::Warning,
               "plan entry '" + E.key() + "' names " + Twine(Cols.size()) +
                   " allocation calls on line " + Twine(FL.second) + " of " +
                   FL.first + " (columns " + join(C, ", ") +
                   "); none was placed: add a column");
      Out.push_back(&E);
    }
  }
  return Out;
}

std::string namesOnlyElsewhere(const Plan &P, StringRef File,
                               StringRef CompileDir) {
  StringRef Base = sys::path::filename(File);
  std::set<std::string> Elsewhere;
  for (const PlanEntry &E : P.Entries)
    for (const Frame &F : E.Frames) {
      StringRef Name = sys::path::filename(F.File);
      if (!F.namesFile() ||
          !(P.IgnoreCase ? Name.equals_insensitive(Base) : Name == Base))
        continue;
      if (matchPath(F.File, File, P.PlanDir, CompileDir, P.IgnoreCase) !=
          PathMatch::None)
        return "";
      Elsewhere.insert(F.File);
    }
  if (Elsewhere.empty())
    return "";
  std::vector<std::string> Some(Elsewhere.begin(), Elsewhere.end());
  std::string Names = Some[0];
  for (size_t I = 1; I < Some.size() && I < 3; ++I)
    Names += ", " + Some[I];
  if (Some.size() > 3)
    Names += " and " + std::to_string(Some.size() - 3) + " more";
  return "the plan names " + Base.str() + " only as " + Names +
         ", not this file (" + File.str() +
         "): none of its entries apply here. A relative path is resolved "
         "against the plan's directory (" +
         (P.PlanDir.empty() ? std::string("/") : P.PlanDir) +
         "), else it must be the file path's last components: if that is "
         "this file in another tree, write '" +
         sharedTail(Some[0], File, P.IgnoreCase) +
         "' or make the plan in this tree";
}

} // namespace hmplace
