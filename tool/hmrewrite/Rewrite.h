//===- Rewrite.h - find allocation calls and plan their rewrite -*- C++ -*-===//
///
/// \file
/// The work of hmrewrite, separate from its command line. A RewriteSession is
/// handed to a ClangTool; for every translation unit it records each
/// allocation and free call (with the file offsets an edit would need), and
/// once all files were parsed it asks the plan's SiteMatcher what each call
/// becomes and turns the answers into tooling::Replacements per file.
///
/// Policy (docs/user-guide.md, "Macros and headers"):
///  - Only the files named on the command line are edited, and headers
///    that match --header-filter.
///  - A planned call written in a macro argument is rewritten where it is
///    spelled. A planned call inside a macro body is not: the body is shared
///    by every use of the macro. It is reported with the macro's name.
///  - With --dispatch-frees, free/realloc inside a macro body of an edited
///    file are rewritten in the body: the dispatching versions are right for
///    every use. (By default frees are left alone: libhmplace.so's free
///    dispatches any pointer.)
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
#include "Format.h"
#include "KeyRecord.h"
#include "plan/Decision.h"
#include "plan/Plan.h"

#include "clang/Tooling/Core/Replacement.h"
#include "clang/Tooling/Tooling.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/Hashing.h"
#include "llvm/ADT/STLFunctionalExtras.h"
#include "llvm/ADT/StringSet.h"

#include <map>
#include <optional>
#include <set>
#include <string>
#include <tuple>
#include <vector>

namespace hmplace {

/// An edit of a file's text.
struct IncludeEdit {
  unsigned Offset, Length;
  std::string Text;
};
/// Where `#include <hmplace.h>` goes in \p Text, whose first edit is at
/// \p FirstEdit (Includes.cpp has the rules); with \p Fits, the first
/// place by those rules that \p Fits accepts.
IncludeEdit
runtimeIncludeEdit(llvm::StringRef Text, const FileLayout &Layout,
                   unsigned FirstEdit,
                   llvm::function_ref<bool(const IncludeEdit &)> Fits = {});

/// The edit that takes out an `#include <hmplace.h>` an earlier run added
/// to \p Text (with its `#line`, or giving back the blank line it took),
/// if the layout has one written that way.
std::optional<IncludeEdit> runtimeIncludeRemoval(llvm::StringRef Text,
                                                 const FileLayout &Layout);

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
  /// Whether some entry has a size window, whose check repeats the call's
  /// size argument (else the arguments' text is not taken).
  bool checksSizes() const { return ThePlan && ThePlan->HasWindows; }
  /// Whether any call may be a caller frame (else none is looked at).
  bool recordsCallers() const {
    return RecordAllCalls || (Matcher && Matcher->needsContext());
  }
  /// Record every call (for --list-sites with callers), not only those on
  /// the plan's caller lines.
  void setRecordAllCalls(bool B) { RecordAllCalls = B; }
  /// Record the calls that make standard containers allocate (for
  /// --list-sites: container entries).
  void setListContainers(bool B) { ListContainers = B; }
  bool listsContainers() const { return ListContainers; }
  /// Container operations found (--list-sites), in file order.
  std::vector<const CallRecord *> containerSites() const;
  /// Every recorded call that is not an allocation (candidate callers).
  std::vector<const CallRecord *> callerSites() const;

  /// Print a remark per placed site, worded as HmPlace.so's -Rpass=hm-place
  /// remarks so that the two front ends' decisions can be compared.
  void setRemarks(bool B) { Remarks = B; }
  /// List every plan entry for files not given, not only their number.
  void setVerbose(bool B) { Verbose = B; }
  /// Also send every free and unplanned realloc to the runtime's
  /// dispatching calls (hmplace_free, hmplace_realloc). Off by default: the
  /// replaced free/realloc of libhmplace.so already take any pointer, and
  /// HmPlace.so leaves frees alone too.
  void setDispatchFrees(bool B) { DispatchFrees = B; }

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
  /// The run's one summary line (without the "hmrewrite: " prefix): what
  /// was placed, noted and changed in the files written, the plan entries
  /// not applied, and the files not written. \p NotWritten: changed files
  /// left as they were, and why ("left as before: ...").
  std::string
  summary(const std::map<std::string, std::string> &NotWritten = {}) const;
  /// Allocation calls in inactive preprocessor branches of edited files.
  unsigned skippedCount() const;
  /// The files each main file's TU read (absolute), by main file.
  const std::map<std::string, MainFileInfo, std::less<>> &mainFiles() const {
    return MainFiles;
  }
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
  /// An insertion that may meet others at its offset (nested notes: the
  /// outer opening before the inner one, the inner closing before the outer
  /// one): they go in as one text, by ascending \p Order, then as added.
  void addInsertion(llvm::StringRef File, unsigned Offset, llvm::StringRef Text,
                    long Order);
  /// Pending insertions, by file and offset: (order, sequence, text).
  std::map<
      std::string,
      std::map<unsigned, std::vector<std::tuple<long, unsigned, std::string>>>>
      Insertions;
  unsigned InsertionSeq = 0;
  /// Put the pending insertions into the edits.
  void flushInsertions();
  /// Take out the runtime include where nothing else names the runtime;
  /// whether it was.
  bool dropUnusedInclude(const std::string &File, llvm::StringRef Old,
                         const FileLayout &Layout,
                         const clang::tooling::Replacements &Reps);
  void settleRecord(const std::string &File, llvm::StringRef Old,
                    const clang::tooling::Replacements &Reps, bool Runtime,
                    unsigned Width);
  /// Add `#include <hmplace.h>` to \p File, whose text is \p Old
  /// (Includes.cpp).
  void insertInclude(const std::string &File, llvm::StringRef Old,
                     const FileLayout &Layout,
                     const clang::format::FormatStyle &Style,
                     unsigned FirstEditOffset);
  void warnAt(const CallRecord &C, const llvm::Twine &Msg);
  void settleFile(const std::string &File, clang::tooling::Replacements &Reps);
  /// Rewritten lines left over their tree's column limit, by file.
  std::map<std::string, std::vector<LineLeft>, std::less<>> LeftLong;

  bool isRewritten(llvm::StringRef File) const {
    return (MainFiles.count(File) || Headers.count(File)) &&
           !Failed.count(File.str());
  }
  bool decideFrame(const CallRecord &C);
  void noteCaller(const CallRecord &C,
                  const std::vector<const PlanEntry *> &Through,
                  const std::string &Arg);
  void placeCall(const CallRecord &C, const Placement &P,
                 const SiteDecision &Dec);
  /// Rerun.cpp: an earlier run's wrapper or placed call against the plan.
  void reconcileNote(const CallRecord &C, bool Wanted, const std::string &Arg);
  void reconcilePlaced(const CallRecord &C, const SiteDecision &Dec);
  /// Rerun.cpp: the keys an earlier run's text carries (a reformatted tree).
  void recoverKeys();
  void recoverPlainSites();
  /// KeyRecords.cpp: the calls each file's key record names (KeyRecord.h),
  /// settled before anything else decides.
  struct RecordedCall;
  void applyKeyRecords();
  void settleSamePlan(std::vector<RecordedCall> &Cs);
  void settleOtherPlan(std::vector<RecordedCall> &Cs);
  /// Whether the plan names \p C (its innermost frame) at this line and
  /// column of its file.
  bool namesAt(const CallRecord &C, unsigned Line, unsigned Column) const;
  /// Leave \p C as it is, whatever the plan says, and say \p Why there.
  void refuse(CallRecord &C, const std::string &Why);
  /// \p C is named by the plan (it goes in its file's key record).
  void noteNamed(const CallRecord &C);
  /// The key record \p File (whose text is \p Old, to which this run makes
  /// the edits \p Reps) ends with after this run, or none. The ids are of
  /// the text as written, as a rerun reads them.
  std::optional<KeyRecord>
  wantRecord(const std::string &File, llvm::StringRef Old,
             const clang::tooling::Replacements &Reps) const;
  std::map<std::string, std::set<const CallRecord *>> Named;
  /// Whether entries naming \p C's file match no call: then an earlier
  /// run's edit at \p C that no entry names is kept, not undone.
  bool entriesLostIn(const CallRecord &C);
  std::optional<std::vector<const PlanEntry *>> LostEntries;

  PlanSource *Src;
  const Plan *ThePlan;
  DiagEngine &D;
  std::string HeaderFilter;
  bool RecordAllCalls = false, ListContainers = false;
  /// The plan's matcher: which lines hold caller frames while TUs are
  /// parsed, every decision in finish().
  std::optional<SiteMatcher> Matcher;
  /// (Calls carry their own tokens: CallRecord::Token.)
  void makeMatcher() { Matcher.emplace(*ThePlan); }
  std::set<std::string, std::less<>> Headers; ///< selected headers with edits
  mutable llvm::StringSet<> Names;
  std::vector<CallRecord> Calls;
  /// Calls recorded, by a hash of their key and edit position: indices
  /// into Calls.
  llvm::DenseMap<llvm::hash_code, llvm::SmallVector<size_t, 1>> SeenCalls;
  std::map<std::string, MainFileInfo, std::less<>> MainFiles;
  /// Layouts of the files that may be edited, from the first TU that read
  /// each.
  std::map<std::string, FileLayout, std::less<>> Layouts;
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
  std::map<std::pair<std::string, unsigned>, unsigned> SkippedCalls;
  /// Skipped calls no TU saw active: (file, line), sorted.
  std::vector<std::pair<std::string, unsigned>> unexaminedCalls() const;
  /// Plan entries that place nothing although a call they name was found:
  /// the call or a caller frame could not be edited, entries conflict.
  std::set<const PlanEntry *> NotApplied;
  /// Entries of the ordinary heap that matched no call
  /// (SiteMatcher::placesNothingAnywhere): a note each, not applied but
  /// placing nothing either way.
  unsigned HeapUnmatched = 0;
  /// What was done, by file: the summary counts only the files written.
  struct Tally {
    unsigned Placed = 0, Dispatch = 0, Noted = 0, AlreadyPlaced = 0,
             Rekinded = 0, Unplaced = 0, AlreadyNoted = 0, Reframed = 0,
             Unnoted = 0, ToHeap = 0, Broken = 0, Joined = 0;
    /// Key records written, rewritten or taken out (KeyRecord.h).
    unsigned Records = 0;
    void add(const Tally &O);
  };
  std::map<std::string, Tally, std::less<>> Tallies;
  Tally &tally(llvm::StringRef File) {
    auto It = Tallies.find(File);
    return It != Tallies.end() ? It->second : Tallies[File.str()];
  }
  /// Files whose edits overlap (a fault of the rewriter): left as they
  /// are, the others written; and the errors reported for them.
  std::set<std::string> Conflicted;
  /// All TUs' MainFileInfo::CallsTo and AddressTaken, and the entries a
  /// site-entry hint was given for.
  std::map<std::string, std::vector<SourcePos>> CallsTo;
  std::set<std::string> AddressTaken;
  /// Calls on the lines of recorded calls, by file and offset: whether no
  /// TU found they can allocate (MainFileInfo::CallsNearSites).
  std::map<std::string, std::map<unsigned, bool>> CallsNearSites;
  std::set<const PlanEntry *> Hinted;
  /// A note where a stack entry through the context site \p C could be a
  /// site entry: the site's function has one caller, the entry's.
  void hintSiteEntry(const CallRecord &C, const Placement &P);
  unsigned ConflictErrors = 0;
  bool Remarks = false, Verbose = false, DispatchFrees = false;
};

} // namespace hmplace

#endif
