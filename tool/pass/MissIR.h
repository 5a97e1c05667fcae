//===- MissIR.h - profile mode: sample the accesses for cache misses -*- C++
//-*-===//
///
/// \file
/// MemProf counts a program's accesses per allocation context, cached or
/// not. To tell the accesses that miss the last-level cache from those that
/// hit, the profiled build also samples them: before each load and store
/// (and each memset, memcpy, memmove) the address's 128-byte unit is hashed,
/// and where the hash is under a fixed threshold (about one unit in 128,
/// runtime/profile/reuse.h, whose hash this emits inline) the profile
/// support library's __hmplace_miss_v1 is called with the address; it keeps
/// the sampled lines' reuse distances per allocation context
/// (runtime/profile/misses.c). The check is a shift, a multiplication and
/// a rarely taken branch; the call sees one access in 128.
///
/// It runs at OptimizerLast, on the code as it will run (after inlining and
/// vectorisation), before MemProf's own instrumentation, which clang adds
/// after the plugin's passes (and ProfileIR.h after this one for flang): the
/// shadow counters MemProf adds are not sampled. Accesses to the function's
/// own stack slots are left out (they stay in the cache); globals are
/// sampled, as they take cache space like any other line.
///
//===----------------------------------------------------------------------===//
#ifndef HMPLACE_PASS_MISSIR_H
#define HMPLACE_PASS_MISSIR_H

#include "llvm/IR/PassManager.h"

namespace hmplace {

/// Whether the profiled build samples misses (HMPLACE_MISSES=0 turns it
/// off).
bool missSamplingRequested();

/// OptimizerLast: the check before each access.
struct MissSamplePass : llvm::PassInfoMixin<MissSamplePass> {
  llvm::PreservedAnalyses run(llvm::Module &M, llvm::ModuleAnalysisManager &);
  static bool isRequired() { return true; }
};

} // namespace hmplace

#endif
