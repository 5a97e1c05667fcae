//===- PreprocessedCopy.h - columns of a preprocessed copy ------*- C++ -*-===//
///
/// \file
/// Some builds compile a preprocessed copy of a source instead of the source:
/// CMake's Ninja generator runs `flang -E` into `main.f90-pp.f90` and
/// compiles that. Its line directives (`#line "main.f90" 8`) keep the
/// source's lines in debug info, but not its columns: flang writes every
/// statement at column 7 and its tokens with its own spacing. Plan entries
/// name the source's columns, so a front end reads the copy's columns back
/// onto the source line the copy says it came from: the characters other
/// than blanks are the same, in the same order (compared without case).
///
//===----------------------------------------------------------------------===//
#ifndef HMPLACE_PLAN_PREPROCESSEDCOPY_H
#define HMPLACE_PLAN_PREPROCESSEDCOPY_H

#include "llvm/ADT/StringRef.h"

#include <map>
#include <optional>
#include <string>
#include <utility>

namespace hmplace {

/// The column in \p To of the character at column \p Col (1-based) of
/// \p From, two spellings of one line that differ only in blanks: the
/// character with as many non-blank characters before it. None where they
/// differ before it (a continuation joined, a comment dropped, a macro
/// expanded) or \p Col is past the last one.
std::optional<unsigned> alignColumn(llvm::StringRef From, unsigned Col,
                                    llvm::StringRef To);

/// A preprocessed copy's text, and which of its lines each source line
/// became, by its line directives (`#line "f" N`, `#line N "f"`, `#line N`,
/// `# N "f"`). Files are named as the directives spell them.
class PreprocessedCopy {
public:
  explicit PreprocessedCopy(std::string Text);
  /// Whether the copy has line directives at all (a plain source has none).
  bool hasDirectives() const { return !Lines.empty(); }
  /// The copy's line that line \p Line of \p File (spelled as in the
  /// directives, as debug info then names it) became.
  std::optional<llvm::StringRef> lineFor(llvm::StringRef File,
                                         unsigned Line) const;

private:
  std::string Text;
  /// (file name as written, source line) -> [begin, end) of the copy's line
  std::map<std::pair<std::string, unsigned>, std::pair<size_t, size_t>> Lines;
};

} // namespace hmplace

#endif
