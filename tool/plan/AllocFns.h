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
  /// The argument(s) whose value (product) is the size, or -1: what a size
  /// window (PlanEntry::MinSize) is checked against.
  int SizeArg = -1, SizeArg2 = -1;
  /// For memkind's hbw_* functions: the C library call a plan entry that
  /// sends the site to the ordinary heap (`posix`) turns it into.
  const char *Heap = nullptr;
  bool allocates() const { return Placed != nullptr; }
};

/// The entry for C library function \p Name, or nullptr. memkind's
/// hbw_malloc, hbw_calloc, hbw_realloc and hbw_posix_memalign are here too:
/// libhmplace.so serves them (and hbw_free) itself, so their blocks may move.
const AllocFn *findAllocFn(llvm::StringRef Name);

/// The entry standing for a C++ new-expression (`new T`, or `new T[n]` when
/// \p Array): hmrewrite places it by adding the kind as a placement argument
/// (`new (HMPLACE_HBW) T`), which the runtime's operator new overloads take.
const AllocFn *newExprFn(bool Array);

/// The C function whose placed (\p TakesKind set) or dispatching runtime
/// replacement is named \p Name (hmplace_malloc, hmplace_realloc, ...), or
/// nullptr: how a front end recognises calls an earlier run rewrote.
const AllocFn *findReplacedAllocFn(llvm::StringRef Name, bool &TakesKind);

/// An allocation function as it appears in LLVM IR (C names, and C++
/// operator new in all its Itanium-mangled forms) and the runtime function a
/// planned call becomes: the same arguments with the kind (an i32) inserted
/// at \p KindArg.
struct IRAllocFn {
  const char *Name;   ///< IR name: malloc, _Znwm, _ZnwmSt11align_val_t, ...
  const char *Placed; ///< hmplace_malloc, _Znwm12hmplace_kind, ...
  unsigned KindArg;   ///< where the kind goes in the new argument list
  unsigned NumArgs;   ///< arguments of the original
  const char *Source; ///< what a person calls it: malloc, operator new[]
  /// A Fortran runtime entry point that allocates inside flang's runtime
  /// library (ALLOCATE with STAT=, SOURCE=, of POINTERs, ...; an
  /// intrinsic's result, an assignment's reallocation): not replaced
  /// (Placed is null) but bracketed by hmplace_scope_enter(kind) /
  /// hmplace_scope_exit(), see runtime/scope.c.
  bool Scoped = false;
  int SizeArg = -1, SizeArg2 = -1; ///< as AllocFn's, in the original call
  const char *Heap = nullptr;      ///< as AllocFn's
};

/// IRAllocFn::NumArgs of a family of functions that differ in their
/// arguments.
constexpr unsigned AnyArgs = ~0u;
inline bool takesArgs(const IRAllocFn &F, unsigned N) {
  return F.NumArgs == AnyArgs || F.NumArgs == N;
}

/// The IR allocation function named \p Name, or nullptr. free, realloc's
/// dispatching form and operator delete are not here: the pass leaves frees
/// to libhmplace.so's process-wide replacement (see HmPlacePass.cpp).
const IRAllocFn *findIRAllocFn(llvm::StringRef Name);

/// The runtime's constant for a memkind kind: MEMKIND_HBW -> HMPLACE_HBW.
/// Empty for the ordinary heap.
std::string runtimeKindConstant(const KindInfo &K);
/// Index of the kind in the runtime's enum hmplace_kind (memkind.h order).
int runtimeKindIndex(const KindInfo &K);

} // namespace hmplace

#endif
