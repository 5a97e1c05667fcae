//===- FortranIR.h - which Fortran variable an ALLOCATE call fills -*- C++
//-*-===//
///
/// \file
/// One ALLOCATE statement naming several arrays is several allocation calls
/// at one source position; `object:` entries (plan/Plan.h) tell them apart
/// by the variable whose descriptor receives the memory, read from debug
/// info.
///
//===----------------------------------------------------------------------===//
#ifndef HMPLACE_PASS_FORTRANIR_H
#define HMPLACE_PASS_FORTRANIR_H

#include "llvm/IR/InstrTypes.h"

#include <string>

namespace hmplace {

/// The variable (lower case) whose descriptor the allocation call \p CB
/// fills: for malloc, where its result is stored (through flang's
/// descriptor temporaries); for a runtime ALLOCATE entry (\p Runtime), its
/// descriptor argument. Empty if the chain leads nowhere with a name.
std::string allocatedObject(const llvm::CallBase &CB, bool Runtime);

/// Whether the malloc \p CB is one of flang's compiler temporaries (the
/// buffer of an array expression, `a = a(n:1:-1) + a`): its result goes
/// straight to a free in the same procedure, never into a variable's
/// descriptor. Placing "every site" places these too; the listing says so.
bool isCompilerTemporary(const llvm::CallBase &CB);

} // namespace hmplace

#endif
