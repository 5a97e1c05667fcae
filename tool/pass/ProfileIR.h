//===- ProfileIR.h - profile mode: MemProf for flang ----------*- C++ -*-===//
///
/// \file
/// `hmplan advise` reads LLVM MemProf profiles, which clang makes with
/// -fmemory-profile and flang-new-19 cannot (it rejects the option). With
/// HMPLACE_PROFILE=1 (what `hmfort --profile` sets) HmPlace.so places
/// nothing and instead makes the profiled build clang would make:
///
///  - at PipelineStart, every function keeps its frame pointer and makes no
///    sibling calls (MemProf unwinds by frame pointers; a tail call leaves no
///    frame), and each call into flang's runtime that allocates an array
///    (ALLOCATE with STAT=, of module variables, derived types, POINTERs) is
///    bracketed by hmplace_profile_enter(frame)/hmplace_profile_exit(): the
///    runtime is built without frame pointers, and the profile support
///    library (runtime/profile/profile.c) uses the bracket to give the
///    array's malloc the ALLOCATE's own frame;
///  - at OptimizerLast, clang's MemProf instrumentation (LLVM's
///    MemProfilerPass and ModuleMemProfilerPass, where clang adds them),
///    unless the module already has it.
///
/// With HMPLACE_PROFILE=misses (what hmcc sets for clang, which adds
/// MemProf's instrumentation itself with -fmemory-profile) it only samples
/// the accesses for cache misses (MissIR.h), which both modes do at
/// OptimizerLast, before MemProf's instrumentation, unless HMPLACE_MISSES=0.
///
/// The link adds MemProf's runtime and the support library (hmcc.c).
///
//===----------------------------------------------------------------------===//
#ifndef HMPLACE_PASS_PROFILEIR_H
#define HMPLACE_PASS_PROFILEIR_H

#include "llvm/IR/PassManager.h"

namespace hmplace {

/// Whether HMPLACE_PROFILE asks for a profiled build.
bool profileModeRequested();
/// Whether it asks HmPlace.so to add MemProf's instrumentation too (any
/// value but "misses", where the compiler adds it).
bool profileAddsMemProf();

/// PipelineStart: frame pointers, no sibling calls, runtime ALLOCATEs
/// bracketed.
struct ProfilePrepPass : llvm::PassInfoMixin<ProfilePrepPass> {
  llvm::PreservedAnalyses run(llvm::Module &M, llvm::ModuleAnalysisManager &);
  static bool isRequired() { return true; }
};

/// OptimizerLast: MemProf's instrumentation, once.
struct ProfileInstrumentPass : llvm::PassInfoMixin<ProfileInstrumentPass> {
  llvm::PreservedAnalyses run(llvm::Module &M,
                              llvm::ModuleAnalysisManager &MAM);
  static bool isRequired() { return true; }
};

} // namespace hmplace

#endif
