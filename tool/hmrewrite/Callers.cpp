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
#include "Harmless.h"
#include "RawTokens.h"
#include "Rewrite.h"
#include "Spelling.h"

#include "clang/AST/ExprCXX.h"
#include "clang/AST/ParentMapContext.h"
#include "clang/AST/StmtCXX.h"
#include "clang/AST/StmtOpenMP.h"
#include "clang/Basic/Builtins.h"
#include "clang/Basic/CharInfo.h"
#include "clang/Basic/OpenMPKinds.h"
#include "clang/Lex/Lexer.h"
#include "llvm/Support/Path.h"

using namespace clang;
using namespace llvm;

namespace hmplace {

/// `HMPLACE_FRAME("f.c", L, C)` or `HMPLACE_AT(L, C)` at the current
/// token: its values (no file for the second: the one it is written in),
/// and the range in FrameBegin/FrameEnd.
static bool parseFrame(RawTokens &R, Wrapper &W) {
  bool Here = R.ident(HereMacro);
  if (!Here && !R.ident(FrameMacro))
    return false;
  W.FrameBegin = R.offset();
  if (!R.next().is(tok::l_paren))
    return false;
  if (!Here) {
    if (!R.next().is(tok::string_literal))
      return false;
    W.File = unquote(R.text());
  }
  unsigned Nums[2];
  for (unsigned I = 0; I < 2; ++I) {
    bool Comma = I > 0 || !Here;
    if ((Comma && !R.next().is(tok::comma)) ||
        !R.next().is(tok::numeric_constant) ||
        R.text().getAsInteger(10, Nums[I]))
      return false;
  }
  W.Line = Nums[0];
  W.Column = Nums[1];
  if (!R.next().is(tok::r_paren))
    return false;
  W.FrameEnd = R.end();
  return true;
}

/// A wrapper's first argument: a frame, or HMPLACE_CONTAINERS(frame, ...).
static bool parseFirstArgument(RawTokens &R, Wrapper &W) {
  W.FirstBegin = R.offset();
  if (R.ident(ContainersMacro)) {
    if (!R.next().is(tok::l_paren))
      return false;
    R.next();
    if (!parseFrame(R, W) || !R.skipToClose())
      return false;
  } else if (!parseFrame(R, W)) {
    return false;
  }
  W.FirstEnd = R.end();
  return true;
}

std::optional<Wrapper> parseWrapper(StringRef Buf, unsigned Offset,
                                    const LangOptions &LO) {
  if (Offset >= Buf.size())
    return std::nullopt;
  RawTokens R(Buf, Offset, LO);
  Wrapper W;
  W.Begin = Offset;
  // `(HMPLACE_CALLER_INIT(frame), ARG)`: a member constructor's first
  // argument.
  bool Init = false;
  if (R.next().is(tok::l_paren)) {
    Init = true;
    R.next();
  }
  if (!R.tok().is(tok::raw_identifier))
    return std::nullopt;
  StringRef Name = R.tok().getRawIdentifier();
  if (Init != (Name == CallerInitMacro))
    return std::nullopt;
  if (Name == CallerMacro)
    W.Form = NoteSite::NoteExpr;
  else if (Name == CallerStmtMacro)
    W.Form = NoteSite::NoteStmt;
  else if (Name == CallerDeclMacro)
    W.Form = NoteSite::NoteDecl;
  else if (Name == CallerStmtsMacro)
    W.Form = NoteSite::NoteStmts;
  else if (Name == CallerInitMacro)
    W.Form = NoteSite::NoteInit;
  else if (Name == CallMacro)
    W.Form = NoteSite::NoteCall;
  else if (Name == BinaryMacro)
    W.Form = NoteSite::NoteBinary;
  else
    return std::nullopt;
  if (!R.next().is(tok::l_paren))
    return std::nullopt;
  R.next();
  if (!parseFirstArgument(R, W))
    return std::nullopt;
  if (Init && !R.next().is(tok::r_paren))
    return std::nullopt;
  if (!R.next().is(tok::comma))
    return std::nullopt;
  R.next();
  W.InnerBegin = R.offset();
  // The wrapped text ends before the parenthesis that closes the wrapper.
  unsigned Depth = 0, LastEnd = W.InnerBegin;
  for (; !R.tok().is(tok::eof); R.next()) {
    if (R.tok().is(tok::comma) && Depth == 0 && W.Form == NoteSite::NoteBinary)
      (W.Comma1 ? W.Comma2 : W.Comma1) = R.offset();
    if (R.tok().isOneOf(tok::l_paren, tok::l_square, tok::l_brace))
      ++Depth;
    else if (R.tok().isOneOf(tok::r_paren, tok::r_square, tok::r_brace)) {
      if (Depth == 0) {
        if (!R.tok().is(tok::r_paren))
          return std::nullopt;
        W.InnerEnd = LastEnd;
        W.End = R.end();
        return W;
      }
      --Depth;
    }
    LastEnd = R.end();
  }
  return std::nullopt;
}

std::optional<Wrapper> parseWrapperNamedAt(StringRef Buf, unsigned NameAt,
                                           const LangOptions &LO) {
  bool Init = NameAt > 0 && Buf[NameAt - 1] == '(' &&
              Buf.substr(NameAt).starts_with(CallerInitMacro);
  return parseWrapper(Buf, Init ? NameAt - 1 : NameAt, LO);
}

/// `NAME(HMPLACE_FRAME("f.c", L, C));` at \p Offset of \p Buf: the block
/// note's two parts. Begin/End cover the text up to the semicolon.
static std::optional<Wrapper> parseBlockPart(StringRef Buf, unsigned Offset,
                                             StringRef Name,
                                             const LangOptions &LO) {
  RawTokens R(Buf, Offset, LO);
  Wrapper W;
  W.Form = NoteSite::NoteBlock;
  R.next();
  if (!R.ident(Name))
    return std::nullopt;
  W.Begin = R.offset();
  if (!R.next().is(tok::l_paren))
    return std::nullopt;
  R.next();
  if (!parseFirstArgument(R, W) || !R.next().is(tok::r_paren) ||
      !R.next().is(tok::semi))
    return std::nullopt;
  W.End = R.end();
  return W;
}

/// An earlier run's wrapper \p W of the call recorded in \p N.
static void noteWrapper(NoteSite &N, const Wrapper &W, StringRef Buf) {
  N.AlreadyNoted = true;
  N.Form = W.Form;
  N.WrapBegin = W.Begin;
  N.WrapEnd = W.End;
  N.InnerBegin = W.InnerBegin;
  N.InnerEnd = W.InnerEnd;
  N.FirstBegin = W.FirstBegin;
  N.FirstEnd = W.FirstEnd;
  N.FirstText = Buf.slice(W.FirstBegin, W.FirstEnd).str();
  N.Comma1 = W.Comma1;
  N.Comma2 = W.Comma2;
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

/// Whether \p E is (in) a default argument as its function declares it:
/// its code runs at each call, which debug info names as its position.
static bool inDefaultArgument(const Expr *E, ASTContext &Ctx) {
  DynTypedNodeList Ps = Ctx.getParents(*E);
  while (!Ps.empty() && Ps[0].get<Expr>())
    Ps = Ctx.getParents(Ps[0]);
  return !Ps.empty() && Ps[0].get<ParmVarDecl>();
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

/// Whether \p Offset of \p Buf is in a preprocessing directive (a line
/// that begins with '#', or one it continues with a backslash).
static bool inDirective(StringRef Buf, unsigned Offset) {
  size_t Begin = Buf.take_front(Offset).rfind('\n') + 1; // npos + 1 == 0
  while (Begin >= 2 && Buf[Begin - 2] == '\\')
    Begin = Buf.take_front(Begin - 1).rfind('\n') + 1;
  StringRef Line = Buf.substr(Begin).ltrim(" \t");
  return Line.starts_with("#");
}

/// Whether a note written at \p At of \p FID (text \p Buf) may name its
/// frame in \p KeyFile as HMPLACE_AT(line, column): __FILE_NAME__ there is
/// the frame's file (not so in a directive: a macro body takes the name of
/// where it is used).
static bool canSayHere(SourceManager &SM, FileID FID, StringRef Buf,
                       unsigned At, StringRef KeyFile) {
  if (FID.isInvalid() || At > Buf.size() || inDirective(Buf, At))
    return false;
  PresumedLoc P = SM.getPresumedLoc(SM.getComposedLoc(FID, At));
  return P.isValid() &&
         sys::path::filename(P.getFilename()) == sys::path::filename(KeyFile);
}

void recordRegion(EditLocator &L, const OMPExecutableDirective *D,
                  const FunctionDecl *CurFn, StringRef CompileDir,
                  std::vector<CallRecord> &Out) {
  const RewriteSession &S = L.session();
  SourceManager &SM = L.sourceManager();
  ASTContext &Ctx = L.context();
  const LangOptions &LO = Ctx.getLangOpts();
  OpenMPDirectiveKind DK = D->getDirectiveKind();
  if (!isOpenMPParallelDirective(DK))
    return; // only a parallel region is a call to the program's own code
  PresumedLoc PL = SM.getPresumedLoc(SM.getExpansionLoc(D->getBeginLoc()));
  if (PL.isInvalid())
    return;
  // An earlier run's note is looked at whatever the plan says now.
  bool Wrapped = false;
  if (const auto *LD = dyn_cast<OMPLoopDirective>(D)) {
    if (const auto *CS = dyn_cast_or_null<CompoundStmt>(LD->getBody()))
      Wrapped = !CS->body_empty() &&
                CS->body_front()->getBeginLoc().isMacroID() &&
                Lexer::getImmediateMacroName(CS->body_front()->getBeginLoc(),
                                             SM, LO) == BlockMacro;
  } else if (D->hasAssociatedStmt()) {
    if (const auto *CS = dyn_cast<CompoundStmt>(D->getStructuredBlock()))
      Wrapped = !CS->body_empty() &&
                CS->body_front()->getBeginLoc().isMacroID() &&
                Lexer::getImmediateMacroName(CS->body_front()->getBeginLoc(),
                                             SM, LO) == BlockMacro;
  }
  if (!Wrapped && (!S.recordsCallers() || !S.isNoteLine(PL.getLine())))
    return;
  CallRecord R;
  R.note().Form = NoteSite::NoteBlock;
  R.note().CPlusPlus = LO.CPlusPlus;
  R.CompileDir = CompileDir;
  R.Key = makeSourcePos(L.normalizer(), PL.getFilename(), PL.getLine(),
                        PL.getColumn());
  if (CurFn && CurFn->getIdentifier())
    R.Enclosing = CurFn->getName().str();
  R.note().Callee = "OpenMP region";
  auto Done = [&](const char *Problem = nullptr) {
    if (Problem)
      R.note().NoteProblem = Problem;
    Out.push_back(std::move(R));
  };
  if (isOpenMPTargetExecutionDirective(DK) || isOpenMPTeamsDirective(DK) ||
      DK == llvm::omp::OMPD_parallel_sections)
    return Done("it is an OpenMP region of a kind the rewriter does not "
                "note (only parallel regions and parallel loops)");
  const Stmt *Body = nullptr;
  if (const auto *LD = dyn_cast<OMPLoopDirective>(D))
    Body = LD->getBody();
  else if (D->hasAssociatedStmt())
    Body = D->getStructuredBlock();
  if (!Body)
    return Done("its region has no body");
  CharSourceRange BR = SM.getExpansionRange(Body->getSourceRange());
  FileID FID = SM.getFileID(BR.getBegin());
  const EditLocator::FileFacts &Facts = L.factsOf(FID);
  if (Facts.System) {
    R.Edit = CallRecord::InSystemHeader;
    return Done();
  }
  if (FID != SM.getMainFileID() && !Facts.Selected)
    R.Edit = CallRecord::InOtherFile;
  if (Facts.Path.empty() || SM.getFileID(BR.getEnd()) != FID ||
      Body->getBeginLoc().isMacroID() || Body->getEndLoc().isMacroID())
    return Done("its region's body is written in a macro");
  R.EditFile = Facts.Path;
  StringRef Buf = SM.getBufferData(FID);
  R.note().Here =
      canSayHere(SM, FID, Buf, L.offsetOf(BR.getBegin()), R.Key.File);
  if (const auto *CS = dyn_cast<CompoundStmt>(Body)) {
    unsigned Open = L.offsetOf(CS->getLBracLoc()) + 1;
    unsigned Close = L.offsetOf(CS->getRBracLoc());
    // An earlier run's note: the block's first and last statements.
    unsigned First = Open;
    while (First < Close && isWhitespace(Buf[First]))
      ++First;
    std::optional<Wrapper> W = parseBlockPart(Buf, First, BlockMacro, LO);
    if (W) {
      unsigned Last = Close;
      // The closing part ends right before the brace, after white space.
      size_t EndAt = Buf.take_front(Close).rfind(BlockEndMacro);
      std::optional<Wrapper> E =
          EndAt == StringRef::npos || EndAt < W->End
              ? std::nullopt
              : parseBlockPart(Buf, unsigned(EndAt), BlockEndMacro, LO);
      if (!E || !Buf.slice(E->End, Last).trim().empty())
        return Done("its region's body holds half of an earlier note");
      R.note().AlreadyNoted = true;
      // What the earlier run added: " NAME(...);" after the brace and
      // "NAME_END(...); " before it; where a formatter moved them to lines
      // of their own, the parts alone.
      R.note().WrapBegin =
          Buf.slice(Open, W->Begin).contains('\n') ? W->Begin : Open;
      R.note().WrapEnd = W->End;
      R.note().EndBegin = E->Begin;
      R.note().EndEnd =
          Buf.slice(E->End, Close).contains('\n') ? E->End : Close;
      R.note().FirstBegin = W->FirstBegin;
      R.note().FirstEnd = W->FirstEnd;
      R.note().FirstText = Buf.slice(W->FirstBegin, W->FirstEnd).str();
      R.note().Frame2Begin = E->FrameBegin;
      R.note().Frame2End = E->FrameEnd;
      return Done();
    }
    R.note().NoteBegin = Open;
    R.note().NoteEnd = Close;
  } else if (isa<Expr>(Body)) {
    // A single expression statement: braces around it and its semicolon.
    SourceLocation Semi = Lexer::findLocationAfterToken(
        BR.getEnd(), tok::semi, SM, LO, /*SkipTrailingWhitespace=*/false);
    if (Semi.isInvalid())
      return Done("its region's body is not followed by a ';'");
    R.note().BlockBraces = true;
    R.note().NoteBegin = L.offsetOf(BR.getBegin());
    R.note().NoteEnd = L.offsetOf(Semi);
  } else {
    return Done("its region's body is a single statement that is not an "
                "expression (put it in braces)");
  }
  if (!CurFn)
    return Done("it is outside a function");
  // A continue in a loop body would skip the end of the note (the portable
  // C form has no cleanup to run then).
  if (isa<OMPLoopDirective>(D)) {
    SmallVector<const Stmt *, 32> Work{Body};
    while (!Work.empty()) {
      const Stmt *X = Work.pop_back_val();
      if (!X || isa<ForStmt, WhileStmt, DoStmt, CXXForRangeStmt>(X))
        continue; // a continue in there is the inner loop's
      if (isa<ContinueStmt>(X))
        return Done("its loop body has a continue statement, which would "
                    "leave the note without ending it");
      for (const Stmt *Ch : X->children())
        Work.push_back(Ch);
    }
  }
  Done();
}

/// Whether the macro use at \p Use (a file location) is one of the
/// HMPLACE_CALLER forms: a call written in it was noted by an earlier run.
static bool isCallerWrapperUse(SourceManager &SM, SourceLocation Use) {
  bool Invalid = false;
  const char *P = SM.getCharacterData(Use, &Invalid);
  if (Invalid)
    return false;
  StringRef Rest(
      P, std::min<size_t>(64, SM.getBufferData(SM.getFileID(Use)).end() - P));
  // The macro's name, then its '(' (a formatter may have put blanks
  // between).
  StringRef Name =
      Rest.take_while([](char C) { return isAsciiIdentifierContinue(C); });
  if (!Rest.drop_front(Name.size()).ltrim().starts_with("("))
    return false;
  return Name == CallMacro || Name == BinaryMacro || Name == CallerMacro ||
         Name == CallerStmtMacro || Name == CallerDeclMacro ||
         Name == CallerStmtsMacro;
}

/// The previous hmrewrite's caller wrapper around the text [UseBegin,
/// UseEnd) of \p Buf: `__extension__({ __attribute__((cleanup(
/// hmplace_ctx_cleanup))) uint32_t hm_ctx_ = hmplace_ctx_push(0xID); ` before
/// it and `; })` after. Sets the wrapper's range in \p N.
static bool oldWrapper(StringRef Buf, unsigned UseBegin, unsigned UseEnd,
                       NoteSite &N) {
  static constexpr llvm::StringLiteral Prefix =
      "__extension__({ __attribute__((cleanup(hmplace_ctx_cleanup))) "
      "uint32_t hm_ctx_ = hmplace_ctx_push(0x";
  if (!Buf.substr(UseEnd).starts_with("; })") || UseBegin < Prefix.size())
    return false;
  StringRef Before = Buf.take_front(UseBegin);
  size_t At = Before.rfind(Prefix);
  if (At == StringRef::npos)
    return false;
  StringRef Id = Before.drop_front(At + Prefix.size());
  if (!Id.consume_back("); ") || Id.empty() ||
      Id.find_first_not_of("0123456789abcdefABCDEF") != StringRef::npos)
    return false;
  N.AlreadyNoted = N.OldStyle = true;
  N.WrapBegin = unsigned(At);
  N.InnerBegin = UseBegin;
  N.InnerEnd = UseEnd;
  N.WrapEnd = UseEnd + 4;
  return true;
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

/// The innermost earlier-run wrapper whose wrapped text holds the file
/// position \p At (a call's own token as written): none if \p At is not in
/// \p FID's text or no wrapper of the last few lines holds it.
static std::optional<Wrapper> innermostWrapper(StringRef Buf, SourceLocation At,
                                               FileID FID, SourceManager &SM,
                                               const LangOptions &LO) {
  if (!At.isFileID() || SM.getFileID(At) != FID)
    return std::nullopt;
  unsigned Off = SM.getFileOffset(At);
  size_t From = Off;
  unsigned Floor = Off > 4096 ? Off - 4096 : 0;
  while (From > Floor) {
    size_t P = Buf.take_front(From).rfind("HMPLACE_");
    if (P == StringRef::npos || P < Floor)
      break;
    From = P;
    std::optional<Wrapper> W = parseWrapperNamedAt(Buf, unsigned(P), LO);
    if (W && W->InnerBegin <= Off && Off < W->InnerEnd)
      return W; // the nearest before it is the innermost
  }
  return std::nullopt;
}

/// Whether \p FD is hmplace.h's own (namespace hmplace), or the call
/// operator of a lambda one of its macros wrote (HMPLACE_CALLER's,
/// HMPLACE_CALL's): an earlier run's forms call them.
static bool isRuntimeHelper(const FunctionDecl *FD, SourceManager &SM) {
  for (const DeclContext *DC = FD->getDeclContext(); DC; DC = DC->getParent())
    if (const auto *NS = dyn_cast<NamespaceDecl>(DC))
      if (NS->getIdentifier() && NS->getName() == "hmplace")
        return true;
  const auto *MD = dyn_cast<CXXMethodDecl>(FD);
  if (!MD || !MD->getParent()->isLambda())
    return false;
  SourceLocation At = MD->getParent()->getLocation();
  while (At.isMacroID()) {
    if (SM.isMacroBodyExpansion(At)) {
      StringRef Name = Lexer::getImmediateMacroName(
          At, SM, MD->getASTContext().getLangOpts());
      if (Name.starts_with("HMPLACE_"))
        return true;
    }
    At = SM.getImmediateMacroCallerLoc(At);
  }
  return false;
}

namespace {
/// recordCaller's work for one call, in the steps a candidate caller frame
/// goes through: is it one, where is its text, did an earlier run wrap it,
/// and how (if at all) can a note cover exactly it.
class CallerRecorder {
public:
  /// \p AnyCall: record \p CE whatever the plan names (a probe).
  CallerRecorder(EditLocator &L, const Expr *CE, const FunctionDecl *CurFn,
                 bool AnyCall = false)
      : L(L), SM(L.sourceManager()), Ctx(L.context()), LO(Ctx.getLangOpts()),
        CE(CE), CurFn(CurFn), AnyCall(AnyCall), Call(dyn_cast<CallExpr>(CE)),
        Construct(dyn_cast<CXXConstructExpr>(CE)),
        Callee(Call        ? Call->getDirectCallee()
               : Construct ? Construct->getConstructor()
                           : nullptr) {}

  void run(StringRef CompileDir, std::vector<CallRecord> &Out) {
    detectWrapped();
    if (!isCandidate() || !startRecord(CompileDir))
      return;
    analyseConstruction();
    if (locateUse() && !adoptEarlierWrapper() && R.note().NoteProblem.empty()) {
      if (InitOf || SeveralDeclared)
        noteFirstArgument();
      else if (!CurFn)
        R.note().NoteProblem = "it is outside a function";
      else
        chooseForm();
    }
    markHere();
    Out.push_back(std::move(R));
  }

private:
  void detectWrapped();
  bool isCandidate() const;
  bool startRecord(StringRef CompileDir);
  void analyseConstruction();
  bool locateUse();
  bool adoptEarlierWrapper();
  void noteFirstArgument();
  void chooseForm();
  void markHere();
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
  const Expr *CE;
  const FunctionDecl *CurFn;
  const bool AnyCall;
  const CallExpr *Call;
  const CXXConstructExpr *Construct;
  const FunctionDecl *Callee;
  bool Wrapped = false, OldWrapped = false;
  CallRecord R;
  /// A constructor of a variable: the declaration is what gets wrapped; of
  /// a member in an initializer list, or of one of several variables
  /// declared together: its first argument.
  const DeclStmt *DeclOf = nullptr;
  const CXXCtorInitializer *InitOf = nullptr;
  bool SeveralDeclared = false;
  /// The text to wrap (the call, its macro use, or the declaration).
  CharSourceRange Use;
  FileID FID;
  StringRef Buf;
  unsigned UseBegin = 0, UseEnd = 0;
};
} // namespace

/// A note written in the frame's own file, outside any directive, names
/// its frame as HMPLACE_AT(line, column): __FILE_NAME__ there is the
/// frame's file (a macro body would take the name of where it is used).
void CallerRecorder::markHere() {
  NoteSite &N = R.note();
  N.Here = canSayHere(SM, FID, Buf, N.AlreadyNoted ? N.WrapBegin : N.NoteBegin,
                      R.Key.File);
}

/// An earlier run's wrapper is looked at whatever the plan says now: the
/// plan may no longer name the call.
void CallerRecorder::detectWrapped() {
  SourceLocation Begin = CE->getBeginLoc();
  Wrapped =
      Begin.isMacroID() && isCallerWrapperUse(SM, SM.getExpansionLoc(Begin));
  // A member constructor an earlier run noted: `(HMPLACE_CALLER_INIT(...`
  // opens its first argument. (A default argument has no location: invalid
  // locations count as file locations.)
  if (!Wrapped && Construct && Construct->getNumArgs() &&
      Construct->getArg(0)->getBeginLoc().isValid() &&
      Construct->getArg(0)->getBeginLoc().isFileID()) {
    SourceLocation A = Construct->getArg(0)->getBeginLoc();
    bool Invalid = false;
    const char *P = SM.getCharacterData(A, &Invalid);
    StringRef FileText = SM.getBufferData(SM.getFileID(A));
    StringRef Rest =
        Invalid ? StringRef()
                : StringRef(P, std::min<size_t>(24, FileText.end() - P));
    Wrapped =
        Rest.consume_front("(") && Rest.ltrim().starts_with(CallerInitMacro);
  }
  // The previous hmrewrite's wrapper ends `; })` right after the call.
  if (!Wrapped && Call) {
    CharSourceRange U = SM.getExpansionRange(CE->getSourceRange());
    if (U.getEnd().isFileID()) {
      bool Invalid = false;
      SourceLocation After = Lexer::getLocForEndOfToken(U.getEnd(), 0, SM, LO);
      const char *P =
          After.isValid() ? SM.getCharacterData(After, &Invalid) : nullptr;
      OldWrapped = P && !Invalid && StringRef(P, 4) == "; })";
    }
  }
  Wrapped |= OldWrapped;
}

bool CallerRecorder::isCandidate() const {
  if (!Wrapped && !AnyCall && !L.session().recordsCallers())
    return false; // the common case: a plan without call-stack entries
  // A default argument's code is keyed where each call is: that call
  // (which covers it) is the frame, not the default argument.
  if (!Wrapped && inDefaultArgument(CE, Ctx))
    return false;
  // The runtime's own calls are never callers: its functions, hmplace.h's
  // helpers, and the lambdas its macros make.
  // (An earlier HMPLACE_BINARY's operator call is in a generic lambda the
  // walk does not instantiate: its hmplace_noted_binary call stands for it.)
  if (Wrapped && Callee && Callee->getIdentifier() &&
      Callee->getName() == "hmplace_noted_binary" &&
      isRuntimeHelper(Callee, SM))
    return true;
  if (Callee && Callee->getIdentifier() &&
      Callee->getName().starts_with("hmplace_"))
    return false;
  return !(Callee && isRuntimeHelper(Callee, SM));
}

/// The record's key: where debug info puts the call, as HmPlace.so keys it
/// (a member call at the member's name, an operator call at the operator, a
/// constructor at the variable; through a macro: the macro use). False if
/// the call is on no line the plan names.
bool CallerRecorder::startRecord(StringRef CompileDir) {
  SourceLocation KeyLoc = SM.getExpansionLoc(CE->getExprLoc());
  PresumedLoc PL = SM.getPresumedLoc(KeyLoc);
  if (PL.isInvalid() ||
      (!Wrapped && !AnyCall && !L.session().isNoteLine(PL.getLine())))
    return false;
  R.note().CPlusPlus = LO.CPlusPlus;
  R.CompileDir = CompileDir;
  R.Key = makeSourcePos(L.normalizer(), PL.getFilename(), PL.getLine(),
                        L.keyColumn(KeyLoc, PL.getColumn()));
  if (CurFn && CurFn->getIdentifier())
    R.Enclosing = CurFn->getName().str();
  if (Construct)
    R.note().Callee =
        Construct->getConstructor()->getParent()->getNameAsString();
  else if (Callee && Callee->getIdentifier())
    R.note().Callee = Callee->getName().str();
  R.note().CannotAllocate = !Wrapped && L.harmless().node(CE);
  return true;
}

void CallerRecorder::analyseConstruction() {
  if (!Construct)
    return;
  // Up through what the initializer's temporaries add around it.
  DynTypedNodeList Ps = Ctx.getParents(*Construct);
  while (!Ps.empty() &&
         (Ps[0].get<ExprWithCleanups>() || Ps[0].get<CXXBindTemporaryExpr>() ||
          Ps[0].get<MaterializeTemporaryExpr>() ||
          Ps[0].get<ImplicitCastExpr>()))
    Ps = Ctx.getParents(Ps[0]);
  const auto *VD = Ps.empty() ? nullptr : Ps[0].get<VarDecl>();
  if (VD && VD->getInit() &&
      VD->getInit()->IgnoreImplicit() == Construct->IgnoreImplicit()) {
    DynTypedNodeList G = Ctx.getParents(*VD);
    DeclOf = G.empty() ? nullptr : G[0].get<DeclStmt>();
    // One of several variables of a declaration (`Field a(n), b(n);`):
    // wrapping the statement would note the others' constructors too, so
    // its first argument holds the note, as a member's does.
    if (DeclOf && !DeclOf->isSingleDecl()) {
      DeclOf = nullptr;
      SeveralDeclared = true;
    }
  } else if (const auto *CD =
                 Ps.empty() ? nullptr : Ps[0].get<CXXConstructorDecl>()) {
    // The parent map puts a mem-initializer's expression under the
    // constructor itself.
    for (const CXXCtorInitializer *I : CD->inits())
      if (I->isWritten() && I->getInit() &&
          I->getInit()->IgnoreImplicit() == Construct->IgnoreImplicit())
        InitOf = I;
    if (!InitOf)
      R.note().NoteProblem = "it constructs an object the source does not "
                             "spell out, where no note can go";
  } else if (!isa<CXXTemporaryObjectExpr>(Construct) &&
             (Ps.empty() || !Ps[0].get<CXXFunctionalCastExpr>())) {
    R.note().NoteProblem = "it constructs an object inside a larger "
                           "expression (a new-expression or a conversion), "
                           "where no note can go in the source";
  }
}

/// The text to wrap and its file; false when the record is complete (a
/// system header, text spanning files).
bool CallerRecorder::locateUse() {
  Use = SM.getExpansionRange(
      DeclOf ? SourceRange(DeclOf->getBeginLoc(),
                           DeclOf->getSingleDecl()
                               ? DeclOf->getSingleDecl()->getEndLoc()
                               : DeclOf->getEndLoc())
             : CE->getSourceRange());
  FID = SM.getFileID(Use.getBegin());
  const EditLocator::FileFacts &Facts = L.factsOf(FID);
  if (Facts.System) {
    R.Edit = CallRecord::InSystemHeader;
    return false;
  }
  if (FID != SM.getMainFileID() && !Facts.Selected)
    R.Edit = CallRecord::InOtherFile;
  if (Facts.Path.empty() || SM.getFileID(Use.getEnd()) != FID) {
    R.note().NoteProblem = "it spans files";
    return false;
  }
  R.EditFile = Facts.Path;
  UseBegin = L.offsetOf(Use.getBegin());
  UseEnd = L.offsetOf(Use.getEnd()) +
           (Use.isTokenRange() ? Lexer::MeasureTokenLength(Use.getEnd(), SM, LO)
                               : 0);
  Buf = SM.getBufferData(FID);
  return true;
}

/// An earlier run's wrapper around the call: the record takes it over (and
/// its frame's column, where the call had it); true if there is one.
bool CallerRecorder::adoptEarlierWrapper() {
  // The call is written in the wrapper's argument. Wrappers nest
  // (HMPLACE_BINARY's operands): a call written in the text belongs to the
  // innermost one around it; else the wrapper begins where the call (or its
  // macro use) began, and ends where it ends (a call whose left operand is
  // a wrapped call begins there too).
  std::optional<Wrapper> W =
      innermostWrapper(Buf, SM.getSpellingLoc(CE->getExprLoc()), FID, SM, LO);
  if (!W || !CE->getBeginLoc().isMacroID())
    if (std::optional<Wrapper> Outer = parseWrapper(Buf, UseBegin, LO);
        Outer && Outer->End == UseEnd)
      W = Outer;
  if (W) {
    noteWrapper(R.note(), *W, Buf);
    R.Key.Column = W->Column;
    // A statement broken at the column limit (Format.h) numbers its lines
    // on until the `#line` after it: the call is on the wrapper's line.
    SourceLocation Begin = SM.getComposedLoc(FID, W->Begin);
    SourceLocation Call = SM.getSpellingLoc(CE->getExprLoc());
    if (Call.isFileID() && SM.getFileID(Call) == FID &&
        SM.getSpellingLineNumber(Call) != SM.getSpellingLineNumber(Begin))
      R.Key.Line = SM.getPresumedLineNumber(Begin);
    return true;
  }
  // The previous hmrewrite's wrapper: its frame is where it begins (the
  // call's position before it was wrapped); the form the current rewrite
  // puts in its place follows the position of the whole old wrapper.
  if (!OldWrapped || !oldWrapper(Buf, UseBegin, UseEnd, R.note()))
    return false;
  R.Key.Column -= UseBegin - R.note().WrapBegin;
  DynTypedNodeList Ps = Ctx.getParents(*CE);
  while (!Ps.empty() && !Ps[0].get<StmtExpr>())
    Ps = Ctx.getParents(Ps[0]);
  if (!Ps.empty())
    Ps = Ctx.getParents(Ps[0]); // the __extension__ around it
  if (!Ps.empty()) {
    DynTypedNodeList Outer = Ctx.getParents(Ps[0]);
    const auto *E = Ps[0].get<Expr>();
    R.note().Form = E && !Outer.empty() && inStatementPosition(E, Outer[0], Ctx)
                        ? NoteSite::NoteStmt
                        : NoteSite::NoteExpr;
  }
  return true;
}

/// A member's or one of several variables' constructor: the guard goes
/// around the first written argument; the others are evaluated in no set
/// order around it, so none may call anything.
void CallerRecorder::noteFirstArgument() {
  const Expr *First =
      Construct->getNumArgs() && !isa<CXXDefaultArgExpr>(Construct->getArg(0))
          ? Construct->getArg(0)
          : nullptr;
  if (!First) {
    R.note().NoteProblem =
        InitOf ? "it default-initialises a member, with no argument to "
                 "hold the note"
               : "it default-initialises one of several variables "
                 "declared together, with no argument to hold the note "
                 "(declare it on its own)";
    return;
  }
  CharSourceRange AR = SM.getExpansionRange(First->getSourceRange());
  if (SM.getFileID(AR.getBegin()) != FID || SM.getFileID(AR.getEnd()) != FID) {
    R.note().NoteProblem = "its first argument spans files";
    return;
  }
  if (std::optional<Wrapper> W =
          parseWrapper(Buf, L.offsetOf(AR.getBegin()), LO)) {
    noteWrapper(R.note(), *W, Buf);
    return;
  }
  R.note().Form = NoteSite::NoteInit;
  R.note().NoteBegin = L.offsetOf(AR.getBegin());
  R.note().NoteEnd =
      L.offsetOf(AR.getEnd()) +
      (AR.isTokenRange() ? Lexer::MeasureTokenLength(AR.getEnd(), SM, LO) : 0);
  for (const Expr *A : Construct->arguments())
    if (const Stmt *X = otherCall(A, CE, Ctx, L.harmless())) {
      R.note().NoteProblem =
          "its arguments call " + describeCall(X, Ctx) +
          ", which would run inside the note, while HmPlace.so notes "
          "the constructor alone, after its arguments are evaluated";
      return;
    }
}

/// The node to wrap (the call, the outermost node of its macro use, or the
/// variable a constructor initialises), the form that wraps it, and what
/// runs inside.
void CallerRecorder::chooseForm() {
  R.note().NoteBegin = UseBegin;
  R.note().NoteEnd = UseEnd;
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
const Stmt *CallerRecorder::formForNode(const DynTypedNode &Node,
                                        const DynTypedNode &Parent) {
  NoteSite &N = R.note();
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
    N.Form = !Semi              ? NoteSite::NoteStmts
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
void CallerRecorder::checkEvaluated(const Stmt *Evaluated,
                                    const DynTypedNode &Node) {
  // A block stands for its statements written in the macro use.
  SmallVector<const Stmt *, 4> Run;
  if (const auto *CS = dyn_cast_or_null<CompoundStmt>(Evaluated);
      CS && (R.note().Form == NoteSite::NoteDecl ||
             R.note().Form == NoteSite::NoteStmts)) {
    for (const Stmt *St : CS->body())
      if (begins(St))
        Run.push_back(St);
  } else if (Evaluated) {
    Run.push_back(Evaluated);
  }
  for (const Stmt *St : Run) {
    const Stmt *X = R.note().NoteProblem.empty()
                        ? otherCall(St, CE, Ctx, L.harmless())
                        : nullptr;
    if (!X)
      continue;
    const Expr *NodeE = Node.get<Expr>();
    std::string Why =
        NodeE && NodeE->IgnoreImplicit() == CE && !CE->getBeginLoc().isMacroID()
            ? notedCallForm(CE, R.note(), L)
            : "it is written through a macro";
    if (Why.empty())
      return;
    R.note().NoteProblem =
        "the text to wrap also calls " + describeCall(X, Ctx) +
        ", which would run inside the note, while HmPlace.so notes the "
        "call alone, after its arguments are evaluated, and " +
        Why + " (evaluate that into a variable first)";
  }
}

void recordCaller(EditLocator &L, const Expr *CE, const FunctionDecl *CurFn,
                  StringRef CompileDir, std::vector<CallRecord> &Out) {
  CallerRecorder(L, CE, CurFn).run(CompileDir, Out);
}

std::string callerNoteProblem(EditLocator &L, const Expr *CE,
                              const FunctionDecl *CurFn, StringRef CompileDir) {
  std::vector<CallRecord> Probe;
  CallerRecorder(L, CE, CurFn, /*AnyCall=*/true).run(CompileDir, Probe);
  if (Probe.empty())
    return "it is not a call the rewrite notes";
  return Probe.front().note().NoteProblem;
}

} // namespace hmplace
