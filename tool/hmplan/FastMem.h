//===- FastMem.h - plan entries from Fortran FASTMEM directives -*- C++ -*-===//
///
/// \file
/// `hmplan scan`: codes tuned for KNL and Xeon Max mark their bandwidth-bound
/// allocatables with `!DIR$ ATTRIBUTES FASTMEM :: a, b` (Intel Fortran),
/// which flang ignores. The scanner reads the sources and writes a plan entry
/// for each ALLOCATE of a variable or component a directive names, in the
/// scope where the directive applies, so that HmPlace.so places them.
///
//===----------------------------------------------------------------------===//
#ifndef HMPLACE_HMPLAN_FASTMEM_H
#define HMPLACE_HMPLAN_FASTMEM_H

#include "plan/Diag.h"

#include "llvm/ADT/StringRef.h"

#include <string>
#include <vector>

namespace hmplace {

struct ScanResult {
  std::string PlanText; ///< YAML plan, version 1
  unsigned Entries = 0;
  unsigned Directives = 0; ///< FASTMEM directives read
};

/// Scan \p Files (free form, or fixed form by extension: .f .for .f77 ...)
/// for FASTMEM directives and the ALLOCATEs they name, into a plan whose
/// site paths are relative to \p PlanDir (absolute, normalized) where the
/// file lies under it. The
/// entries go to \p Kind. Problems are reported on \p D at their source
/// line; returns false if a file could not be read.
bool scanFastMem(const std::vector<std::string> &Files, llvm::StringRef PlanDir,
                 llvm::StringRef Kind, DiagEngine &D, ScanResult &Out);

} // namespace hmplace

#endif
