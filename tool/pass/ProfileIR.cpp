//===- ProfileIR.cpp - HmPlace.so's profile mode: MemProf for flang -------===//
//
// The bracket goes around the runtime call as written (PipelineStart), with
// the call's own debug location: the return address of the call to
// hmplace_profile_enter then symbolizes to the ALLOCATE statement, which is
// the innermost frame the profile gives the array, and the key HmPlace.so
// places it by.
//
//===----------------------------------------------------------------------===//
#include "ProfileIR.h"
#include "SourceColumns.h"
#include "plan/AllocFns.h"

#include "llvm/Config/llvm-config.h"
#include "llvm/IR/IRBuilder.h"
#include "llvm/IR/InstIterator.h"
#include "llvm/IR/Instructions.h"
#include "llvm/IR/Intrinsics.h"
#include "llvm/IR/Module.h"
#if LLVM_VERSION_MAJOR >= 22
#include "llvm/Transforms/Instrumentation/MemProfInstrumentation.h"
#else
#include "llvm/Transforms/Instrumentation/MemProfiler.h"
#endif

#include <cstdlib>

using namespace llvm;

namespace hmplace {

bool profileModeRequested() {
  const char *V = std::getenv("HMPLACE_PROFILE");
  return V && *V && StringRef(V) != "0";
}

bool profileAddsMemProf() {
  const char *V = std::getenv("HMPLACE_PROFILE");
  return profileModeRequested() && StringRef(V) != "misses";
}

/// Bracket \p CB, a call into flang's runtime that allocates, so that the
/// array's malloc inside it is recorded with the calling frame.
static void bracket(CallBase &CB) {
  Module &M = *CB.getModule();
  IRBuilder<> B(&CB);
  B.SetCurrentDebugLocation(CB.getDebugLoc());
  FunctionCallee Enter = M.getOrInsertFunction("hmplace_profile_enter",
                                               B.getVoidTy(), B.getPtrTy());
  FunctionCallee Exit =
      M.getOrInsertFunction("hmplace_profile_exit", B.getVoidTy());
  Value *Frame = B.CreateIntrinsic(
      Intrinsic::frameaddress,
      {B.getPtrTy(M.getDataLayout().getAllocaAddrSpace())}, {B.getInt32(0)});
  B.CreateCall(Enter, {Frame});
  Instruction *After = CB.getNextNode();
  if (auto *II = dyn_cast<InvokeInst>(&CB))
    After = &*II->getNormalDest()->getFirstInsertionPt();
  B.SetInsertPoint(After);
  B.CreateCall(Exit);
}

PreservedAnalyses ProfilePrepPass::run(Module &M, ModuleAnalysisManager &) {
  // A Fortran module compiled from flang's preprocessed copy (CMake's Ninja
  // generator): the profile names the source's columns, not the copy's.
  moveLocationsToSource(M);
  std::vector<CallBase *> Runtime;
  for (Function &F : M) {
    if (F.isDeclaration())
      continue;
    F.addFnAttr("frame-pointer", "all");
    F.addFnAttr("disable-tail-calls", "true");
    for (Instruction &I : instructions(F))
      if (auto *CB = dyn_cast<CallBase>(&I))
        if (Function *Callee = CB->getCalledFunction())
          if (const IRAllocFn *A = findIRAllocFn(Callee->getName()))
            if (A->Scoped && takesArgs(*A, CB->arg_size()))
              Runtime.push_back(CB);
  }
  for (CallBase *CB : Runtime)
    bracket(*CB);
  return PreservedAnalyses::none();
}

PreservedAnalyses ProfileInstrumentPass::run(Module &M,
                                             ModuleAnalysisManager &MAM) {
  // clang -fmemory-profile instruments on its own: never twice.
  if (M.getNamedValue("__memprof_shadow_memory_dynamic_address"))
    return PreservedAnalyses::all();
  FunctionAnalysisManager &FAM =
      MAM.getResult<FunctionAnalysisManagerModuleProxy>(M).getManager();
  MemProfilerPass Functions;
  for (Function &F : M)
    if (!F.isDeclaration())
      FAM.invalidate(F, Functions.run(F, FAM));
  ModuleMemProfilerPass().run(M, MAM);
  return PreservedAnalyses::none();
}

} // namespace hmplace
