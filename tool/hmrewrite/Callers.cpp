//===- Callers.cpp - caller frames of call-stack entries in the source ----===//
//
// The call is wrapped as `({ push; CALL; })` (a GNU statement expression: its
// value is the call's, of any type in C, and the cleanup attribute restores
// the stack also when an exception leaves the call). A call written through
// a macro is wrapped at the macro use, which must then be an expression or a
// statement.
//
//===----------------------------------------------------------------------===//
#include "Callers.h"
#include "Rewrite.h"

#include "clang/AST/ParentMapContext.h"
#include "clang/Lex/Lexer.h"

using namespace clang;
using namespace llvm;

namespace hmplace {

/// The name of the variable a noted call's wrapper declares; how a rerun
/// recognises a caller frame it already wrapped.
static constexpr llvm::StringLiteral NoteVar = "hm_ctx_";

void recordCaller(EditLocator &L, const CallExpr *CE, const FunctionDecl *CurFn,
                  StringRef CompileDir, std::vector<CallRecord> &Out) {
  const RewriteSession &S = L.session();
  if (!S.recordsCallers())
    return; // the common case: a plan without call-stack entries
  // The runtime's own calls (an earlier run's pushes) are never callers.
  if (const FunctionDecl *FD = CE->getDirectCallee())
    if (FD->getIdentifier() && FD->getName().starts_with("hmplace_"))
      return;
  SourceManager &SM = L.sourceManager();
  ASTContext &Ctx = L.context();
  SourceLocation Begin = CE->getBeginLoc();
  PresumedLoc PL = SM.getPresumedLoc(SM.getExpansionLoc(Begin));
  if (PL.isInvalid() || !S.isNoteLine(PL.getLine()))
    return;
  CallRecord R;
  R.CompileDir = CompileDir;
  R.Key = makeSourcePos(L.normalizer(), PL.getFilename(), PL.getLine(),
                        PL.getColumn());
  if (CurFn && CurFn->getIdentifier())
    R.Enclosing = CurFn->getName().str();
  if (const FunctionDecl *FD = CE->getDirectCallee())
    if (FD->getIdentifier())
      R.Callee = FD->getName().str();
  // The node to wrap: the call, or the outermost node of its macro use.
  DynTypedNode Node = DynTypedNode::create(*CE);
  CharSourceRange Use = SM.getExpansionRange(CE->getSourceRange());
  auto Inside = [&](SourceRange SR) {
    CharSourceRange X = SM.getExpansionRange(SR);
    return X.getBegin() == Use.getBegin() && X.getEnd() == Use.getEnd();
  };
  for (;;) {
    DynTypedNodeList Ps = Ctx.getParents(Node);
    if (Ps.empty() || !Inside(Ps[0].getSourceRange()))
      break;
    Node = Ps[0];
  }
  // Already wrapped by an earlier run: the parent is `({ ...; CALL; })`.
  DynTypedNodeList Ps = Ctx.getParents(Node);
  if (!Ps.empty())
    if (const auto *CS = Ps[0].get<CompoundStmt>()) {
      DynTypedNodeList G = Ctx.getParents(*CS);
      const auto *SE = G.empty() ? nullptr : G[0].get<StmtExpr>();
      const auto *DS =
          CS->body_empty() ? nullptr : dyn_cast<DeclStmt>(CS->body_front());
      const auto *VD = DS && DS->isSingleDecl()
                           ? dyn_cast<VarDecl>(DS->getSingleDecl())
                           : nullptr;
      if (SE && VD && VD->getName() == NoteVar) {
        R.AlreadyNoted = true;
        // The wrapper begins where the call began: at `__extension__`.
        SourceLocation WrapBegin = SE->getBeginLoc();
        DynTypedNodeList SP = Ctx.getParents(*SE);
        if (const auto *UO = SP.empty() ? nullptr : SP[0].get<UnaryOperator>())
          if (UO->getOpcode() == UO_Extension)
            WrapBegin = UO->getBeginLoc();
        PresumedLoc SL = SM.getPresumedLoc(SM.getExpansionLoc(WrapBegin));
        R.Key = makeSourcePos(L.normalizer(), SL.getFilename(), SL.getLine(),
                              SL.getColumn());
        Out.push_back(std::move(R));
        return;
      }
    }
  const Expr *E = Node.get<Expr>();
  FileID FID = SM.getFileID(Use.getBegin());
  SourceRange NR = Node.getSourceRange();
  bool WholeUse =
      NR.getBegin().isFileID() ||
      (Lexer::isAtStartOfMacroExpansion(NR.getBegin(), SM, Ctx.getLangOpts()) &&
       Lexer::isAtEndOfMacroExpansion(NR.getEnd(), SM, Ctx.getLangOpts()));
  if (!CurFn)
    R.NoteProblem = "it is outside a function";
  else if (!WholeUse)
    R.NoteProblem = "its macro use expands to more than one expression or "
                    "statement (a declaration, say)";
  else if (!E && !Node.get<Stmt>())
    R.NoteProblem = "its macro use is not an expression or statement";
  else if (E && E->isGLValue() && !E->getType()->isFunctionType())
    R.NoteProblem = "it is an lvalue, which the wrapper would make a copy of";
  else if (E && Ctx.getLangOpts().CPlusPlus && !E->getType()->isVoidType() &&
           !E->getType()->isScalarType())
    R.NoteProblem = "it returns a class object, which the wrapper would copy";
  else if (SM.isInSystemHeader(Use.getBegin()))
    R.Edit = CallRecord::InSystemHeader;
  else if (SM.getFileID(Use.getEnd()) != FID || Use.getBegin().isMacroID())
    R.NoteProblem = "it spans files or macro bodies";
  else if (FID != SM.getMainFileID() && !L.factsOf(FID).Selected)
    R.Edit = CallRecord::InOtherFile;
  if (!L.factsOf(FID).Path.empty()) {
    R.EditFile = L.factsOf(FID).Path;
    SourceLocation End = Use.getEnd();
    R.NoteBegin = L.offsetOf(Use.getBegin());
    R.NoteEnd = L.offsetOf(End) +
                (Use.isTokenRange()
                     ? Lexer::MeasureTokenLength(End, SM, Ctx.getLangOpts())
                     : 0);
  }
  Out.push_back(std::move(R));
}

} // namespace hmplace
