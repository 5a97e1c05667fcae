//===- FortranIR.cpp - which Fortran variable an ALLOCATE call fills ------===//
//
// flang 19 builds the new descriptor as a value (insertvalue of the malloc
// result), stores it into a temporary, loads it back and stores it into the
// variable: a module variable is a global (`_QM<module>E<name>`, with a
// DIGlobalVariable), a local or dummy an alloca or argument with a
// #dbg_declare. The search follows exactly those steps and nothing else.
//
//===----------------------------------------------------------------------===//
#include "FortranIR.h"
#include "plan/LLVMCompat.h"

#include "llvm/ADT/SmallPtrSet.h"
#include "llvm/Analysis/ValueTracking.h"
#include "llvm/IR/DebugInfo.h"
#include "llvm/IR/DebugInfoMetadata.h"
#include "llvm/IR/GlobalVariable.h"
#include "llvm/IR/Instructions.h"
#include "llvm/IR/IntrinsicInst.h"

using namespace llvm;

namespace hmplace {

/// The variable stored at \p P, if it is one with a name.
static std::string variableAt(const Value *P) {
  const Value *Base = getUnderlyingObject(P);
  if (const auto *GV = dyn_cast<GlobalVariable>(Base)) {
    SmallVector<DIGlobalVariableExpression *, 1> GVs;
    GV->getDebugInfo(GVs);
    if (!GVs.empty())
      return GVs.front()->getVariable()->getName().lower();
    // Without a DIGlobalVariable: flang's mangling, `_QM<module>E<name>`.
    StringRef N = GV->getName();
    size_t E = N.rfind('E');
    if (N.starts_with("_QM") && E != StringRef::npos)
      return N.drop_front(E + 1).lower();
    return "";
  }
  Value *V = const_cast<Value *>(Base);
  if (DILocalVariable *Var = declaredVariable(V))
    return Var->getName().lower();
  return "";
}

std::string allocatedObject(const CallBase &CB, bool Runtime) {
  if (Runtime)
    return CB.arg_size() ? variableAt(CB.getArgOperand(0)) : "";
  SmallVector<const Value *, 8> Work{&CB};
  SmallPtrSet<const Value *, 16> Seen;
  while (!Work.empty() && Seen.size() < 64) {
    const Value *V = Work.pop_back_val();
    if (!Seen.insert(V).second)
      continue;
    for (const User *U : V->users()) {
      if (isa<InsertValueInst>(U) || isa<CastInst>(U)) {
        Work.push_back(U);
      } else if (const auto *SI = dyn_cast<StoreInst>(U)) {
        if (SI->getValueOperand() != V)
          continue;
        const Value *To = SI->getPointerOperand();
        std::string Name = variableAt(To);
        if (!Name.empty())
          return Name;
        // A temporary: what is loaded back from it goes on, or it is
        // copied whole into the variable (flang 22: a memcpy of the
        // descriptor).
        const Value *Temp = getUnderlyingObject(To);
        for (const User *TU : Temp->users()) {
          if (isa<LoadInst>(TU))
            Work.push_back(TU);
          const auto *Copy = dyn_cast<MemTransferInst>(TU);
          if (Copy && getUnderlyingObject(Copy->getSource()) == Temp) {
            Name = variableAt(Copy->getDest());
            if (!Name.empty())
              return Name;
          }
        }
      }
    }
  }
  return "";
}

bool isCompilerTemporary(const CallBase &CB) {
  SmallVector<const Value *, 8> Work{&CB};
  SmallPtrSet<const Value *, 16> Seen;
  while (!Work.empty()) {
    const Value *V = Work.pop_back_val();
    if (!Seen.insert(V).second)
      continue;
    for (const User *U : V->users()) {
      if (isa<CastInst, GetElementPtrInst, PHINode, SelectInst>(U)) {
        Work.push_back(U);
      } else if (const auto *Free = dyn_cast<CallBase>(U)) {
        const Function *F = Free->getCalledFunction();
        if (F && F->getName() == "free" &&
            Free->getFunction() == CB.getFunction())
          return true;
      }
    }
  }
  return false;
}

} // namespace hmplace
