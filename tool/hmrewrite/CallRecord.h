//===- CallRecord.h - what hmrewrite keeps of a call once its AST is gone -===//
///
/// \file
/// hmrewrite decides nothing while a translation unit is parsed: placement
/// rules look at the calls of every file at once (SiteMatcher), and a TU's
/// AST is freed when it ends. So each call is recorded as plain data: its
/// site key, the file offsets an edit would touch, and why it cannot be
/// edited if so. The records of all TUs meet in RewriteSession::finish().
///
//===----------------------------------------------------------------------===//
#ifndef HMPLACE_HMREWRITE_CALLRECORD_H
#define HMPLACE_HMREWRITE_CALLRECORD_H

#include "plan/AllocFns.h"
#include "plan/SiteKey.h"

#include "llvm/ADT/StringRef.h"

#include <set>
#include <string>
#include <utility>
#include <vector>

namespace hmplace {

/// One call of an allocation or free function, or a call that may be a
/// caller frame of a call-stack entry (Fn null), as recorded from a TU.
struct CallRecord {
  const AllocFn *Fn = nullptr; ///< null: a candidate caller frame
  bool AlreadyNoted = false;   ///< a caller frame an earlier run wrapped
  /// Caller frames: the text range to wrap in the shadow-stack push
  /// (the call, or the macro use it is written through), or why it cannot.
  unsigned NoteBegin = 0, NoteEnd = 0;
  std::string NoteProblem;
  bool AlreadyPlaced = false; ///< a hmplace_* call (rewritten before)
  SourcePos Key;              ///< the site key (expansion position)
  llvm::StringRef CompileDir; ///< interned by the session
  /// Where an edit would go (spelling positions), if the call can be edited.
  enum EditState { Editable, InMacroBody, InSystemHeader, InOtherFile };
  EditState Edit = Editable;
  llvm::StringRef EditFile; ///< interned by the session; empty: none
  unsigned CalleeOffset = 0, CalleeLength = 0;
  bool HaveArgOffset = false;
  unsigned ArgOffset = 0;
  std::string Macro;     ///< macro whose body holds the call
  std::string Enclosing; ///< function the call is in
  std::string Callee;    ///< caller frames: the function called, if direct
  /// new-expressions: the kind goes at NewOffset, as ` (KIND)` after the
  /// `new` keyword, or as `KIND, ` before `std::nothrow` (NewInParens).
  bool IsNew = false, NewInParens = false;
  unsigned NewOffset = 0;
  /// A placed call from an earlier run: its kind argument as written and
  /// where (empty: not a plain argument in the file).
  std::string KindArgText;
  unsigned KindArgOffset = 0;
  /// Why this allocation can never be rewritten here (placement new, a class
  /// with its own operator new), or empty.
  std::string NotPlaceable;
};

/// What the include insertion needs to know about an edited main file.
struct MainFileInfo {
  std::string Path;
  bool IncludesRuntime = false;
  unsigned LastIncludeLine = 0; ///< 1-based line of the last top-level include
  /// Every file the TU read (absolute): plan entries for files no TU read
  /// were not examined, which is not the same as stale.
  std::vector<std::string> FilesRead;
  /// Allocation calls in inactive #if branches of edited files, by file and
  /// offset: nobody can tell what they would be.
  std::set<std::pair<std::string, unsigned>> SkippedCalls;
};

} // namespace hmplace

#endif
