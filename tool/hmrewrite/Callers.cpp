//===- Callers.cpp - caller frames of call-stack entries in the source ----===//
//
// A call on a line the plan names as a caller frame (or one an earlier run
// wrapped) is recorded: where HmPlace.so keys it, which text a note would
// wrap (the call, its macro use, the declaration a constructor initialises,
// or its first argument), whether an earlier run's wrapper is already there
// (Wrappers.h); NoteForm.cpp then decides the form that covers exactly that
// text. OpenMP parallel regions are recorded here too (recordRegion).
//
//===----------------------------------------------------------------------===//
#include "Callers.h"
#include "Harmless.h"
#include "NoteForm.h"
#include "RawTokens.h"
#include "Rewrite.h"
#include "Spelling.h"
#include "Wrappers.h"

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

/// Whether \p E is (in) a default argument as its function declares it:
/// its code runs at each call, which debug info names as its position.
static bool inDefaultArgument(const Expr *E, ASTContext &Ctx) {
  DynTypedNodeList Ps = Ctx.getParents(*E);
  while (!Ps.empty() && Ps[0].get<Expr>())
    Ps = Ctx.getParents(Ps[0]);
  return !Ps.empty() && Ps[0].get<ParmVarDecl>();
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
/// (The text to wrap it finds is its base, which NoteFormChooser then
/// reads.)
class CallerRecorder : TextToWrap {
public:
  /// \p AnyCall: record \p CE whatever the plan names (a probe).
  CallerRecorder(EditLocator &L, const Expr *CE, const FunctionDecl *CurFn,
                 bool AnyCall = false)
      : TextToWrap{CE, dyn_cast<CXXConstructExpr>(CE)}, L(L),
        SM(L.sourceManager()), Ctx(L.context()), LO(Ctx.getLangOpts()),
        CurFn(CurFn), AnyCall(AnyCall), Call(dyn_cast<CallExpr>(CE)),
        Callee(Call        ? Call->getDirectCallee()
               : Construct ? Construct->getConstructor()
                           : nullptr) {}

  void run(StringRef CompileDir, std::vector<CallRecord> &Out) {
    detectWrapped();
    if (!isCandidate() || !startRecord(CompileDir))
      return;
    analyseConstruction();
    if (locateUse() && !adoptEarlierWrapper() && R.note().NoteProblem.empty()) {
      if (!InitOf && !SeveralDeclared && !CurFn)
        R.note().NoteProblem = "it is outside a function";
      else
        chooseNoteForm(L, *this, R.note());
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
  void markHere();

  EditLocator &L;
  SourceManager &SM;
  ASTContext &Ctx;
  const LangOptions &LO;
  const FunctionDecl *CurFn;
  const bool AnyCall;
  const CallExpr *Call;
  const FunctionDecl *Callee;
  bool Wrapped = false, OldWrapped = false;
  CallRecord R;
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
  L.keyOffset(R, CE->getExprLoc());
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
  std::optional<Wrapper> W;
  if (L.factsOf(FID).HasNotes) {
    W = innermostWrapper(Buf, SM.getSpellingLoc(CE->getExprLoc()), FID, SM, LO);
    if (!W || !CE->getBeginLoc().isMacroID())
      if (std::optional<Wrapper> Outer = parseWrapper(Buf, UseBegin, LO);
          Outer && Outer->End == UseEnd)
        W = Outer;
  }
  if (W) {
    noteWrapper(R.note(), *W, Buf);
    R.Key.Column = W->Column;
    // HMPLACE_BINARY(frame, l, OP, r): the call's token is the operator,
    // after the first comma (its own call is hmplace_noted_binary's).
    if (R.HaveKeyOffset && W->Comma2) {
      size_t Op = Buf.find_first_not_of(" \t\r\n", W->Comma1 + 1);
      if (Op < W->Comma2)
        R.KeyOffset = unsigned(Op);
    }
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

void recordCaller(EditLocator &L, const Expr *CE, const FunctionDecl *CurFn,
                  StringRef CompileDir, std::vector<CallRecord> &Out) {
  CallerRecorder(L, CE, CurFn).run(CompileDir, Out);
}

std::string callerNoteProblem(EditLocator &L, const Expr *CE,
                              const FunctionDecl *CurFn, StringRef CompileDir,
                              CallRecord::EditState &Edit) {
  std::vector<CallRecord> Probe;
  CallerRecorder(L, CE, CurFn, /*AnyCall=*/true).run(CompileDir, Probe);
  if (Probe.empty())
    return "it is not a call the rewrite notes";
  Edit = Probe.front().Edit;
  return Probe.front().note().NoteProblem;
}

} // namespace hmplace
