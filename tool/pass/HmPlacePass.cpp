//===- HmPlacePass.cpp - apply a placement plan to LLVM IR ----------------===//
///
/// \file
/// HmPlace.so: `clang -fpass-plugin=HmPlace.so` (or flang-new) with
/// HMPLACE_PLAN=plan.yaml places the planned allocation calls of every module
/// without touching sources; `opt -load-pass-plugin=HmPlace.so
/// -passes=hm-place` runs it on IR.
///
/// Site keys come from each call's DILocation and its inlined-at chain
/// through the plan library (makeSourcePos, SiteMatcher): the same keys and
/// the same decisions as hmrewrite. A planned call to malloc & co. or to any
/// form of operator new becomes the runtime's placed entry point with the
/// kind (an i32, the runtime's enum hmplace_kind) inserted.
///
/// Where it runs: at the PipelineStart extension point. There the calls are
/// as the front end wrote them: by OptimizerLast InstCombine has turned
/// malloc+memset into calloc, removed dead new/delete pairs and inlined
/// helpers, so calls would no longer be the ones the plan (and hmrewrite)
/// name. isRequired() keeps it in -O0 pipelines and optnone functions.
///
/// Call-stack entries (the object depends on the caller of a wrapper,
/// macro, template or container) are applied with the runtime's shadow
/// stack, ContextIR.h: planned caller call sites note themselves, and the
/// allocation becomes a context site that checks the stack for its kind.
/// This runs before inlining, like everything else here, and needs no
/// knowledge of other modules: frame ids come from the plan alone. Where the
/// wrapper is in the module and its caller's frame decides, the caller gets
/// a copy of it with the kind a constant instead (CallerCopies.h).
///
/// Frees are left alone: a placed block may be freed in any module,
/// including ones built without the plugin and libraries, and only the
/// process-wide replacement of free/realloc/operator delete in libhmplace.so
/// (which programs built with the plugin link) covers those. Rewriting this
/// module's frees would add nothing, and keeping them as `free` keeps LLVM's
/// knowledge of them for the optimizations that follow.
///
//===----------------------------------------------------------------------===//
#include "CallerCopies.h"
#include "ContextIR.h"
#include "FortranIR.h"
#include "KindsCheckIR.h"
#include "MissIR.h"
#include "ProfileIR.h"
#include "SourceColumns.h"
#include "plan/AllocFns.h"
#include "plan/BuildRecord.h"
#include "plan/Decision.h"
#include "plan/LLVMCompat.h"
#include "plan/Plan.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Analysis/OptimizationRemarkEmitter.h"
#include "llvm/BinaryFormat/Dwarf.h"
#include "llvm/Config/llvm-config.h"
#include "llvm/IR/DebugInfoMetadata.h"
#include "llvm/IR/DiagnosticInfo.h"
#include "llvm/IR/DiagnosticPrinter.h"
#include "llvm/IR/InstIterator.h"
#include "llvm/IR/Instructions.h"
#include "llvm/IR/IntrinsicInst.h"
#include "llvm/IR/Module.h"
#include "llvm/IR/PassManager.h"
#include "llvm/Passes/PassBuilder.h"
#if LLVM_VERSION_MAJOR >= 22
#include "llvm/Plugins/PassPlugin.h"
#else
#include "llvm/Passes/PassPlugin.h"
#endif
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/ErrorHandling.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include "llvm/Transforms/Utils/BasicBlockUtils.h"

#include <cstdlib>
#include <map>
#include <mutex>
#include <set>

using namespace llvm;
using namespace hmplace;

#define DEBUG_TYPE "hm-place"

// Known to -mllvm only when the plugin is also loaded with -Xclang -load
// -Xclang HmPlace.so (clang parses -mllvm before -fpass-plugin loads it);
// HMPLACE_PLAN works with -fpass-plugin alone. The name must not start with
// 'h': LLVM's parser reads an unknown -hxxx as grouped single-letter options,
// finds -h, prints its help and exits 0 without compiling (measured with
// clang 19), so a missing -Xclang -load would silently skip the build.
static cl::opt<std::string>
    PlanOption("placement-plan",
               cl::desc("HmPlace placement plan (default: $HMPLACE_PLAN)"),
               cl::value_desc("file"));

namespace {

/// A plain message through the context's handler, so that clang prints it
/// as its own `error:`/`warning:` and fails the compile on errors (LLVM 19
/// has no DiagnosticInfoGeneric).
class HmPlaceDiag : public DiagnosticInfo {
public:
  HmPlaceDiag(const Twine &Msg, DiagnosticSeverity S)
      : DiagnosticInfo(kind(), S), Msg(Msg.str()) {}
  void print(DiagnosticPrinter &DP) const override { DP << Msg; }

private:
  static int kind() {
    static int K = getNextAvailablePluginDiagnosticKind();
    return K;
  }
  std::string Msg;
};

/// Whether \p M was compiled from Fortran (flang): by its compile units'
/// language, or, without debug info, by what flang names.
bool isFortranModule(const Module &M) {
  for (const DICompileUnit *CU : M.debug_compile_units())
    if (isFortranUnit(*CU))
      return true;
  // Without debug info: flang names the module after its MLIR module, and
  // mangles procedures _QP (external), _QM (module), _QQ (main program).
  if (M.getSourceFileName() == "FIRModule")
    return true;
  for (const Function &F : M)
    if (!F.isDeclaration() &&
        (F.getName().starts_with("_QP") || F.getName().starts_with("_QM") ||
         F.getName().starts_with("_QQ")))
      return true;
  StringRef Ext = sys::path::extension(M.getSourceFileName());
  return Ext.size() > 1 && (Ext[1] == 'f' || Ext[1] == 'F');
}

/// Report a diagnostic of the pass. flang 19 installs a diagnostic handler
/// that drops a plugin's diagnostics, errors included, and the compile then
/// succeeds; clang shows them and fails on errors, as flang 22 does (where
/// the lines below printed each warning twice). Under flang 19 the message
/// also goes to stderr, and an error ends the compile with exit status 1
/// (the output is removed), as clang's would.
void report(Module &M, const Twine &Msg, DiagnosticSeverity S) {
  M.getContext().diagnose(HmPlaceDiag(Msg, S));
  if (LLVM_VERSION_MAJOR >= 22 || !isFortranModule(M))
    return;
  if (S == DS_Error)
    report_fatal_error(Msg, /*gen_crash_diag=*/false);
  if (S == DS_Warning)
    errs() << "warning: " << Msg << "\n";
}

/// The plan file \p Path names: as given if absolute or found from the
/// current directory, else the first match in a parent directory. Under
/// recursive make each subdirectory's compiles run there, while
/// `HMPLACE_PLAN=plan.yaml` was written at the top, like .clang-format
/// lookup. Empty if there is none.
std::string resolvePlanPath(StringRef Path) {
  if (sys::path::is_absolute(Path) || sys::fs::exists(Path))
    return Path.str();
  SmallString<256> Dir;
  if (sys::fs::current_path(Dir))
    return "";
  for (StringRef D = Dir; !D.empty(); D = sys::path::parent_path(D)) {
    SmallString<256> Candidate(D);
    sys::path::append(Candidate, Path);
    if (sys::fs::exists(Candidate))
      return Candidate.str().str();
  }
  return "";
}

/// Plans are read once per process and shared by all modules it compiles.
struct LoadedPlan {
  std::unique_ptr<DiagEngine> D; ///< keeps the plan's locations printable
  std::unique_ptr<Plan> P;       ///< null if the plan could not be read
};

/// The plan's entries a module can use: those naming one of \p Bases.
const LoadedPlan &loadPlanOnce(const std::string &Path,
                               const std::set<std::string> &Bases) {
  static std::mutex Lock;
  static std::map<std::string, std::unique_ptr<LoadedPlan>> Cache;
  std::lock_guard<std::mutex> G(Lock);
  std::string Key = Path;
  for (const std::string &B : Bases)
    Key += '\0' + B;
  std::unique_ptr<LoadedPlan> &L = Cache[Key];
  if (!L) {
    L = std::make_unique<LoadedPlan>();
    L->D = std::make_unique<DiagEngine>(errs());
    // Null after reporting any error.
    L->P = loadPlanFor(Path, Bases, *L->D);
  }
  return *L;
}

/// Base names of the files the module's code is written in, through
/// inlining and #line too: every call the plan could name or note is in one.
std::set<std::string> moduleBasenames(const Module &M) {
  std::set<std::string> Out;
  for (const Function &Fn : M) {
    if (const DISubprogram *SP = Fn.getSubprogram())
      Out.insert(sys::path::filename(SP->getFilename()).str());
    for (const Instruction &I : instructions(Fn))
      if (isa<CallBase>(I))
        for (const DILocation *DL = I.getDebugLoc().get(); DL;
             DL = DL->getInlinedAt())
          Out.insert(sys::path::filename(DL->getFilename()).str());
  }
  // The module's own file, which a module without debug info names only
  // here (the plan's `(function)` entries are loaded for every module).
  Out.insert(sys::path::filename(M.getSourceFileName()).str());
  return Out;
}

/// The Fortran source the running compiler was given, or "". flang names
/// every module 'FIRModule', and without debug info nothing in the module
/// names its file; the frontend's command line does (its input comes
/// last, after -o and the other options).
std::string fortranInputFile() {
  auto Buf = MemoryBuffer::getFileAsStream("/proc/self/cmdline");
  if (!Buf)
    return "";
  SmallVector<StringRef, 64> Args;
  (*Buf)->getBuffer().split(Args, '\0', -1, /*KeepEmpty=*/false);
  for (size_t I = Args.size(); I-- > 1;) {
    std::string Ext = sys::path::extension(Args[I]).lower();
    static const StringRef Exts[] = {".f",   ".for", ".ftn", ".fpp", ".f77",
                                     ".f90", ".f95", ".f03", ".f08"};
    bool Fortran = is_contained(Exts, Ext);
    if (Fortran && Args[I - 1] != "-o" && !Args[I].starts_with("-"))
      return Args[I].str();
  }
  return "";
}

/// The module's main source file, absolute: what users call the module
/// (flang names every module 'FIRModule'; see fortranInputFile()).
std::string moduleSource(const Module &M) {
  for (const DICompileUnit *CU : M.debug_compile_units())
    if (!CU->getFilename().empty())
      return normalizePath(CU->getFilename(), CU->getDirectory());
  std::string Src = M.getSourceFileName();
  if (Src == "FIRModule")
    Src = fortranInputFile();
  if (Src.empty())
    return "";
  SmallString<256> Abs(Src);
  sys::fs::make_absolute(Abs);
  return normalizePath(Abs, "");
}

/// The file the module's code was written in, absolute: its main source
/// file, or, when that defines none of the module's functions, the file
/// most of them are in. CMake's Ninja generator compiles a Fortran source
/// from a preprocessed copy (app.f90-pp.f90) whose line directives name the
/// original; plan entries name the original.
std::string moduleOrigin(const Module &M) {
  std::string Src = moduleSource(M);
  std::map<std::string, unsigned> Defined;
  for (const Function &Fn : M)
    if (const DISubprogram *SP = Fn.getSubprogram(); SP && !Fn.isDeclaration())
      ++Defined[normalizePath(SP->getFilename(), SP->getDirectory())];
  if (Defined.empty() || Defined.count(Src))
    return Src;
  auto Most = llvm::max_element(Defined, [](const auto &A, const auto &B) {
    return A.second < B.second;
  });
  return Most->first;
}

/// How messages name the module: its source file, else LLVM's module name.
std::string moduleLabel(const Module &M) {
  std::string Src = moduleOrigin(M);
  return Src.empty() ? M.getName().str() : Src;
}

/// Whether \p M was compiled with debug locations (-g, -gline-tables-only).
bool hasDebugInfo(const Module &M) {
  for (const DICompileUnit *CU : M.debug_compile_units())
    if (CU->getEmissionKind() != DICompileUnit::NoDebug)
      return true;
  return false;
}

/// Whether \p SP is in a compile unit that emits debug info. Without -g,
/// clang still tracks locations when remarks are requested (-Rpass), in a
/// unit that emits none (NoDebug): placing by those would make the result
/// depend on whether someone watched, so they count as none.
bool emitsDebugInfo(const DISubprogram *SP) {
  const DICompileUnit *CU = SP ? SP->getUnit() : nullptr;
  return CU && CU->getEmissionKind() != DICompileUnit::NoDebug;
}

/// Whether \p Fn was compiled with debug info.
bool hasDebugInfo(const Function &Fn) {
  return emitsDebugInfo(Fn.getSubprogram());
}

/// Whether \p DL is a debug location the user asked for (emitsDebugInfo).
bool hasDebugLocation(const DILocation *DL) {
  return DL && DL->getLine() != 0 &&
         emitsDebugInfo(DL->getScope()->getSubprogram());
}

/// Whether \p DL is where the optimizer merged calls: line 0 in a function
/// of a compile unit with debug info.
bool isMergedLocation(const DILocation *DL) {
  return DL && DL->getLine() == 0 &&
         emitsDebugInfo(DL->getScope()->getSubprogram());
}

/// A call's function and callee, as a merged call and the calls it was
/// merged from share them: `make malloc`.
std::string mergeKey(const DILocation *DL, const Function &Callee) {
  const DISubprogram *SP = DL->getScope()->getSubprogram();
  return (SP ? functionName(SP->getLinkageName(), SP->getName()) : "?") + " " +
         Callee.getName().str();
}

/// The call's frames: its own position, then the positions it was inlined
/// at, innermost first. A merged call (line 0) is named by its function
/// (`file:0 (function)`, SiteKey.h), in that function's file.
CallContext contextOf(const DILocation *DL) {
  CallContext C;
  const DISubprogram *SP = DL->getScope()->getSubprogram();
  if (SP)
    if (const DICompileUnit *CU = SP->getUnit())
      C.CompileDir = CU->getDirectory().str();
  if (DL->getLine() == 0 && SP) {
    StringRef Dir = SP->getDirectory();
    SourcePos Pos = makeSourcePos(Dir.empty() ? StringRef(C.CompileDir) : Dir,
                                  SP->getFilename(), 0, 0);
    Pos.Function = functionName(SP->getLinkageName(), SP->getName());
    C.Frames.push_back(std::move(Pos));
    DL = DL->getInlinedAt();
  }
  for (; DL; DL = DL->getInlinedAt()) {
    StringRef Dir = DL->getDirectory();
    SourcePoint At = sourcePoint(DL);
    C.Frames.push_back(
        makeSourcePos(Dir.empty() ? StringRef(C.CompileDir) : Dir,
                      DL->getFilename(), At.Line, At.Column));
  }
  return C;
}

/// Replace \p CB by a call to \p Placed with the kind inserted at
/// \p F.KindArg. Invokes stay invokes (operator new may throw).
/// A call into flang's runtime that allocates inside the runtime library:
/// bracketed by hmplace_scope_enter(kind) and hmplace_scope_exit(), so the
/// thread's next malloc (the array's) comes from the kind (runtime/scope.c).
/// The runtime reports failures through STAT= or stops the program; it does
/// not unwind, so a plain call is all there is to bracket.
CallBase *scopeCall(CallBase *CB, Value *KindV,
                    const SiteDecision *D = nullptr) {
  Module &M = *CB->getModule();
  LLVMContext &Ctx = M.getContext();
  auto *Void = Type::getVoidTy(Ctx);
  auto *I64 = Type::getInt64Ty(Ctx);
  auto *Ptr = PointerType::getUnqual(Ctx);
  FunctionCallee Exit = M.getOrInsertFunction("hmplace_scope_exit",
                                              FunctionType::get(Void, false));
  // The size is the runtime's to compute (from the descriptor): the scope
  // checks a window when the array is malloc'ed. The plan entry's name
  // goes with it, for HMPLACE_LOG (a table's choice names itself).
  FunctionCallee Enter = M.getOrInsertFunction(
      "hmplace_scope_enter_entry",
      FunctionType::get(Void, {KindV->getType(), I64, I64, Ptr}, false));
  Value *Entry = ConstantPointerNull::get(Ptr);
  if (D && D->Entry) {
    IRBuilder<> B(CB);
    Entry = B.CreateGlobalString(D->Entry->key(), "hmplace.entry");
  }
  CallInst *In = CallInst::Create(
      Enter,
      {KindV, ConstantInt::get(I64, D ? D->MinSize.value_or(0) : 0),
       ConstantInt::get(I64, D ? D->MaxSize.value_or(UINT64_MAX) : UINT64_MAX),
       Entry},
      "", CB->getIterator());
  In->setDebugLoc(CB->getDebugLoc());
  Instruction *After = CB->getNextNode();
  if (auto *II = dyn_cast<InvokeInst>(CB))
    After = &*II->getNormalDest()->getFirstInsertionPt();
  auto *Out = CallInst::Create(Exit, {}, "", After->getIterator());
  Out->setDebugLoc(CB->getDebugLoc());
  return CB;
}

/// Why a size window cannot be checked at a call of \p F.
std::string noSizeWhy(const IRAllocFn &F) {
  if (F.Scoped)
    return "the size of an ALLOCATE through flang's runtime (STAT=, SOURCE=, "
           "...) is not an argument of the call";
  return std::string("the size of ") + F.Source +
         " is not an argument of the call";
}

/// The kind argument of a windowed placement: \p Kind when the call's size
/// is in \p D's window, else the ordinary heap (HMPLACE_HEAP, -1). calloc's
/// product is checked for overflow (out of the window, as it fails anyway).
/// Whether \p CB's size is in \p D's window (an i1 before \p CB).
Value *inWindow(CallBase *CB, const IRAllocFn &F, const SiteDecision &D) {
  IRBuilder<> B(CB);
  B.SetCurrentDebugLocation(CB->getDebugLoc());
  Type *I64 = B.getInt64Ty();
  Value *Size = B.CreateZExtOrTrunc(CB->getArgOperand(F.SizeArg), I64);
  Value *In = B.getTrue();
  if (F.SizeArg2 >= 0) {
    Value *N2 = B.CreateZExtOrTrunc(CB->getArgOperand(F.SizeArg2), I64);
    Value *Mul =
        B.CreateBinaryIntrinsic(Intrinsic::umul_with_overflow, Size, N2);
    Size = B.CreateExtractValue(Mul, 0);
    In = B.CreateNot(B.CreateExtractValue(Mul, 1));
  }
  if (D.MinSize)
    In = B.CreateAnd(In, B.CreateICmpUGE(Size, B.getInt64(*D.MinSize)));
  if (D.MaxSize)
    In = B.CreateAnd(In, B.CreateICmpULE(Size, B.getInt64(*D.MaxSize)));
  return In;
}

Value *windowedKind(CallBase *CB, const IRAllocFn &F, const SiteDecision &D,
                    Value *Kind) {
  IRBuilder<> B(CB);
  B.SetCurrentDebugLocation(CB->getDebugLoc());
  return B.CreateSelect(inWindow(CB, F, D), Kind, B.getInt32(-1),
                        "hmplace.kind");
}

CallBase *placeCall(CallBase *CB, const IRAllocFn &F, Value *KindV);

/// A windowed placement of a plain call: the size checked first, the
/// placed call only inside the window, the call as written outside it. A
/// window over many small allocations (compiler temporaries under an
/// AutoHBW-style `files:` entry) then costs them a compare, not a trip
/// through the runtime. (Invokes, whose edges a branch would have to split,
/// take the kind through a select: windowedKind.)
CallBase *placeInWindow(CallInst *CB, const IRAllocFn &F, const SiteDecision &D,
                        Value *Kind) {
  Value *In = inWindow(CB, F, D);
  if (auto *C = dyn_cast<ConstantInt>(In)) // a constant size: decided here
    return C->isOne() ? placeCall(CB, F, Kind) : CB;
  Instruction *ThenTerm, *ElseTerm;
  SplitBlockAndInsertIfThenElse(In, CB->getIterator(), &ThenTerm, &ElseTerm);
  BasicBlock *Tail = CB->getParent();
  Instruction *Plain = CB->clone();
  Plain->insertBefore(ElseTerm->getIterator());
  CB->moveBefore(*ThenTerm->getParent(), ThenTerm->getIterator());
  PHINode *Phi = nullptr;
  if (!CB->getType()->isVoidTy()) {
    Phi = PHINode::Create(CB->getType(), 2, "", Tail->begin());
    Phi->setDebugLoc(CB->getDebugLoc());
  }
  CallBase *New = placeCall(CB, F, Kind);
  if (Phi) {
    New->replaceAllUsesWith(Phi);
    Phi->addIncoming(New, New->getParent());
    Phi->addIncoming(Plain, Plain->getParent());
  }
  return New;
}

CallBase *placeCall(CallBase *CB, const IRAllocFn &F, Value *KindV) {
  if (F.Scoped)
    return scopeCall(CB, KindV);
  Module &M = *CB->getModule();
  LLVMContext &Ctx = M.getContext();
  Type *I32 = Type::getInt32Ty(Ctx);
  FunctionType *Old = CB->getFunctionType();
  SmallVector<Type *, 4> Params(Old->params());
  Params.insert(Params.begin() + F.KindArg, I32);
  FunctionCallee Callee = M.getOrInsertFunction(
      F.Placed, FunctionType::get(Old->getReturnType(), Params, false));
  SmallVector<Value *, 4> Args(CB->args());
  Args.insert(Args.begin() + F.KindArg, KindV);
  SmallVector<OperandBundleDef, 1> Bundles;
  CB->getOperandBundlesAsDefs(Bundles);
  CallBase *New;
  if (auto *II = dyn_cast<InvokeInst>(CB))
    New = InvokeInst::Create(Callee, II->getNormalDest(), II->getUnwindDest(),
                             Args, Bundles, "", CB->getIterator());
  else
    New = CallInst::Create(Callee, Args, Bundles, "", CB->getIterator());
  // Keep what the result is known to be (noalias, nonnull, align) and the
  // arguments' attributes at their new positions; drop what describes the
  // original function (builtin, allocsize with its argument numbers).
  const AttributeList &AL = CB->getAttributes();
  SmallVector<AttributeSet, 4> ArgAttrs;
  for (unsigned I = 0; I < CB->arg_size(); ++I)
    ArgAttrs.push_back(AL.getParamAttrs(I));
  ArgAttrs.insert(ArgAttrs.begin() + F.KindArg, AttributeSet());
  AttrBuilder FnAttrs(Ctx, AL.getFnAttrs());
  FnAttrs.removeAttribute(Attribute::Builtin);
  FnAttrs.removeAttribute(Attribute::AllocSize);
  FnAttrs.removeAttribute(Attribute::AllocKind);
  FnAttrs.removeAttribute("alloc-family");
  New->setAttributes(AttributeList::get(Ctx, AttributeSet::get(Ctx, FnAttrs),
                                        AL.getRetAttrs(), ArgAttrs));
  New->setCallingConv(CB->getCallingConv());
  New->copyMetadata(*CB); // !dbg, !heapallocsite, ...
  New->takeName(CB);
  CB->replaceAllUsesWith(New);
  CB->eraseFromParent();
  return New;
}

/// -Rpass-analysis=hm-place: the pass's listing of allocation sites, each
/// with the calls of this module that reach it through its function (the
/// frames a call-stack entry would name), so that stack entries for objects
/// behind wrappers can be written by hand. hmrewrite --list-sites
/// --list-depth=N gives the same over several files.
template <typename SiteT>
static void listSites(Module &M, const std::vector<SiteT> &Sites) {
  for (const SiteT &S : Sites) {
    Function &Fn = *S.CB->getFunction();
    OptimizationRemarkEmitter ORE(&Fn);
    if (!ORE.allowExtraAnalysis(DEBUG_TYPE))
      return; // not asked for: no cost
    std::string Key = S.C.Frames.front().str();
    bool Temporary = !S.F->Scoped && isFortranModule(M) && S.C.Object.empty() &&
                     isCompilerTemporary(*S.CB);
    ORE.emit(OptimizationRemarkAnalysis(DEBUG_TYPE, "Site", S.CB)
             << "allocation site " << Key << ": " << S.F->Source << " in "
             << Fn.getName()
             << (Temporary ? " (a compiler temporary: flang's buffer for an "
                             "array expression, freed in the same procedure)"
                           : ""));
    for (User *U : Fn.users()) {
      auto *Call = dyn_cast<CallBase>(U);
      if (!Call || Call->getCalledFunction() != &Fn || !Call->getDebugLoc())
        continue;
      std::string CallerKey =
          contextOf(Call->getDebugLoc().get()).Frames.front().str();
      OptimizationRemarkEmitter CORE(Call->getFunction());
      CORE.emit(OptimizationRemarkAnalysis(DEBUG_TYPE, "Caller", Call)
                << "stack: [" << Key << ", " << CallerKey << "] reaches "
                << S.F->Source << " in " << Fn.getName() << " from "
                << Call->getFunction()->getName());
    }
  }
}

/// One remark per site: a site in a template, or in a function inlined in
/// several places, is several calls with one key and one decision; their
/// remarks are folded into one, with the count.
class RemarkFolder {
public:
  enum Kind { Passed, Missed };
  /// Messages are only built when someone listens (-Rpass, a remarks file).
  explicit RemarkFolder(LLVMContext &Ctx)
      : Wanted(Ctx.getLLVMRemarkStreamer() ||
               Ctx.getDiagHandlerPtr()->isAnyRemarkEnabled(DEBUG_TYPE)) {}
  void add(Kind K, const char *Name, Instruction *At, std::string Msg) {
    if (!Wanted)
      return;
    auto [It, New] = Index.try_emplace(Msg, Items.size());
    if (New)
      Items.push_back({K, Name, At, std::move(Msg), 1});
    else
      ++Items[It->second].N;
  }
  void emit() {
    for (const Item &I : Items) {
      OptimizationRemarkEmitter ORE(I.At->getFunction());
      std::string Msg = I.Msg;
      if (I.N > 1)
        Msg += " [" + std::to_string(I.N) +
               " calls: template instances, inlined copies or the arrays "
               "of one statement]";
      // flang 19 prints a remark's location as the directory of its path
      // with the root cut off (TextDiagnosticPrinter::printLocForRemarks
      // applies sys::path::relative_path), so "/src/a.f90" shows as
      // "src/a.f90". For Fortran the remark goes without a location: the
      // message names the site's full path itself ("at /src/a.f90:7:3").
      // A merged call has line 0, which clang would print as its
      // function's line with a note that it has none: the message names it.
      bool Located = !isFortranModule(*I.At->getModule()) &&
                     I.At->getDebugLoc() && I.At->getDebugLoc().getLine();
      DiagnosticLocation Loc = Located ? DiagnosticLocation(I.At->getDebugLoc())
                                       : DiagnosticLocation();
      if (I.K == Passed)
        ORE.emit(OptimizationRemark(DEBUG_TYPE, I.Name, Loc, I.At->getParent())
                 << Msg);
      else
        ORE.emit(
            OptimizationRemarkMissed(DEBUG_TYPE, I.Name, Loc, I.At->getParent())
            << Msg);
    }
  }

private:
  struct Item {
    Kind K;
    const char *Name;
    Instruction *At;
    std::string Msg;
    unsigned N;
  };
  bool Wanted;
  std::vector<Item> Items;
  std::map<std::string, size_t> Index;
};

/// What a ModulePlacer looks at: the calls of the source, as the front end
/// wrote them (at the start of the pipeline), or the calls the optimizer
/// merged, whose debug location is line 0 (at its end: `file:0
/// (function)` entries).
/// The source stage's record of each module whose plan has merged entries,
/// for the merged stage to complete and write (one record per module).
struct PendingRecords {
  std::mutex Lock;
  std::map<std::pair<const Module *, std::string>, BuildRecord> ByModule;
  /// The module's allocation calls at the start of the pipeline, by
  /// function and callee (ModulePlacer::SourceCalls): the calls a merged
  /// one may stand for.
  std::map<std::pair<const Module *, std::string>,
           std::map<std::string, std::vector<std::string>>>
      CallsByModule;
  static PendingRecords &get() {
    static PendingRecords P;
    return P;
  }
  static std::pair<const Module *, std::string> key(const Module &M) {
    return {&M, M.getModuleIdentifier()};
  }
};

enum class Stage { Source, Merged };

struct HmPlacePass : PassInfoMixin<HmPlacePass> {
  PreservedAnalyses run(Module &M, ModuleAnalysisManager &);
  static bool isRequired() { return true; }
};

/// The merged calls, after the optimizer merged them.
struct HmPlaceMergedPass : PassInfoMixin<HmPlaceMergedPass> {
  PreservedAnalyses run(Module &M, ModuleAnalysisManager &);
  static bool isRequired() { return true; }
};

/// One module through a plan, in steps: the plan, the allocation calls,
/// the decisions, what is placed, the callers noted, what placed nothing
/// (said by default), and the build record.
class ModulePlacer {
public:
  ModulePlacer(Module &M, Stage At) : M(M), Ctx(M.getContext()), At(At) {}

  PreservedAnalyses run() {
    if (At == Stage::Merged && !hasMergedEntries(M))
      return PreservedAnalyses::all();
    if (!loadPlan())
      return PreservedAnalyses::all();
    collectSites();
    listSites(M, Sites);
    SiteMatcher Matcher(*L->P);
    SourceTokenFiles Sources; // the plan's `tokens:` are checked there
    Matcher.checkTokensIn(&Sources);
    for (Site &S : Sites)
      Matcher.addCall(S.C);
    std::vector<Placement> Decisions = Matcher.resolve();
    placeSites(Matcher, Decisions);
    if (At == Stage::Source)
      noteCallers(Matcher); // the merged calls' callers are noted by now
    reportMisses(Matcher);
    writeBuildRecord(Matcher);
    return Changed ? PreservedAnalyses::none() : PreservedAnalyses::all();
  }

private:
  struct Site {
    CallBase *CB;
    const IRAllocFn *F;
    CallContext C;
  };

  bool loadPlan();
  void collectSites();
  void placeSites(SiteMatcher &Matcher, const std::vector<Placement> &Ds);
  void placeOne(Site &S, const Placement &P, const SiteDecision &D,
                SiteDescriptors &Descs, RemarkFolder &Remarks);
  void nameForLog(CallBase *Placed, const PlanEntry *E);
  std::string callForLog(const Site &S, const PlanEntry *E);
  void storeLogName(Instruction *Before, const char *Var, Constant *Name);
  std::vector<NotedCall>
  notedCalls(SiteMatcher &Matcher,
             const std::set<const Function *> *Only = nullptr);
  void noteCallers(SiteMatcher &Matcher);
  void reportMisses(const SiteMatcher &Matcher);
  void reportUnmatchedHere(const SiteMatcher &Matcher);
  void reportUnmergedHere(const SiteMatcher &Matcher);
  void reportDebuggedHere(const SiteMatcher &Matcher);
  BuildRecord moduleRecord() const;
  void writeBuildRecord(const SiteMatcher &Matcher);
  /// Say by default that \p E places nothing in the file \p File, and why.
  void placesNothing(const PlanEntry *E, StringRef File,
                     const std::string &Why) {
    report(M,
           "HmPlace: plan entry '" + E->key() + "' (" + L->D->describe(E->Loc) +
               ") places nothing in " + sys::path::filename(File) + ": " + Why,
           DS_Warning);
  }
  /// The directory the module was compiled in (its last compile unit's).
  std::string compileDir() const {
    std::string Dir;
    for (const DICompileUnit *CU : M.debug_compile_units())
      Dir = CU->getDirectory().str();
    return Dir;
  }
  /// Say that \p E, naming this module, matches none of its calls -- unless
  /// it is an entry of the ordinary heap, which places nothing either way:
  /// its calls are there without it (flang gives some temporaries no
  /// location at -O2; a reformat moves lines). The build record keeps why
  /// either way, for `hmplan summary` (which notes such an entry); hmrewrite
  /// notes it too.
  void matchesNothingHere(const SiteMatcher &Matcher, const PlanEntry *E,
                          StringRef File, const std::string &Why) {
    if (!Matcher.keepsHeapEitherWay(*E))
      placesNothing(E, File, Why);
  }
  void missed(const PlanEntry *E, const std::string &Why) {
    if (E)
      Missed.try_emplace(E, Why);
  }

  /// Whether the plan the source stage read for \p M has merged entries.
  static bool hasMergedEntries(const Module &M);
  /// Whether this stage decides \p E: merged entries at the end, the others
  /// at the start.
  bool decides(const PlanEntry &E) const {
    return E.innermostIs(Frame::Form::Merged) == (At == Stage::Merged);
  }

  Module &M;
  LLVMContext &Ctx;
  Stage At;
  std::string Path, Resolved;
  const LoadedPlan *L = nullptr;
  std::vector<Site> Sites;
  /// The context sites placed, for copies per caller (CallerCopies.h).
  std::vector<PlacedContextSite> ContextSites;
  unsigned LocatedSites = 0;
  bool SawCallWithoutLoc = false;
  /// The plan has `(function)` entries: calls in functions without debug
  /// info are looked at, named by their function.
  bool NoDebugEntries = false;
  /// The plan has merged entries (`file:0 (function)`).
  bool MergedEntries = false;
  bool Changed = false;
  /// Entries that placed or kept something here; entries that matched a
  /// call here but placed nothing, and why (said by default, recorded).
  std::set<const PlanEntry *> Applied;
  std::map<const PlanEntry *, std::string> Missed;
  /// The source stage, where the plan has merged entries: each located
  /// allocation call by `function callee` (mergeKey), as `file:line:col`.
  std::map<std::string, std::vector<std::string>> SourceCalls;
  /// Why the merged call \p S places nothing whatever its entry says.
  std::string mergedWhy(const Site &S) const;
  /// Entries naming this module's file that match none of its calls, with
  /// why (reportUnmatchedHere), for the build record.
  std::map<const PlanEntry *, std::string> UnmatchedWhy;
  /// Each entry's key as a string of the module, for HMPLACE_LOG.
  std::map<const PlanEntry *, Constant *> EntryNames;
};

bool ModulePlacer::loadPlan() {
  Path = PlanOption;
  if (Path.empty())
    if (const char *E = getenv("HMPLACE_PLAN"))
      Path = E;
  if (Path.empty()) {
    report(M,
           "HmPlace: no plan given: set HMPLACE_PLAN=plan.yaml (or -mllvm "
           "-placement-plan=plan.yaml with -Xclang -load -Xclang HmPlace.so)",
           DS_Error);
    return false;
  }
  Resolved = resolvePlanPath(Path);
  if (Resolved.empty()) {
    report(M,
           "HmPlace: plan '" + Path +
               "' not found in the current directory or any directory above "
               "it (relative plans are looked up upwards, so that recursive "
               "make finds the plan at the top of the tree; or give an "
               "absolute path)",
           DS_Error);
    return false;
  }
  L = &loadPlanOnce(Resolved, moduleBasenames(M));
  if (!L->P) {
    report(M, "HmPlace: cannot use plan '" + Path + "' (see the errors above)",
           DS_Error);
    return false;
  }
  return true;
}

/// The allocation calls with a location (and those in functions without
/// debug info where the plan names such functions).
void ModulePlacer::collectSites() {
  NoDebugEntries = llvm::any_of(L->P->Entries, [](const PlanEntry &E) {
    return E.innermostIs(Frame::Form::NoDebug);
  });
  MergedEntries = llvm::any_of(L->P->Entries, [](const PlanEntry &E) {
    return E.innermostIs(Frame::Form::Merged);
  });
  // Only Fortran has statements whose calls share a position by design
  // (ALLOCATE of several arrays); object entries need the variable.
  bool Fortran = isFortranModule(M);
  for (Function &Fn : M)
    for (Instruction &I : instructions(Fn)) {
      auto *CB = dyn_cast<CallBase>(&I);
      if (!CB)
        continue;
      Function *Callee = CB->getCalledFunction();
      if (!Callee || !Callee->isDeclaration())
        continue;
      const IRAllocFn *F = findIRAllocFn(Callee->getName());
      if (!F || !takesArgs(*F, CB->arg_size()))
        continue;
      const DILocation *DL = CB->getDebugLoc().get();
      if (At == Stage::Merged) {
        if (!isMergedLocation(DL))
          continue;
      } else if (!hasDebugLocation(DL)) {
        // In a function without debug info: named by the function, for
        // the plan's `(function)` entries.
        if (NoDebugEntries && !hasDebugInfo(Fn)) {
          CallContext C;
          C.Frames.push_back(
              {"", 0, 0, functionName(Fn.getName(), Fn.getName())});
          Sites.push_back({CB, F, std::move(C)});
        } else {
          SawCallWithoutLoc = true;
        }
        continue;
      }
      ++LocatedSites;
      Sites.push_back({CB, F, contextOf(DL)});
      if (At == Stage::Source && MergedEntries) {
        const SourcePos &P = Sites.back().C.Frames.front(); // read back
        SourceCalls[mergeKey(DL, *Callee)].push_back(
            sys::path::filename(DL->getFilename()).str() + ":" +
            std::to_string(P.Line) + ":" + std::to_string(P.Column));
      }
      // operator new inside the C++ library: where every container buffer
      // (std::allocator) and make_unique/make_shared object comes from
      // (container entries, Context.h). A merged one is matched against
      // merged entries only.
      Sites.back().C.StdAllocator = At == Stage::Source && F->KindArg != 0 &&
                                    isStdLibraryFile(DL->getFilename());
      if (Fortran && L->P->HasObjects)
        Sites.back().C.Object = allocatedObject(*CB, F->Scoped);
    }
  // A module built with -g can still hold calls without a location: flang
  // -O2 gives its temporaries none. Only a module without debug info at all
  // is the user's mistake; either way the module goes on to write its build
  // record, so that `hmplan summary` counts it.
  if (At == Stage::Source && SawCallWithoutLoc && !LocatedSites &&
      !hasDebugInfo(M))
    report(M,
           "HmPlace: module '" + moduleLabel(M) +
               "' has allocation calls but no debug locations; nothing placed "
               "(compile with -g or -gline-tables-only)",
           DS_Warning);
}

std::string ModulePlacer::mergedWhy(const Site &S) const {
  const DILocation *DL = S.CB->getDebugLoc().get();
  const Function *Callee = S.CB->getCalledFunction();
  std::string Key = mergeKey(DL, *Callee);
  std::vector<std::string> From;
  {
    PendingRecords &Pending = PendingRecords::get();
    std::lock_guard<std::mutex> G(Pending.Lock);
    auto It = Pending.CallsByModule.find(PendingRecords::key(M));
    if (It != Pending.CallsByModule.end())
      if (auto C = It->second.find(Key); C != It->second.end())
        From = C->second;
  }
  std::string Calls =
      From.size() > 1
          ? "calls of " + Callee->getName().str() + " at " + join(From, ", ")
          : "several calls of " + Callee->getName().str();
  return "it names a call the optimizer merged from " + Calls + " (line 0 in " +
         Key.substr(0, Key.find(' ')) +
         "): which of them the entry was made from cannot be told, and "
         "placing the merged call would place the objects of each; it stays "
         "on the ordinary heap (profile with hmcc --profile, which keeps the "
         "calls apart, and advise again)";
}

void ModulePlacer::placeSites(SiteMatcher &Matcher,
                              const std::vector<Placement> &Decisions) {
  // Entries that cannot be applied exactly place nothing.
  // (An entry of the ordinary heap places nothing either way.)
  for (const PlanEntry *E : Matcher.unusableHits())
    if (!Matcher.keepsHeapEitherWay(*E))
      missed(E, notAppliedReason(Matcher.shape(*E)));
  SiteDescriptors Descs(M);
  RemarkFolder Remarks(Ctx);
  bool Placed = false;
  for (size_t I = 0; I < Sites.size(); ++I) {
    const Placement &P = Decisions[I];
    // flang's runtime ALLOCATEs take a window in their scope.
    const IRAllocFn &F = *Sites[I].F;
    SiteDecision D = decideSite(P, Sites[I].C.Frames.front(), F.Source,
                                F.SizeArg < 0 && !F.Scoped ? noSizeWhy(F) : "");
    // A merged call stands for several calls of the source: placing it
    // would place the objects of each, where the entry was made from one.
    if (At == Stage::Merged && D.places()) {
      D.Act = SiteDecision::NotPlaced;
      D.Remark = mergedWhy(Sites[I]);
    }
    placeOne(Sites[I], P, D, Descs, Remarks);
    Placed |= D.places();
  }
  Remarks.emit();
  Descs.finish();
  // The kinds this module now passes are indices into the plugin's table.
  if (Placed)
    addKindsCheck(M);
}

void ModulePlacer::placeOne(Site &S, const Placement &P, const SiteDecision &D,
                            SiteDescriptors &Descs, RemarkFolder &Remarks) {
  std::vector<const PlanEntry *> Entries = P.entries();
  if (D.Act == SiteDecision::NotPlaced) {
    for (const PlanEntry *E : Entries)
      missed(E, D.Remark);
  } else {
    Applied.insert(Entries.begin(), Entries.end());
  }
  switch (D.Act) {
  case SiteDecision::Leave:
    break;
  case SiteDecision::NotPlaced:
    Remarks.add(RemarkFolder::Missed, "NotPlaced", S.CB, D.Remark);
    break;
  case SiteDecision::KeepOnHeap:
    if (S.F->Heap) { // hbw_malloc & co: their C counterpart
      S.CB->setCalledFunction(
          M.getOrInsertFunction(S.F->Heap, S.CB->getFunctionType()));
      Changed = true;
    }
    Remarks.add(RemarkFolder::Passed, "KeptOnHeap", S.CB, D.Remark);
    break;
  case SiteDecision::PlaceByCallers: {
    ContextKind K = Descs.kindFor(D.Table, P.Choices, P.fallbackKind(), S.CB);
    ContextSites.push_back({K, &P});
    CallBase *New = placeCall(S.CB, *S.F, K.Kind);
    Remarks.add(RemarkFolder::Passed, "PlacedByCaller", New, D.Remark);
    Changed = true;
    break;
  }
  case SiteDecision::Place: {
    // A site entry: a constant kind, and no per-entry counting (the
    // per-kind report covers these sites); for HMPLACE_LOG the entry's
    // name before the call (nameForLog: -O2 compile time with it 0.988-
    // 1.019 of without, median 0.998, on 1,200 site entries).
    Value *KindV = ConstantInt::get(Type::getInt32Ty(Ctx), D.RuntimeKind);
    // A `files:` entry's key does not say which call it placed: the call's
    // name goes to hmplace_log_call, as the key to hmplace_log_site.
    std::string Call = callForLog(S, D.Entry);
    Constant *CallName =
        Call.empty()
            ? nullptr
            : IRBuilder<>(S.CB).CreateGlobalString(Call, "hmplace.call");
    CallBase *New;
    if (S.F->Scoped) { // the runtime's malloc checks a window
      if (CallName)    // the scope takes it with the entry's key
        storeLogName(S.CB, "hmplace_log_call", CallName);
      New = scopeCall(S.CB, KindV, &D);
    } else if (D.windowed() && isa<CallInst>(S.CB)) {
      New = placeInWindow(cast<CallInst>(S.CB), *S.F, D, KindV);
    } else {
      if (D.windowed())
        KindV = windowedKind(S.CB, *S.F, D, KindV);
      New = placeCall(S.CB, *S.F, KindV);
    }
    if (!S.F->Scoped) { // the scope takes its entry with it
      nameForLog(New, D.Entry);
      if (CallName)
        storeLogName(New, "hmplace_log_call", CallName);
    }
    Remarks.add(RemarkFolder::Passed, "Placed", New, D.Remark);
    Changed = true;
    break;
  }
  }
}

/// Stores \p Name in the runtime's thread-local \p Var before \p Before.
void ModulePlacer::storeLogName(Instruction *Before, const char *Var,
                                Constant *Name) {
  GlobalVariable *G = M.getGlobalVariable(Var);
  auto *Ptr = PointerType::getUnqual(Ctx);
  if (!G)
    G = new GlobalVariable(M, Ptr, false, GlobalValue::ExternalLinkage, nullptr,
                           Var, nullptr, GlobalValue::InitialExecTLSModel);
  IRBuilder<> B(Before);
  B.CreateStore(Name, B.CreateThreadLocalAddress(G));
}

/// HMPLACE_LOG names a site entry's allocation by its entry: its key goes
/// to the runtime's thread-local hmplace_log_site just before the placed
/// call, which the log line takes (one store, whether or not the log is on;
/// every placed entry point logs its call or counts it as kept).
void ModulePlacer::nameForLog(CallBase *Placed, const PlanEntry *E) {
  if (!E)
    return;
  Constant *&Name = EntryNames[E];
  if (!Name)
    Name = IRBuilder<>(Placed).CreateGlobalString(E->key(), "hmplace.entry");
  storeLogName(Placed, "hmplace_log_site", Name);
}

/// For HMPLACE_LOG, the call a `files:` entry places, which the entry's key
/// does not name: its file:line:col and (Fortran, with -g) the array ("" for
/// any other entry). Read before the call is replaced.
std::string ModulePlacer::callForLog(const Site &S, const PlanEntry *E) {
  if (!E || !E->isFileSet())
    return "";
  const SourcePos &P = S.C.Frames.front();
  std::string Name = sys::path::filename(P.File).str() + ":" +
                     std::to_string(P.Line) + ":" + std::to_string(P.Column);
  std::string Object = S.C.Object;
  if (Object.empty() && isFortranModule(M))
    Object = allocatedObject(*S.CB, S.F->Scoped);
  if (!Object.empty())
    Name += " (" + Object + ")";
  return Name;
}

/// A function as the source names it (a copy's debug info keeps its
/// original's name).
std::string calleeName(const Function &F) {
  if (const DISubprogram *SP = F.getSubprogram())
    return functionName(SP->getLinkageName(), SP->getName());
  return functionName(F.getName(), F.getName());
}

/// The calls here that a call-stack entry names as a caller frame, with the
/// entries naming each. Calls on a noted parallel region's line other than
/// the fork are the region's machinery (the outlined function calling its
/// body, the runtime's loop and reduction calls): the region is noted, they
/// are not. With \p Only, the calls of those functions alone.
std::vector<NotedCall>
ModulePlacer::notedCalls(SiteMatcher &Matcher,
                         const std::set<const Function *> *Only) {
  std::vector<NotedCall> Noted;
  for (Function &Fn : M) {
    if (Only && !Only->count(&Fn))
      continue;
    for (Instruction &I : instructions(Fn)) {
      auto *CB = dyn_cast<CallBase>(&I);
      if (!CB || isa<IntrinsicInst>(CB))
        continue;
      const DILocation *DL = CB->getDebugLoc().get();
      if (!hasDebugLocation(DL))
        continue;
      CallContext C = contextOf(DL);
      std::vector<const PlanEntry *> Through;
      if (!Matcher.isNoted(C, &Through))
        continue;
      const SourcePos &Pos = C.Frames.front();
      Noted.push_back({CB, contextFrameId(Pos.File, Pos.Line, Pos.Column),
                       std::move(Through)});
    }
  }
  std::set<std::pair<std::string, unsigned>> RegionLines;
  for (const NotedCall &N : Noted)
    if (forkedRegion(N.CB)) {
      SourcePos P = contextOf(N.CB->getDebugLoc().get()).Frames.front();
      RegionLines.insert({P.File, P.Line});
    }
  llvm::erase_if(Noted, [&](const NotedCall &N) {
    SourcePos P = contextOf(N.CB->getDebugLoc().get()).Frames.front();
    return !forkedRegion(N.CB) && RegionLines.count({P.File, P.Line});
  });
  return Noted;
}

/// Caller frames of call-stack entries: every call here that one names
/// notes itself on the shadow stack, unless the call now goes to a copy of
/// its callee that decides every entry naming it (CallerCopies.h). Collected
/// first: noting splits blocks.
void ModulePlacer::noteCallers(SiteMatcher &Matcher) {
  if (!Matcher.needsContext())
    return;
  std::vector<NotedCall> Noted = notedCalls(Matcher);
  std::map<CallBase *, CopiedCall> Copied = copyForCallers(ContextSites, Noted);
  std::set<const Function *> Copies;
  for (const auto &[CB, C] : Copied)
    Copies.insert(C.Copy);
  Changed |= !Copied.empty();
  // The copies' own calls note themselves as the originals do (said once,
  // by the originals). A parallel region forked from a function and its
  // copy is one outlined function: noted once.
  std::vector<NotedCall> InCopies = notedCalls(Matcher, &Copies);
  std::move(InCopies.begin(), InCopies.end(), std::back_inserter(Noted));
  std::set<const Function *> Regions;
  for (const NotedCall &N : Noted) {
    CallBase *CB = N.CB;
    OptimizationRemarkEmitter ORE(CB->getFunction());
    bool Say = !Copies.count(CB->getFunction());
    SourcePos Key = contextOf(CB->getDebugLoc().get()).Frames.front();
    // An OpenMP parallel region: noted in each of its threads.
    if (Function *Region = forkedRegion(CB)) {
      if (Regions.insert(Region).second)
        noteBody(*Region, N.Id);
      if (Say)
        ORE.emit(OptimizationRemark(DEBUG_TYPE, "Noted", CB)
                 << regionNotedRemark(Key));
      Changed = true;
      continue;
    }
    auto Copy = Copied.find(CB);
    if (Copy != Copied.end() && Say)
      ORE.emit(OptimizationRemark(DEBUG_TYPE, "Copied", CB)
               << copiedRemark(Key, calleeName(*Copy->second.Copy)));
    if (Copy != Copied.end() && !Copy->second.StillNoted)
      continue;
    CallBase *Now = noteCall(CB, N.Id);
    if (!Now) {
      if (Say)
        ORE.emit(OptimizationRemarkMissed(DEBUG_TYPE, "NotNoted", CB)
                 << notNotedMessage(Key, "it is a musttail call"));
      continue;
    }
    // CB may be gone: a call that can throw became an invoke.
    if (Say)
      ORE.emit(OptimizationRemark(DEBUG_TYPE, "Noted", Now)
               << notedRemark(Key));
    Changed = true;
  }
}

/// What placed nothing here, said by default (not only as a remark), once
/// per entry: entries that matched a call but place nothing there, and
/// entries that name this module's own source file and match none of its
/// calls.
void ModulePlacer::reportMisses(const SiteMatcher &Matcher) {
  for (const auto &[E, Why] : Missed)
    if (!Applied.count(E))
      placesNothing(E, moduleLabel(M), Why);
  if (At == Stage::Merged) {
    reportUnmergedHere(Matcher);
  } else {
    reportUnmatchedHere(Matcher);
    reportDebuggedHere(Matcher);
    if (std::string Source = moduleOrigin(M); !Source.empty())
      if (std::string Why = namesOnlyElsewhere(*L->P, Source, compileDir());
          !Why.empty())
        report(M, "HmPlace: " + L->P->Path + ": " + Why, DS_Warning);
  }
}

/// `(function)` entries for a function this module has with debug info:
/// the entry names the calls of the function built without it (as it was
/// profiled), which this build names by their lines.
void ModulePlacer::reportDebuggedHere(const SiteMatcher &Matcher) {
  if (!NoDebugEntries)
    return;
  std::map<std::string, const Function *> Debugged;
  for (const Function &Fn : M)
    if (!Fn.isDeclaration() && hasDebugInfo(Fn))
      Debugged.try_emplace(functionName(Fn.getName(), Fn.getName()), &Fn);
  for (const PlanEntry *E : Matcher.unmatched()) {
    const Frame &F = E->Frames.front();
    if (!E->innermostIs(Frame::Form::NoDebug) || !Debugged.count(F.Function))
      continue;
    std::string Why = "this module has " + F.Function +
                      " with debug info, and the entry names its calls "
                      "where it has none (as it was profiled): profile "
                      "this build again to name each call by its line";
    matchesNothingHere(Matcher, E, moduleLabel(M), Why);
    UnmatchedWhy[E] = Why;
  }
}

/// Merged entries whose function is in this module's source file but no
/// call of which the optimizer merged here: the build keeps the calls apart
/// (-O0, the profile route's options, or only the code generator merges
/// them), or the function has changed.
void ModulePlacer::reportUnmergedHere(const SiteMatcher &Matcher) {
  std::string Source = moduleOrigin(M);
  if (Source.empty())
    return;
  std::string Dir = compileDir();
  for (const PlanEntry *E : Matcher.unmatched()) {
    const Frame &F = E->Frames.front();
    if (!decides(*E) || Matcher.shape(*E).How == EntryShape::Unusable)
      continue;
    SourcePos Here{Source, 0, 0, F.Function};
    if (!Matcher.matches(F, Here, Dir))
      continue;
    std::string Why =
        "the optimizer merged no allocation call of " + F.Function +
        " in this build (line 0 in its debug info): calls stay apart at -O0 "
        "and with hmcc --profile's options, and those only the code "
        "generator merges are not seen here; an entry per call "
        "(file:line:col, from a profile through hmcc --profile) places them";
    matchesNothingHere(Matcher, E, Source, Why);
    UnmatchedWhy[E] = "in " + sys::path::filename(Source).str() + ", " + Why;
  }
}

/// Entries whose innermost frame names this module's source file (all
/// its calls are here) but match none of them: a wrong line or column, or
/// an object the module cannot name; with the nearest allocation calls.
void ModulePlacer::reportUnmatchedHere(const SiteMatcher &Matcher) {
  std::string Source = moduleOrigin(M);
  if (Source.empty())
    return;
  std::string Dir = compileDir();
  bool FullDebug = false;
  for (const DICompileUnit *CU : M.debug_compile_units())
    FullDebug |= CU->getEmissionKind() == DICompileUnit::FullDebug;
  for (const PlanEntry *E : Matcher.unmatched()) {
    if (E->isFileSet() || Matcher.shape(*E).How == EntryShape::Unusable)
      continue;
    const Frame &F = E->Frames.front();
    // (Its file: whatever call is at its key now.)
    if (F.Kind != Frame::Form::Source ||
        matchPath(F.File, Source, L->P->PlanDir, Dir, L->P->IgnoreCase) ==
            PathMatch::None)
      continue;
    // The nearest allocation calls of the file, by line.
    std::vector<const Site *> Near;
    bool AtLine = false;
    for (const Site &S : Sites) {
      const SourcePos &P = S.C.Frames.front();
      if (P.File != Source)
        continue;
      AtLine |= P.Line == F.Line;
      Near.push_back(&S);
    }
    llvm::sort(Near, [&](const Site *A, const Site *B) {
      auto D = [&](const Site *S) {
        return std::abs(int(S->C.Frames.front().Line) - int(F.Line));
      };
      return D(A) < D(B);
    });
    // A key that names another call now (the plan's token says so).
    std::string Why = Matcher.tokenMoved(*E);
    if (Why.empty() && !E->Object.empty() && AtLine && !FullDebug) {
      Why = "the variable it names ('" + E->Object +
            "') is known only from full debug info: compile with -g (line "
            "tables alone do not name variables)";
    } else if (Why.empty()) {
      Why = "it matches no allocation call there";
      for (size_t I = 0; I < Near.size() && I < 3; ++I) {
        const SourcePos &P = Near[I]->C.Frames.front();
        Why +=
            (I ? ", " : "; the nearest: ") + std::to_string(P.Line) + ":" +
            std::to_string(P.Column) + " (" + Near[I]->F->Source +
            (Near[I]->C.Object.empty() ? "" : ", object " + Near[I]->C.Object) +
            ")";
      }
      // A call on the entry's line whose column could not be read back from
      // the preprocessed copy the build compiles: say so.
      for (const Site *S : Near)
        if (S->C.Frames.front().Line == F.Line && F.Column)
          if (std::string P = columnProblem(S->CB->getDebugLoc().get());
              !P.empty()) {
            Why += "; " + P + ": give the entry without a column (" +
                   sys::path::filename(Source).str() + ":" +
                   std::to_string(F.Line) + ")";
            break;
          }
      if (Near.empty())
        Why += !SawCallWithoutLoc ? " (the file has no allocation call)"
               : !hasDebugInfo(M)
                   ? " (its allocation calls have no debug location: compile "
                     "with -g or -gline-tables-only)"
               : isFortranModule(M)
                   ? " (its allocation calls have no debug location: flang "
                     "-O2 drops some; try -O1)"
                   : " (its allocation calls have no debug location)";
    }
    matchesNothingHere(Matcher, E, Source, Why);
    UnmatchedWhy[E] = "in " + sys::path::filename(Source).str() + ", " + Why;
  }
}

bool ModulePlacer::hasMergedEntries(const Module &M) {
  PendingRecords &P = PendingRecords::get();
  std::lock_guard<std::mutex> G(P.Lock);
  return P.ByModule.count(PendingRecords::key(M));
}

/// The source files of the module, for its build record.
BuildRecord ModulePlacer::moduleRecord() const {
  BuildRecord R;
  R.PlanHash = L->P->ContentHash;
  R.Module = moduleSource(M);
  std::set<std::string> Files;
  for (const Site &S : Sites)
    for (const SourcePos &F : S.C.Frames)
      if (!F.File.empty()) // a call without debug info names no file
        Files.insert(F.File);
  for (Function &Fn : M)
    if (const DISubprogram *SP = Fn.getSubprogram())
      Files.insert(normalizePath(SP->getFilename(), SP->getDirectory()));
  Files.insert(R.Module);
  R.Files.assign(Files.begin(), Files.end());
  return R;
}

/// Which entries this module applied, and which matched a call but placed
/// nothing, for `hmplan summary`: an entry that names nothing here is
/// normal for a whole-program plan, so the verdict on those waits for the
/// whole build (BuildRecord.h) instead of a line per module. The source
/// stage decides the entries it places; where the plan has merged entries,
/// the merged stage adds its verdict on them and writes the record again.
void ModulePlacer::writeBuildRecord(const SiteMatcher &Matcher) {
  PendingRecords &Pending = PendingRecords::get();
  BuildRecord R;
  if (At == Stage::Merged) {
    std::lock_guard<std::mutex> G(Pending.Lock);
    auto It = Pending.ByModule.find(PendingRecords::key(M));
    R = std::move(It->second);
    Pending.ByModule.erase(It);
    Pending.CallsByModule.erase(PendingRecords::key(M));
  } else {
    R = moduleRecord();
  }
  std::set<const PlanEntry *> Unmatched;
  for (const PlanEntry *E : Matcher.unmatched())
    Unmatched.insert(E);
  for (const PlanEntry &E : L->P->Entries) {
    if (!decides(E))
      continue;
    auto It = Missed.find(&E);
    if (It != Missed.end() && !Applied.count(&E))
      R.Missed[E.Index] = It->second;
    else if (!Unmatched.count(&E))
      R.Matched.insert(E.Index);
    else if (auto W = UnmatchedWhy.find(&E); W != UnmatchedWhy.end())
      R.Unmatched[E.Index] = W->second;
  }
  if (At == Stage::Source &&
      llvm::any_of(L->P->Entries, [](const PlanEntry &E) {
        return E.innermostIs(Frame::Form::Merged);
      })) {
    std::lock_guard<std::mutex> G(Pending.Lock);
    Pending.ByModule[PendingRecords::key(M)] = R;
    Pending.CallsByModule[PendingRecords::key(M)] = std::move(SourceCalls);
  }
  if (getenv("HMPLACE_NO_RECORD") || R.Module.empty())
    return;
  std::string Err = writeRecord(Resolved, R);
  if (!Err.empty())
    report(M,
           "HmPlace: cannot record what module '" + R.Module + "' matched (" +
               Err +
               "); `hmplan summary` will not count it "
               "(HMPLACE_NO_RECORD=1 turns records off)",
           DS_Warning);
}

PreservedAnalyses HmPlacePass::run(Module &M, ModuleAnalysisManager &) {
  return ModulePlacer(M, Stage::Source).run();
}

PreservedAnalyses HmPlaceMergedPass::run(Module &M, ModuleAnalysisManager &) {
  return ModulePlacer(M, Stage::Merged).run();
}

} // namespace

extern "C" LLVM_ATTRIBUTE_WEAK PassPluginLibraryInfo llvmGetPassPluginInfo() {
  return {LLVM_PLUGIN_API_VERSION, "HmPlace", "0.1", [](PassBuilder &PB) {
            // HMPLACE_PROFILE=1: a build to profile, nothing placed
            // (ProfileIR.h); otherwise the plan is applied.
            if (profileModeRequested()) {
              if (profileAddsMemProf())
                PB.registerPipelineStartEPCallback(
                    [](ModulePassManager &MPM, OptimizationLevel) {
                      MPM.addPass(ProfilePrepPass());
                    });
              // Before MemProf's instrumentation, clang's or ours: plugins'
              // callbacks run first. (LLVM 22 also passes the LTO phase:
              // `auto...` takes both.)
              PB.registerOptimizerLastEPCallback(
                  [](ModulePassManager &MPM, auto...) {
                    if (missSamplingRequested())
                      MPM.addPass(MissSamplePass());
                    if (profileAddsMemProf())
                      MPM.addPass(ProfileInstrumentPass());
                  });
            } else {
              PB.registerPipelineStartEPCallback(
                  [](ModulePassManager &MPM, OptimizationLevel) {
                    MPM.addPass(HmPlacePass());
                  });
              // `file:0 (function)` entries: the calls the optimizer
              // merged exist only at the end of the pipeline.
              PB.registerOptimizerLastEPCallback(
                  [](ModulePassManager &MPM, auto...) {
                    MPM.addPass(HmPlaceMergedPass());
                  });
            }
            PB.registerPipelineParsingCallback(
                [](StringRef Name, ModulePassManager &MPM,
                   ArrayRef<PassBuilder::PipelineElement>) {
                  if (Name == "hm-place")
                    MPM.addPass(HmPlacePass());
                  else if (Name == "hm-place-merged")
                    MPM.addPass(HmPlaceMergedPass());
                  else if (Name == "hm-profile-prep")
                    MPM.addPass(ProfilePrepPass());
                  else if (Name == "hm-profile-instrument")
                    MPM.addPass(ProfileInstrumentPass());
                  else if (Name == "hm-miss-sample")
                    MPM.addPass(MissSamplePass());
                  else
                    return false;
                  return true;
                });
          }};
}
