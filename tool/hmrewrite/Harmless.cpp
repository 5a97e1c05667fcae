//===- Harmless.cpp - calls that cannot reach an allocation ---------------===//
#include "Harmless.h"
#include "plan/AllocFns.h"

#include "clang/AST/Attr.h"
#include "clang/AST/DeclCXX.h"
#include "clang/AST/ExprCXX.h"
#include "clang/Basic/Builtins.h"
#include "clang/Basic/SourceManager.h"
#include "llvm/ADT/SmallVector.h"

#include <algorithm>

using namespace clang;
using namespace llvm;

namespace hmplace {

/// Bodies this deep in a chain of calls are not looked into (unknown).
static constexpr unsigned MaxDepth = 12;

static bool takesFunctionPointer(const FunctionDecl *FD) {
  for (const ParmVarDecl *P : FD->parameters()) {
    QualType T = P->getType();
    if (T->isFunctionPointerType() || T->isBlockPointerType() ||
        T->isMemberFunctionPointerType() || T->isFunctionReferenceType())
      return true;
  }
  return false;
}

bool HarmlessCalls::function(const FunctionDecl *FD) {
  if (!FD)
    return false; // a call through a pointer
  if (unsigned ID = FD->getBuiltinID())
    if (!Ctx.BuiltinInfo.isPredefinedLibFunction(ID))
      return true;
  if (FD->isReplaceableGlobalAllocationFunction() ||
      (FD->getDeclName().isIdentifier() && FD->getIdentifier() &&
       findAllocFn(FD->getName()) && findAllocFn(FD->getName())->allocates()))
    return false;
  const FunctionDecl *Def = nullptr;
  if (FD->hasBody(Def) && Def)
    return body(Def);
  // No body here: a C function of a system header that calls nothing back
  // (its own allocations are the C library's, which no plan places) -- but
  // not the runtime's entry points (hmplace.h may be a system header),
  // which choose a kind by the noted frames.
  SourceManager &SM = Ctx.getSourceManager();
  return FD->isExternC() && SM.isInSystemHeader(FD->getLocation()) &&
         !takesFunctionPointer(FD) &&
         !(FD->getIdentifier() && FD->getName().starts_with("hmplace_"));
}

bool HarmlessCalls::body(const FunctionDecl *Def) {
  auto It = Known.find(Def);
  if (It != Known.end())
    return It->second;
  // A call back into a function being decided (recursion): harmless if that
  // one is, which is not known yet. Every function decided in between
  // depends on it, and keeps no answer but "can allocate" until it is.
  if (auto S = OnStack.find(Def); S != OnStack.end()) {
    Low = std::min(Low, S->second);
    return true;
  }
  if (Depth >= MaxDepth)
    return false;
  unsigned Mine = Depth, OuterLow = Low;
  OnStack[Def] = Mine;
  Low = ~0u;
  ++Depth;
  bool OK = tree(Def->getBody());
  if (const auto *CD = dyn_cast<CXXConstructorDecl>(Def))
    for (const CXXCtorInitializer *I : CD->inits())
      OK = OK && tree(I->getInit());
  // A destructor also destroys the members and bases, with no AST for it.
  if (const auto *DD = dyn_cast<CXXDestructorDecl>(Def)) {
    const CXXRecordDecl *RD = DD->getParent();
    for (const FieldDecl *F : RD->fields())
      if (const CXXRecordDecl *FR =
              F->getType()->getBaseElementTypeUnsafe()->getAsCXXRecordDecl())
        if (FR->hasDefinition() && !FR->hasTrivialDestructor())
          OK = OK && function(FR->getDestructor());
    for (const CXXBaseSpecifier &B : RD->bases())
      if (const CXXRecordDecl *BR = B.getType()->getAsCXXRecordDecl())
        if (BR->hasDefinition() && !BR->hasTrivialDestructor())
          OK = OK && function(BR->getDestructor());
  }
  --Depth;
  OnStack.erase(Def);
  // "Harmless" resting on a function further out is provisional: decided
  // again when asked again (once that one is known, at once). "Can
  // allocate" is always sound.
  bool Provisional = Low < Mine;
  if (!OK || !Provisional)
    Known[Def] = OK;
  Low = std::min(OuterLow, OK && Provisional ? Low : ~0u);
  return OK;
}

bool HarmlessCalls::node(const Stmt *S) {
  if (const auto *MC = dyn_cast<CXXMemberCallExpr>(S)) {
    const CXXMethodDecl *MD = MC->getMethodDecl();
    if (MD && MD->isVirtual() && !MD->hasAttr<FinalAttr>() &&
        !MD->getParent()->hasAttr<FinalAttr>())
      return false; // which override runs is not known here
  }
  if (const auto *CE = dyn_cast<CallExpr>(S)) {
    const FunctionDecl *FD = CE->getDirectCallee();
    if (!function(FD))
      return false;
    // A C library function given a function (qsort's comparison) calls it.
    for (const Expr *A : CE->arguments())
      if (A->getType()->isFunctionPointerType())
        return false;
    return true;
  }
  if (const auto *CC = dyn_cast<CXXConstructExpr>(S)) {
    const CXXConstructorDecl *Ctor = CC->getConstructor();
    return Ctor->isTrivial() || function(Ctor);
  }
  if (const auto *BT = dyn_cast<CXXBindTemporaryExpr>(S)) {
    const CXXDestructorDecl *Dtor = BT->getTemporary()->getDestructor();
    return !Dtor || Dtor->isTrivial() || function(Dtor);
  }
  return !isa<CXXNewExpr, CXXDeleteExpr>(S);
}

bool HarmlessCalls::tree(const Stmt *Root) {
  SmallVector<const Stmt *, 32> Work{Root};
  while (!Work.empty()) {
    const Stmt *S = Work.pop_back_val();
    if (!S)
      continue;
    if (!node(S))
      return false;
    // Default arguments and member initializers are evaluated where used.
    if (const auto *DA = dyn_cast<CXXDefaultArgExpr>(S))
      Work.push_back(DA->getExpr());
    else if (const auto *DI = dyn_cast<CXXDefaultInitExpr>(S))
      Work.push_back(DI->getExpr());
    // A local variable's destructor runs at the end of its scope.
    if (const auto *DS = dyn_cast<DeclStmt>(S))
      for (const Decl *D : DS->decls())
        if (const auto *VD = dyn_cast<VarDecl>(D))
          if (const CXXRecordDecl *R = VD->getType()
                                           ->getBaseElementTypeUnsafe()
                                           ->getAsCXXRecordDecl())
            if (R->hasDefinition() && !R->hasTrivialDestructor() &&
                !function(R->getDestructor()))
              return false;
    if (isa<UnaryExprOrTypeTraitExpr>(S))
      continue; // unevaluated
    for (const Stmt *Ch : S->children())
      Work.push_back(Ch);
  }
  return true;
}

} // namespace hmplace
