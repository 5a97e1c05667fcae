//===- ContextIR.h - shadow-stack pushes and context sites on IR *- C++ -*-===//
///
/// \file
/// The IR half of context-sensitive placement (plan/Context.h): noting a call
/// site on the runtime's per-thread shadow stack, and the descriptors of
/// context sites.
///
//===----------------------------------------------------------------------===//
#ifndef HMPLACE_PASS_CONTEXTIR_H
#define HMPLACE_PASS_CONTEXTIR_H

#include "plan/Context.h"

#include "llvm/IR/IRBuilder.h"
#include "llvm/IR/InstrTypes.h"
#include "llvm/IR/Module.h"

#include <map>
#include <string>

namespace hmplace {

/// Surround \p CB with a push of \p Id on the shadow stack and a restore of
/// the depth after it, on the normal path and, where an exception can leave
/// the call, on the unwind path too. Returns the instruction that makes the
/// call afterwards (\p CB, or the invoke that replaced it), or null (and
/// changes nothing) for calls that cannot be surrounded (musttail).
llvm::CallBase *noteCall(llvm::CallBase *CB, uint64_t Id);

/// The function an OpenMP fork call (`__kmpc_fork_call`, `__kmpc_fork_teams`)
/// runs in every thread of the region, if \p CB is one and it is defined
/// here; null otherwise.
llvm::Function *forkedRegion(llvm::CallBase *CB);

/// Note \p Id for the whole body of \p F: pushed on entry, the depth
/// restored before every return. A parallel region's outlined function runs
/// once in each thread of the region, so the frame covers the region in
/// every thread (noting the fork call would cover the forking thread only).
void noteBody(llvm::Function &F, uint64_t Id);

/// What a context site computes its kind with (SiteDescriptors::kindFor).
struct ContextKind {
  llvm::Value *Kind = nullptr;
  /// What records the choice for the per-entry report: the store of the
  /// tagged descriptor, or the runtime call (then also Kind).
  llvm::Instruction *Record = nullptr;
  llvm::GlobalVariable *Desc = nullptr;
};

/// Context-site descriptors of one module: one private string constant per
/// distinct descriptor, and a constructor that registers them all at start-up
/// so that the runtime report names entries whose allocations never ran.
class SiteDescriptors {
public:
  explicit SiteDescriptors(llvm::Module &M) : M(M) {}
  /// The kind to allocate in, computed before \p Before: inline from the
  /// shadow stack for sites with few entries (compares with constants, and
  /// one thread-local store of the choice for the per-entry report, which
  /// the placed entry point counts), else `hmplace_ctx_kind(desc)`.
  /// \p Table is the site's table text (contextTableText), which the
  /// runtime parses; \p Choices and \p Fallback are what it says.
  ContextKind kindFor(const std::string &Table,
                      const std::vector<ContextChoice> &Choices, int Fallback,
                      llvm::Instruction *Before);
  /// Replace what \p K computes with the decision \p Choice (an index
  /// into the site's choices, -1 for none) taken at compile time: the
  /// constant \p Kind, and the same record for the report.
  static void decide(const ContextKind &K, int Choice, int Kind);
  /// Emit the registration constructor (once, after all sites).
  void finish();

private:
  llvm::GlobalVariable *descriptor(const std::string &Desc);
  /// hmplace_ctx_chosen's site: the descriptor's address with the choice
  /// in its low bits (hmplace.h).
  static llvm::StoreInst *storeChoice(llvm::IRBuilder<> &B,
                                      llvm::Value *Tagged);
  llvm::Module &M;
  std::map<std::string, llvm::GlobalVariable *> Strings;
};

} // namespace hmplace

#endif
