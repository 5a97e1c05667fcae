//===- Plan.h - the placement plan model and its readers --------*- C++ -*-===//
///
/// \file
/// A plan maps allocation sites (SiteKey.h) to memory targets: a memkind
/// static kind, an alias of one, or a named tier with an optional capacity
/// budget. Plans are read from HmPlace's YAML format or imported from the
/// files advisors already write (ecoHMEM/FlexMalloc `.locations` and memory
/// definition files), auto-detected. Every problem is reported through a
/// DiagEngine with the plan file's line and column.
///
//===----------------------------------------------------------------------===//
#ifndef HMPLACE_PLAN_PLAN_H
#define HMPLACE_PLAN_PLAN_H

#include "plan/Context.h"
#include "plan/Diag.h"
#include "plan/Kinds.h"
#include "plan/SiteKey.h"
#include "plan/SourceTokens.h"

#include "llvm/ADT/StringRef.h"
#include "llvm/Support/SMLoc.h"

#include <map>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <tuple>
#include <vector>

namespace hmplace {

/// A named memory with an optional per-process capacity budget.
struct Tier {
  std::string Name;
  const KindInfo *Kind = nullptr;
  std::string KindSpelling; ///< as written (`hbm`, `MEMKIND_HBW`)
  std::optional<uint64_t> Capacity;
  std::string Note;
  llvm::SMLoc Loc;
};

/// One share of a split target (`kind: {hbm: 75%, ddr: 25%}`).
struct SplitPart {
  std::string Spelling; ///< as written: tier name, kind or alias
  const KindInfo *Kind = nullptr;
  const Tier *TheTier = nullptr;
  unsigned Percent = 0;
};

/// What an entry sends its site to: one kind, or a split of an object's
/// pages across two or three kinds (Split.h).
struct Target {
  /// As written: tier name, kind or alias; for a split its canonical text
  /// (`{hbm: 75%, ddr: 25%}`).
  std::string Spelling;
  /// The kind; for a split, the kind of its largest share (what an object
  /// too small to split gets).
  const KindInfo *Kind = nullptr;
  const Tier *TheTier = nullptr; ///< set when Spelling names a tier
  std::vector<SplitPart> Parts;  ///< a split's shares, largest first
  bool isHeap() const { return Kind && Kind->isHeap() && Parts.empty(); }
  bool isSplit() const { return !Parts.empty(); }
  /// Two targets are the same placement if they resolve to the same kinds
  /// and shares and the same budgets.
  bool samePlacement(const Target &O) const;
  /// "MEMKIND_HBW" or "MEMKIND_HBW 75% + MEMKIND_REGULAR 25%".
  std::string kindText() const;
};

struct PlanEntry {
  std::vector<Frame> Frames; ///< innermost first; size 1 for `site:`
  bool IsStack = false;      ///< written as `stack:` (kept for round trips)
  Target To;
  std::string Size; ///< informational, as written
  std::string Note; ///< informational
  /// Fortran: the one variable of a multi-object ALLOCATE this entry places
  /// (lower case; HmPlace.so reads it from the descriptor's debug info);
  /// empty: every call at the site.
  std::string Object;
  /// A size window (AutoHBW's): the entry places only allocations of
  /// MinSize..MaxSize bytes, both inclusive; the others stay on the ordinary
  /// heap. The check is made at the planned call only.
  std::optional<uint64_t> MinSize, MaxSize;
  bool hasWindow() const { return MinSize || MaxSize; }
  /// `files:` instead of a site: every allocation call in the source files
  /// these globs name (`src/*.c`: `*`, `?` and `[...]` within one path
  /// component, paths matched as a site's file is). A site entry naming the
  /// same call takes precedence. Frames then holds one placeholder frame
  /// (line 0), which names no call.
  std::vector<std::string> Files;
  bool isFileSet() const { return !Files.empty(); }
  /// Whether the entry's allocation call is a frame of form \p K (a merged
  /// call, a function without debug info).
  bool innermostIs(Frame::Form K) const {
    return !isFileSet() && Frames.front().Kind == K;
  }
  llvm::SMLoc Loc; ///< the entry itself
  llvm::SMLoc KeyLoc, KindLoc;
  /// Position in the whole plan (a plan loaded for one compile holds only
  /// the entries that compile can use; build records name entries by this).
  unsigned Index = 0;
  std::string key() const; ///< `a.c:1 > b.c:2`
};

enum class PlanFormat { Yaml, Locations, MemoryDefinitions };
const char *formatName(PlanFormat F);

class Plan {
public:
  unsigned Version = 1;
  PlanFormat Format = PlanFormat::Yaml;
  std::string Path;    ///< the file as named by the user
  std::string PlanDir; ///< absolute directory of the plan file
  /// Hash of the file's bytes: which build records belong to this plan
  /// (BuildRecord.h).
  uint64_t ContentHash = 0;
  bool IgnoreCase = false;
  bool HasObjects = false;  ///< some entry has an `object:`
  bool HasWindows = false;  ///< some entry has a size window
  bool HasFileSets = false; ///< some entry is a `files:` entry
  std::string Note;         ///< informational
  std::map<std::string, std::unique_ptr<Tier>> Tiers;
  std::vector<PlanEntry> Entries;

  const Tier *findTier(llvm::StringRef Name) const;
  /// Resolve a target name: tier first, then memkind kind, then alias.
  const KindInfo *resolveKind(llvm::StringRef Name, const Tier **T) const;
  /// Path, PlanDir and ContentHash for the plan file \p Path holding
  /// \p Text: how every reader names a plan and its build records.
  void setSource(llvm::StringRef Path, llvm::StringRef Text);
  /// All names a target could have been, for did-you-mean suggestions.
  std::vector<std::string> targetNames() const;
};

/// Add to \p P the `files:` entry AutoHBW's settings describe: every
/// allocation call in the files \p Globs name (every file if empty) whose
/// size is in the window \p AutoHbwSize (`AUTO_HBW_SIZE` syntax: `4K` for
/// at least 4 KiB, `1M:5M` for 1..5 MiB) goes to \p Kind (`AUTO_HBW_MEM_TYPE`:
/// MEMKIND_HBW, ...). False, with \p Err set, if a value is not understood.
bool addAutoHbwEntry(Plan &P, llvm::StringRef AutoHbwSize,
                     const std::vector<std::string> &Globs,
                     llvm::StringRef Kind, std::string &Err);

/// Read a plan from a file, detecting its format from its extension and
/// content. Returns nullptr after reporting errors through \p D.
std::unique_ptr<Plan> loadPlan(llvm::StringRef Path, DiagEngine &D);
/// The plan as one compile needs it: only the entries one of whose source
/// frames names a file called one of \p Basenames (file names without
/// directories). A plan of more than a few thousand entries is read from a
/// compact index of it, built once per plan content and cached beside the
/// plan (`<plan>.hmidx`, else in $XDG_CACHE_HOME/hmplace); see PlanIndex.cpp.
std::unique_ptr<Plan> loadPlanFor(llvm::StringRef Path,
                                  const std::set<std::string> &Basenames,
                                  DiagEngine &D);
/// Where \p P names files called as \p File is (its file name) but not
/// \p File itself (a plan made in another tree, whose paths are relative to
/// the plan's directory there): why none of its entries apply to \p File,
/// naming the paths it has and the one that would name \p File; "" where
/// the plan names \p File or no file of its name.
std::string namesOnlyElsewhere(const Plan &P, llvm::StringRef File,
                               llvm::StringRef CompileDir);
/// Which keys the plan names in files called \p Basename: a hash of each
/// such frame's line, column and form and whether it is an entry's
/// allocation call or a caller, over the plan's loaded entries. Two plans
/// with the same hash for a file name the same calls of it, whatever else
/// they place or where (hmrewrite's key record, KeyRecord.h).
uint64_t keysHashFor(const Plan &P, llvm::StringRef Basename);
/// A plan read a file at a time, for a front end that learns which files it
/// needs as it goes (hmrewrite: the headers a file includes). A large plan
/// with an index holds at first no entries; load() adds those naming a file
/// name when it is first seen. A small plan, or one whose index had to be
/// built now, is whole from the start.
class PlanSource {
public:
  static std::unique_ptr<PlanSource> open(llvm::StringRef Path, DiagEngine &D);
  ~PlanSource();
  const Plan &plan() const { return *P; }
  /// Add the entries naming files called \p Basename; true if any were.
  bool load(llvm::StringRef Basename);
  /// Add every entry (to name each unexamined one).
  void loadAll();
  /// Entries not loaded: they name only files never seen.
  unsigned unloaded() const;
  /// The plan, for a caller done loading.
  std::unique_ptr<Plan> take() { return std::move(P); }
  /// Whether the plan is large enough to be read through an index.
  bool large() const { return Large; }

private:
  PlanSource() = default;
  struct Index;
  std::unique_ptr<Plan> P;
  std::unique_ptr<Index> Idx; ///< null: the plan is whole
  bool Large = false;
};
/// Same, from a buffer (fuzzing, tests); \p Name is used in diagnostics.
std::unique_ptr<Plan> parsePlan(std::unique_ptr<llvm::MemoryBuffer> Buf,
                                DiagEngine &D,
                                std::optional<PlanFormat> Force = {});
/// Add the budgets of a FlexMalloc memory definition file to \p P as tiers.
bool mergeMemoryDefinitions(Plan &P, const Plan &Defs, DiagEngine &D);

/// Write \p P in HmPlace's YAML format. Deterministic, so writing what was read
/// from that output again gives the same bytes.
void writeYaml(const Plan &P, llvm::raw_ostream &OS);
/// Write \p P as a FlexMalloc `.locations` file; fails (with a diagnostic) for
/// kinds that format cannot name.
bool writeLocations(const Plan &P, llvm::raw_ostream &OS, DiagEngine &D);
/// A table for people.
void writeTable(const Plan &P, llvm::raw_ostream &OS);
/// One-paragraph summary (`hmplan check`).
void writeSummary(const Plan &P, llvm::raw_ostream &OS);

//===----------------------------------------------------------------------===//
// Matching
//===----------------------------------------------------------------------===//

/// The decision for one allocation call.
struct Placement {
  enum Status {
    Unplanned,  ///< no entry names this call
    Placed,     ///< send to Entry->To (which may be the ordinary heap)
    Conflict,   ///< entries disagree and nothing here decides between them
    Contextual, ///< decided at run time by the caller chain (Context.h)
  };
  Status State = Unplanned;
  /// Placed: the entry. Contextual: the fallback when no choice matches
  /// (a site entry for the call), or null for the ordinary heap.
  const PlanEntry *Entry = nullptr;
  std::vector<ContextChoice> Choices; ///< Contextual: best first
  /// Contextual: the call is the standard allocator's (container entries);
  /// its table names the site "std::allocator" in every front end.
  bool Container = false;
  /// Contextual: the runtime kind when no choice matches (-1: the heap).
  int fallbackKind() const;
  /// Every entry behind this decision (the entry, the choices' entries,
  /// the candidates): what it applied, or did not, in either front end.
  std::vector<const PlanEntry *> entries() const;
  /// Contextual: the runtime kind the runtime chooses when \p Noted are the
  /// frame ids on the shadow stack, innermost first (runtime/context.c's
  /// choose(): the first choice whose callers are the innermost noted
  /// frames, else the fallback).
  int kindOnStack(llvm::ArrayRef<uint64_t> Noted) const;
  /// Contextual: what the run-time check decides where all that is known
  /// is the innermost noted frame, \p Top (the call of the function that
  /// holds this call): the index of the choice it picks, -1 for the
  /// fallback (no choice names \p Top first), or nothing where it depends
  /// on frames further out (the first choice naming \p Top has more).
  std::optional<int> choiceWithTop(uint64_t Top) const;
  /// Contextual: "call-stack entries: 'a' 'b'; otherwise KIND", as both
  /// front ends word their remarks.
  std::string contextSummary() const;
  std::vector<const PlanEntry *> Candidates; ///< for Conflict
  std::string Reason;                        ///< for Conflict
};

/// Matches the allocation calls a front end found against a plan. Calls are
/// added first and resolved together, because some rules look at all calls at
/// once (a column-less entry that names two calls on one line).
/// What a front end parsed, so that reportUsage() tells an entry whose file
/// was never examined from a stale one.
struct Coverage {
  std::vector<std::string> Read;   ///< every file read, absolute
  std::vector<std::string> Failed; ///< files that did not compile
  /// Name each entry for files not read; else print only their number.
  bool ListUnexamined = false;
  /// Entries a PlanSource never loaded (they name files no file read).
  unsigned NotLoaded = 0;
  /// Allocation calls in inactive preprocessor branches: (file, line). An
  /// entry naming one is reported as such, not as stale.
  std::vector<std::pair<std::string, unsigned>> Inactive;
};

class SiteMatcher {
public:
  explicit SiteMatcher(const Plan &P);

  /// Register a call; returns its index in resolve()'s result.
  unsigned addCall(CallContext C);
  /// Decide every call added so far.
  std::vector<Placement> resolve();
  /// Warn about entries that matched nothing (stale plans), that matched
  /// files in several directories (ambiguous relative paths) or several calls
  /// on one line. Call after resolve(); with --strict the engine turns the
  /// warnings into errors.
  /// With \p C, an entry that matched nothing and names a file that failed
  /// or that no parsed file read is reported as not examined, not as stale.
  /// Returns the entries warned about that place nothing. An entry that
  /// matched nothing and would place nothing wherever its call is now
  /// (placesNothingAnywhere) gets a note instead and is not returned: a
  /// reformat moves the calls of the ordinary heap's entries, which the
  /// rewrite leaves as they are, beyond finding; \p HeapNoted counts those
  /// notes.
  std::vector<const PlanEntry *>
  reportUsage(DiagEngine &D, const Coverage *C = nullptr,
              unsigned *HeapNoted = nullptr) const;
  /// Whether \p E keeps its call on the ordinary heap, which the call is on
  /// without it: a site or stack entry of the heap naming a source line, in
  /// a plan no `files:` entry places anything with (an entry of the heap may
  /// be a `files:` entry's exception). Where such a call also has entries
  /// that place, the rewrite writes the call with what finds them all again.
  bool placesNothingAnywhere(const PlanEntry &E) const;
  /// Whether \p E is an entry of the ordinary heap that, where it matches
  /// no call or cannot be applied (Unusable: all its frames in the C++
  /// library, a binary frame between program frames), leaves its calls
  /// where they are without it (on the heap): any entry form, in a plan no
  /// `files:` entry places anything with.
  /// HmPlace.so and `hmplan summary` do not warn about such a site, stack,
  /// merged or `(function)` entry that matched nothing (a note in the
  /// summary says why).
  bool keepsHeapEitherWay(const PlanEntry &E) const;
  /// Warn about stack entries whose innermost frame matched a call but one of
  /// whose caller frames matched no noted call: they can never apply. Only
  /// for front ends that see the whole program (hmrewrite); after isNoted()
  /// was asked for every call.
  std::vector<const PlanEntry *> reportUnnoted(DiagEngine &D) const;
  /// Entries that matched no call (for remarks and summaries).
  std::vector<const PlanEntry *> unmatched() const;

  /// Whether the call \p C is a caller frame of some stack entry, so that it
  /// must note itself on the shadow stack (Context.h). Only the call's own
  /// frame is compared. Records the use for reportUsage().
  bool isNoted(const CallContext &C,
               std::vector<const PlanEntry *> *Through = nullptr);
  /// The container entries (Context.h) whose first user frame is the call
  /// \p C, as the choices of a table, best first: what the allocations the
  /// standard allocator makes while \p C runs are checked against.
  std::vector<ContextChoice> containerChoicesFor(const CallContext &C) const;
  /// Check the frames that carry the token of their call (a plan's
  /// `tokens:`) against the source the calls are in, read through \p S:
  /// a frame names a call only if its token is still the one there (a
  /// reformat or an edit moved another call to the key: it names none).
  /// Where the source cannot be read, the key alone decides.
  void checkTokensIn(SourceTokenFiles *S) { Sources = S; }
  /// Why \p E matched no call where its key named a call of another token
  /// (`the source has free#... at a.c:5:3 ...`), or "".
  std::string tokenMoved(const PlanEntry &E) const;
  /// Whether some entry names the call \p C (its innermost frame), without
  /// registering it: a front end choosing between two keys of one call.
  bool wouldMatch(const CallContext &C) const {
    return !candidatesFor(C).empty();
  }
  /// Whether some entry has a caller frame at \p S, without recording it.
  bool wouldNote(const SourcePos &S, llvm::StringRef CompileDir) const;
  /// Whether some entry's caller frame names \p S's file and no call noted
  /// it (isNoted): after isNoted() was asked for every call.
  bool hasUnnotedCallerIn(const SourcePos &S, llvm::StringRef CompileDir) const;
  /// The (line, column) of the innermost frames of the entries that name
  /// \p S's file and place (not on the ordinary heap), in order.
  std::vector<std::pair<unsigned, unsigned>>
  placingSitesIn(const SourcePos &S, llvm::StringRef CompileDir) const;
  /// Whether an entry's innermost frame is on \p Line: a call on any other
  /// line (and not the standard allocator's) is decided without the matcher,
  /// which a front end with thousands of calls per file may skip.
  bool mayMatchLine(unsigned Line) const {
    return ByLine.count(Line) || UnusableByLine.count(Line) ||
           !FileSetEntries.empty();
  }
  /// Whether any entry needs run-time context (a front end may skip looking
  /// for noted calls otherwise).
  bool needsContext() const { return !OuterByLine.empty(); }
  /// Whether some entry's caller frame is on \p Line (a cheap filter before
  /// isNoted()).
  bool isCallerLine(unsigned Line) const { return OuterByLine.count(Line); }
  /// Whether the plan has container entries (operator new in the standard
  /// library's allocator must then be matched).
  bool hasContainerEntries() const { return !ContainerEntries.empty(); }
  /// Entries that cannot be applied (EntryShape::Unusable) whose innermost
  /// frame names one of the calls resolved: the places where the plan wanted
  /// something and nothing is placed.
  const std::vector<const PlanEntry *> &unusableHits() const {
    return UnusableHit;
  }
  const EntryShape &shape(const PlanEntry &E) const {
    return Shapes[&E - P.Entries.data()];
  }
  /// Whether the plan frame \p F names the source position \p S (by the
  /// path rules, relative to \p CompileDir).
  bool matches(const Frame &F, const SourcePos &S,
               llvm::StringRef CompileDir) const {
    return matchFrame(F, S, CompileDir) != PathMatch::None;
  }

private:
  struct Candidate {
    const PlanEntry *E;
    bool Full; ///< every frame of the entry was checked against the call
    unsigned Score;
    unsigned Checked; ///< frames checked statically (the rest at run time)
  };
  std::vector<Candidate> candidatesFor(const CallContext &C) const;
  PathMatch matchFrame(const Frame &F, const SourcePos &S,
                       llvm::StringRef CompileDir) const;
  /// Frames with a token (Frame::Token) are checked against the source.
  SourceTokenFiles *Sources = nullptr;
  /// Frames whose key named a call of another token: what is there now.
  mutable std::map<const Frame *, std::string> TokenMoved;
  mutable std::map<std::tuple<const std::string *, std::string, std::string>,
                   PathMatch>
      PathCache;

  const Plan &P;
  std::vector<EntryShape> Shapes; ///< per entry, in plan order
  /// Some `files:` entry places anything (it may be any call's fallback).
  bool PlacingFiles = false;
  std::multimap<unsigned, const PlanEntry *> ByLine; ///< frame 0 line
  std::vector<const PlanEntry *> ContainerEntries;
  std::vector<const PlanEntry *> FileSetEntries;
  /// Whether a `files:` entry names the call's file: (entry, file, compile
  /// directory) -> answer; calls of one file share it.
  bool fileSetNames(const PlanEntry &E, const SourcePos &S,
                    llvm::StringRef CompileDir) const;
  mutable std::map<std::tuple<const PlanEntry *, std::string, std::string>,
                   bool>
      FileSetCache;
  std::multimap<unsigned, const PlanEntry *> UnusableByLine;
  std::vector<const PlanEntry *> UnusableHit;
  /// Checkable caller frames by line: (entry, frame index).
  std::multimap<unsigned, std::pair<const PlanEntry *, unsigned>> OuterByLine;
  std::set<std::pair<const PlanEntry *, unsigned>> NotedFrames;
  std::set<const PlanEntry *> Noting; ///< entries whose callers are noted
  /// Per entry: whether its caller chain can make a difference (see the
  /// constructor).
  std::vector<bool> chainsNeeded() const;
  std::vector<CallContext> Calls;
  struct Usage {
    std::vector<std::string> Files;
    std::map<std::pair<std::string, unsigned>, std::vector<unsigned>>
        ColumnsOnLine; ///< (file, line) -> columns, for column-less entries
    unsigned Hits = 0;
  };
  std::map<const PlanEntry *, Usage> Used;
  std::map<const PlanEntry *, bool> NeedsColumn;
};

} // namespace hmplace

#endif
