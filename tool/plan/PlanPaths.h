//===- PlanPaths.h - how a generated plan names source files ----*- C++ -*-===//
///
/// \file
/// A plan that `hmplan advise` (or a listing) writes must apply in another
/// checkout and from any build directory: an out-of-source build names its
/// sources by absolute paths (CMake passes them so), and a plan holding those
/// places nothing in a copy of the tree. So generated plans use relative
/// paths, which the front ends' path rule (matchPath, docs/plan-format.md "How
/// plan paths match source files") resolves against the plan's directory and
/// otherwise matches as a suffix of whole components:
///
///  - a file under the plan's directory: relative to it (`src/a.c` for a
///    plan at the top of the tree);
///  - the others: relative to the deepest directory holding all of them
///    (`src/a.c`, `lib/io.c`), so that two files of one name in different
///    directories stay apart, and the name never holds a directory they
///    all share: that is often the tree's own, which a clone under another
///    name does not keep (all in one directory: `a.c`, unless a file under
///    the plan's directory is an `a.c` too: then `src/a.c`);
///  - a file that shares nothing but `/` with the rest: its last two
///    components.
///
//===----------------------------------------------------------------------===//
#ifndef HMPLACE_PLAN_PLANPATHS_H
#define HMPLACE_PLAN_PLANPATHS_H

#include "llvm/ADT/StringRef.h"

#include <string>
#include <vector>

namespace hmplace {

class PlanPathNamer {
public:
  PlanPathNamer() = default;
  /// \p Files: every source file the plan names (absolute, normalised).
  PlanPathNamer(llvm::StringRef PlanDir, const std::vector<std::string> &Files);
  /// How the plan names \p File (one of the files given).
  std::string name(llvm::StringRef File) const;

private:
  std::string PlanDir; ///< without a trailing slash; "" for `/`
  std::string Root;    ///< the others' common directory; "" for none
};

} // namespace hmplace

#endif
