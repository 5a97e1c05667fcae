//===- KindsCheckIR.h - the kinds table's start-up check *- C++ -*---------===//
///
/// \file
/// A placed module passes kinds to the runtime as indices into hmplace.h's
/// kinds table: it checks at start-up that the runtime has that table (or the
/// table with kinds appended), as every file that includes hmplace.h does.
///
//===----------------------------------------------------------------------===//
#ifndef HMPLACE_PASS_KINDSCHECKIR_H
#define HMPLACE_PASS_KINDSCHECKIR_H

#include "llvm/IR/Module.h"

namespace hmplace {

/// Add to \p M a constructor that calls the runtime's
/// hmplace_kinds_check(table, where) with the table this pass places by and
/// the module's source file.
void addKindsCheck(llvm::Module &M);

} // namespace hmplace

#endif
