//===- NoteForm.cpp - the note that covers exactly a caller's text -------===//
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
// with HMPLACE_CALLER, whose value is the wrapped expression's; a member's
// or one of several variables' constructor in its first argument
// (HMPLACE_CALLER_INIT).
//
//===----------------------------------------------------------------------===//
#include "NoteForm.h"
#include "Harmless.h"
#include "RawTokens.h"
#include "Wrappers.h"

#include "clang/AST/ExprCXX.h"
#include "clang/AST/ParentMapContext.h"
#include "clang/AST/StmtCXX.h"
#include "clang/Lex/Lexer.h"

using namespace clang;
using namespace llvm;

namespace hmplace {

/// Whether \p S is a statement child of \p Parent (a statement position:
/// its value, if any, is discarded), not one of its expressions.
bool inStatementPosition(const Stmt *S, const DynTypedNode &Parent,
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

/// A call in \p Root, other than \p Noted and the calls HmPlace.so notes
/// with it (those at the same site key: written in the same macro use),
/// whose evaluation could allocate: a function call, a constructor or
/// destructor, a new- or delete-expression, unless \p H proves it cannot
/// (Harmless.h). Null if there is none.
static const Stmt *otherCall(const Stmt *Root, const Expr *Noted,
                             ASTContext &Ctx, HarmlessCalls &H) {
  SourceManager &SM = Ctx.getSourceManager();
  SourceLocation NotedKey = SM.getExpansionLoc(Noted->getExprLoc());
  // Each node with the key its code has: a default argument's is its
  // call's (its code runs, and debug info puts it, where the call is).
  SmallVector<std::pair<const Stmt *, SourceLocation>, 32> Work{{Root, {}}};
  while (!Work.empty()) {
    auto [S, Key] = Work.pop_back_val();
    if (!S)
      continue;
    bool Call = isa<CallExpr, CXXConstructExpr, CXXBindTemporaryExpr,
                    CXXNewExpr, CXXDeleteExpr>(S);
    SourceLocation Own = Key.isValid() || !Call
                             ? Key
                             : SM.getExpansionLoc(cast<Expr>(S)->getExprLoc());
    if (S != Noted && Call && Own != NotedKey && !H.node(S))
      return S;
    if (const auto *DA = dyn_cast<CXXDefaultArgExpr>(S))
      Work.push_back({DA->getExpr(), Key});
    // Unevaluated operands run nothing.
    if (isa<UnaryExprOrTypeTraitExpr>(S) && S != Root)
      continue;
    for (const Stmt *Ch : S->children()) {
      SourceLocation ChKey = Key;
      if (Call && isa_and_nonnull<CXXDefaultArgExpr>(Ch))
        ChKey = S == Noted ? NotedKey : Own;
      Work.push_back({Ch, ChKey});
    }
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

/// Why the argument \p A cannot be forwarded unchanged to the call that
/// takes it (HMPLACE_CALL's lambda passes it on as it was evaluated), or
/// "": the conversion to its parameter, which would then run inside the
/// note, must call nothing that may allocate.
static std::string forwardProblem(const Expr *A, unsigned N, HarmlessCalls &H) {
  std::string Which = "its argument " + std::to_string(N + 1);
  const Expr *Top = A->IgnoreParens();
  if (isa<InitListExpr, CXXStdInitializerListExpr>(Top->IgnoreImplicit()))
    return Which + " is a braced list";
  if (A->refersToBitField())
    return Which + " is a bit-field";
  for (const Expr *E = A;;) {
    if (const auto *IC = dyn_cast<ImplicitCastExpr>(E)) {
      if (IC->getCastKind() == CK_NullToPointer)
        return Which + " is a null pointer constant (write nullptr)";
      E = IC->getSubExpr();
    } else if (const auto *MT = dyn_cast<MaterializeTemporaryExpr>(E)) {
      E = MT->getSubExpr();
    } else if (const auto *BT = dyn_cast<CXXBindTemporaryExpr>(E)) {
      E = BT->getSubExpr();
    } else if (const auto *EC = dyn_cast<ExprWithCleanups>(E)) {
      E = EC->getSubExpr();
    } else if (const auto *CC = dyn_cast<CXXConstructExpr>(E);
               CC && !isa<CXXTemporaryObjectExpr>(CC) &&
               CC->getParenOrBraceRange().isInvalid()) {
      // A copy or conversion the compiler adds: it would run in the note.
      if (!H.node(CC))
        return Which + " is copied or converted by a constructor of '" +
               CC->getConstructor()->getParent()->getNameAsString() +
               "' that may allocate";
      if (CC->getNumArgs() == 0)
        break;
      E = CC->getArg(0);
    } else if (const auto *MC = dyn_cast<CXXMemberCallExpr>(E);
               MC && isa_and_nonnull<CXXConversionDecl>(MC->getMethodDecl())) {
      if (!H.node(MC))
        return Which + " is converted by a conversion function that may "
                       "allocate";
      E = MC->getImplicitObjectArgument();
    } else {
      if (const auto *DR = dyn_cast<DeclRefExpr>(E->IgnoreParenImpCasts()))
        if (isa<FunctionDecl>(DR->getDecl()) && DR->hadMultipleCandidates())
          return Which + " names an overloaded function";
      break;
    }
  }
  return "";
}

/// Whether the file text [\p B, \p E) has a comma outside brackets (a macro
/// argument would end there).
static bool hasTopLevelComma(StringRef Buf, unsigned B, unsigned E,
                             const LangOptions &LO) {
  RawTokens R(Buf, B, LO);
  unsigned Depth = 0;
  for (R.next(); !R.tok().is(tok::eof) && R.offset() < E; R.next()) {
    if (R.tok().isOneOf(tok::l_paren, tok::l_square, tok::l_brace, tok::less))
      ++Depth;
    else if (R.tok().isOneOf(tok::r_paren, tok::r_square, tok::r_brace,
                             tok::greater) &&
             Depth)
      --Depth;
    else if (R.tok().is(tok::comma) && !Depth)
      return true;
  }
  return false;
}

/// The file range of \p E in \p FID, as offsets; false if it is not plain
/// text there.
static bool textRange(const Expr *E, FileID FID, EditLocator &L, unsigned &B,
                      unsigned &End) {
  SourceManager &SM = L.sourceManager();
  SourceRange R = E->getSourceRange();
  if (R.getBegin().isMacroID() || R.getEnd().isMacroID() ||
      SM.getFileID(R.getBegin()) != FID || SM.getFileID(R.getEnd()) != FID)
    return false;
  B = L.offsetOf(R.getBegin());
  End = L.offsetOf(R.getEnd()) +
        Lexer::MeasureTokenLength(R.getEnd(), SM, L.context().getLangOpts());
  return true;
}

/// The note around the call \p CE alone, after its arguments (operands)
/// are evaluated, as HmPlace.so places it: HMPLACE_CALL(frame, callee)(args)
/// or HMPLACE_BINARY(frame, l, OP, r) (C++14, hmplace.h). Fills \p N;
/// "" or why it cannot be.
static std::string notedCallForm(const Expr *CE, NoteSite &N, EditLocator &L) {
  ASTContext &Ctx = L.context();
  const LangOptions &LO = Ctx.getLangOpts();
  SourceManager &SM = L.sourceManager();
  HarmlessCalls &H = L.harmless();
  if (!LO.CPlusPlus)
    return "C has no form that notes the call alone";
  if (!LO.CPlusPlus14)
    return "the form that notes the call alone needs C++14";
  FileID FID = SM.getFileID(SM.getExpansionLoc(CE->getBeginLoc()));
  StringRef Buf = SM.getBufferData(FID);
  const auto *Call = dyn_cast<CallExpr>(CE);
  if (!Call)
    return "it is no function or operator call";
  if (const auto *OC = dyn_cast<CXXOperatorCallExpr>(CE)) {
    OverloadedOperatorKind K = OC->getOperator();
    if (OC->getNumArgs() != 2 || !OC->isInfixBinaryOp() || K == OO_Subscript ||
        K == OO_Call || K == OO_Comma || K == OO_AmpAmp || K == OO_PipePipe ||
        K == OO_ArrowStar)
      return "it is an operator call other than an infix binary one";
    unsigned LB, LE, RB, RE;
    if (!textRange(OC->getArg(0), FID, L, LB, LE) ||
        !textRange(OC->getArg(1), FID, L, RB, RE))
      return "an operand is written through a macro";
    if (hasTopLevelComma(Buf, LB, LE, LO))
      return "its left operand has a comma outside brackets";
    SourceLocation Op = OC->getOperatorLoc();
    if (Op.isMacroID())
      return "its operator is written through a macro";
    for (unsigned I = 0; I < 2; ++I) {
      std::string Why = forwardProblem(OC->getArg(I), I, H);
      if (!Why.empty())
        return Why;
    }
    N.Form = NoteSite::NoteBinary;
    N.NoteBegin = LB;
    N.LhsEnd = LE;
    N.OpEnd = L.offsetOf(Op) + Lexer::MeasureTokenLength(Op, SM, LO);
    N.NoteEnd = RE;
    return "";
  }
  const Expr *Callee = Call->getCallee();
  unsigned CB, CE2;
  if (!textRange(Callee, FID, L, CB, CE2))
    return "its callee is written through a macro";
  if (hasTopLevelComma(Buf, CB, CE2, LO))
    return "its callee's name has a comma outside brackets";
  // The callee (and a member call's object) is evaluated inside the note.
  if (const Stmt *X = otherCall(Callee, Call, Ctx, H))
    return "its callee's expression calls " + describeCall(X, Ctx);
  for (unsigned I = 0; I < Call->getNumArgs(); ++I) {
    if (isa<CXXDefaultArgExpr>(Call->getArg(I)))
      continue; // evaluated with the call, under its key, in both
    std::string Why = forwardProblem(Call->getArg(I), I, H);
    if (!Why.empty())
      return Why;
  }
  N.Form = NoteSite::NoteCall;
  N.NoteBegin = CB;
  N.NoteEnd = CE2;
  return "";
}

namespace {
/// chooseNoteForm's work: the form that wraps exactly the text to wrap, and
/// that nothing else evaluated inside it calls anything.
/// (The text it decides for is its base: the methods name its fields.)
class NoteFormChooser : TextToWrap {
public:
  NoteFormChooser(EditLocator &L, const TextToWrap &T, NoteSite &N)
      : TextToWrap(T), L(L), SM(L.sourceManager()), Ctx(L.context()),
        LO(Ctx.getLangOpts()), N(N) {}

  void run(bool OnArgument) {
    if (OnArgument)
      noteFirstArgument();
    else
      chooseForm();
  }

private:
  void noteFirstArgument();
  void chooseForm();
  const Stmt *formForNode(const DynTypedNode &Node, const DynTypedNode &Parent);
  void checkEvaluated(const Stmt *Evaluated, const DynTypedNode &Node);
  /// Whether \p SR covers exactly the text to wrap.
  bool inside(SourceRange SR) const {
    CharSourceRange X = SM.getExpansionRange(SR);
    return X.getBegin() == Use.getBegin() && X.getEnd() == Use.getEnd();
  }
  /// A statement of the block that the text to wrap begins (all of them,
  /// when that text is one macro use).
  bool begins(const Stmt *St) const {
    return SM.getExpansionLoc(St->getBeginLoc()) == Use.getBegin();
  }
  bool nextTokenIsSemi() const {
    std::optional<Token> T = Lexer::findNextToken(Use.getEnd(), SM, LO);
    return T && T->is(tok::semi);
  }
  /// A statement that ends inside the macro use, before the ';' the macro
  /// writes itself (`#define DECL(v, n) double *v; v = alloc(n);`): what
  /// follows it there is that ';', no other statement begins in the use.
  bool endsInsideUse(const Stmt *St) const {
    SourceLocation End = St->getEndLoc();
    return End.isMacroID() && inside(SourceRange(End, End));
  }
  /// A declaration that a macro use begins ends at the ';' written after it.
  bool endsAtSemi(const Stmt *St) const {
    std::optional<Token> T = Lexer::findNextToken(Use.getEnd(), SM, LO);
    return isa<DeclStmt>(St) && T && T->is(tok::semi) &&
           St->getEndLoc() == T->getLocation();
  }

  EditLocator &L;
  SourceManager &SM;
  ASTContext &Ctx;
  const LangOptions &LO;
  NoteSite &N;
};
} // namespace

/// A member's or one of several variables' constructor: the guard goes
/// around the first written argument; the others are evaluated in no set
/// order around it, so none may call anything.
void NoteFormChooser::noteFirstArgument() {
  const Expr *First =
      Construct->getNumArgs() && !isa<CXXDefaultArgExpr>(Construct->getArg(0))
          ? Construct->getArg(0)
          : nullptr;
  if (!First) {
    N.NoteProblem =
        InitOf ? "it default-initialises a member, with no argument to "
                 "hold the note"
               : "it default-initialises one of several variables "
                 "declared together, with no argument to hold the note "
                 "(declare it on its own)";
    return;
  }
  CharSourceRange AR = SM.getExpansionRange(First->getSourceRange());
  if (SM.getFileID(AR.getBegin()) != FID || SM.getFileID(AR.getEnd()) != FID) {
    N.NoteProblem = "its first argument spans files";
    return;
  }
  if (std::optional<Wrapper> W =
          parseWrapper(Buf, L.offsetOf(AR.getBegin()), LO)) {
    noteWrapper(N, *W, Buf);
    return;
  }
  N.Form = NoteSite::NoteInit;
  N.NoteBegin = L.offsetOf(AR.getBegin());
  N.NoteEnd =
      L.offsetOf(AR.getEnd()) +
      (AR.isTokenRange() ? Lexer::MeasureTokenLength(AR.getEnd(), SM, LO) : 0);
  for (const Expr *A : Construct->arguments())
    if (const Stmt *X = otherCall(A, CE, Ctx, L.harmless())) {
      N.NoteProblem =
          "its arguments call " + describeCall(X, Ctx) +
          ", which would run inside the note, while HmPlace.so notes "
          "the constructor alone, after its arguments are evaluated";
      return;
    }
}

/// The node to wrap (the call, the outermost node of its macro use, or the
/// variable a constructor initialises), the form that wraps it, and what
/// runs inside.
void NoteFormChooser::chooseForm() {
  N.NoteBegin = UseBegin;
  N.NoteEnd = UseEnd;
  DynTypedNode Node = DynTypedNode::create(*CE);
  if (DeclOf && DeclOf->isSingleDecl())
    Node = DynTypedNode::create(*DeclOf->getSingleDecl());
  for (;;) {
    DynTypedNodeList Ps = Ctx.getParents(Node);
    if (Ps.empty() || !inside(Ps[0].getSourceRange()))
      break;
    Node = Ps[0];
  }
  DynTypedNodeList Ps = Ctx.getParents(Node);
  DynTypedNode Parent = Ps.empty() ? DynTypedNode() : Ps[0];
  checkEvaluated(formForNode(Node, Parent), Node);
}

/// The form for the node to wrap; what runs inside the wrapper.
const Stmt *NoteFormChooser::formForNode(const DynTypedNode &Node,
                                         const DynTypedNode &Parent) {
  SourceRange NR = Node.getSourceRange();
  bool WholeUse = NR.getBegin().isFileID() ||
                  (Lexer::isAtStartOfMacroExpansion(NR.getBegin(), SM, LO) &&
                   Lexer::isAtEndOfMacroExpansion(NR.getEnd(), SM, LO));
  if (Node.get<VarDecl>()) {
    // A macro use that is a declaration (DECLARE_ARRAY(A, n, m);).
    const auto *DS = Parent.get<DeclStmt>();
    DynTypedNodeList G = DS ? Ctx.getParents(*DS) : DynTypedNodeList(Parent);
    if (!DS || G.empty() || !G[0].get<CompoundStmt>())
      N.NoteProblem = "its macro use declares a variable outside a block "
                      "(a for statement's, say), where no note can go";
    else if (SM.getExpansionLoc(DS->getBeginLoc()) != Use.getBegin() ||
             (!nextTokenIsSemi() && !endsInsideUse(DS)))
      N.NoteProblem = "its macro use is only part of a declaration";
    N.Form = nextTokenIsSemi() ? NoteSite::NoteDecl : NoteSite::NoteStmts;
    return G.empty() ? nullptr : G[0].get<CompoundStmt>();
  }
  if (!WholeUse) {
    // A macro use that is several statements of a block (`DECL(A, n);` as
    // `double *A; A = alloc(n);`): all of them, with the names they
    // declare kept in scope.
    SmallVector<const Stmt *, 4> Sts;
    if (const auto *CS = Parent.get<CompoundStmt>())
      for (const Stmt *St : CS->body())
        if (begins(St))
          Sts.push_back(St);
    if (Sts.empty() ||
        !Lexer::isAtStartOfMacroExpansion(Sts.front()->getBeginLoc(), SM, LO) ||
        !(Lexer::isAtEndOfMacroExpansion(Sts.back()->getEndLoc(), SM, LO) ||
          endsAtSemi(Sts.back()) || endsInsideUse(Sts.back())))
      N.NoteProblem = "its macro use expands to more than one expression or "
                      "statement";
    else if (!nextTokenIsSemi() && !endsInsideUse(Sts.back()))
      N.NoteProblem = "its macro use ends a statement without a ';'";
    N.Form = nextTokenIsSemi() ? NoteSite::NoteDecl : NoteSite::NoteStmts;
    return Parent.get<CompoundStmt>();
  }
  if (const auto *E = Node.get<Expr>();
      E && !inStatementPosition(E, Parent, Ctx)) {
    N.Form = NoteSite::NoteExpr;
    const auto *Cast = Parent.get<ImplicitCastExpr>();
    bool ReadOnly = Cast && (Cast->getCastKind() == CK_LValueToRValue ||
                             Cast->getCastKind() == CK_FunctionToPointerDecay);
    if (!LO.CPlusPlus && E->isGLValue() && !ReadOnly)
      N.NoteProblem = "it is used as an lvalue, which HMPLACE_CALLER's value "
                      "cannot be in C";
    else if (E->getType()->isArrayType())
      N.NoteProblem = "its value is an array";
    return E;
  }
  if (const Stmt *St = Node.get<Stmt>()) {
    // A macro use that writes its own ';' (`#define DECL(v, n) double *v =
    // alloc(n);`) may have none after it; a declaration keeps its names in
    // scope.
    bool Semi = nextTokenIsSemi();
    N.Form = !Semi               ? NoteSite::NoteStmts
             : isa<DeclStmt>(St) ? NoteSite::NoteDecl
                                 : NoteSite::NoteStmt;
    if (!Semi && !endsInsideUse(St))
      N.NoteProblem = "its macro use ends a statement without a ';'";
    return St;
  }
  N.NoteProblem = "its macro use is not an expression, statement or "
                  "declaration";
  return nullptr;
}

/// Nothing else that runs inside the wrapper may change what the note
/// places (otherCall); where something might, the call noted alone (C++14:
/// notedCallForm) or the reason there is no note.
void NoteFormChooser::checkEvaluated(const Stmt *Evaluated,
                                     const DynTypedNode &Node) {
  // A block stands for its statements written in the macro use.
  SmallVector<const Stmt *, 4> Run;
  if (const auto *CS = dyn_cast_or_null<CompoundStmt>(Evaluated);
      CS && (N.Form == NoteSite::NoteDecl || N.Form == NoteSite::NoteStmts)) {
    for (const Stmt *St : CS->body())
      if (begins(St))
        Run.push_back(St);
  } else if (Evaluated) {
    Run.push_back(Evaluated);
  }
  for (const Stmt *St : Run) {
    const Stmt *X =
        N.NoteProblem.empty() ? otherCall(St, CE, Ctx, L.harmless()) : nullptr;
    if (!X)
      continue;
    const Expr *NodeE = Node.get<Expr>();
    std::string Why =
        NodeE && NodeE->IgnoreImplicit() == CE && !CE->getBeginLoc().isMacroID()
            ? notedCallForm(CE, N, L)
            : "it is written through a macro";
    if (Why.empty())
      return;
    N.NoteProblem =
        "the text to wrap also calls " + describeCall(X, Ctx) +
        ", which would run inside the note, while HmPlace.so notes the "
        "call alone, after its arguments are evaluated, and " +
        Why + " (evaluate that into a variable first)";
  }
}

void chooseNoteForm(EditLocator &L, const TextToWrap &T, NoteSite &N) {
  NoteFormChooser(L, T, N).run(T.InitOf || T.SeveralDeclared);
}

} // namespace hmplace
