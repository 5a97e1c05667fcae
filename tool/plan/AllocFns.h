//===- AllocFns.h - the C allocation functions HmPlace rewrites -*- C++ -*-===//
///
/// \file
/// One table of the C library allocation functions and the runtime calls
/// that replace them, used by hmrewrite (source) and HmPlace.so (IR) alike so
/// that both place and dispatch exactly the same calls.
///
//===----------------------------------------------------------------------===//
#ifndef HMPLACE_PLAN_ALLOCFNS_H
#define HMPLACE_PLAN_ALLOCFNS_H

#include "plan/Kinds.h"

#include "llvm/ADT/StringRef.h"

#include <string>

namespace hmplace {

struct AllocFn {
  const char *Name;   ///< C library name: malloc, calloc, ...
  const char *Placed; ///< runtime call for a planned site, kind first; or null
  const char *Dispatch; ///< runtime call for any other call; or null
  unsigned NumArgs;
  bool allocates() const { return Placed != nullptr; }
};

/// The entry for C library function \p Name, or nullptr.
const AllocFn *findAllocFn(llvm::StringRef Name);

/// The runtime's constant for a memkind kind: MEMKIND_HBW -> HMPLACE_HBW.
/// Empty for the ordinary heap.
std::string runtimeKindConstant(const KindInfo &K);
/// Index of the kind in the runtime's enum hmplace_kind (memkind.h order).
int runtimeKindIndex(const KindInfo &K);

} // namespace hmplace

#endif
