//===- Rewrite.h - find allocation calls and plan their rewrite -*- C++ -*-===//
///
/// \file
/// The work of hmrewrite, separate from its command line. A RewriteSession is
/// handed to a ClangTool; for every translation unit it records each
/// allocation and free call (with the file offsets an edit would need), and
/// once all files were parsed it asks the plan's SiteMatcher what each call
/// becomes and turns the answers into tooling::Replacements per file.
///
/// Policy (README "Macros and headers"):
///  - Only the files named on the command line are edited, and headers
///    that match --header-filter.
///  - A planned call written in a macro argument is rewritten where it is
///    spelled. A planned call inside a macro body is not: the body is shared
///    by every use of the macro. It is reported with the macro's name.
///  - free/realloc inside a macro body of an edited file are rewritten in the
///    body: the dispatching versions are right for every use.
///  - Calls in system headers are never touched.
///  - The `#include <hmplace.h>` takes the place of a blank line after the
///    include block, so no line moves: plan keys, profiles and debug info
///    refer to the same lines before and after rewriting. Where there is no
///    such line, a `#line` directive after the include gives the following
///    lines their old numbers back in the compiler's view.
///  - new-expressions are placed with a placement argument (`new (KIND) T`);
///    placement new and classes with their own operator new are left alone.
///
//===----------------------------------------------------------------------===//
#ifndef HMPLACE_HMREWRITE_REWRITE_H
#define HMPLACE_HMREWRITE_REWRITE_H

#include "CallRecord.h"
#include "plan/Plan.h"

#include "clang/Tooling/Core/Replacement.h"
#include "clang/Tooling/Tooling.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/Hashing.h"
#include "llvm/ADT/StringSet.h"

#include <map>
#include <optional>
#include <set>
#include <string>
#include <tuple>
#include <vector>

namespace hmplace {

class RewriteSession {
public:
  /// \p Src: the plan, read a file at a time (null: --list-sites).
  RewriteSession(PlanSource *Src, DiagEngine &D);
  /// A file a TU reads (or a #line name): its plan entries are loaded.
  void seeFile(llvm::StringRef Name);

  /// Headers whose path matches \p Regex are rewritten too (clang-tidy's
  /// --header-filter): their planned sites, caller frames and frees.
  void setHeaderFilter(llvm::StringRef Regex) { HeaderFilter = Regex.str(); }
  bool headerSelected(llvm::StringRef Path) const;
  /// Lines of the plan's caller frames: calls there are recorded as
  /// candidate caller frames.
  bool isNoteLine(unsigned Line) const {
    return RecordAllCalls || (Matcher && Matcher->isCallerLine(Line));
  }
  /// Whether any call may be a caller frame (else none is looked at).
  bool recordsCallers() const {
    return RecordAllCalls || (Matcher && Matcher->needsContext());
  }
  /// Record every call (for --list-sites with callers), not only those on
  /// the plan's caller lines.
  void setRecordAllCalls(bool B) { RecordAllCalls = B; }
  /// Every recorded call that is not an allocation (candidate callers).
  std::vector<const CallRecord *> callerSites() const;

  /// Print a remark per placed site, worded as HmPlace.so's -Rpass=hm-place
  /// remarks so that the two front ends' decisions can be compared.
  void setRemarks(bool B) { Remarks = B; }
  /// List every plan entry for files not given, not only their number.
  void setVerbose(bool B) { Verbose = B; }

  /// Factory for ClangTool::run.
  std::unique_ptr<clang::tooling::FrontendActionFactory> actionFactory();

  /// Decide every recorded call and compute the edits. Returns false if
  /// anything is an error (under --strict, warnings too).
  bool finish();

  /// Edits per absolute file path (only for files that compiled).
  const std::map<std::string, clang::tooling::Replacements, std::less<>> &
  edits() const {
    return Edits;
  }
  /// Files that did not compile (not edited).
  const std::set<std::string> &failedFiles() const { return Failed; }
  /// Every allocation call found, in file order (for --list-sites).
  std::vector<const CallRecord *> allocationSites() const;
  /// Number of calls placed / dispatched, for the summary line.
  unsigned placedCount() const { return NumPlaced; }
  unsigned dispatchCount() const { return NumDispatch; }
  unsigned notedCount() const { return NumNoted; }
  /// Planned sites an earlier run placed (a rerun's no-op).
  unsigned alreadyPlacedCount() const { return NumAlreadyPlaced; }
  /// Placed sites whose kind the plan changed since (their argument edited).
  unsigned rekindedCount() const { return NumRekinded; }
  /// Allocation calls in inactive preprocessor branches of edited files.
  unsigned skippedCount() const;
  /// Whether \p File was parsed (successfully or not).
  bool parsed(llvm::StringRef File) const {
    return MainFiles.count(File.str()) || Failed.count(File.str());
  }

  // Called by the per-TU action.
  void addTU(std::vector<CallRecord> Calls, MainFileInfo Info);
  void markFailed(llvm::StringRef File) { Failed.insert(File.str()); }
  /// One copy of each path and directory name for all records: a TU has
  /// thousands of calls and a few names.
  llvm::StringRef intern(llvm::StringRef S) const {
    return Names.insert(S).first->getKey();
  }

private:
  void addEdit(llvm::StringRef File, unsigned Offset, unsigned Length,
               llvm::StringRef Text);
  /// \p GuardDepth: the #if depth a header's include guard adds (0 for
  /// main files).
  void insertInclude(const std::string &File, const MainFileInfo &Info,
                     unsigned FirstEditOffset, int GuardDepth);
  void warnAt(const CallRecord &C, const llvm::Twine &Msg);

  bool isRewritten(llvm::StringRef File) const {
    return MainFiles.count(File) || Headers.count(File);
  }
  void noteCaller(const CallRecord &C);

  PlanSource *Src;
  const Plan *ThePlan;
  DiagEngine &D;
  std::string HeaderFilter;
  bool RecordAllCalls = false;
  /// The plan's matcher: which lines hold caller frames while TUs are
  /// parsed, every decision in finish().
  std::optional<SiteMatcher> Matcher;
  std::set<std::string, std::less<>> Headers; ///< selected headers with edits
  mutable llvm::StringSet<> Names;
  std::vector<CallRecord> Calls;
  /// Calls recorded, by a hash of their key and edit position: indices
  /// into Calls.
  llvm::DenseMap<llvm::hash_code, llvm::SmallVector<size_t, 1>> SeenCalls;
  std::map<std::string, MainFileInfo, std::less<>> MainFiles;
  std::map<std::string, clang::tooling::Replacements, std::less<>> Edits;
  struct SeenEdit {
    const std::string *File;
    unsigned Offset, Length;
    std::string Text;
  };
  /// Edits made, by a hash of file, position and text.
  llvm::DenseMap<llvm::hash_code, llvm::SmallVector<SeenEdit, 1>> EditSet;
  std::set<std::string> Failed;
  std::set<std::string> FilesRead;
  std::set<std::pair<std::string, unsigned>> SkippedCalls;
  unsigned NumPlaced = 0, NumDispatch = 0, NumNoted = 0, NumAlreadyPlaced = 0,
           NumRekinded = 0;
  bool Remarks = false, Verbose = false;
};

} // namespace hmplace

#endif
