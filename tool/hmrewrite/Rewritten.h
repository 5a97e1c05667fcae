//===- Rewritten.h - what an earlier run added to a file --------*- C++ -*-===//
///
/// \file
/// Plan keys name calls by their line and column in the original source. A
/// rewritten file keeps its lines, but an edit moves what follows it on its
/// line: `a = malloc(8), b = malloc(16);` becomes `a = hmplace_malloc(
/// HMPLACE_HBW, 8), b = ...`, and the second call's column is no longer
/// the one the plan names. So a rerun takes out what an earlier run added
/// before a position on its line: the placed calls' `hmplace_` prefix and
/// kind argument, a caller wrapper's opening and closing, a new-expression's
/// placement, a region note. (An hbw_* call sent back to the heap is not
/// seen: its original name is not in the text.)
///
//===----------------------------------------------------------------------===//
#ifndef HMPLACE_HMREWRITE_REWRITTEN_H
#define HMPLACE_HMREWRITE_REWRITTEN_H

#include "clang/Basic/LangOptions.h"
#include "llvm/ADT/StringRef.h"

#include <utility>
#include <vector>

namespace hmplace {

/// Spans [begin, end) of \p Buf that an earlier run added, sorted and
/// disjoint; empty for a file no run changed.
std::vector<std::pair<unsigned, unsigned>>
addedSpans(llvm::StringRef Buf, const clang::LangOptions &LO);

/// Bytes of \p Spans inside [\p From, \p To).
unsigned addedBetween(const std::vector<std::pair<unsigned, unsigned>> &Spans,
                      unsigned From, unsigned To);

} // namespace hmplace

#endif
