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

using namespace llvm;

namespace hmplace {

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

/// Whether \p Text is a kind argument hmrewrite writes (and may change):
/// also the previous hmrewrite's context site, whose private descriptor
/// the runtime no longer reads.
static bool isOurKindArgument(StringRef Text) {
  return Text.starts_with("HMPLACE_") ||
         Text.starts_with("hmplace_in_window(") ||
         Text.starts_with("hmplace_in_window2(") ||
         Text.starts_with("(enum hmplace_kind)hmplace_ctx_kind(");
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
