//===- MissIR.cpp - profile mode: sample the accesses for cache misses ----===//
//
// The accesses are collected first and instrumented after, so that the
// checks' own instructions are never looked at. A module is instrumented
// once: the module flag "hmplace-misses" marks it (an LTO link that loads
// the plugin again sees it).
//
//===----------------------------------------------------------------------===//
#include "MissIR.h"

#include "reuse.h"

#include "llvm/Analysis/LoopInfo.h"
#include "llvm/Analysis/ScalarEvolution.h"
#include "llvm/Analysis/ScalarEvolutionExpressions.h"
#include "llvm/Analysis/ValueTracking.h"
#include "llvm/IR/IRBuilder.h"
#include "llvm/IR/InstIterator.h"
#include "llvm/IR/Instructions.h"
#include "llvm/IR/IntrinsicInst.h"
#include "llvm/IR/MDBuilder.h"
#include "llvm/IR/Module.h"
#include "llvm/Transforms/Utils/BasicBlockUtils.h"
#include "llvm/Transforms/Utils/ModuleUtils.h"

#include <cstdlib>
#include <map>

using namespace llvm;

namespace hmplace {

bool missSamplingRequested() {
  const char *V = std::getenv("HMPLACE_MISSES");
  return !V || StringRef(V) != "0";
}

/// One unit in 2^rate is sampled: HMPLACE_MISS_RATE (0 to 16; 0 samples
/// every access, for checking the sampling), else reuse.h's HM_RATE_SHIFT.
static unsigned sampleRate(LLVMContext &Ctx) {
  const char *V = std::getenv("HMPLACE_MISS_RATE");
  unsigned R = HM_RATE_SHIFT;
  if (V && (StringRef(V).getAsInteger(10, R) || R > 16)) {
    Ctx.emitError("HmPlace: HMPLACE_MISS_RATE='" + Twine(V) +
                  "': expected 0 to 16 (one unit in 2^N sampled)");
    R = HM_RATE_SHIFT;
  }
  return R;
}

namespace {

/// A stack slot up to this size stays in the cache: its accesses are not
/// sampled (a larger one, a buffer on the stack, is).
constexpr uint64_t SmallStackSlot = 4096;

/// One access to sample: a load or store of \p Ptr, or, with \p Len, every
/// line of [Ptr, Ptr + Len).
struct Access {
  Instruction *Before;
  Value *Ptr;
  bool Write;
  Value *Len = nullptr;
  /// The accesses its check stands for (itself and those coalesce() left
  /// unchecked); 0: left unchecked.
  unsigned Stands = 1;
};

/// The most accesses one check stands for (the flags' bits 1..8).
constexpr unsigned MostStood = 255;

/// Whether \p Ptr is a small slot of the function's own stack.
bool smallStackSlot(Value *Ptr, const DataLayout &DL) {
  auto *A = dyn_cast<AllocaInst>(getUnderlyingObject(Ptr));
  if (!A)
    return false;
  std::optional<TypeSize> Size = A->getAllocationSize(DL);
  return Size && !Size->isScalable() && Size->getFixedValue() <= SmallStackSlot;
}

/// The pointers \p I accesses, into \p Out.
void accessesOf(Instruction &I, std::vector<Access> &Out) {
  if (auto *L = dyn_cast<LoadInst>(&I))
    Out.push_back({&I, L->getPointerOperand(), false});
  else if (auto *S = dyn_cast<StoreInst>(&I))
    Out.push_back({&I, S->getPointerOperand(), true});
  else if (auto *X = dyn_cast<AtomicRMWInst>(&I))
    Out.push_back({&I, X->getPointerOperand(), true});
  else if (auto *X = dyn_cast<AtomicCmpXchgInst>(&I))
    Out.push_back({&I, X->getPointerOperand(), true});
  else if (auto *MI = dyn_cast<MemIntrinsic>(&I)) {
    // MemProf turns each into a call of its runtime, which the support
    // library's wrappers of memcpy & co. (for code not instrumented, as
    // flang's runtime) do not see: sampled here.
    if (auto *MT = dyn_cast<MemTransferInst>(MI))
      Out.push_back({&I, MT->getSource(), false, MT->getLength()});
    Out.push_back({&I, MI->getDest(), true, MI->getLength()});
  } else if (auto *II = dyn_cast<IntrinsicInst>(&I)) {
    switch (II->getIntrinsicID()) {
    case Intrinsic::masked_load:
    case Intrinsic::masked_gather:
      Out.push_back({&I, II->getArgOperand(0), false});
      break;
    case Intrinsic::masked_store:
    case Intrinsic::masked_scatter:
      Out.push_back({&I, II->getArgOperand(1), true});
      break;
    default:
      break;
    }
  }
}

/// Let \p Stand's check stand for \p I's (left unchecked).
void standFor(std::vector<Access> &Todo, size_t Stand, size_t I) {
  if (Stand == I || Todo[Stand].Stands + Todo[I].Stands > MostStood)
    return; // checked itself
  Todo[Stand].Stands += Todo[I].Stands;
  Todo[I].Stands = 0;
}

/// How a cluster's base pointer moves in the loop around it: +1 forward or
/// -1 backward by at most a line an iteration (a sweep, whose next
/// iterations' accesses touch every line this one's do), else 0.
int sweepOf(Value *Base, const Loop *L, ScalarEvolution &SE) {
  if (!L || !SE.isSCEVable(Base->getType()))
    return 0;
  auto *AR = dyn_cast<SCEVAddRecExpr>(SE.getSCEV(Base));
  if (!AR || AR->getLoop() != L)
    return 0;
  auto *Step = dyn_cast<SCEVConstant>(AR->getStepRecurrence(SE));
  if (!Step)
    return 0;
  int64_t By = Step->getAPInt().getSExtValue();
  return By > 0 && By <= 64 ? 1 : By < 0 && By >= -64 ? -1 : 0;
}

/// Accesses of one block through one base pointer at constant offsets
/// less than a line apart (sorted by offset in \p C) touch at most two
/// lines, those of the lowest and the highest offset (a stencil's a[i-1],
/// a[i], a[i+1]; a struct's fields; an unrolled loop's vectors): only those
/// two are checked, the lowest standing for the others, which the runtime
/// counts as near hits. One is enough where both are at one offset, and
/// where the base sweeps (\p Sweep): the lines of the other end are the
/// next (or last) iterations' lowest (highest).
void cluster(std::vector<Access> &Todo, ArrayRef<std::pair<int64_t, size_t>> C,
             int Sweep) {
  size_t Lo = C.front().second, Hi = C.back().second;
  size_t Stand = Sweep < 0 ? Hi : Lo;
  bool One = Sweep != 0 || C.front().first == C.back().first;
  for (size_t K = 0; K < C.size(); ++K)
    if (One || (C[K].second != Lo && C[K].second != Hi))
      standFor(Todo, Stand, C[K].second);
}

/// Fewer checks for the same lines, in one block's accesses (from \p From
/// on): clusters (above), and accesses at an address the innermost loop
/// does not change (a field of a struct the loop reads its arrays through,
/// a scalar it sums into), which touch one line every iteration that stays
/// in the cache while the loop runs: another check of the block stands for
/// them (or, where it has none, the first of them is checked).
void coalesce(std::vector<Access> &Todo, size_t From, const DataLayout &DL,
              const Loop *L, ScalarEvolution &SE) {
  std::map<Value *, std::vector<std::pair<int64_t, size_t>>> ByBase;
  std::vector<size_t> Invariant;
  for (size_t I = From; I < Todo.size(); ++I) {
    Access &A = Todo[I];
    if (A.Len || A.Ptr->getType()->isVectorTy())
      continue;
    if (L && L->isLoopInvariant(A.Ptr)) {
      Invariant.push_back(I);
      continue;
    }
    int64_t Off = 0;
    Value *Base = GetPointerBaseWithConstantOffset(A.Ptr, Off, DL);
    ByBase[Base].push_back({Off, I});
  }
  for (auto &[Base, Offs] : ByBase) {
    llvm::stable_sort(
        Offs, [](const auto &X, const auto &Y) { return X.first < Y.first; });
    int Sweep = sweepOf(Base, L, SE);
    for (size_t Lo = 0, Hi; Lo < Offs.size(); Lo = Hi + 1) {
      for (Hi = Lo;
           Hi + 1 < Offs.size() && Offs[Hi + 1].first - Offs[Lo].first < 64;)
        ++Hi;
      cluster(Todo, ArrayRef(Offs).slice(Lo, Hi - Lo + 1), Sweep);
    }
  }
  size_t Stand = Todo.size();
  for (size_t I = From; I < Todo.size() && Stand == Todo.size(); ++I)
    if (Todo[I].Stands && !is_contained(Invariant, I))
      Stand = I;
  for (size_t I : Invariant)
    standFor(Todo, Stand == Todo.size() ? (Stand = I) : Stand, I);
}

class Sampler {
public:
  Sampler(Module &M, unsigned Rate) : M(M), DL(M.getDataLayout()), Rate(Rate) {
    LLVMContext &Ctx = M.getContext();
    I64 = Type::getInt64Ty(Ctx);
    One = M.getOrInsertFunction("__hmplace_miss_v1", Type::getVoidTy(Ctx), I64,
                                I64);
    if (auto *F = dyn_cast<Function>(One.getCallee()))
      F->setCallingConv(CallingConv::PreserveMost);
    Range = M.getOrInsertFunction("__hmplace_miss_range_v1",
                                  Type::getVoidTy(Ctx), I64, I64, I64);
    Unlikely = MDBuilder(Ctx).createUnlikelyBranchWeights();
  }

  /// Sample every access of \p F (its loops in \p LI, their induction
  /// in \p SE); how many were instrumented.
  unsigned run(Function &F, const LoopInfo &LI, ScalarEvolution &SE) {
    std::vector<Access> Todo;
    for (BasicBlock &BB : F) {
      size_t From = Todo.size();
      for (Instruction &I : BB)
        accessesOf(I, Todo);
      coalesce(Todo, From, DL, LI.getLoopFor(&BB), SE);
    }
    unsigned N = 0;
    for (const Access &A : Todo)
      N += A.Stands && instrument(A);
    return N;
  }

private:
  bool instrument(const Access &A) {
    Type *PT = A.Ptr->getType();
    if (PT->getScalarType()->getPointerAddressSpace() != 0)
      return false;
    if (A.Len) {
      if (smallStackSlot(A.Ptr, DL))
        return false;
      IRBuilder<> B(A.Before);
      B.CreateCall(Range,
                   {B.CreatePtrToInt(A.Ptr, I64),
                    B.CreateZExtOrTrunc(A.Len, I64), B.getInt64(A.Write)});
      return true;
    }
    if (auto *VT = dyn_cast<FixedVectorType>(PT)) { // a gather or scatter
      IRBuilder<> B(A.Before);
      std::vector<Value *> Lanes;
      for (unsigned L = 0; L < VT->getNumElements(); ++L)
        Lanes.push_back(B.CreateExtractElement(A.Ptr, L));
      for (Value *Lane : Lanes) // each check splits the block
        check(A.Before, Lane, A.Write);
      return true;
    }
    if (PT->isVectorTy() || smallStackSlot(A.Ptr, DL))
      return false;
    check(A.Before, A.Ptr, A.Write | uint64_t(A.Stands - 1) << 1);
    return true;
  }

  /// Before \p Before: hash \p Ptr's unit as reuse.h does (the low 32 bits
  /// of address >> 7, times a constant) and call the sampler when it is
  /// under the threshold, with \p Flags: bit 0 a write, bits 1..8 the
  /// other accesses the check stands for.
  void check(Instruction *Before, Value *Ptr, uint64_t Flags) {
    IRBuilder<> B(Before);
    Value *Addr = B.CreatePtrToInt(Ptr, I64, "hm.addr");
    Type *I32 = B.getInt32Ty();
    Value *H =
        B.CreateMul(B.CreateTrunc(B.CreateLShr(Addr, HM_UNIT_SHIFT), I32),
                    B.getInt32(HM_REUSE_K));
    Instruction *Then = Before;
    if (Rate) {
      Value *In =
          B.CreateICmpULT(H, B.getInt32(uint32_t(1) << (32 - Rate)), "hm.in");
      Then = SplitBlockAndInsertIfThen(In, Before, false, Unlikely);
    }
    IRBuilder<> TB(Then);
    TB.SetCurrentDebugLocation(Before->getDebugLoc());
    CallInst *C = TB.CreateCall(One, {Addr, TB.getInt64(Flags)});
    C->setCallingConv(CallingConv::PreserveMost);
  }

  Module &M;
  const DataLayout &DL;
  Type *I64;
  FunctionCallee One, Range;
  MDNode *Unlikely;
  unsigned Rate;
};

} // namespace

PreservedAnalyses MissSamplePass::run(Module &M, ModuleAnalysisManager &MAM) {
  if (M.getModuleFlag("hmplace-misses"))
    return PreservedAnalyses::all();
  // MemProf's own counters must not be sampled: this runs before it.
  if (M.getNamedValue("__memprof_shadow_memory_dynamic_address")) {
    M.getContext().emitError(
        "HmPlace: the module already has MemProf's instrumentation; the miss "
        "sampling must run before it (HmPlace.so at OptimizerLast)");
    return PreservedAnalyses::all();
  }
  FunctionAnalysisManager &FAM =
      MAM.getResult<FunctionAnalysisManagerModuleProxy>(M).getManager();
  unsigned Rate = sampleRate(M.getContext());
  Sampler S(M, Rate);
  for (Function &F : M)
    if (!F.isDeclaration() &&
        !F.hasFnAttribute(Attribute::DisableSanitizerInstrumentation) &&
        !F.hasFnAttribute(Attribute::Naked)) {
      // The loops as they are before the checks split the blocks.
      S.run(F, FAM.getResult<LoopAnalysis>(F),
            FAM.getResult<ScalarEvolutionAnalysis>(F));
      FAM.invalidate(F, PreservedAnalyses::none());
    }
  M.addModuleFlag(Module::Max, "hmplace-misses", 1);
  // What the support library and hmplan look for to know the program's
  // accesses are sampled, and at which rate (one definition however many
  // modules: hmcc builds them all alike).
  auto *Marker = new GlobalVariable(
      M, Type::getInt8Ty(M.getContext()), /*isConstant=*/true,
      GlobalValue::LinkOnceODRLinkage,
      ConstantInt::get(Type::getInt8Ty(M.getContext()), Rate),
      "__hmplace_misses_sampled");
  Marker->setVisibility(GlobalValue::DefaultVisibility);
  appendToUsed(M, {Marker});
  return PreservedAnalyses::none();
}

} // namespace hmplace
