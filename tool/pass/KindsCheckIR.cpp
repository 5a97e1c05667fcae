//===- KindsCheckIR.cpp - the kinds table's start-up check ----------------===//
#include "KindsCheckIR.h"
#include "plan/Kinds.h"

#include "llvm/IR/IRBuilder.h"
#include "llvm/Transforms/Utils/ModuleUtils.h"

using namespace llvm;

namespace hmplace {

void addKindsCheck(Module &M) {
  if (M.getFunction("hmplace.check_kinds"))
    return;
  LLVMContext &Ctx = M.getContext();
  Type *Ptr = PointerType::getUnqual(Ctx);
  Function *Check =
      Function::Create(FunctionType::get(Type::getVoidTy(Ctx), false),
                       GlobalValue::InternalLinkage, "hmplace.check_kinds", M);
  IRBuilder<> B(BasicBlock::Create(Ctx, "", Check));
  FunctionCallee Fn = M.getOrInsertFunction(
      "hmplace_kinds_check",
      FunctionType::get(B.getVoidTy(), {Ptr, Ptr}, false));
  StringRef Where = M.getSourceFileName();
  B.CreateCall(Fn, {B.CreateGlobalString(kindsAbiTable(), "hmplace.kinds"),
                    B.CreateGlobalString(Where.empty() ? M.getName() : Where,
                                         "hmplace.module")});
  B.CreateRetVoid();
  appendToGlobalCtors(M, Check, 65535);
}

} // namespace hmplace
