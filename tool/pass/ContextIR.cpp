//===- ContextIR.cpp - shadow-stack pushes and context sites on IR --------===//
//
// A noted call becomes, inline (no call into the runtime on this path):
//
//   %tls = llvm.threadlocal.address(@hmplace_ctx_tls)   ; initial-exec TLS
//   %d   = load i32 %tls                                ; depth
//   store i64 ID, %tls + 8 + 8 * min(%d, CAP)           ; CAP absorbs overflow
//   store i32 %d + 1, %tls
//   <the call>
//   store i32 %d, llvm.threadlocal.address(@hmplace_ctx_tls)
//
// The restore writes the saved depth rather than decrementing, so a deeper
// frame that was left without its restore (longjmp, an exception through C
// code) is repaired by the next restore further out. Where an exception can
// leave the call, the unwind path restores too: an invoke's landing pad is
// split so that only this call's unwind edge passes the restore, and a call
// that may throw in a function with an Itanium personality becomes an invoke
// with a cleanup pad that restores and resumes. Layout: hmplace.h's struct
// hmplace_ctx_stack.
//
//===----------------------------------------------------------------------===//
#include "ContextIR.h"

#include "hmplace_frame.h" // the runtime's shadow-stack capacity

#include "llvm/IR/DebugInfoMetadata.h"
#include "llvm/IR/IRBuilder.h"
#include "llvm/IR/Instructions.h"
#include "llvm/Transforms/Utils/BasicBlockUtils.h"
#include "llvm/Transforms/Utils/Local.h"
#include "llvm/Transforms/Utils/ModuleUtils.h"

using namespace llvm;

namespace hmplace {

static constexpr unsigned CtxCap = HMPLACE_CTX_CAP;

static Value *stackAddress(IRBuilder<> &B) {
  Module &M = *B.GetInsertBlock()->getModule();
  GlobalVariable *G = M.getGlobalVariable("hmplace_ctx_tls");
  if (!G) {
    G = new GlobalVariable(M, ArrayType::get(B.getInt64Ty(), 1 + CtxCap + 1),
                           false, GlobalValue::ExternalLinkage, nullptr,
                           "hmplace_ctx_tls", nullptr,
                           GlobalValue::InitialExecTLSModel);
    G->setAlignment(Align(8));
  }
  return B.CreateThreadLocalAddress(G);
}

/// Push \p Id on the shadow stack where \p B inserts; returns the depth
/// to restore.
static Value *pushFrame(IRBuilder<> &B, uint64_t Id) {
  Value *T = stackAddress(B);
  Value *D = B.CreateLoad(B.getInt32Ty(), T, "hm.depth");
  Value *I = B.CreateSelect(B.CreateICmpULT(D, B.getInt32(CtxCap)), D,
                            B.getInt32(CtxCap));
  Value *Off = B.CreateAdd(B.CreateShl(B.CreateZExt(I, B.getInt64Ty()), 3),
                           B.getInt64(8));
  B.CreateStore(B.getInt64(Id), B.CreateGEP(B.getInt8Ty(), T, Off));
  B.CreateStore(B.CreateAdd(D, B.getInt32(1)), T);
  return D;
}

static void restoreAt(BasicBlock::iterator At, Value *Depth) {
  IRBuilder<> B(At->getParent(), At);
  B.SetCurrentDebugLocation(At->getDebugLoc());
  B.CreateStore(Depth, stackAddress(B));
}

/// The Itanium personality this function or module already uses, if any.
static Constant *cxxPersonality(Function &F) {
  if (F.hasPersonalityFn())
    return F.getPersonalityFn();
  for (Function &G : *F.getParent())
    if (G.hasPersonalityFn() &&
        G.getPersonalityFn()->getName() == "__gxx_personality_v0")
      return G.getPersonalityFn();
  return nullptr;
}

CallBase *noteCall(CallBase *CB, uint64_t Id) {
  if (auto *CI = dyn_cast<CallInst>(CB))
    if (CI->isMustTailCall())
      return nullptr;
  Function &F = *CB->getFunction();
  IRBuilder<> B(CB);
  B.SetCurrentDebugLocation(CB->getDebugLoc());
  Value *D = pushFrame(B, Id);

  // A call that may throw where the function (or module) has a C++
  // personality: give it a cleanup pad of its own.
  if (auto *CI = dyn_cast<CallInst>(CB)) {
    Constant *Pers = CI->doesNotThrow() ? nullptr : cxxPersonality(F);
    if (!Pers) {
      restoreAt(std::next(CB->getIterator()), D);
      return CB;
    }
    if (!F.hasPersonalityFn())
      F.setPersonalityFn(Pers);
    LLVMContext &Ctx = F.getContext();
    BasicBlock *Pad = BasicBlock::Create(Ctx, "hm.unwind", &F);
    IRBuilder<> PB(Pad);
    PB.SetCurrentDebugLocation(CB->getDebugLoc());
    LandingPadInst *LP =
        PB.CreateLandingPad(StructType::get(PB.getPtrTy(), PB.getInt32Ty()), 0);
    LP->setCleanup(true);
    PB.CreateStore(D, stackAddress(PB));
    PB.CreateResume(LP);
    changeToInvokeAndSplitBasicBlock(CI, Pad);
    CB = cast<InvokeInst>(Pad->getSinglePredecessor()->getTerminator());
  }
  auto *II = cast<InvokeInst>(CB);
  BasicBlock *From = II->getParent();
  // Normal path: a block of its own if the destination has other entries.
  BasicBlock *Normal = II->getNormalDest();
  if (!Normal->getSinglePredecessor())
    Normal = SplitEdge(From, Normal);
  restoreAt(Normal->getFirstInsertionPt(), D);
  // Unwind path: the landing pad may be shared with other invokes.
  BasicBlock *Unwind = II->getUnwindDest();
  if (!Unwind->getSinglePredecessor()) {
    SmallVector<BasicBlock *, 2> NewBBs;
    SplitLandingPadPredecessors(Unwind, {From}, ".hm", ".hm.rest", NewBBs);
    Unwind = II->getUnwindDest();
  }
  restoreAt(Unwind->getFirstInsertionPt(), D);
  return II;
}

Function *forkedRegion(CallBase *CB) {
  Function *Callee = CB->getCalledFunction();
  if (!Callee || CB->arg_size() < 3 ||
      (Callee->getName() != "__kmpc_fork_call" &&
       Callee->getName() != "__kmpc_fork_teams"))
    return nullptr;
  auto *Micro = dyn_cast<Function>(CB->getArgOperand(2)->stripPointerCasts());
  return Micro && !Micro->isDeclaration() ? Micro : nullptr;
}

void noteBody(Function &F, uint64_t Id) {
  BasicBlock &Entry = F.getEntryBlock();
  IRBuilder<> B(&Entry, Entry.getFirstInsertionPt());
  if (DISubprogram *SP = F.getSubprogram())
    B.SetCurrentDebugLocation(
        DILocation::get(F.getContext(), SP->getLine(), 0, SP));
  Value *D = pushFrame(B, Id);
  for (BasicBlock &BB : F)
    if (auto *R = dyn_cast<ReturnInst>(BB.getTerminator()))
      restoreAt(R->getIterator(), D);
}

GlobalVariable *SiteDescriptors::descriptor(const std::string &Desc) {
  GlobalVariable *&G = Strings[Desc];
  if (!G) {
    Constant *Init = ConstantDataArray::getString(M.getContext(), Desc);
    G = new GlobalVariable(M, Init->getType(), true,
                           GlobalValue::PrivateLinkage, Init, "hmplace.site");
    // The runtime hashes the address; the low four bits are free for the
    // entry an inline site chose (storeChoice).
    G->setAlignment(Align(16));
  }
  return G;
}

/// What an inline site records for the report: the descriptor's address
/// with 1 + the entry chosen (0 for none) in its low four bits (hmplace.h).
static Value *tagged(IRBuilder<> &B, GlobalVariable *Desc, Value *Choice) {
  return B.CreateOr(B.CreatePtrToInt(Desc, B.getInt64Ty()), Choice);
}

/// Sites with more entries than this ask the runtime (a loop there beats a
/// long chain of selects here).
static constexpr size_t MaxInlineChoices = 8;

// The inline form is the runtime's choose() (context.c) unrolled for this
// site's constants: entry i matches if depth >= its frame count, depth <=
// CAP, and each frame equals the id below the top (ignoring the column when
// the plan gives none). The first match wins; a select chain picks its kind.
ContextKind SiteDescriptors::kindFor(const std::string &Table,
                                     const std::vector<ContextChoice> &Choices,
                                     int Fallback, Instruction *Before) {
  GlobalVariable *G = descriptor(Table);
  IRBuilder<> B(Before);
  B.SetCurrentDebugLocation(Before->getDebugLoc());
  Type *I32 = B.getInt32Ty(), *I64 = B.getInt64Ty();
  if (Choices.size() > MaxInlineChoices) {
    FunctionCallee Fn = M.getOrInsertFunction(
        "hmplace_ctx_kind", FunctionType::get(I32, {B.getPtrTy()}, false));
    CallInst *Call = B.CreateCall(Fn, {G}, "hm.kind");
    return {Call, Call, G};
  }
  static_assert((CtxCap & (CtxCap - 1)) == 0, "a mask keeps ids in range");
  Value *Kind = B.getInt32(Fallback), *Choice = B.getInt64(0);
  Value *T = stackAddress(B);
  Value *D = B.CreateLoad(I32, T, "hm.depth");
  Value *Known = B.CreateICmpULE(D, B.getInt32(CtxCap));
  // ids[depth - 1 - f], with the index kept inside the array whatever the
  // depth by a mask (the result is then ignored by the depth test: where it
  // passes, the index is below CAP and the mask leaves it as it is); loaded
  // once each.
  SmallVector<Value *, 4> Ids;
  auto IdBelowTop = [&](unsigned F) {
    if (F < Ids.size())
      return Ids[F];
    Value *Idx =
        B.CreateAnd(B.CreateSub(D, B.getInt32(F + 1)), B.getInt32(CtxCap - 1));
    Value *Off =
        B.CreateAdd(B.CreateShl(B.CreateZExt(Idx, I64), 3), B.getInt64(8));
    Ids.push_back(B.CreateAlignedLoad(I64, B.CreateGEP(B.getInt8Ty(), T, Off),
                                      Align(8), "hm.frame"));
    return Ids.back();
  };
  for (size_t I = Choices.size(); I-- > 0;) {
    const ContextChoice &C = Choices[I];
    Value *OK =
        B.CreateAnd(Known, B.CreateICmpUGE(D, B.getInt32(C.Callers.size())));
    for (unsigned F = 0; F < C.Callers.size(); ++F) {
      uint64_t Want = C.Callers[F];
      Value *Have = IdBelowTop(F);
      Value *Eq = (Want & 0xFFF) ? B.CreateICmpEQ(Have, B.getInt64(Want))
                                 : B.CreateICmpEQ(B.CreateLShr(Have, 12),
                                                  B.getInt64(Want >> 12));
      OK = B.CreateAnd(OK, Eq);
    }
    Kind = B.CreateSelect(OK, B.getInt32(C.Kind), Kind);
    Choice = B.CreateSelect(OK, B.getInt64(I + 1), Choice);
  }
  // For the per-entry report: the site and the entry chosen (1 + its
  // index, 0 for none, in the descriptor's low bits), counted by the placed
  // entry point that follows (one store, no branch: a branch per site made
  // -O2 compiles measurably slower).
  static_assert(MaxInlineChoices < 16, "the choice fits the low bits");
  return {Kind, storeChoice(B, tagged(B, G, Choice)), G};
}

/// hmplace.h's thread-local struct hmplace_ctx_chosen.
static GlobalVariable *chosenVariable(Module &M) {
  GlobalVariable *Chosen = M.getGlobalVariable("hmplace_ctx_chosen");
  if (!Chosen) {
    LLVMContext &Ctx = M.getContext();
    Chosen = new GlobalVariable(
        M, StructType::get(PointerType::getUnqual(Ctx), Type::getInt32Ty(Ctx)),
        false, GlobalValue::ExternalLinkage, nullptr, "hmplace_ctx_chosen",
        nullptr, GlobalValue::InitialExecTLSModel);
    Chosen->setAlignment(Align(8));
  }
  return Chosen;
}

void SiteDescriptors::decide(const ContextKind &K, int Choice, int Kind) {
  IRBuilder<> B(K.Record);
  B.SetCurrentDebugLocation(K.Record->getDebugLoc());
  if (auto *Store = dyn_cast<StoreInst>(K.Record)) {
    Value *Was = Store->getValueOperand();
    Store->setOperand(0, tagged(B, K.Desc, B.getInt64(Choice + 1)));
    RecursivelyDeleteTriviallyDeadInstructions(Was);
  } else {
    // In place of hmplace_ctx_kind, its record (any number of entries):
    // the site as given and 2 + the entry.
    Module &M = *B.GetInsertBlock()->getModule();
    Value *Chosen = B.CreateThreadLocalAddress(chosenVariable(M));
    B.CreateAlignedStore(K.Desc, Chosen, Align(8));
    B.CreateAlignedStore(B.getInt32(Choice + 2),
                         B.CreateConstGEP1_64(B.getInt8Ty(), Chosen, 8),
                         Align(8));
  }
  K.Kind->replaceAllUsesWith(B.getInt32(Kind));
  if (K.Record != K.Kind)
    RecursivelyDeleteTriviallyDeadInstructions(K.Kind);
  else
    K.Record->eraseFromParent();
}

StoreInst *SiteDescriptors::storeChoice(IRBuilder<> &B, Value *Tagged) {
  Module &M = *B.GetInsertBlock()->getModule();
  return B.CreateAlignedStore(
      Tagged, B.CreateThreadLocalAddress(chosenVariable(M)), Align(8));
}

void SiteDescriptors::finish() {
  if (Strings.empty())
    return;
  LLVMContext &Ctx = M.getContext();
  Type *Ptr = PointerType::getUnqual(Ctx);
  std::vector<Constant *> All;
  for (auto &[Desc, G] : Strings)
    All.push_back(G);
  ArrayType *AT = ArrayType::get(Ptr, All.size());
  auto *List = new GlobalVariable(M, AT, true, GlobalValue::PrivateLinkage,
                                  ConstantArray::get(AT, All), "hmplace.sites");
  Function *Reg = Function::Create(
      FunctionType::get(Type::getVoidTy(Ctx), false),
      GlobalValue::InternalLinkage, "hmplace.register_sites", M);
  IRBuilder<> B(BasicBlock::Create(Ctx, "", Reg));
  FunctionCallee Fn = M.getOrInsertFunction(
      "hmplace_ctx_register",
      FunctionType::get(B.getVoidTy(), {Ptr, B.getInt64Ty()}, false));
  B.CreateCall(Fn, {List, B.getInt64(All.size())});
  B.CreateRetVoid();
  appendToGlobalCtors(M, Reg, 65535);
}

} // namespace hmplace
