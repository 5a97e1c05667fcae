//===- Rerun.cpp - bring an earlier run's edits in line with the plan -----===//
//
// A rewritten tree is rewritten again whenever the plan changes, and CI
// (hmplace-review) checks that doing so changes nothing. So what an earlier
// run wrote is compared with what the plan says now, and edited to match:
// a placed call's kind argument (a constant, or a context site's table), a
// caller frame's wrapper (its frame, or the wrapper itself when no entry
// names the call any more), and a placed call no entry names, which goes
// back to the plain call. The result is the text a first run on the
// original source would give.
//
//===----------------------------------------------------------------------===//
#include "Rewrite.h"
#include "Spelling.h"

#include "llvm/Support/Path.h"
#include "llvm/Support/Regex.h"

using namespace llvm;

namespace hmplace {

/// The key an earlier run's text carries for \p C: a caller note's frame
/// (`HMPLACE_AT(19, 15)`, `HMPLACE_FRAME("main.c", 19, 15)`), a context
/// site's own key (`HMPLACE_BY_CALLERS("mem.h:9:13", ...)`), in \p C's file;
/// else, on a later line of a statement an earlier run broke, where it was
/// before the break (its joined key).
static std::optional<SourcePos> carriedKey(const CallRecord &C) {
  static const Regex Here(
      "HMPLACE_AT[[:space:]]*\\([[:space:]]*([0-9]+)[[:space:]]*,"
      "[[:space:]]*([0-9]+)[[:space:]]*\\)");
  static const Regex Named("HMPLACE_FRAME[[:space:]]*\\([[:space:]]*\"([^\"]*)"
                           "\"[[:space:]]*,[[:space:]]*([0-9]+)"
                           "[[:space:]]*,[[:space:]]*([0-9]+)[[:space:]]*\\)");
  static const Regex Site(
      "^HMPLACE_BY_CALLERS[[:space:]]*\\([[:space:]]*\"([^\"]*):([0-9]+)"
      ":([0-9]+)\"");
  static const Regex SiteLine(
      "^HMPLACE_BY_CALLERS[[:space:]]*\\([[:space:]]*\"([^\"]*):([0-9]+)\"");
  SmallVector<StringRef, 5> M;
  StringRef File, Line, Col;
  if (!C.Fn && C.Note && C.Note->AlreadyNoted) {
    if (Named.match(C.Note->FirstText, &M))
      File = M[1], Line = M[2], Col = M[3];
    else if (Here.match(C.Note->FirstText, &M))
      Line = M[1], Col = M[2];
  } else if (C.Fn && C.AlreadyPlaced) {
    if (Site.match(C.KindArgText, &M))
      File = M[1], Line = M[2], Col = M[3];
    else if (SiteLine.match(C.KindArgText, &M))
      File = M[1], Line = M[2];
  }
  if (Line.empty())
    return C.Joined;
  SourcePos K{C.Key.File, 0, 0};
  if (Line.getAsInteger(10, K.Line) ||
      (!Col.empty() && Col.getAsInteger(10, K.Column)) ||
      (!File.empty() && !sys::path::filename(File).equals_insensitive(
                            sys::path::filename(C.Key.File))))
    return std::nullopt;
  return K;
}

/// A file's earlier notes and context sites name their calls by the keys
/// they carry where the plan names every one of them by those (the file was
/// reformatted: its calls moved, the plan did not); by where they are now
/// where the plan names every one by that (lines were added and the plan
/// made again); else each by whichever the plan names, where it is first.
void RewriteSession::recoverKeys() {
  if (!Matcher)
    return;
  struct Both {
    CallRecord *C;
    SourcePos Carried;
    bool NowNamed, CarriedNamed;
  };
  std::map<std::string, std::vector<Both>> ByFile;
  auto Named = [&](const CallRecord &C, const SourcePos &K) {
    return C.Fn ? Matcher->wouldMatch(keyContext(C, K))
                : Matcher->wouldNote(K, C.CompileDir);
  };
  for (CallRecord &C : Calls)
    if (C.Settled)
      continue; // its file's key record named it
    else if (std::optional<SourcePos> K = carriedKey(C))
      ByFile[C.Key.File].push_back({&C, *K, Named(C, C.Key), Named(C, *K)});
  for (auto &[File, Cs] : ByFile) {
    bool AllNow = llvm::all_of(Cs, [](const Both &B) { return B.NowNamed; });
    bool AllCarried =
        llvm::all_of(Cs, [](const Both &B) { return B.CarriedNamed; });
    for (Both &B : Cs)
      if (AllCarried || (!AllNow && !B.NowNamed && B.CarriedNamed))
        B.C->Key = B.Carried;
  }
  recoverPlainSites();
}

/// Whether \p Text is a kind argument hmrewrite writes (and may change):
/// also the previous hmrewrite's context site, whose private descriptor
/// the runtime no longer reads.
static bool isOurKindArgument(StringRef Text) {
  return Text.starts_with("HMPLACE_") ||
         Text.starts_with("hmplace_in_window(") ||
         Text.starts_with("hmplace_in_window2(") ||
         Text.starts_with("(enum hmplace_kind)hmplace_ctx_kind(");
}

/// A plain placed call (`hmplace_malloc(HMPLACE_HBW, n)`) carries no key.
/// In a file where some placed calls match no entry, the places the plan's
/// placing entries name there that no call is at (less those its context
/// sites hold) are theirs, in the order of the text, which a formatter
/// never changes, when there are as many of each: wherever another
/// indentation, spacing or line breaking has moved them. (A plan that
/// moved a placement from one call to another leaves no place unmatched:
/// the earlier call goes back to the plain call. Where counts differ the
/// plan changed too: a call no entry names is kept with a warning,
/// entriesLostIn.)
void RewriteSession::recoverPlainSites() {
  struct FileCalls {
    std::vector<CallRecord *> Lost;                 ///< placed, unnamed
    std::set<std::pair<unsigned, unsigned>> At;     ///< every call
    std::set<std::pair<unsigned, unsigned>> Tables; ///< context sites
  };
  std::map<std::string, FileCalls> Files;
  for (CallRecord &C : Calls) {
    if (!C.Fn || !C.Fn->allocates())
      continue;
    FileCalls &F = Files[C.Key.File];
    F.At.insert({C.Key.Line, C.Key.Column});
    if (C.Settled || !C.AlreadyPlaced || !isOurKindArgument(C.KindArgText))
      continue;
    if (StringRef(C.KindArgText).starts_with(ByCallersMacro)) {
      F.Tables.insert({C.Key.Line, C.Key.Column});
      continue;
    }
    if (!Matcher->wouldMatch(keyContext(C, C.Key)))
      F.Lost.push_back(&C);
  }
  for (auto &[File, F] : Files) {
    if (F.Lost.empty())
      continue;
    std::vector<std::pair<unsigned, unsigned>> Free;
    for (auto [Line, Col] :
         Matcher->placingSitesIn(F.Lost[0]->Key, F.Lost[0]->CompileDir)) {
      bool Taken = F.Tables.count({Line, Col}) ||
                   llvm::any_of(F.At, [&, L = Line, Co = Col](auto P) {
                     return P.first == L && (!Co || P.second == Co);
                   });
      if (!Taken)
        Free.push_back({Line, Col});
    }
    if (Free.size() != F.Lost.size())
      continue;
    llvm::sort(F.Lost, [](const CallRecord *A, const CallRecord *B) {
      return std::tie(A->Key.Line, A->Key.Column) <
             std::tie(B->Key.Line, B->Key.Column);
    });
    for (size_t I = 0; I < Free.size(); ++I)
      std::tie(F.Lost[I]->Key.Line, F.Lost[I]->Key.Column) = Free[I];
  }
}

bool RewriteSession::entriesLostIn(const CallRecord &C) {
  if (!Matcher)
    return false;
  if (!LostEntries)
    LostEntries = Matcher->unmatched();
  return llvm::any_of(*LostEntries, [&](const PlanEntry *E) {
    const Frame &F = E->Frames.front();
    return F.Kind == Frame::Form::Source &&
           matchPath(F.File, C.Key.File, ThePlan->PlanDir, C.CompileDir,
                     ThePlan->IgnoreCase) != PathMatch::None;
  });
}

void RewriteSession::reconcileNote(const CallRecord &C, bool Wanted,
                                   const std::string &Arg) {
  if (C.Edit != CallRecord::Editable || !isRewritten(C.EditFile))
    return;
  if (C.Note->OldStyle) {
    // The previous hmrewrite's wrapper: the current form in its place.
    addEdit(C.EditFile, C.Note->WrapBegin,
            C.Note->InnerBegin - C.Note->WrapBegin,
            Wanted ? wrapperPrefix(C.Note->Form, Arg) : "");
    addEdit(C.EditFile, C.Note->InnerEnd, C.Note->WrapEnd - C.Note->InnerEnd,
            Wanted ? ")" : "");
    ++(Wanted ? tally(C.EditFile).Reframed : tally(C.EditFile).Unnoted);
    return;
  }
  if (Wanted) {
    // The call moved (lines added above it), or the container entries
    // under it changed: the argument follows.
    if (withoutSpace(C.Note->FirstText) == withoutSpace(Arg)) {
      ++tally(C.EditFile).AlreadyNoted;
      return;
    }
    addEdit(C.EditFile, C.Note->FirstBegin,
            C.Note->FirstEnd - C.Note->FirstBegin, Arg);
    if (C.Note->Form == NoteSite::NoteBlock)
      addEdit(C.EditFile, C.Note->Frame2Begin,
              C.Note->Frame2End - C.Note->Frame2Begin,
              frameText(C.Key, C.Note->Here));
    ++tally(C.EditFile).Reframed;
    return;
  }
  if (C.Note->Form == NoteSite::NoteBlock) {
    addEdit(C.EditFile, C.Note->WrapBegin, C.Note->WrapEnd - C.Note->WrapBegin,
            "");
    addEdit(C.EditFile, C.Note->EndBegin, C.Note->EndEnd - C.Note->EndBegin,
            "");
  } else {
    addEdit(C.EditFile, C.Note->WrapBegin,
            C.Note->InnerBegin - C.Note->WrapBegin, "");
    addEdit(C.EditFile, C.Note->InnerEnd, C.Note->WrapEnd - C.Note->InnerEnd,
            "");
    if (C.Note->Form == NoteSite::NoteBinary && C.Note->Comma2) {
      addEdit(C.EditFile, C.Note->Comma1, 1, "");
      addEdit(C.EditFile, C.Note->Comma2, 1, "");
    }
  }
  ++tally(C.EditFile).Unnoted;
  if (Remarks)
    D.report(C.Key.str(), Severity::Remark,
             "call at " + C.Key.str() +
                 " is no longer a caller frame of any entry: unwrapped");
}

void RewriteSession::reconcilePlaced(const CallRecord &C,
                                     const SiteDecision &Dec) {
  bool Ours = isOurKindArgument(C.KindArgText);
  bool Editable = C.Edit == CallRecord::Editable && isRewritten(C.EditFile);
  if (Dec.places()) {
    std::string Want =
        Dec.Act == SiteDecision::PlaceByCallers ? byCallersArgument(Dec.Table)
        : Dec.windowed() ? windowArgument(Dec.RuntimeKind, C.SizeArgText,
                                          Dec.MinSize, Dec.MaxSize)
                         : kindArgument(Dec.RuntimeKind);
    if (Ours && Editable && withoutSpace(C.KindArgText) != withoutSpace(Want)) {
      addEdit(C.EditFile, C.KindArgOffset, C.KindArgText.size(), Want);
      ++tally(C.EditFile).Rekinded;
      if (Remarks)
        D.report(C.Key.str(), Severity::Remark, Dec.Remark);
      return;
    }
    ++tally(C.EditFile).AlreadyPlaced;
    return;
  }
  if (!Ours || !Editable)
    return;
  if (entriesLostIn(C)) {
    warnAt(C, "placed in the source (" + C.KindArgText +
                  ") but no plan entry names this call where it is now, "
                  "while entries naming its file match no call (reformatted "
                  "or edited since it was rewritten?); left placed");
    return;
  }
  // No entry places the call now: back to the call as it was written.
  bool CanUndo =
      C.IsNew ? (C.PlacementEnd || C.AfterKindOffset) : C.AfterKindOffset != 0;
  if (!CanUndo) {
    warnAt(C, "placed in the source (" + C.KindArgText +
                  ") but no plan entry names this call, and its kind "
                  "argument cannot be taken out here; left as it is");
    return;
  }
  if (C.IsNew && C.PlacementEnd) {
    addEdit(C.EditFile, C.PlacementBegin, C.PlacementEnd - C.PlacementBegin,
            "");
  } else {
    if (!C.IsNew)
      addEdit(C.EditFile, C.CalleeOffset, C.CalleeLength, C.Fn->Name);
    addEdit(C.EditFile, C.KindArgOffset, C.AfterKindOffset - C.KindArgOffset,
            "");
  }
  ++tally(C.EditFile).Unplaced;
  if (Remarks)
    D.report(C.Key.str(), Severity::Remark,
             Twine(C.Fn->Name) + " at " + C.Key.str() +
                 " is no longer placed: no plan entry places it");
}

} // namespace hmplace
