//===- SiteMatcher.cpp - decide which plan entry places which call --------===//
//
// The one place where a call is matched against a plan, for hmrewrite and
// HmPlace.so alike. Entries are indexed by the line of their innermost frame,
// so a lookup costs a few comparisons whatever the plan's size.
//
// A call stack entry longer than what a front end knows about the call (the
// rewriter sees one frame; the pass sees the inlined-at chain) is a *partial*
// match: its outer frames were not checked. Partial matches may place a call
// only if every entry that could apply agrees; otherwise the placement
// depends on the dynamic caller and the call is reported, not guessed.
//
//===----------------------------------------------------------------------===//
#include "plan/Plan.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/StringExtras.h"

using namespace llvm;

namespace hmplace {

SiteMatcher::SiteMatcher(const Plan &P) : P(P) {
  for (const PlanEntry &E : P.Entries)
    if (E.Frames.front().Kind == Frame::Form::Source)
      ByLine.emplace(E.Frames.front().Line, &E);
}

unsigned SiteMatcher::addCall(CallContext C) {
  assert(!C.Frames.empty() && "a call has at least its own frame");
  Calls.push_back(std::move(C));
  return Calls.size() - 1;
}

PathMatch SiteMatcher::matchFrame(const Frame &F, const SourcePos &S,
                                  StringRef CompileDir) const {
  if (F.Kind != Frame::Form::Source || F.Line != S.Line ||
      (F.Column && F.Column != S.Column))
    return PathMatch::None;
  // Many calls share a file and many entries a path: remember each answer.
  auto Key = std::make_tuple(&F.File, S.File, CompileDir.str());
  auto It = PathCache.find(Key);
  if (It != PathCache.end())
    return It->second;
  PathMatch M = matchPath(F.File, S.File, P.PlanDir, CompileDir, P.IgnoreCase);
  PathCache.emplace(std::move(Key), M);
  return M;
}

std::vector<SiteMatcher::Candidate>
SiteMatcher::candidatesFor(const CallContext &C) const {
  std::vector<Candidate> Out;
  const SourcePos &Call = C.Frames.front();
  auto [B, E] = ByLine.equal_range(Call.Line);
  for (auto It = B; It != E; ++It) {
    const PlanEntry *Ent = It->second;
    PathMatch PM = matchFrame(Ent->Frames.front(), Call, C.CompileDir);
    if (PM == PathMatch::None)
      continue;
    // Specificity: verified frames first, then columns, then path precision.
    unsigned Score = unsigned(PM) + (Ent->Frames.front().Column ? 8 : 0);
    bool Full = Ent->Frames.size() <= C.Frames.size(), Mismatch = false;
    for (size_t I = 1; I < Ent->Frames.size() && I < C.Frames.size(); ++I) {
      const Frame &F = Ent->Frames[I];
      if (F.Kind == Frame::Form::Unresolved)
        continue; // the advisor did not know this frame either
      if (F.Kind == Frame::Form::Binary) {
        Full = false;
        continue;
      }
      PathMatch FM = matchFrame(F, C.Frames[I], C.CompileDir);
      if (FM == PathMatch::None) {
        Mismatch = true;
        break;
      }
      Score += 16 + (F.Column ? 8 : 0);
    }
    if (!Mismatch)
      Out.push_back({Ent, Full, Score});
  }
  return Out;
}

std::vector<Placement> SiteMatcher::resolve() {
  std::vector<std::vector<Candidate>> All;
  All.reserve(Calls.size());
  for (const CallContext &C : Calls) {
    All.push_back(candidatesFor(C));
    const SourcePos &Call = C.Frames.front();
    for (const Candidate &Cd : All.back()) {
      Usage &U = Used[Cd.E];
      ++U.Hits;
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
    // Best full match, if any; else best partial.
    const Candidate *Best = nullptr;
    for (const Candidate &Cd : Cands)
      if (!Best || (Cd.Full && !Best->Full) ||
          (Cd.Full == Best->Full && Cd.Score > Best->Score))
        Best = &Cd;
    for (const Candidate &Cd : Cands) {
      if (&Cd == Best || Cd.E->To.samePlacement(Best->E->To))
        continue;
      bool Tie = Cd.Full == Best->Full && Cd.Score == Best->Score;
      if (!Cd.Full || Tie) {
        Pl.State = Placement::Conflict;
        for (const Candidate &X : Cands)
          Pl.Candidates.push_back(X.E);
        Pl.Reason = (Cd.Full && Best->Full)
                        ? "plan entries '" + Best->E->key() + "' and '" +
                              Cd.E->key() + "' match equally well and disagree"
                        : "placement depends on the caller: '" + Cd.E->key() +
                              "' wants " + Cd.E->To.Spelling + ", '" +
                              Best->E->key() + "' wants " +
                              Best->E->To.Spelling;
        break;
      }
    }
    if (Pl.State == Placement::Conflict)
      continue;
    Pl.State = Placement::Placed;
    Pl.Entry = Best->E;
  }
  return Out;
}

std::vector<const PlanEntry *> SiteMatcher::unmatched() const {
  std::vector<const PlanEntry *> Out;
  for (const PlanEntry &E : P.Entries)
    if (!Used.count(&E))
      Out.push_back(&E);
  return Out;
}

void SiteMatcher::reportUsage(DiagEngine &D) const {
  for (const PlanEntry *E : unmatched()) {
    if (E->Frames.front().Kind == Frame::Form::Binary)
      D.report(E->KeyLoc, Severity::Warning,
               "plan entry '" + E->key() +
                   "' uses binary frames (module!offset), which cannot be "
                   "matched at build time");
    else
      D.report(E->KeyLoc, Severity::Warning,
               "plan entry '" + E->key() +
                   "' matched no allocation call (stale plan?)");
  }
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
    }
  }
}

} // namespace hmplace
