//===- Verify.h - rewritten files must compile ------------------*- C++ -*-===//
///
/// \file
/// An edit that leaves a file that does not compile must not reach the
/// tree: a recursive make would go on to link an old library, a CI job
/// would fail far from the cause. Before files are written, every
/// translation unit that reads a changed file is parsed again with the new
/// text in place of the old, with the same compile command.
///
//===----------------------------------------------------------------------===//
#ifndef HMPLACE_HMREWRITE_VERIFY_H
#define HMPLACE_HMREWRITE_VERIFY_H

#include "Rewrite.h"

#include "clang/Tooling/Tooling.h"

#include <functional>
#include <map>
#include <memory>
#include <set>
#include <string>

namespace hmplace {

/// Makes the ClangTool that parses one file as the rewrite did.
using ToolMaker = std::function<std::unique_ptr<clang::tooling::ClangTool>(
    const std::string &)>;

/// The new text of every file the edits change (a file that cannot be read
/// is reported and left out).
std::map<std::string, std::string> newContents(const RewriteSession &S,
                                               DiagEngine &D);

/// Parse the TUs that read a file in \p New with the new texts. Reports each
/// TU that fails (its first errors, then which files are left as they were)
/// and returns the changed files those TUs read: they must not be written.
std::set<std::string>
verifyRewrite(const RewriteSession &S,
              const std::map<std::string, std::string> &New,
              const ToolMaker &Make, DiagEngine &D);

} // namespace hmplace

#endif
