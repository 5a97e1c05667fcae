//===- BuildRecord.h - what each compile matched ----------------*- C++ -*-===//
///
/// \file
/// A plan names sites all over a program; HmPlace.so sees one module at a
/// time, so only the whole build can tell which entries placed nothing. Each
/// compile writes a small record beside the plan (`<plan>.records/`): the
/// plan's content hash, the source files the module was built from and the
/// entries it matched. `hmplan summary plan.yaml` reads them all and reports,
/// once per entry, the ones that matched nothing anywhere, and why.
///
/// Records are written through a temporary file and a rename, so parallel
/// compiles (make -j) never see half a record; one file per module source,
/// so rebuilding a file replaces its record.
///
//===----------------------------------------------------------------------===//
#ifndef HMPLACE_PLAN_BUILDRECORD_H
#define HMPLACE_PLAN_BUILDRECORD_H

#include "plan/Diag.h"
#include "plan/Plan.h"

#include <cstdint>
#include <map>
#include <set>
#include <string>
#include <vector>

namespace hmplace {

struct BuildRecord {
  uint64_t PlanHash = 0;          ///< Plan::ContentHash
  std::string Module;             ///< the module's main source file
  std::vector<std::string> Files; ///< every source file it was built from
  std::set<unsigned> Matched;     ///< plan entry indices it applied
  /// Entries that matched a call of the module but placed nothing there
  /// (and nothing elsewhere in it), with why.
  std::map<unsigned, std::string> Missed;
  /// Entries that name the module's own source file but match none of its
  /// calls, with the compile's reason (a wrong column, a variable only full
  /// debug info names).
  std::map<unsigned, std::string> Unmatched;
};

/// The directory records of \p PlanPath go to.
std::string recordDir(llvm::StringRef PlanPath);
/// Write \p R for the plan at \p PlanPath. Returns an error message, or "".
std::string writeRecord(llvm::StringRef PlanPath, const BuildRecord &R);

/// Report, once per entry of \p P (read from \p PlanPath), those that
/// matched nothing in any recorded module of this plan: stale, or never
/// examined because no module was built from its file. Where the plan was
/// built in several trees (records of one file name at different paths),
/// only the records of one count: \p Tree (a directory in it) if given,
/// else the tree built last; a note says so. Returns the number of records
/// counted (0: nothing was built with the plan yet, also reported).
unsigned summarizeBuild(const Plan &P, llvm::StringRef PlanPath, DiagEngine &D,
                        llvm::raw_ostream &OS, llvm::StringRef Tree = "");

} // namespace hmplace

#endif
