//===- PreprocessedCopy.h - positions of a preprocessed copy ----*- C++ -*-===//
///
/// \file
/// Some builds compile a preprocessed copy of a source instead of the source:
/// CMake's Ninja generator runs `flang -E` into `main.f90-pp.f90` and
/// compiles that. Its line directives (`#line "main.f90" 8`) keep the
/// source's lines in debug info, but not its columns, and not every line:
/// flang writes every statement at column 7 with its own spacing, wraps a
/// statement longer than 72 columns into lines of its own choosing (a
/// statement of two source lines may take three) and writes a directive
/// only after it, so a line it adds is counted as the line after the
/// statement too. Plan entries name the source's lines and columns, so a
/// front end reads each position back onto the source statement by
/// statement (FortranText): the copy's statement and the source's have the
/// same characters other than blanks, in the same order (compared without
/// case).
///
//===----------------------------------------------------------------------===//
#ifndef HMPLACE_PLAN_PREPROCESSEDCOPY_H
#define HMPLACE_PLAN_PREPROCESSEDCOPY_H

#include "plan/FortranText.h"

#include "llvm/ADT/StringRef.h"

#include <map>
#include <optional>
#include <set>
#include <string>
#include <utility>
#include <vector>

namespace hmplace {

/// A line and a column (1-based) of a source.
struct SourcePoint {
  unsigned Line = 0, Column = 0;
  bool operator==(const SourcePoint &O) const {
    return Line == O.Line && Column == O.Column;
  }
};

/// A Fortran source's text and its statements (FortranText), read once.
class FortranSource {
public:
  FortranSource(std::string Text, bool Fixed);
  const FortranText &text() const { return *Statements; }

private:
  std::string Text;
  std::vector<llvm::StringRef> Lines;
  std::optional<FortranText> Statements;
};

/// A preprocessed copy's text, which source line each of its lines is
/// counted as by its line directives (`#line "f" N`, `#line N "f"`,
/// `#line N`, `# N "f"`; files named as the directives spell them), and
/// its statements.
class PreprocessedCopy {
public:
  explicit PreprocessedCopy(std::string Text);
  /// Whether the copy has line directives at all (a plain source has none).
  bool hasDirectives() const { return !Keys.empty(); }

  /// Where the character debug info puts at line \p Line, column \p Col of
  /// \p File (lines as the copy's directives count them, columns the
  /// copy's) stands in \p Source: the same character of the source's
  /// statement that begins on the line the copy's statement begins on.
  /// Where two lines of the copy are counted as \p Line (an added line and
  /// the statement after it), the one whose text there begins with
  /// \p Prefer is taken (the pass: `allocate`, where an ALLOCATE's calls
  /// stand), then the one whose character there begins a word, then the
  /// one that begins a statement. None, with the reason in \p Why, where
  /// no line so counted reads that way.
  std::optional<SourcePoint> pointInSource(llvm::StringRef File, unsigned Line,
                                           unsigned Col,
                                           const FortranSource &Source,
                                           llvm::StringRef Prefer,
                                           std::string &Why) const;

private:
  /// The file name of the directives \p File is, or "" (debug info may
  /// name it relative to another directory: then the one file of the
  /// directives with its name).
  std::string keyFile(llvm::StringRef File) const;

  std::string Text;
  std::vector<llvm::StringRef> Lines; // the copy's lines but directives
  /// (file as the directives write it, the line it is counted as), per line
  std::vector<std::pair<std::string, unsigned>> Keys;
  std::multimap<std::pair<std::string, unsigned>, size_t> ByKey;
  std::set<std::string> Files; ///< the files the directives name
  std::optional<FortranText> Statements;
};

} // namespace hmplace

#endif
