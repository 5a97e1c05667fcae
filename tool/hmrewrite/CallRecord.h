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

#include <map>
#include <memory>
#include <set>
#include <string>
#include <utility>
#include <vector>

namespace hmplace {

/// One call of an allocation or free function, or a call that may be a
/// caller frame of a call-stack entry (Fn null), as recorded from a TU.
/// What only a candidate caller frame has: the text range to wrap in a
/// hmplace.h form (the call, the macro use it is written through, or the
/// declaration or statement that use is), which form, or why it cannot be
/// wrapped; or, if an earlier run wrapped it, that wrapper.
struct NoteSite {
  /// NoteBlock: an OpenMP parallel region's body, noted from its first to
  /// its last statement (HMPLACE_CALLER_BLOCK / _END); NoteBegin is where
  /// the first goes, NoteEnd where the second, and BlockBraces says the body
  /// is a single statement that gets braces around it.
  /// NoteInit: a member's constructor in a constructor's initializer list;
  /// the guard goes around its first argument (NoteBegin, NoteEnd).
  /// NoteCall (C++14): the call alone, after its arguments are evaluated:
  /// `HMPLACE_CALL(frame, ` at NoteBegin (the callee), `)` at NoteEnd (its
  /// end), the argument list as written after it. NoteBinary (C++14): an
  /// operator call `l OP r` as `HMPLACE_BINARY(frame, l, OP, r)`: commas at
  /// LhsEnd and OpEnd, `)` at NoteEnd. NoteStmts: as NoteDecl, for a
  /// macro use that writes its own last ';' and has none after it
  /// (HMPLACE_CALLER_STMTS, which ends the statement itself).
  enum NoteForm {
    NoteExpr,
    NoteStmt,
    NoteDecl,
    NoteStmts,
    NoteBlock,
    NoteInit,
    NoteCall,
    NoteBinary
  };
  NoteForm Form = NoteExpr;
  unsigned NoteBegin = 0, NoteEnd = 0;
  unsigned LhsEnd = 0, OpEnd = 0;
  std::string NoteProblem;
  bool BlockBraces = false;
  bool CPlusPlus = false; ///< the call is in C++ (containers may be armed)
  /// The note may name its frame as HMPLACE_AT(line, column): its text is
  /// in the frame's file as the compiler names it there, not in a directive.
  bool Here = false;
  /// A caller frame an earlier run wrapped: the wrapper's text range, the
  /// wrapped text's, and its first argument (the frame, or the frame and a
  /// container table) as written.
  bool AlreadyNoted = false;
  /// The wrapper is the previous hmrewrite's `__extension__({ ... hm_ctx_
  /// = hmplace_ctx_push(0x...); CALL; })`: a rerun puts the current form
  /// in its place (Form: the one the call's position takes).
  bool OldStyle = false;
  unsigned WrapBegin = 0, WrapEnd = 0, InnerBegin = 0, InnerEnd = 0;
  /// An earlier HMPLACE_BINARY: its two commas (each one character).
  unsigned Comma1 = 0, Comma2 = 0;
  unsigned FirstBegin = 0, FirstEnd = 0;
  std::string FirstText;
  /// NoteBlock wrappers: what the wrapper's two parts occupy, to take out,
  /// and the second part's frame.
  unsigned EndBegin = 0, EndEnd = 0, Frame2Begin = 0, Frame2End = 0;
  std::string Callee; ///< the function called, if direct
  /// The call provably cannot allocate (Harmless.h): a note would change
  /// nothing, so none is written (HmPlace.so's note around it finds no
  /// allocation either).
  bool CannotAllocate = false;
  /// --list-sites: a call that makes a standard container allocate
  /// (`std::vector<double>::resize`); its key is the user frame of a
  /// container entry.
  std::string ContainerOp;
};

/// One call of an allocation or free function, or a candidate caller frame
/// (Fn null, Note set), as recorded from a TU. Site-dense files have tens of
/// thousands: what only caller frames need is kept apart.
struct CallRecord {
  const AllocFn *Fn = nullptr;    ///< null: a candidate caller frame
  std::unique_ptr<NoteSite> Note; ///< candidate caller frames only
  NoteSite &note() {
    if (!Note)
      Note = std::make_unique<NoteSite>();
    return *Note;
  }
  bool AlreadyPlaced = false; ///< a placed hmplace_* call (rewritten before)
  bool Dispatching = false;   ///< hmplace_free, hmplace_realloc
  SourcePos Key;              ///< the site key (expansion position)
  /// Where the key's token is in Key.File as the TU read it, where that is
  /// the file the key names (no `#line` naming another): for the file's
  /// key record (KeyRecord.h).
  bool HaveKeyOffset = false;
  unsigned KeyOffset = 0;
  /// The call's token at KeyOffset (SourceTokens.h's tokenText), which a
  /// plan's `tokens:` are checked against; empty where not known.
  std::string Token;
  /// Settled by the file's key record: Key is the plan's key of the call
  /// (the earlier run's heuristics are not asked); Unnamed: the record says
  /// the plan named no call here, whatever it names at Key now.
  bool Settled = false, Unnamed = false;
  /// Why the call is left as it is, whatever the plan says: which entry
  /// means it cannot be told (KeyRecords.cpp); said once, at the call.
  std::string Refused;
  /// On a later line of a statement an earlier run broke (Format.h): its
  /// key where the statement joined again puts it, which a rerun tries too.
  std::optional<SourcePos> Joined;
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
  /// new-expressions: the kind goes at NewOffset, as ` (KIND)` after the
  /// `new` keyword, or as `KIND, ` before `std::nothrow` (NewInParens).
  bool IsNew = false, NewInParens = false;
  unsigned NewOffset = 0;
  /// A placed call from an earlier run: its kind argument as written and
  /// where (empty: not plain text in the file), and where the argument
  /// after it begins (for taking the kind out again; 0: none).
  std::string KindArgText;
  /// The size argument(s) as written (calloc: two), for a size window's
  /// check; or why there is none to repeat (NoSizeWhy).
  std::vector<std::string> SizeArgText;
  std::string NoSizeWhy;
  unsigned KindArgOffset = 0, AfterKindOffset = 0;
  /// `new (KIND) T`: the placement parentheses, for taking them out.
  unsigned PlacementBegin = 0, PlacementEnd = 0;
  /// Why this allocation can never be rewritten here (placement new, a class
  /// with its own operator new), or empty.
  std::string NotPlaceable;
};

/// What the plan's matcher sees of the call \p C when keyed at \p Key (its
/// own key, or one an earlier run's text carries): that one frame.
inline CallContext keyContext(const CallRecord &C, const SourcePos &Key) {
  CallContext Ctx;
  Ctx.Frames.push_back(Key);
  Ctx.Frames.back().Token = C.Token;
  Ctx.CompileDir = C.CompileDir.str();
  return Ctx;
}

/// Where things are in a file hmrewrite may edit (the main file, headers
/// selected with --header-filter), as the parse saw them: what the include
/// insertion needs to put `#include <hmplace.h>` at file scope, outside
/// conditionals. File offsets.
struct FileLayout {
  bool IncludesRuntime = false;
  /// The line of `#include <hmplace.h>` (an earlier run's, or the user's):
  /// [start, end with its newline); {0, 0} if none.
  std::pair<unsigned, unsigned> RuntimeInclude{0, 0};
  /// Top-level declarations (functions with their bodies, namespaces,
  /// extern "C" blocks): [begin, end).
  std::vector<std::pair<unsigned, unsigned>> Decls;
  /// #if/#ifdef/#ifndef ... #endif blocks (nested ones too), from the start
  /// of the #if line to the end of the #endif line.
  std::vector<std::pair<unsigned, unsigned>> Conditionals;
  /// #include lines: [start of the line, end of the line with its newline).
  std::vector<std::pair<unsigned, unsigned>> Includes;
};

/// What a translation unit tells the session beyond its calls.
struct MainFileInfo {
  std::string Path;
  /// The main file's layout and those of selected headers, by path.
  std::map<std::string, FileLayout> Layouts;
  /// Every file the TU read (absolute): plan entries for files no TU read
  /// were not examined, which is not the same as stale.
  std::vector<std::string> FilesRead;
  /// Allocation calls in inactive #if branches of edited files, by file and
  /// offset (with their line): nobody can tell what they would be.
  std::map<std::pair<std::string, unsigned>, unsigned> SkippedCalls;
  /// With call-stack entries: the direct calls of each function by name (at
  /// most two positions: whether it has one caller), and the functions
  /// whose address is taken (called through pointers too). A stack entry
  /// through a function with one caller could be a site entry.
  std::map<std::string, std::vector<SourcePos>> CallsTo;
  std::set<std::string> AddressTaken;
  /// Calls on the lines of the calls recorded (those the rewrite may edit,
  /// and the statements an earlier run broke that hold one), by file and
  /// offset of the token a line break could move: whether they cannot
  /// allocate (Harmless.h).
  std::map<std::string, std::map<unsigned, bool>> CallsNearSites;
};

} // namespace hmplace

#endif
