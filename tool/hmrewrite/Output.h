//===- Output.h - show, write or export hmrewrite's edits -------*- C++ -*-===//
#ifndef HMPLACE_HMREWRITE_OUTPUT_H
#define HMPLACE_HMREWRITE_OUTPUT_H

#include "Rewrite.h"

#include "llvm/Support/raw_ostream.h"

#include <map>
#include <set>
#include <string>

namespace hmplace {

/// Unified diff of every edited file (a/ and b/ prefixes on the paths as
/// given, relative to the current directory when below it).
bool printDiff(const RewriteSession &S, llvm::raw_ostream &OS, DiagEngine &D);
/// Rewrite files in place; each through a temporary file and a rename, so a
/// failure leaves the original intact. A read-only file is left as it is
/// (an error) unless \p Force; a file of several hard links is written
/// under the name given, which then has a link of its own (a warning says
/// so). Files in \p Skip are left as they are; those not written go to
/// \p NotWritten with why.
bool writeInPlace(const RewriteSession &S, DiagEngine &D,
                  const std::set<std::string> &Skip = {},
                  std::map<std::string, std::string> *NotWritten = nullptr,
                  bool Force = false);
/// clang-tidy style Diagnostics YAML, one file per edited source, for
/// clang-apply-replacements.
bool exportFixes(const RewriteSession &S, llvm::StringRef Dir, DiagEngine &D,
                 const std::set<std::string> &Skip = {});
/// A plan skeleton with every allocation site, targeting \p Kind. With
/// \p Depth > 1 also, for each site, the chains of its callers in the
/// processed files (by function name) up to \p Depth frames, as `stack:`
/// entries, so that objects reached through wrappers can be planned. Paths
/// are named for a plan in \p PlanDir (tool/plan/PlanPaths.h).
void printSiteList(const RewriteSession &S, llvm::StringRef Kind,
                   unsigned Depth, llvm::StringRef PlanDir,
                   llvm::raw_ostream &OS);

} // namespace hmplace

#endif
