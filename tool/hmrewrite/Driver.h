//===- Driver.h - one hmrewrite run: parse, rewrite, write ------*- C++ -*-===//
///
/// \file
/// What `hmrewrite` does with its options, as a library function: the
/// executable (hmrewrite.cpp) only parses the command line into
/// RewriteOptions. Tests and other tools call runRewrite() directly.
///
//===----------------------------------------------------------------------===//
#ifndef HMPLACE_HMREWRITE_DRIVER_H
#define HMPLACE_HMREWRITE_DRIVER_H

#include "plan/Diag.h"

#include "clang/Tooling/CompilationDatabase.h"

#include <string>
#include <vector>

namespace hmplace {

/// The options of one run (hmrewrite's command line, hmrewrite(1)).
struct RewriteOptions {
  std::string PlanPath;    ///< --plan (empty: only with ListSites)
  bool InPlace = false;    ///< -i
  bool Force = false;      ///< --force: -i rewrites read-only files too
  std::string ExportFixes; ///< --export-fixes directory
  bool ListSites = false;  ///< --list-sites
  std::string ListOutput;  ///< -o (with --list-sites)
  std::string ListKind = "posix";
  unsigned ListDepth = 1;
  bool Strict = false;
  bool Remarks = false;
  std::string HeaderFilter;
  bool NoVerify = false;
  bool DispatchFrees = false;
  bool Verbose = false;
  /// Where hmplace.h is, for parsing rewritten sources again.
  std::string RuntimeInclude;
};

/// Rewrite (or list) \p Sources, each parsed with its command from \p DB;
/// diagnostics go to \p D, a diff (or the listing) to standard output.
/// Returns the process's exit status: 0 when everything asked was done.
int runRewrite(const RewriteOptions &O, clang::tooling::CompilationDatabase &DB,
               const std::vector<std::string> &Sources, DiagEngine &D);

/// Where hmplace.h is for an hmrewrite at \p Exe: beside an installed one
/// (PREFIX/bin -> PREFIX/include, wherever the prefix was moved), else
/// \p Fallback (the source tree the build came from).
std::string runtimeIncludeDir(const std::string &Exe,
                              const std::string &Fallback);

} // namespace hmplace

#endif
