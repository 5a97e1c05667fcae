//===- SiteKey.h - allocation site keys and their matching ------*- C++ -*-===//
///
/// \file
/// A site key names where an allocation happens: the call's own frame
/// (`file:line` or `file:line:col`, the column being where the call expression
/// begins) optionally followed by its callers, innermost first, as advisors
/// report call stacks. This is the single place where keys are computed,
/// printed and compared: hmrewrite builds a CallContext from clang
/// SourceLocations, HmPlace.so from DILocations and their inlined-at chains,
/// and both then ask the same matcher.
///
//===----------------------------------------------------------------------===//
#ifndef HMPLACE_PLAN_SITEKEY_H
#define HMPLACE_PLAN_SITEKEY_H

#include "llvm/ADT/SmallVector.h"
#include "llvm/ADT/StringMap.h"
#include "llvm/ADT/StringRef.h"

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace hmplace {

/// One frame of a plan key as written in a plan.
struct Frame {
  enum class Form {
    Source,     ///< file:line or file:line:col
    Binary,     ///< module!hexoffset or module+hexoffset (unsymbolized)
    Unresolved, ///< Unresolved:0, _NOT_Found:0, any file:0
    /// file:0 (function): the allocation call(s) of a function that the
    /// optimizer merged (two identical calls in an if/else at -O2), whose
    /// debug location is line 0 in that function.
    Merged,
    /// (function): the allocation calls of a function built without debug
    /// info, which names no file or line of it.
    NoDebug,
  };
  Form Kind = Form::Source;
  std::string File; ///< Source: the path as written; Binary: the module.
  unsigned Line = 0;
  unsigned Column = 0; ///< 0 means "any column on the line".
  uint64_t Offset = 0; ///< Binary frames only.
  char BinarySep = '!';
  /// Merged and NoDebug frames: the function, as functionName() prints it.
  std::string Function;
  /// The call's token where the plan was made (SourceTokens.h:
  /// `malloc#1a2b3c4d`, a plan's `tokens:`), or empty: a front end that
  /// reads the source takes the frame for a call there only if the call's
  /// token is still this one (a reformat or an edit moved another call to
  /// the key). Not part of the frame's identity (operator==).
  std::string Token;

  /// The frame as it is written in plans (`solver.c:88:17`, `app!0x4f2a`).
  std::string str() const;
  bool operator==(const Frame &O) const {
    return Kind == O.Kind && File == O.File && Line == O.Line &&
           Column == O.Column && Offset == O.Offset && Function == O.Function;
  }
  /// Whether the frame names a source file (a position in it, or a merged
  /// call of one of its functions).
  bool namesFile() const {
    return Kind == Form::Source || Kind == Form::Merged;
  }
};

/// Parse one frame. On failure returns std::nullopt and sets \p Err.
std::optional<Frame> parseFrame(llvm::StringRef Text, std::string &Err);

/// A concrete place in the program being compiled, as a front end sees it.
struct SourcePos {
  std::string File; ///< absolute, with `.` and `..` removed
  unsigned Line = 0;
  unsigned Column = 0;
  /// A call the optimizer merged (line 0): the function it is in, as
  /// functionName() prints it; File is that function's file. A call in a
  /// function without debug info: the function, File empty, Line 0.
  std::string Function;
  /// The call's token (SourceTokens.h's tokenText) where the front end
  /// read it from the call's own text (hmrewrite), or empty: then a plan's
  /// token is checked against the source at the position, if the matcher
  /// reads sources (SiteMatcher::checkTokensIn).
  std::string Token;
  /// `file:line:col` (a merged call: `file:0 (function)`; a call without
  /// debug info: `(function)`), as diagnostics and remarks print a site.
  std::string str() const;
};

/// A call named by its function, as plans write it: `file:0 (function)` (a
/// call the optimizer merged), `(function)` where \p File is empty (a call
/// without debug info).
std::string functionFrameText(llvm::StringRef File, llvm::StringRef Function);

/// How plans name a function (the `function` of `file:0 (function)`):
/// qualified, without its parameter list (`std::vector<double>::vector`,
/// `Field<double>::Field`), from its linkage name, else \p Short (C,
/// Fortran).
std::string functionName(llvm::StringRef Linkage, llvm::StringRef Short);

/// What a front end knows about one allocation call: the call itself and the
/// statically known callers (inlined-at chain, wrapper contexts), innermost
/// first, plus the directory its compile command ran in.
struct CallContext {
  llvm::SmallVector<SourcePos, 2> Frames;
  std::string CompileDir;
  /// The call is the C++ standard library allocator's operator new (where
  /// every container buffer is allocated): it is matched against container
  /// entries only (Context.h).
  bool StdAllocator = false;
  /// A Fortran ALLOCATE's call: the variable it allocates, when known
  /// (several calls of one statement share a position; `object:` entries
  /// tell them apart).
  std::string Object;
};

/// The key of a call as both front ends compute it: \p File as the compiler
/// names it (relative paths are relative to \p Dir, the compile command's
/// directory), the 1-based line, and the 1-based byte column where the call
/// expression begins. For a call written through a macro, the position is the
/// macro's use (clang's expansion location, which is also what debug
/// locations record).
SourcePos makeSourcePos(llvm::StringRef Dir, llvm::StringRef File,
                        unsigned Line, unsigned Column);

/// Normalise a path the way site keys compare them: made absolute against
/// \p BaseDir when relative, `.`/`..` removed, no symlink resolution (the
/// compiler's view of the path is what users see in diagnostics).
std::string normalizePath(llvm::StringRef Path, llvm::StringRef BaseDir);

/// normalizePath against one base directory, remembered per path: a front
/// end asks for the same few paths once per call it records.
class PathNormalizer {
public:
  explicit PathNormalizer(llvm::StringRef BaseDir) : Base(BaseDir.str()) {}
  const std::string &operator()(llvm::StringRef Path);

private:
  std::string Base;
  llvm::StringMap<std::string> Cache;
};

/// makeSourcePos through a PathNormalizer for the compile directory.
SourcePos makeSourcePos(PathNormalizer &N, llvm::StringRef File, unsigned Line,
                        unsigned Column);

/// How well a plan path names a source file; higher is more specific.
enum class PathMatch {
  None = 0,
  Suffix,   ///< bare basename or trailing components (`src/solver.c`)
  Relative, ///< relative to the plan file's or the compile directory
  Absolute, ///< absolute path, equal after normalisation
};

/// Decide whether plan path \p PlanPath names the source file \p File
/// (normalised, absolute). Rules, most specific first:
///  - an absolute plan path must equal the file;
///  - a relative one is resolved against \p PlanDir and then \p CompileDir;
///  - otherwise its components must be a suffix of the file's components
///    (a bare basename is the common case). With \p IgnoreCase the comparison
///    ignores case, as FlexMalloc does for `.locations` files.
PathMatch matchPath(llvm::StringRef PlanPath, llvm::StringRef File,
                    llvm::StringRef PlanDir, llvm::StringRef CompileDir,
                    bool IgnoreCase);

/// The trailing components \p PlanPath and \p File have in common
/// (`lib/b.c` for `proj/lib/b.c` and `/src/lib/b.c`): the path that would
/// name the file by the suffix rule; "" when even the file names differ.
std::string sharedTail(llvm::StringRef PlanPath, llvm::StringRef File,
                       bool IgnoreCase);

/// As matchPath, for a `files:` glob (`src/*.c`): `*`, `?` and `[...]` match
/// within one path component. An invalid glob matches nothing (the plan
/// reader rejects them).
PathMatch matchPathGlob(llvm::StringRef Glob, llvm::StringRef File,
                        llvm::StringRef PlanDir, llvm::StringRef CompileDir,
                        bool IgnoreCase);

/// Source files (absolute paths) that can say whether a plan path names any
/// of them: matchPath, tried only on the files with the plan path's file
/// name (plans can have 100k entries).
class FileSet {
public:
  explicit FileSet(bool IgnoreCase) : IgnoreCase(IgnoreCase) {}
  void add(std::string File);
  bool namedBy(llvm::StringRef PlanPath, llvm::StringRef PlanDir) const;
  /// The files with \p PlanPath's file name (whether it names them or not).
  std::vector<std::string> sameName(llvm::StringRef PlanPath) const;

private:
  std::string key(llvm::StringRef Path) const;
  bool IgnoreCase;
  std::multimap<std::string, std::string> ByName;
};

} // namespace hmplace

#endif
