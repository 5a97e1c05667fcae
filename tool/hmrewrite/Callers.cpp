//===- Callers.cpp - caller frames of call-stack entries in the source ----===//
//
// HmPlace.so notes a caller frame right around the call: its arguments are
// evaluated before the frame is pushed, and the frame is gone when the call
// returns. A source wrapper covers a range of text instead, so the rewriter
// wraps only text whose evaluation calls nothing but the noted call itself
// (and calls written in the same macro use, which share its site key and
// which the pass notes the same way, one after another). Anything else would
// put allocations the pass leaves alone under the frame; such a call is not
// noted, and the run says why.
//
// Which form (hmplace.h): a declaration that a macro use is (DECLARE_ARRAY)
// is wrapped with HMPLACE_CALLER_DECL, so that the names it declares stay in
// scope; an expression statement with HMPLACE_CALLER_STMT; anything else
// with HMPLACE_CALLER, whose value is the wrapped expression's.
//
//===----------------------------------------------------------------------===//
#include "Callers.h"
#include "Rewrite.h"
#include "Spelling.h"

#include "clang/AST/ExprCXX.h"
#include "clang/AST/ParentMapContext.h"
#include "clang/AST/StmtCXX.h"
#include "clang/Basic/Builtins.h"
#include "clang/Lex/Lexer.h"

using namespace clang;
using namespace llvm;

namespace hmplace {

std::optional<Wrapper> parseWrapper(StringRef Buf, unsigned Offset,
                                    const LangOptions &LO) {
  if (Offset >= Buf.size())
    return std::nullopt;
  Lexer Lex(SourceLocation::getFromRawEncoding(1), LO, Buf.begin(),
            Buf.begin() + Offset, Buf.end());
  auto OffsetOf = [&](const Token &T) {
    return unsigned(T.getLocation().getRawEncoding() - 1);
  };
  Token T;
  auto Next = [&]() {
    Lex.LexFromRawLexer(T);
    return T;
  };
  auto Ident = [&](StringRef Name) {
    return T.is(tok::raw_identifier) && T.getRawIdentifier() == Name;
  };
  Wrapper W;
  W.Begin = Offset;
  Next();
  if (!T.is(tok::raw_identifier))
    return std::nullopt;
  StringRef Name = T.getRawIdentifier();
  if (Name == CallerMacro)
    W.Form = CallRecord::NoteExpr;
  else if (Name == CallerStmtMacro)
    W.Form = CallRecord::NoteStmt;
  else if (Name == CallerDeclMacro)
    W.Form = CallRecord::NoteDecl;
  else
    return std::nullopt;
  if (!Next().is(tok::l_paren))
    return std::nullopt;
  Next();
  if (!Ident(FrameMacro))
    return std::nullopt;
  W.FrameBegin = OffsetOf(T);
  if (!Next().is(tok::l_paren) || !Next().is(tok::string_literal))
    return std::nullopt;
  StringRef Lit(Buf.data() + OffsetOf(T), T.getLength());
  W.File = unquote(Lit);
  unsigned Nums[2];
  for (unsigned &N : Nums) {
    if (!Next().is(tok::comma) || !Next().is(tok::numeric_constant) ||
        StringRef(Buf.data() + OffsetOf(T), T.getLength()).getAsInteger(10, N))
      return std::nullopt;
  }
  W.Line = Nums[0];
  W.Column = Nums[1];
  if (!Next().is(tok::r_paren))
    return std::nullopt;
  W.FrameEnd = OffsetOf(T) + 1;
  if (!Next().is(tok::comma))
    return std::nullopt;
  Next();
  W.InnerBegin = OffsetOf(T);
  // The wrapped text ends before the parenthesis that closes the wrapper.
  unsigned Depth = 0, LastEnd = W.InnerBegin;
  for (; !T.is(tok::eof); Next()) {
    if (T.isOneOf(tok::l_paren, tok::l_square, tok::l_brace))
      ++Depth;
    else if (T.isOneOf(tok::r_paren, tok::r_square, tok::r_brace)) {
      if (Depth == 0) {
        if (!T.is(tok::r_paren))
          return std::nullopt;
        W.InnerEnd = LastEnd;
        W.End = OffsetOf(T) + 1;
        return W;
      }
      --Depth;
    }
    LastEnd = OffsetOf(T) + T.getLength();
  }
  return std::nullopt;
}

/// Whether \p S is a statement child of \p Parent (a statement position:
/// its value, if any, is discarded), not one of its expressions.
static bool inStatementPosition(const Stmt *S, const DynTypedNode &Parent,
                                ASTContext &Ctx) {
  const Stmt *P = Parent.get<Stmt>();
  if (!P)
    return false;
  if (const auto *CS = dyn_cast<CompoundStmt>(P)) {
    // The last statement of a GNU statement expression is its value.
    DynTypedNodeList G = Ctx.getParents(*CS);
    if (!G.empty() && G[0].get<StmtExpr>() && CS->body_back() == S)
      return false;
    return true;
  }
  if (const auto *If = dyn_cast<IfStmt>(P))
    return If->getThen() == S || If->getElse() == S;
  if (const auto *W = dyn_cast<WhileStmt>(P))
    return W->getBody() == S;
  if (const auto *D = dyn_cast<DoStmt>(P))
    return D->getBody() == S;
  if (const auto *F = dyn_cast<ForStmt>(P))
    return F->getBody() == S;
  if (const auto *F = dyn_cast<CXXForRangeStmt>(P))
    return F->getBody() == S;
  if (const auto *SC = dyn_cast<SwitchCase>(P))
    return SC->getSubStmt() == S;
  if (const auto *L = dyn_cast<LabelStmt>(P))
    return L->getSubStmt() == S;
  if (const auto *A = dyn_cast<AttributedStmt>(P))
    return A->getSubStmt() == S;
  return false;
}

/// A call in \p Root, other than \p Noted and calls written at the same
/// site key, whose evaluation could allocate: a function call (not a
/// builtin that is no library function), a constructor or destructor that
/// is not trivial, a new- or delete-expression. Null if there is none.
static const Stmt *otherCall(const Stmt *Root, const CallExpr *Noted,
                             SourceLocation NotedUse, ASTContext &Ctx) {
  SourceManager &SM = Ctx.getSourceManager();
  SmallVector<const Stmt *, 32> Work{Root};
  while (!Work.empty()) {
    const Stmt *S = Work.pop_back_val();
    if (!S)
      continue;
    bool Calls = false;
    if (const auto *CE = dyn_cast<CallExpr>(S)) {
      const FunctionDecl *FD = CE->getDirectCallee();
      unsigned ID = FD ? FD->getBuiltinID() : 0;
      Calls =
          CE != Noted && !(ID && !Ctx.BuiltinInfo.isPredefinedLibFunction(ID));
    } else if (const auto *CC = dyn_cast<CXXConstructExpr>(S)) {
      Calls = !CC->getConstructor()->isTrivial();
    } else if (const auto *BT = dyn_cast<CXXBindTemporaryExpr>(S)) {
      Calls = !BT->getTemporary()->getDestructor()->isTrivial();
    } else if (isa<CXXNewExpr, CXXDeleteExpr>(S)) {
      Calls = true;
    }
    if (Calls && SM.getExpansionLoc(S->getBeginLoc()) != NotedUse)
      return S;
    // Unevaluated operands run nothing.
    if (isa<UnaryExprOrTypeTraitExpr>(S) && S != Root)
      continue;
    for (const Stmt *Ch : S->children())
      Work.push_back(Ch);
  }
  return nullptr;
}

/// "'wrap' (main.c:5:10)" for a call found by otherCall().
static std::string describeCall(const Stmt *S, ASTContext &Ctx) {
  std::string What = "a constructor or destructor";
  if (const auto *CE = dyn_cast<CallExpr>(S)) {
    const FunctionDecl *FD = CE->getDirectCallee();
    What = FD ? "'" + FD->getNameAsString() + "'" : "a function";
  } else if (isa<CXXNewExpr>(S)) {
    What = "operator new";
  } else if (isa<CXXDeleteExpr>(S)) {
    What = "operator delete";
  }
  SourceManager &SM = Ctx.getSourceManager();
  PresumedLoc PL = SM.getPresumedLoc(SM.getExpansionLoc(S->getBeginLoc()));
  if (PL.isValid())
    What += " (line " + std::to_string(PL.getLine()) + ", column " +
            std::to_string(PL.getColumn()) + ")";
  return What;
}

void recordCaller(EditLocator &L, const CallExpr *CE, const FunctionDecl *CurFn,
                  StringRef CompileDir, std::vector<CallRecord> &Out) {
  const RewriteSession &S = L.session();
  if (!S.recordsCallers())
    return; // the common case: a plan without call-stack entries
  // The runtime's own calls are never callers.
  if (const FunctionDecl *FD = CE->getDirectCallee())
    if (FD->getIdentifier() && FD->getName().starts_with("hmplace_"))
      return;
  SourceManager &SM = L.sourceManager();
  ASTContext &Ctx = L.context();
  const LangOptions &LO = Ctx.getLangOpts();
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

  CharSourceRange Use = SM.getExpansionRange(CE->getSourceRange());
  FileID FID = SM.getFileID(Use.getBegin());
  const EditLocator::FileFacts &Facts = L.factsOf(FID);
  if (Facts.System) {
    R.Edit = CallRecord::InSystemHeader;
    Out.push_back(std::move(R));
    return;
  }
  if (FID != SM.getMainFileID() && !Facts.Selected)
    R.Edit = CallRecord::InOtherFile;
  if (Facts.Path.empty() || SM.getFileID(Use.getEnd()) != FID) {
    R.NoteProblem = "it spans files";
    Out.push_back(std::move(R));
    return;
  }
  R.EditFile = Facts.Path;
  unsigned UseBegin = L.offsetOf(Use.getBegin());
  unsigned UseEnd =
      L.offsetOf(Use.getEnd()) +
      (Use.isTokenRange() ? Lexer::MeasureTokenLength(Use.getEnd(), SM, LO)
                          : 0);
  StringRef Buf = SM.getBufferData(FID);

  // An earlier run's wrapper: the call is written in its argument.
  if (std::optional<Wrapper> W = parseWrapper(Buf, UseBegin, LO)) {
    R.AlreadyNoted = true;
    R.Form = W->Form;
    R.WrapBegin = W->Begin;
    R.WrapEnd = W->End;
    R.InnerBegin = W->InnerBegin;
    R.InnerEnd = W->InnerEnd;
    R.FrameBegin = W->FrameBegin;
    R.FrameEnd = W->FrameEnd;
    R.FrameFile = W->File;
    R.FrameLine = W->Line;
    R.FrameColumn = W->Column;
    Out.push_back(std::move(R));
    return;
  }
  R.NoteBegin = UseBegin;
  R.NoteEnd = UseEnd;
  if (!CurFn) {
    R.NoteProblem = "it is outside a function";
    Out.push_back(std::move(R));
    return;
  }

  // The node to wrap: the call, or the outermost node of its macro use.
  DynTypedNode Node = DynTypedNode::create(*CE);
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
  DynTypedNodeList Ps = Ctx.getParents(Node);
  DynTypedNode Parent = Ps.empty() ? DynTypedNode() : Ps[0];
  SourceRange NR = Node.getSourceRange();
  bool WholeUse = NR.getBegin().isFileID() ||
                  (Lexer::isAtStartOfMacroExpansion(NR.getBegin(), SM, LO) &&
                   Lexer::isAtEndOfMacroExpansion(NR.getEnd(), SM, LO));
  auto NextTokenIsSemi = [&] {
    std::optional<Token> T = Lexer::findNextToken(Use.getEnd(), SM, LO);
    return T && T->is(tok::semi);
  };

  const Stmt *Evaluated = nullptr; // what runs inside the wrapper
  if (const auto *VD = Node.get<VarDecl>()) {
    // A macro use that is a declaration (DECLARE_ARRAY(A, n, m);).
    const auto *DS = Parent.get<DeclStmt>();
    DynTypedNodeList G = DS ? Ctx.getParents(*DS) : DynTypedNodeList(Parent);
    if (!DS || G.empty() || !G[0].get<CompoundStmt>())
      R.NoteProblem = "its macro use declares a variable outside a block "
                      "(a for statement's, say), where no note can go";
    else if (!NextTokenIsSemi() ||
             SM.getExpansionLoc(DS->getBeginLoc()) != Use.getBegin())
      R.NoteProblem = "its macro use is only part of a declaration";
    R.Form = CallRecord::NoteDecl;
    Evaluated = DS;
    (void)VD;
  } else if (!WholeUse) {
    R.NoteProblem = "its macro use expands to more than one expression or "
                    "statement";
  } else if (const auto *E = Node.get<Expr>();
             E && !inStatementPosition(E, Parent, Ctx)) {
    R.Form = CallRecord::NoteExpr;
    Evaluated = E;
    const auto *Cast = Parent.get<ImplicitCastExpr>();
    bool ReadOnly = Cast && (Cast->getCastKind() == CK_LValueToRValue ||
                             Cast->getCastKind() == CK_FunctionToPointerDecay);
    if (!LO.CPlusPlus && E->isGLValue() && !ReadOnly)
      R.NoteProblem = "it is used as an lvalue, which HMPLACE_CALLER's value "
                      "cannot be in C";
    else if (E->getType()->isArrayType())
      R.NoteProblem = "its value is an array";
  } else if (const Stmt *St = Node.get<Stmt>()) {
    R.Form = CallRecord::NoteStmt;
    Evaluated = St;
    if (!NextTokenIsSemi())
      R.NoteProblem = "its macro use ends a statement without a ';'";
  } else {
    R.NoteProblem = "its macro use is not an expression, statement or "
                    "declaration";
  }
  if (Evaluated && R.NoteProblem.empty())
    if (const Stmt *X = otherCall(Evaluated, CE, Use.getBegin(), Ctx))
      R.NoteProblem =
          "the text to wrap also calls " + describeCall(X, Ctx) +
          ", which would run inside the note, while HmPlace.so notes the "
          "call alone, after its arguments are evaluated (evaluate that "
          "into a variable first)";
  Out.push_back(std::move(R));
}

} // namespace hmplace
