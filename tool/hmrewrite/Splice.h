//===- Splice.h - a text with the session's edits applied -------*- C++ -*-===//
///
/// \file
/// The session's replacements are sorted and do not overlap (the
/// Replacements set guarantees it), so one pass splices them in. (Not
/// tooling::applyAllReplacements: that builds a SourceManager and a Rewriter
/// per call, which dominated hmrewrite's own time on site-dense files.)
///
//===----------------------------------------------------------------------===//
#ifndef HMPLACE_HMREWRITE_SPLICE_H
#define HMPLACE_HMREWRITE_SPLICE_H

#include "clang/Tooling/Core/Replacement.h"
#include "llvm/ADT/StringRef.h"

#include <string>
#include <utility>
#include <vector>

namespace hmplace {

/// \p Text with the replacements [\p B, \p E) applied; their offsets are
/// relative to \p Base. With \p Written, also where each replacement's text
/// is in the result: [begin, end).
inline std::string
splice(llvm::StringRef Text, clang::tooling::Replacements::const_iterator B,
       clang::tooling::Replacements::const_iterator E, size_t Base = 0,
       std::vector<std::pair<unsigned, unsigned>> *Written = nullptr) {
  std::string Out;
  Out.reserve(Text.size() + 64);
  size_t Pos = 0;
  for (auto It = B; It != E; ++It) {
    size_t Off = It->getOffset() - Base;
    Out.append(Text.data() + Pos, Off - Pos);
    if (Written)
      Written->emplace_back(
          unsigned(Out.size()),
          unsigned(Out.size() + It->getReplacementText().size()));
    Out += It->getReplacementText();
    Pos = Off + It->getLength();
  }
  Out.append(Text.data() + Pos, Text.size() - Pos);
  return Out;
}

/// Whether \p Reps fit \p Text (it has not changed since it was parsed).
inline bool fits(llvm::StringRef Text,
                 const clang::tooling::Replacements &Reps) {
  return Reps.empty() ||
         Reps.rbegin()->getOffset() + Reps.rbegin()->getLength() <= Text.size();
}

} // namespace hmplace

#endif
