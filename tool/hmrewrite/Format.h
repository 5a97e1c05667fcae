//===- Format.h - rewritten lines in the tree's format ----------*- C++ -*-===//
///
/// \file
/// A rewritten line is longer than the line it was. Where it now exceeds the
/// tree's clang-format column limit, `git clang-format` over the rewrite
/// would break it, and every line below would move: plan keys, profiles,
/// debug info and a rerun's keys all name lines. So the statement is broken
/// here as clang-format breaks it, and `#line N` after it gives the lines
/// below their old numbers. That is only done where no call a plan names by
/// its place moves: the first line keeps its text and columns, and the
/// lines clang-format adds hold only operands, hmrewrite's own text and the
/// call a wrapper on the first line notes (named by the wrapper's frame; a
/// rerun keys it by the wrapper's line). Where that cannot be had (the line
/// is not as clang-format writes it, or a break would move a call), the
/// line is left whole and reported.
///
/// A rerun edits such a statement as a whole (its lines up to the `#line`):
/// joined again when it fits, broken again when it does not.
///
/// A call the rewrite placed (`hmplace_realloc_to(HMPLACE_HBW, ...)`) may
/// move to a later line: nothing but a rerun keys it by its place, and a
/// rerun finds it where the statement joined again puts it
/// (joinedStatements), the place the plan names. So may a call the parse
/// found cannot allocate (`data_.size()`): nothing names it.
///
//===----------------------------------------------------------------------===//
#ifndef HMPLACE_HMREWRITE_FORMAT_H
#define HMPLACE_HMREWRITE_FORMAT_H

#include "clang/Format/Format.h"
#include "clang/Tooling/Core/Replacement.h"
#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/StringRef.h"

#include <set>
#include <string>
#include <utility>
#include <vector>

namespace hmplace {

/// A rewritten line left over the column limit, by its line as the compiler
/// numbers it.
struct LineLeft {
  unsigned Line = 0, Width = 0;
  std::string Why;
};

struct Formatted {
  clang::tooling::Replacements Reps; ///< on the rewritten text
  std::vector<LineLeft> Left;
  unsigned Broken = 0; ///< statements broken over lines
  unsigned Joined = 0; ///< statements an earlier run broke, joined again
};

/// The style `git clang-format` uses for \p File: the nearest .clang-format
/// above it, else LLVM's.
clang::format::FormatStyle treeStyle(llvm::StringRef File);

/// Brings the rewritten lines of \p Text (the file \p FileName after the
/// rewrite) into \p Style. \p Changed: the [begin, end) offsets in \p Text
/// of the text the rewrite wrote. A statement that depends on nothing
/// around it but its depth is formatted alone (clang-format over its whole
/// block, once per statement, is too slow for a site-dense file);
/// \p AloneAllowed false formats every one in its block (the unit tests
/// check that both agree). \p Harmless: offsets in \p Text of calls the
/// parse found cannot allocate (Harmless.h), which a break may move.
Formatted
formatRewrittenLines(llvm::StringRef FileName, llvm::StringRef Text,
                     llvm::ArrayRef<std::pair<unsigned, unsigned>> Changed,
                     const clang::format::FormatStyle &Style,
                     bool AloneAllowed = true,
                     const std::set<unsigned> &Harmless = {});

/// A statement an earlier run broke at the column limit (its `#line` after
/// it), over more than one line, as a rerun joins it again.
struct JoinedStatement {
  unsigned Begin = 0, End = 0; ///< its lines in the text, [Begin, End)
  std::string OneLine;         ///< from the first line's start
  /// The offset in OneLine of \p Offset, in [Begin, End] of \p Text: an
  /// offset in a line break and its indentation goes to the space joining
  /// puts there.
  unsigned joinedOffset(llvm::StringRef Text, unsigned Offset) const;
};

/// The statements of \p Text an earlier run broke over lines, in order: the
/// offsets [begin, end) of their lines.
std::vector<std::pair<unsigned, unsigned>>
brokenStatementSpans(llvm::StringRef Text);

/// The statements of \p Text an earlier run broke over lines, in order,
/// each on one line as clang-format (\p Style) joins it; none where that
/// is more than a change of spacing.
std::vector<JoinedStatement>
joinedStatements(llvm::StringRef FileName, llvm::StringRef Text,
                 const clang::format::FormatStyle &Style);

} // namespace hmplace

#endif
