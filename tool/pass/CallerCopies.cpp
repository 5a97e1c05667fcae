//===- CallerCopies.cpp - a function copied per deciding caller -----------===//
//
// What the copy may assume: it is called only from the noted call, so that
// call's frame is the innermost noted one whenever a site in the copy runs
// (a call the function itself makes has returned, and restored the depth,
// by then). A site whose first choice naming that frame has more frames
// still checks the stack in the copy.
//
// The call's push goes where every entry naming its frame is one the copy
// decides: the stack below it is then what it would be for a plan without
// those entries (frames no entry names are not on it either).
//
//===----------------------------------------------------------------------===//
#include "CallerCopies.h"

#include "llvm/IR/Instructions.h"
#include "llvm/Transforms/Utils/Cloning.h"
#include "llvm/Transforms/Utils/ValueMapper.h"

#include <optional>
#include <set>

using namespace llvm;

namespace hmplace {

namespace {

using Decisions = std::vector<std::optional<int>>;

/// Functions larger than this are not copied: a wrapper is much smaller,
/// and in a large function the stack check's few instructions cost little
/// (copies of it, one per caller, would cost code size and compile time).
constexpr unsigned MaxCopiedInstructions = 500;
/// Nor more copies of one function than this (a wrapper named by hundreds
/// of entries): the callers beyond keep the stack check.
constexpr unsigned MaxCopies = 64;

/// Whether a copy of \p F behaves as \p F wherever the program calls it,
/// and is worth making.
bool copyable(const Function &F) {
  if (F.isDeclaration() || F.isInterposable() || F.isPresplitCoroutine())
    return false;
  unsigned N = 0;
  for (const BasicBlock &BB : F)
    for (const Instruction &I : BB) {
      if (++N > MaxCopiedInstructions)
        return false;
      if (auto *CB = dyn_cast<CallBase>(&I))
        if (CB->cannotDuplicate())
          return false;
    }
  return true;
}

/// Context sites by the function they are in.
std::map<Function *, std::vector<const PlacedContextSite *>>
sitesByFunction(ArrayRef<PlacedContextSite> Sites) {
  std::map<Function *, std::vector<const PlacedContextSite *>> Out;
  for (const PlacedContextSite &S : Sites)
    if (!S.P->Container)
      Out[S.K.Record->getFunction()].push_back(&S);
  for (auto It = Out.begin(); It != Out.end();)
    It = copyable(*It->first) ? std::next(It) : Out.erase(It);
  return Out;
}

/// A copy of \p F with the sites decided as \p D says.
Function *makeCopy(Function &F,
                   const std::vector<const PlacedContextSite *> &Sites,
                   const Decisions &D) {
  ValueToValueMapTy VMap;
  Function *Copy = CloneFunction(&F, VMap);
  Copy->setName(F.getName() + ".hmplace");
  Copy->setLinkage(GlobalValue::InternalLinkage);
  Copy->setVisibility(GlobalValue::DefaultVisibility);
  Copy->setDLLStorageClass(GlobalValue::DefaultStorageClass);
  Copy->setComdat(nullptr);
  Copy->setUnnamedAddr(GlobalValue::UnnamedAddr::Global);
  for (size_t I = 0; I < Sites.size(); ++I) {
    if (!D[I])
      continue;
    const PlacedContextSite &S = *Sites[I];
    ContextKind K{cast<Value>(VMap[S.K.Kind]),
                  cast<Instruction>(VMap[S.K.Record]), S.K.Desc};
    int Kind = *D[I] < 0 ? S.P->fallbackKind() : S.P->Choices[*D[I]].Kind;
    SiteDescriptors::decide(K, *D[I], Kind);
  }
  return Copy;
}

} // namespace

std::map<CallBase *, CopiedCall>
copyForCallers(ArrayRef<PlacedContextSite> Sites, ArrayRef<NotedCall> Noted) {
  std::map<CallBase *, CopiedCall> Out;
  auto ByFunction = sitesByFunction(Sites);
  std::map<std::pair<Function *, Decisions>, Function *> Copies;
  std::map<Function *, unsigned> CopiesOf;
  for (const NotedCall &N : Noted) {
    Function *Callee = N.CB->getCalledFunction();
    auto It = Callee ? ByFunction.find(Callee) : ByFunction.end();
    if (It == ByFunction.end())
      continue;
    const std::vector<const PlacedContextSite *> &Here = It->second;
    Decisions D;
    std::set<const PlanEntry *> Decided;
    for (const PlacedContextSite *S : Here) {
      D.push_back(S->P->choiceWithTop(N.Id));
      if (D.back() && *D.back() >= 0)
        Decided.insert(S->P->Choices[*D.back()].Entry);
    }
    if (Decided.empty()) // the call names none of these sites' entries
      continue;
    Function *&Copy = Copies[{Callee, D}];
    if (!Copy && CopiesOf[Callee] == MaxCopies)
      continue;
    if (!Copy) {
      Copy = makeCopy(*Callee, Here, D);
      ++CopiesOf[Callee];
    }
    N.CB->setCalledFunction(Copy);
    CopiedCall &C = Out[N.CB];
    C.Copy = Copy;
    C.StillNoted = llvm::any_of(
        N.Through, [&](const PlanEntry *E) { return !Decided.count(E); });
  }
  return Out;
}

} // namespace hmplace
