//===- ContainerCalls.cpp - calls that make standard containers allocate -===//
#include "ContainerCalls.h"
#include "Callers.h"
#include "ClangCompat.h"
#include "EditLocator.h"

#include "clang/AST/ASTContext.h"
#include "clang/AST/ParentMapContext.h"
#include "llvm/ADT/STLExtras.h"

using namespace clang;
using namespace llvm;

namespace hmplace {

/// Whether \p RD is a standard container, whose operations allocate
/// through std::allocator in the program's own code. Not std::string:
/// libstdc++ compiles basic_string<char> into itself (an extern template),
/// so its buffers are allocated inside the library, where HmPlace.so places
/// nothing (and what the optimizer happens to inline at -O2 it does): an
/// entry for it would promise what no build keeps.
static bool isStdContainer(const CXXRecordDecl *RD) {
  if (!RD || !RD->getIdentifier() || !RD->isInStdNamespace())
    return false;
  static const StringRef Containers[] = {"vector",        "deque",
                                         "list",          "forward_list",
                                         "map",           "multimap",
                                         "set",           "multiset",
                                         "unordered_map", "unordered_multimap",
                                         "unordered_set", "unordered_multiset"};
  return is_contained(Containers, RD->getName());
}

/// Whether the container method \p M may allocate.
static bool allocates(const CXXMethodDecl *M) {
  if (M->getOverloadedOperator() != OO_None)
    return M->getOverloadedOperator() == OO_Equal ||
           M->getOverloadedOperator() == OO_PlusEqual ||
           (M->getOverloadedOperator() == OO_Subscript &&
            M->getParent()->getName().ends_with("map"));
  if (!M->getIdentifier())
    return false;
  static const StringRef Growing[] = {
      "resize",       "reserve",          "push_back",   "emplace_back",
      "push_front",   "emplace_front",    "insert",      "emplace",
      "emplace_hint", "insert_or_assign", "try_emplace", "assign",
      "append",       "shrink_to_fit",    "rehash",      "merge"};
  return is_contained(Growing, M->getName());
}

void ContainerCalls::construction(const CXXConstructExpr *CE,
                                  const FunctionDecl *CurFn) {
  if (CE->getNumArgs() > 0 && standsAlone(CE))
    record(CE, CE->getConstructor()->getParent(), "", "", CurFn);
  defaultArgumentContainers(CE, CE->arguments(), CurFn);
}

void ContainerCalls::memberCall(const CXXMemberCallExpr *CE,
                                const FunctionDecl *CurFn) {
  const CXXMethodDecl *M = CE->getMethodDecl();
  if (M && !M->isConst() && allocates(M))
    record(CE, M->getParent(), M->getNameAsString(), "", CurFn);
}

void ContainerCalls::operatorCall(const CXXOperatorCallExpr *CE,
                                  const FunctionDecl *CurFn) {
  // v = w, s += t, m[key] on standard containers.
  const auto *M = dyn_cast_or_null<CXXMethodDecl>(CE->getDirectCallee());
  if (M && allocates(M))
    record(CE, M->getParent(), M->getNameAsString(), "", CurFn);
}

void ContainerCalls::call(const CallExpr *CE, const FunctionDecl *CurFn) {
  defaultArgumentContainers(CE, CE->arguments(), CurFn);
}

/// Whether the construction \p CE is a statement's own (a variable's
/// initialisation, an explicit temporary), not part of a new-expression or
/// a conversion: what a caller frame can note. Not a default argument's:
/// that runs, and is keyed, where the call is.
bool ContainerCalls::standsAlone(const CXXConstructExpr *CE) const {
  ASTContext &Ctx = L.context();
  DynTypedNodeList Ps = Ctx.getParents(*CE);
  for (DynTypedNodeList Up = Ps; !Up.empty() && Up[0].get<Expr>();)
    if ((Up = Ctx.getParents(Up[0])).empty() || Up[0].get<ParmVarDecl>())
      return false; // a default argument
  if (isa<CXXTemporaryObjectExpr>(CE))
    return true;
  while (!Ps.empty() &&
         (Ps[0].get<ExprWithCleanups>() || Ps[0].get<CXXBindTemporaryExpr>() ||
          Ps[0].get<MaterializeTemporaryExpr>()))
    Ps = Ctx.getParents(Ps[0]);
  return !Ps.empty() && ((Ps[0].get<VarDecl>() && !Ps[0].get<ParmVarDecl>()) ||
                         Ps[0].get<CXXFunctionalCastExpr>());
}

/// A standard container a default argument of the call \p E constructs
/// (`std::vector<double> w = std::vector<double>(n)`): its code runs where
/// the call is, which debug info (and so both front ends) names as its
/// user frame.
template <typename Args>
void ContainerCalls::defaultArgumentContainers(const Expr *E, Args Arguments,
                                               const FunctionDecl *CurFn) {
  for (const Expr *A : Arguments) {
    const auto *DA = dyn_cast<CXXDefaultArgExpr>(A);
    if (!DA)
      continue;
    const Expr *V = DA->getExpr()->IgnoreImplicit();
    if (const auto *FC = dyn_cast<CXXFunctionalCastExpr>(V))
      V = FC->getSubExpr()->IgnoreImplicit();
    const auto *CC = dyn_cast<CXXConstructExpr>(V);
    if (CC && CC->getNumArgs() > 0)
      record(E, CC->getConstructor()->getParent(), "",
             DA->getParam()->getName(), CurFn);
  }
}

/// A call that may make a standard container allocate, written in a file
/// of the program (its user frame).
void ContainerCalls::record(const Expr *E, const CXXRecordDecl *RD,
                            StringRef Method, StringRef DefaultOf,
                            const FunctionDecl *CurFn) {
  if (!isStdContainer(RD))
    return;
  ASTContext &Ctx = L.context();
  SourceManager &SM = L.sourceManager();
  SourceLocation At = SM.getExpansionLoc(E->getExprLoc());
  if (SM.isInSystemHeader(At))
    return;
  PresumedLoc PL = SM.getPresumedLoc(At);
  if (PL.isInvalid())
    return;
  CallRecord R;
  R.CompileDir = IDir;
  R.Key = makeSourcePos(L.normalizer(), PL.getFilename(), PL.getLine(),
                        L.keyColumn(At, PL.getColumn()));
  if (CurFn && CurFn->getIdentifier())
    R.Enclosing = CurFn->getName().str();
  QualType T = recordType(Ctx, RD);
  PrintingPolicy PP(Ctx.getLangOpts());
  PP.SuppressScope = false;
  R.note().ContainerOp = T.getAsString(PP);
  if (!Method.empty())
    R.note().ContainerOp += "::" + Method.str();
  if (!DefaultOf.empty())
    R.note().ContainerOp += " (default argument '" + DefaultOf.str() + "')";
  // The entry is offered only where the rewrite can note the call too.
  R.note().NoteProblem = callerNoteProblem(L, E, CurFn, IDir, R.Edit);
  Out.push_back(std::move(R));
}

} // namespace hmplace
