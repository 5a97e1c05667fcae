//===- CallerCopies.h - a function copied per deciding caller -*- C++ -*-===//
///
/// \file
/// A context site (plan/Context.h) checks the shadow stack at run time. Where
/// its function is defined in the module and called directly from a noted
/// call whose own frame decides the site (its entry has that one caller
/// frame), the call gets a copy of the function in which the site's kind is
/// a constant, as LLVM's MemProf context disambiguation clones functions per
/// allocation context. The call then pushes nothing unless another entry
/// needs its frame: a wrapper in the module costs what a site entry costs.
///
//===----------------------------------------------------------------------===//
#ifndef HMPLACE_PASS_CALLERCOPIES_H
#define HMPLACE_PASS_CALLERCOPIES_H

#include "ContextIR.h"

#include "plan/Plan.h"

#include "llvm/ADT/ArrayRef.h"
#include "llvm/IR/Function.h"
#include "llvm/IR/InstrTypes.h"

#include <map>
#include <vector>

namespace hmplace {

/// A context site as SiteDescriptors::kindFor made it, with its decision.
struct PlacedContextSite {
  ContextKind K;
  const Placement *P;
};

/// A call that notes itself: its frame id and the entries that name it
/// (SiteMatcher::isNoted's \p Through).
struct NotedCall {
  llvm::CallBase *CB;
  uint64_t Id;
  std::vector<const PlanEntry *> Through;
};

/// A noted call given a copy of its callee.
struct CopiedCall {
  llvm::Function *Copy = nullptr;
  /// Whether an entry the copy does not decide names the call's frame, so
  /// that the call must still note itself.
  bool StillNoted = false;
};

/// Give every call in \p Noted that decides a site of \p Sites in its
/// callee (Placement::choiceWithTop) a copy of the callee with the sites it
/// decides made constant (one copy per distinct set of decisions). Only
/// functions the call's target cannot be replaced for at link time are
/// copied (not interposable: static, inline, ODR, or a non-PIC program's),
/// only small ones (wrappers), and each at most 64 times. Container sites,
/// whose first noted frame is not their function's caller, are left as they
/// are.
std::map<llvm::CallBase *, CopiedCall>
copyForCallers(llvm::ArrayRef<PlacedContextSite> Sites,
               llvm::ArrayRef<NotedCall> Noted);

} // namespace hmplace

#endif
