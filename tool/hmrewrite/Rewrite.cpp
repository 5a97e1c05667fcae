//===- Rewrite.cpp - find allocation calls and plan their rewrite ---------===//
//
// Two phases. While each translation unit is parsed, calls are recorded as
// plain data (site key, file offsets for the edit, macro context): the AST is
// gone once the TU ends, and placement rules look at all calls of all files
// at once (SiteMatcher). finish() then decides and emits Replacements.
//
//===----------------------------------------------------------------------===//
#include "Rewrite.h"

#include "clang/AST/ASTConsumer.h"
#include "clang/AST/ASTContext.h"
#include "clang/AST/ParentMapContext.h"
#include "clang/AST/RecursiveASTVisitor.h"
#include "clang/AST/StmtOpenMP.h"
#include "clang/Basic/SourceManager.h"
#include "clang/Frontend/CompilerInstance.h"
#include "clang/Frontend/FrontendAction.h"
#include "clang/Lex/Lexer.h"
#include "clang/Lex/PPCallbacks.h"
#include "clang/Lex/Preprocessor.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/Regex.h"

using namespace clang;
using namespace llvm;

namespace hmplace {

namespace {

class CallCollector : public RecursiveASTVisitor<CallCollector> {
public:
  CallCollector(ASTContext &Ctx, StringRef Dir, const RewriteSession &S,
                std::vector<CallRecord> &Out)
      : Ctx(Ctx), SM(Ctx.getSourceManager()), Dir(Dir), IDir(S.intern(Dir)),
        Norm(Dir), S(S), Out(Out) {}

  // Every kind of function (methods, constructors, lambdas' call operators,
  // template instances): TraverseFunctionDecl alone misses the subclasses.
  bool TraverseDecl(Decl *D) {
    // Nothing in a system header is ever edited or noted: skip its bodies
    // (in C++, the standard library's templates and their instances).
    if (D && !isa<TranslationUnitDecl>(D) && D->getLocation().isValid() &&
        SM.isInSystemHeader(D->getLocation()))
      return true;
    auto *FD = dyn_cast_or_null<FunctionDecl>(D);
    if (!FD)
      return RecursiveASTVisitor::TraverseDecl(D);
    const FunctionDecl *Saved = CurFn;
    CurFn = FD;
    bool R = RecursiveASTVisitor::TraverseDecl(D);
    CurFn = Saved;
    return R;
  }

  /// Sites in templates are edited once, in the template; the instances are
  /// visited to learn whether every one of them can take the edit.
  bool shouldVisitTemplateInstantiations() const { return true; }
  /// Types hold no calls.
  bool shouldWalkTypesOfTypeLocs() const { return false; }

  /// C without blocks: every call is in a statement tree a plain walk over
  /// Stmt::children() reaches, at a fraction of RecursiveASTVisitor's cost
  /// per node (a site-dense file has hundreds of thousands of nodes). What
  /// children() leaves out is added: the body of a CapturedStmt (OpenMP
  /// regions), OpenMP clauses, and the written form of an initializer list
  /// (its semantic form drops initializers a later designator overrides).
  static bool canWalkPlainly(const LangOptions &LO) {
    return !LO.CPlusPlus && !LO.ObjC && !LO.Blocks;
  }
  void walkPlainly(TranslationUnitDecl *TU) {
    SmallVector<Stmt *, 64> Stack;
    for (Decl *D : TU->decls()) {
      if (D->getLocation().isValid() && SM.isInSystemHeader(D->getLocation()))
        continue;
      Stmt *Root = nullptr;
      CurFn = nullptr;
      if (auto *FD = dyn_cast<FunctionDecl>(D)) {
        if (!FD->doesThisDeclarationHaveABody())
          continue;
        CurFn = FD;
        Root = FD->getBody();
      } else if (auto *VD = dyn_cast<VarDecl>(D)) {
        Root = VD->getInit();
      }
      if (!Root)
        continue;
      Stack.push_back(Root);
      while (!Stack.empty()) {
        Stmt *S = Stack.pop_back_val();
        // The commonest nodes without the generic children() dispatch.
        switch (S->getStmtClass()) {
        case Stmt::DeclRefExprClass:
        case Stmt::IntegerLiteralClass:
        case Stmt::FloatingLiteralClass:
        case Stmt::CharacterLiteralClass:
        case Stmt::StringLiteralClass:
          continue; // leaves
        case Stmt::ImplicitCastExprClass:
          Stack.push_back(cast<ImplicitCastExpr>(S)->getSubExpr());
          continue;
        case Stmt::ParenExprClass:
          Stack.push_back(cast<ParenExpr>(S)->getSubExpr());
          continue;
        case Stmt::BinaryOperatorClass:
          Stack.push_back(cast<BinaryOperator>(S)->getRHS());
          Stack.push_back(cast<BinaryOperator>(S)->getLHS());
          continue;
        default:
          break;
        }
        if (auto *CE = dyn_cast<CallExpr>(S)) {
          VisitCallExpr(CE);
        } else if (auto *ILE = dyn_cast<InitListExpr>(S)) {
          if (InitListExpr *Syn = ILE->getSyntacticForm())
            S = Syn;
        } else if (auto *CS = dyn_cast<CapturedStmt>(S)) {
          Stack.push_back(CS->getCapturedStmt());
        } else if (auto *OD = dyn_cast<OMPExecutableDirective>(S)) {
          for (OMPClause *C : OD->clauses())
            if (C)
              for (Stmt *Ch : C->children())
                if (Ch)
                  Stack.push_back(Ch);
        }
        // Reversed, so that calls are met in source order, as the
        // visitor meets them.
        size_t Mark = Stack.size();
        for (Stmt *Ch : S->children())
          if (Ch)
            Stack.push_back(Ch);
        std::reverse(Stack.begin() + Mark, Stack.end());
      }
    }
    CurFn = nullptr;
  }

  bool VisitCallExpr(CallExpr *CE) {
    const FunctionDecl *FD = CE->getDirectCallee();
    if (!FD || !FD->getIdentifier()) {
      recordCaller(CE);
      return true;
    }
    StringRef Name = FD->getName();
    const AllocFn *Fn = findAllocFn(Name);
    bool Already = false, TakesKind = false;
    // A call an earlier run rewrote (hmplace_malloc(KIND, n), or a realloc
    // turned into hmplace_realloc) is still the same site.
    if (!Fn && (Fn = findReplacedAllocFn(Name, TakesKind)))
      Already = true;
    unsigned Args = Fn ? Fn->NumArgs + TakesKind : 0;
    if (!Fn || CE->getNumArgs() != Args) {
      recordCaller(CE);
      return true;
    }
    // The C library function (or std::), not a user function of that name
    // in some namespace or class.
    const DeclContext *DC = FD->getDeclContext()->getRedeclContext();
    if (!(FD->isExternC() || FD->isInStdNamespace() ||
          DC->isTranslationUnit())) {
      recordCaller(CE);
      return true;
    }
    record(CE, FD, Fn, Already, TakesKind);
    return true;
  }

private:
  unsigned offsetOf(SourceLocation L) const { return SM.getFileOffset(L); }

  /// The file position where text inserted goes right before the token at
  /// \p L: through macro arguments to where they are written, and out of
  /// macro uses that start at \p L (`malloc(SIZE)`, `F(malloc(SIZE))`).
  /// Invalid if \p L is in the middle of a macro body.
  SourceLocation insertionLoc(SourceLocation L) const {
    while (L.isMacroID()) {
      if (SM.isMacroArgExpansion(L))
        L = SM.getImmediateSpellingLoc(L);
      else if (Lexer::isAtStartOfMacroExpansion(L, SM, Ctx.getLangOpts()))
        L = SM.getImmediateExpansionRange(L).getBegin();
      else
        return SourceLocation();
    }
    return L;
  }

  /// Start a record, in place at the end of Out, for an allocation whose
  /// expression begins at \p Begin: the key is where it begins, at its macro
  /// use if written through one, in presumed coordinates (#line), exactly as
  /// debug info records it. Null if it has no position.
  CallRecord *start(SourceLocation Begin, const AllocFn *Fn, bool Already) {
    PresumedLoc PL = SM.getPresumedLoc(SM.getExpansionLoc(Begin));
    if (PL.isInvalid())
      return nullptr;
    CallRecord &R = Out.emplace_back();
    R.Fn = Fn;
    R.AlreadyPlaced = Already;
    R.CompileDir = IDir;
    if (CurFn && CurFn->getIdentifier())
      R.Enclosing = CurFn->getName().str();
    // Presumed file names are the same few strings over and over.
    if (PL.getFilename() != LastPresumed) {
      LastPresumed = PL.getFilename();
      LastKeyFile = &Norm(LastPresumed);
    }
    R.Key = {*LastKeyFile, PL.getLine(), PL.getColumn()};
    return &R;
  }

  /// What an edit needs to know of a file, asked once per file: a
  /// translation unit's allocation calls are thousands, its files few.
  struct FileFacts {
    bool System = false, Selected = false;
    StringRef Path; ///< normalized and interned; empty: no file entry
  };
  const FileFacts &factsOf(FileID FID) {
    auto [It, New] = Facts.try_emplace(FID);
    if (New) {
      FileFacts &F = It->second;
      F.System = SrcMgr::isSystem(
          SM.getFileCharacteristic(SM.getLocForStartOfFile(FID)));
      if (OptionalFileEntryRef FE = SM.getFileEntryRefForID(FID)) {
        F.Path = S.intern(Norm(FE->getName()));
        F.Selected = S.headerSelected(F.Path);
      }
    }
    return It->second;
  }

  /// Length of the token at \p L: the callee's name when the file holds
  /// exactly that there (the common case, and no relexing), else measured.
  unsigned tokenLength(SourceLocation L, StringRef Expected) const {
    bool Invalid = false;
    const char *P = SM.getCharacterData(L, &Invalid);
    if (!Invalid && !Expected.empty()) {
      StringRef Buf = SM.getBufferData(SM.getFileID(L), &Invalid);
      size_t Left = Buf.end() - P;
      if (!Invalid && Left >= Expected.size() &&
          StringRef(P, Expected.size()) == Expected &&
          (Left == Expected.size() ||
           !isAsciiIdentifierContinue(P[Expected.size()], true)))
        return Expected.size();
    }
    return Lexer::MeasureTokenLength(L, SM, Ctx.getLangOpts());
  }

  /// Where an edit of the tokens \p B..\p E (the callee, or the `new`
  /// keyword) would go: their file positions, or why there is none. Returns
  /// the file the edit would be in.
  FileID locateEdit(CallRecord &R, SourceLocation B, SourceLocation E,
                    StringRef LastToken) {
    SourceLocation EditB, EditE;
    if (B.isFileID() && E.isFileID()) {
      EditB = B;
      EditE = E;
    } else if (SM.isMacroArgExpansion(B) && SM.isMacroArgExpansion(E) &&
               SM.getSpellingLoc(B).isFileID()) {
      EditB = SM.getSpellingLoc(B);
      EditE = SM.getSpellingLoc(E);
    } else {
      R.Edit = CallRecord::InMacroBody;
      R.Macro = Lexer::getImmediateMacroName(B, SM, Ctx.getLangOpts()).str();
      EditB = SM.getSpellingLoc(B);
      EditE = SM.getSpellingLoc(E);
    }
    FileID FID = SM.getFileID(EditB);
    const FileFacts &F = factsOf(FID);
    if (F.System || (B.isMacroID() && SM.isInSystemMacro(B))) {
      R.Edit = CallRecord::InSystemHeader;
    } else if (FID != SM.getMainFileID() && R.Edit == CallRecord::Editable &&
               !F.Selected) {
      R.Edit = CallRecord::InOtherFile;
    }
    if (SM.getFileID(EditE) != FID) {
      R.Edit = CallRecord::InMacroBody; // spans a macro boundary
    } else if (!F.Path.empty()) {
      R.EditFile = F.Path;
      R.CalleeOffset = offsetOf(EditB);
      R.CalleeLength =
          offsetOf(EditE) - R.CalleeOffset + tokenLength(EditE, LastToken);
    }
    return FID;
  }

  /// The file offset where text inserted right before the expression at
  /// \p L would go, if that is in \p FID (the edit's file) after the callee.
  bool argumentOffset(const CallRecord &R, FileID FID, SourceLocation L,
                      unsigned &Off) {
    SourceLocation AL = insertionLoc(L);
    if (AL.isInvalid() || !AL.isFileID() || SM.getFileID(AL) != FID ||
        offsetOf(AL) < R.CalleeOffset + R.CalleeLength)
      return false;
    Off = offsetOf(AL);
    return true;
  }

  /// An earlier run's kind argument, where a later plan may change it: its
  /// text and file range, if written plainly in the edit's file.
  void recordKindArg(CallRecord &R, FileID FID, const Expr *Arg) {
    SourceRange SR = Arg->getSourceRange();
    if (!SR.getBegin().isFileID() || !SR.getEnd().isFileID() ||
        SM.getFileID(SR.getBegin()) != FID)
      return;
    unsigned B = offsetOf(SR.getBegin());
    unsigned E = offsetOf(SR.getEnd()) +
                 Lexer::MeasureTokenLength(SR.getEnd(), SM, Ctx.getLangOpts());
    R.KindArgOffset = B;
    R.KindArgText = SM.getBufferData(FID).slice(B, E).str();
  }

  void record(CallExpr *CE, const FunctionDecl *FD, const AllocFn *Fn,
              bool Already, bool TakesKind) {
    CallRecord *R = start(CE->getBeginLoc(), Fn, Already);
    if (!R)
      return;
    const Expr *Callee = CE->getCallee()->IgnoreParenImpCasts();
    FileID FID = locateEdit(*R, Callee->getBeginLoc(), Callee->getEndLoc(),
                            FD->getName());
    if (Already && TakesKind && R->Edit == CallRecord::Editable)
      recordKindArg(*R, FID, CE->getArg(0));
    // The kind goes before the first argument, in the same context as the
    // callee: a file position, or the same macro argument's spelling.
    if (!Already && R->Edit == CallRecord::Editable) {
      if (argumentOffset(*R, FID, CE->getArg(0)->getBeginLoc(), R->ArgOffset))
        R->HaveArgOffset = true;
      else
        R->Edit = CallRecord::InMacroBody;
    }
  }

  static bool isRuntimeKind(QualType T) {
    const auto *ET = T->getAs<EnumType>();
    return ET && ET->getDecl()->getName() == "hmplace_kind";
  }
  static bool isNothrow(QualType T) {
    const CXXRecordDecl *RD = T.getNonReferenceType()->getAsCXXRecordDecl();
    return RD && RD->getIdentifier() && RD->getName() == "nothrow_t" &&
           RD->isInStdNamespace();
  }

public:
  /// A new-expression is placed by giving it the kind as a placement
  /// argument: `new (HMPLACE_HBW) T(args)`. The compiler then calls the
  /// runtime's operator new(size_t, hmplace_kind) (with align_val_t for
  /// over-aligned types, nothrow if asked), still runs the constructors, and
  /// if one throws calls the matching placement delete, which frees to the
  /// right heap. `delete` needs no edit: libhmplace.so replaces the global
  /// operator delete with one that finds each block's heap.
  bool VisitCXXNewExpr(CXXNewExpr *NE) {
    SourceLocation Begin = NE->getBeginLoc();
    // Template instantiations repeat the pattern's expression; the first
    // record stands for all, but learns of any instance that cannot be placed.
    auto [It, New] = NewSeen.try_emplace(Begin.getRawEncoding(), Out.size());
    std::string Problem;
    bool Nothrow = false, Already = false;
    if (NE->getNumPlacementArgs() > 0) {
      QualType T = NE->getPlacementArg(0)->IgnoreParenImpCasts()->getType();
      if (isRuntimeKind(T))
        Already = true;
      else if (NE->getNumPlacementArgs() == 1 && isNothrow(T))
        Nothrow = true;
      else
        Problem = "it is a placement new (it constructs in memory the program "
                  "already has)";
    }
    if (const FunctionDecl *Op = NE->getOperatorNew())
      if (isa<CXXMethodDecl>(Op) && Problem.empty() && !Already)
        Problem =
            "the class of '" +
            cast<CXXMethodDecl>(Op)->getParent()->getQualifiedNameAsString() +
            "' has its own operator new";
    if (!New) {
      if (!Problem.empty() && It->second < Out.size() &&
          Out[It->second].NotPlaceable.empty())
        Out[It->second].NotPlaceable = Problem;
      return true;
    }
    CallRecord *R = start(Begin, newExprFn(NE->isArray()), Already);
    if (!R) {
      NewSeen.erase(It);
      return true;
    }
    R->IsNew = true;
    R->NotPlaceable = Problem;
    // The `new` keyword: the expression's first token, or the one after `::`.
    SourceLocation Kw = Begin;
    if (NE->isGlobalNew()) {
      SourceLocation FileB = insertionLoc(Begin);
      std::optional<Token> T =
          FileB.isValid() ? Lexer::findNextToken(FileB, SM, Ctx.getLangOpts())
                          : std::nullopt;
      Kw = T ? T->getLocation() : SourceLocation();
    }
    FileID FID;
    if (Kw.isInvalid())
      R->Edit = CallRecord::InMacroBody;
    else
      FID = locateEdit(*R, Kw, Kw, "new");
    if (Already && R->Edit == CallRecord::Editable)
      recordKindArg(*R, FID, NE->getPlacementArg(0));
    if (!Already && R->Edit == CallRecord::Editable) {
      if (Nothrow) {
        R->NewInParens = argumentOffset(
            *R, FID, NE->getPlacementArg(0)->getBeginLoc(), R->NewOffset);
        if (!R->NewInParens)
          R->Edit = CallRecord::InMacroBody;
      } else {
        R->NewOffset = R->CalleeOffset + R->CalleeLength;
      }
    }
    return true;
  }

private:
  /// The name of the variable a noted call's wrapper declares; how a rerun
  /// recognises a caller frame it already wrapped.
  static constexpr llvm::StringLiteral NoteVar = "hm_ctx_";

  /// A call (of anything but an allocation function) on a line that a plan
  /// names as a caller frame: record where a shadow-stack push around it
  /// would go. The call is wrapped as `({ push; CALL; })` (a GNU statement
  /// expression: its value is the call's, of any type in C, and the cleanup
  /// attribute restores the stack also when an exception leaves the call).
  /// A call written through a macro is wrapped at the macro use, which must
  /// then be an expression or a statement.
  void recordCaller(const CallExpr *CE) {
    if (!S.recordsCallers())
      return; // the common case: a plan without call-stack entries
    // The runtime's own calls (an earlier run's pushes) are never callers.
    if (const FunctionDecl *FD = CE->getDirectCallee())
      if (FD->getIdentifier() && FD->getName().starts_with("hmplace_"))
        return;
    SourceLocation Begin = CE->getBeginLoc();
    PresumedLoc PL = SM.getPresumedLoc(SM.getExpansionLoc(Begin));
    if (PL.isInvalid() || !S.isNoteLine(PL.getLine()))
      return;
    CallRecord R;
    R.CompileDir = IDir;
    R.Key = makeSourcePos(Norm, PL.getFilename(), PL.getLine(), PL.getColumn());
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
          if (const auto *UO =
                  SP.empty() ? nullptr : SP[0].get<UnaryOperator>())
            if (UO->getOpcode() == UO_Extension)
              WrapBegin = UO->getBeginLoc();
          PresumedLoc SL = SM.getPresumedLoc(SM.getExpansionLoc(WrapBegin));
          R.Key = makeSourcePos(Norm, SL.getFilename(), SL.getLine(),
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
        (Lexer::isAtStartOfMacroExpansion(NR.getBegin(), SM,
                                          Ctx.getLangOpts()) &&
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
    else if (FID != SM.getMainFileID() && !factsOf(FID).Selected)
      R.Edit = CallRecord::InOtherFile;
    if (!factsOf(FID).Path.empty()) {
      R.EditFile = factsOf(FID).Path;
      SourceLocation End = Use.getEnd();
      R.NoteBegin = offsetOf(Use.getBegin());
      R.NoteEnd = offsetOf(End) +
                  (Use.isTokenRange()
                       ? Lexer::MeasureTokenLength(End, SM, Ctx.getLangOpts())
                       : 0);
    }
    Out.push_back(std::move(R));
  }

  ASTContext &Ctx;
  SourceManager &SM;
  StringRef Dir, IDir;
  mutable PathNormalizer Norm;
  const RewriteSession &S;
  std::vector<CallRecord> &Out;
  const FunctionDecl *CurFn = nullptr;
  /// new-expressions recorded, by their first token: index into Out.
  llvm::DenseMap<SourceLocation::UIntTy, size_t> NewSeen;
  llvm::DenseMap<FileID, FileFacts> Facts;
  const char *LastPresumed = nullptr;
  const std::string *LastKeyFile = nullptr;
};

/// Offsets in \p Text of what look like allocation calls: an allocation
/// function's name followed by `(`, or (C++) the `new` keyword. Comments and
/// literals are skipped; this reads text the preprocessor skipped, which
/// need not even lex.
static std::vector<unsigned> allocationCallsIn(StringRef Text, bool CPlusPlus) {
  std::vector<unsigned> Out;
  for (size_t I = 0; I < Text.size();) {
    char C = Text[I];
    if (Text.substr(I).starts_with("//")) {
      I = Text.find('\n', I);
      continue;
    }
    if (Text.substr(I).starts_with("/*")) {
      size_t E = Text.find("*/", I + 2);
      I = E == StringRef::npos ? Text.size() : E + 2;
      continue;
    }
    if (C == '"' || C == '\'') {
      for (++I; I < Text.size() && Text[I] != C && Text[I] != '\n'; ++I)
        if (Text[I] == '\\')
          ++I;
      ++I;
      continue;
    }
    if (!isAlpha(C) && C != '_') {
      ++I;
      continue;
    }
    size_t B = I;
    while (I < Text.size() && (isAlnum(Text[I]) || Text[I] == '_'))
      ++I;
    StringRef Word = Text.slice(B, I);
    if (CPlusPlus && Word == "new") {
      Out.push_back(B);
      continue;
    }
    const AllocFn *Fn = findAllocFn(Word);
    if (!Fn || !Fn->allocates())
      continue;
    size_t J = I;
    while (J < Text.size() && isSpace(Text[J]))
      ++J;
    if (J < Text.size() && Text[J] == '(')
      Out.push_back(B);
  }
  return Out;
}

/// Records the main file's top-level #include lines, whether it already
/// includes the runtime header, and the allocation calls in inactive
/// preprocessor branches of the files being rewritten.
class IncludeTracker : public PPCallbacks {
public:
  IncludeTracker(SourceManager &SM, const LangOptions &LO, RewriteSession &S,
                 const std::string &Dir, MainFileInfo &Info)
      : SM(SM), LO(LO), S(S), Dir(Dir), Info(Info) {}

  void InclusionDirective(SourceLocation Hash, const Token &, StringRef Name,
                          bool, CharSourceRange Range, OptionalFileEntryRef,
                          StringRef, StringRef, const Module *, bool,
                          SrcMgr::CharacteristicKind) override {
    if (!SM.isWrittenInMainFile(Hash))
      return;
    if (Name == "hmplace.h")
      Info.IncludesRuntime = true;
    if (Depth == 0)
      Info.LastIncludeLine = SM.getSpellingLineNumber(Range.getEnd());
  }
  /// Every file entered, and every name #line gives: a large plan's
  /// entries for it are loaded before its calls are parsed.
  void FileChanged(SourceLocation Loc, FileChangeReason Reason,
                   SrcMgr::CharacteristicKind Kind, FileID) override {
    if ((Reason != EnterFile && Reason != RenameFile) || SrcMgr::isSystem(Kind))
      return;
    if (OptionalFileEntryRef FE = SM.getFileEntryRefForID(SM.getFileID(Loc)))
      S.seeFile(FE->getName());
    PresumedLoc PL = SM.getPresumedLoc(Loc);
    if (PL.isValid())
      S.seeFile(PL.getFilename());
  }
  void SourceRangeSkipped(SourceRange Range, SourceLocation) override {
    FileID FID = SM.getFileID(Range.getBegin());
    OptionalFileEntryRef FE = SM.getFileEntryRefForID(FID);
    if (!FE || SM.isInSystemHeader(Range.getBegin()))
      return;
    std::string Path = normalizePath(FE->getName(), Dir);
    if (FID != SM.getMainFileID() && !S.headerSelected(Path))
      return;
    unsigned B = SM.getFileOffset(Range.getBegin());
    unsigned E = SM.getFileOffset(Range.getEnd());
    StringRef Buf = SM.getBufferData(FID);
    if (B >= E || E > Buf.size())
      return;
    for (unsigned Off : allocationCallsIn(Buf.slice(B, E), LO.CPlusPlus))
      Info.SkippedCalls.insert({Path, B + Off});
  }
  void If(SourceLocation L, SourceRange, ConditionValueKind) override {
    enter(L);
  }
  void Ifdef(SourceLocation L, const Token &,
             const MacroDefinition &) override {
    enter(L);
  }
  void Ifndef(SourceLocation L, const Token &,
              const MacroDefinition &) override {
    enter(L);
  }
  void Endif(SourceLocation L, SourceLocation) override {
    if (SM.isWrittenInMainFile(L) && Depth > 0)
      --Depth;
  }

private:
  void enter(SourceLocation L) {
    if (SM.isWrittenInMainFile(L))
      ++Depth;
  }
  SourceManager &SM;
  const LangOptions &LO;
  RewriteSession &S;
  const std::string &Dir;
  MainFileInfo &Info;
  int Depth = 0;
};

class CollectAction : public ASTFrontendAction {
public:
  explicit CollectAction(RewriteSession &S) : S(S) {}

  bool BeginSourceFileAction(CompilerInstance &CI) override {
    auto CWD =
        CI.getFileManager().getVirtualFileSystem().getCurrentWorkingDirectory();
    Dir = CWD ? *CWD : std::string();
    CI.getPreprocessor().addPPCallbacks(std::make_unique<IncludeTracker>(
        CI.getSourceManager(), CI.getLangOpts(), S, Dir, Info));
    return true;
  }

  std::unique_ptr<ASTConsumer> CreateASTConsumer(CompilerInstance &CI,
                                                 StringRef) override {
    struct Consumer : ASTConsumer {
      CollectAction &A;
      explicit Consumer(CollectAction &A) : A(A) {}
      void HandleTranslationUnit(ASTContext &Ctx) override {
        CallCollector C(Ctx, A.Dir, A.S, A.Calls);
        if (CallCollector::canWalkPlainly(Ctx.getLangOpts()))
          C.walkPlainly(Ctx.getTranslationUnitDecl());
        else
          C.TraverseAST(Ctx);
      }
    };
    return std::make_unique<Consumer>(*this);
  }

  void EndSourceFileAction() override {
    CompilerInstance &CI = getCompilerInstance();
    SourceManager &SM = CI.getSourceManager();
    OptionalFileEntryRef Main = SM.getFileEntryRefForID(SM.getMainFileID());
    std::string Path = Main ? normalizePath(Main->getName(), Dir) : "";
    // A file that does not compile is not touched at all.
    if (CI.getDiagnostics().hasErrorOccurred()) {
      S.markFailed(Path);
      return;
    }
    Info.Path = Path;
    for (auto It = SM.fileinfo_begin(), E = SM.fileinfo_end(); It != E; ++It)
      Info.FilesRead.push_back(normalizePath(It->first.getName(), Dir));
    S.addTU(std::move(Calls), std::move(Info));
  }

private:
  RewriteSession &S;
  std::string Dir;
  std::vector<CallRecord> Calls;
  MainFileInfo Info;
};

} // namespace

std::unique_ptr<tooling::FrontendActionFactory>
RewriteSession::actionFactory() {
  struct Factory : tooling::FrontendActionFactory {
    RewriteSession &S;
    explicit Factory(RewriteSession &S) : S(S) {}
    std::unique_ptr<FrontendAction> create() override {
      return std::make_unique<CollectAction>(S);
    }
  };
  return std::make_unique<Factory>(*this);
}

RewriteSession::RewriteSession(PlanSource *Src, DiagEngine &D)
    : Src(Src), ThePlan(Src ? &Src->plan() : nullptr), D(D) {
  if (ThePlan)
    Matcher.emplace(*ThePlan);
}

void RewriteSession::seeFile(StringRef Name) {
  // The matcher holds pointers into the plan's entries: made again when
  // entries come (during parsing it only answers which lines hold callers).
  if (Src && Src->load(sys::path::filename(Name)))
    Matcher.emplace(*ThePlan);
}

/// Whether \p Path names a header by its extension.
static bool isHeaderPath(StringRef Path) {
  StringRef Ext = sys::path::extension(Path);
  return Ext == ".h" || Ext == ".hh" || Ext == ".hpp" || Ext == ".hxx" ||
         Ext == ".H" || Ext == ".h++" || Ext == ".inl" || Ext == ".inc" ||
         Ext == ".tcc" || Ext == ".ipp";
}

bool RewriteSession::headerSelected(StringRef Path) const {
  return !HeaderFilter.empty() && Regex(HeaderFilter).match(Path);
}

void RewriteSession::addTU(std::vector<CallRecord> TUCalls, MainFileInfo Info) {
  // A call in a header is seen once per TU that includes it, a call in a
  // main file once per compile command of the file. The TU where the
  // header's edits are allowed (it is the main file, or selected) has the
  // say, whatever the order of the files.
  // Calls are found again through a hash of what makes them the same call.
  auto Same = [](const CallRecord &A, const CallRecord &B) {
    return A.Key.Line == B.Key.Line && A.Key.Column == B.Key.Column &&
           A.CalleeOffset == B.CalleeOffset && A.Key.File == B.Key.File &&
           A.EditFile == B.EditFile;
  };
  Calls.reserve(Calls.size() + TUCalls.size());
  for (CallRecord &C : TUCalls) {
    // EditFile is interned: its address stands for its text.
    SmallVector<size_t, 1> &Bucket = SeenCalls[hash_combine(
        C.Key.Line, C.Key.Column, C.EditFile.data(), C.CalleeOffset)];
    auto Dup =
        llvm::find_if(Bucket, [&](size_t I) { return Same(Calls[I], C); });
    if (Dup != Bucket.end()) {
      CallRecord &Old = Calls[*Dup];
      if (Old.Edit == CallRecord::InOtherFile &&
          C.Edit != CallRecord::InOtherFile)
        Old = std::move(C);
      else if (Old.NotPlaceable.empty())
        Old.NotPlaceable = C.NotPlaceable;
      continue;
    }
    Bucket.push_back(Calls.size());
    if (!C.EditFile.empty() && C.EditFile != Info.Path &&
        headerSelected(C.EditFile) && C.Edit != CallRecord::InSystemHeader)
      Headers.insert(C.EditFile.str());
    Calls.push_back(std::move(C));
  }
  FilesRead.insert(Info.FilesRead.begin(), Info.FilesRead.end());
  Info.FilesRead.clear();
  SkippedCalls.insert(Info.SkippedCalls.begin(), Info.SkippedCalls.end());
  Info.SkippedCalls.clear();
  MainFiles[Info.Path] = std::move(Info);
}

unsigned RewriteSession::skippedCount() const {
  if (SkippedCalls.empty())
    return 0;
  // A call inactive in one TU may be active in another (the same file built
  // twice with different macros): only the calls no TU saw count.
  std::set<std::pair<std::string, unsigned>> Seen;
  for (const CallRecord &C : Calls)
    if (C.Fn && !C.EditFile.empty())
      Seen.insert({C.EditFile.str(), C.CalleeOffset});
  unsigned N = 0;
  for (const auto &P : SkippedCalls)
    N += !Seen.count(P);
  return N;
}

std::vector<const CallRecord *> RewriteSession::callerSites() const {
  std::vector<const CallRecord *> Out;
  for (const CallRecord &C : Calls)
    if (!C.Fn)
      Out.push_back(&C);
  return Out;
}

std::vector<const CallRecord *> RewriteSession::allocationSites() const {
  std::vector<const CallRecord *> Out;
  for (const CallRecord &C : Calls)
    if (C.Fn && C.Fn->allocates())
      Out.push_back(&C);
  llvm::sort(Out, [](const CallRecord *A, const CallRecord *B) {
    return std::tie(A->Key.File, A->Key.Line, A->Key.Column) <
           std::tie(B->Key.File, B->Key.Line, B->Key.Column);
  });
  return Out;
}

void RewriteSession::warnAt(const CallRecord &C, const Twine &Msg) {
  D.report(C.Key.str(), Severity::Warning, Msg);
}

void RewriteSession::addEdit(StringRef File, unsigned Offset, unsigned Length,
                             StringRef Text) {
  // The same edit twice (a macro argument expanded twice) is one edit.
  auto FileIt = Edits.find(File);
  if (FileIt == Edits.end())
    FileIt = Edits.try_emplace(File.str()).first;
  tooling::Replacements &Reps = FileIt->second;
  SmallVector<SeenEdit, 1> &Same =
      EditSet[hash_combine(File, Offset, Length, Text)];
  for (const SeenEdit &E : Same)
    if (E.Offset == Offset && E.Length == Length && E.Text == Text &&
        *E.File == File)
      return;
  Same.push_back({&FileIt->first, Offset, Length, Text.str()});
  tooling::Replacement R(File, Offset, Length, Text);
  if (Error E = Reps.add(R)) {
    D.report(File, Severity::Error,
             "internal: overlapping edits: " + toString(std::move(E)));
  }
}

/// `"..."` for a C string literal.
static std::string cString(StringRef S) {
  std::string Out = "\"";
  for (char C : S) {
    if (C == '\n')
      Out += "\\n";
    else if (C == '\t')
      Out += "\\t";
    else if (C == '"' || C == '\\')
      Out += std::string("\\") + C;
    else
      Out += C;
  }
  return Out + "\"";
}

void RewriteSession::noteCaller(const CallRecord &C) {
  const char *Why = nullptr;
  if (!C.NoteProblem.empty())
    Why = C.NoteProblem.c_str();
  else if (C.Edit == CallRecord::InSystemHeader)
    Why = "it is in a system header";
  else if (C.Edit == CallRecord::InOtherFile || !isRewritten(C.EditFile))
    Why = "its file is not being rewritten (name it, or select its header "
          "with --header-filter)";
  if (Why) {
    warnAt(C, Twine("call at ") + C.Key.str() +
                  " is a caller frame of a call-stack entry but cannot be "
                  "noted: " +
                  Why + "; entries through it place nothing");
    return;
  }
  uint64_t Id = contextFrameId(C.Key.File, C.Key.Line, C.Key.Column);
  addEdit(C.EditFile, C.NoteBegin, 0,
          "__extension__({ __attribute__((cleanup(hmplace_ctx_cleanup))) "
          "uint32_t hm_ctx_ "
          "= hmplace_ctx_push(0x" +
              utohexstr(Id, /*LowerCase=*/true) + "); ");
  addEdit(C.EditFile, C.NoteEnd, 0, "; })");
  ++NumNoted;
  if (Remarks)
    D.report(C.Key.str(), Severity::Remark,
             "call at " + C.Key.str() + " notes itself for call-stack entries");
}

bool RewriteSession::finish() {
  unsigned ErrorsBefore = D.errors();
  std::vector<Placement> Decisions;
  std::vector<int> CallIndex(Calls.size(), -1);
  // -v names every entry not examined: all of a large plan is needed then.
  if (Src && Verbose && Src->unloaded()) {
    Src->loadAll();
    Matcher.emplace(*ThePlan);
  }
  if (Matcher) {
    for (size_t I = 0; I < Calls.size(); ++I)
      if (Calls[I].Fn && Calls[I].Fn->allocates() &&
          Matcher->mayMatchLine(Calls[I].Key.Line)) {
        CallContext Ctx;
        Ctx.Frames.push_back(Calls[I].Key);
        Ctx.CompileDir = Calls[I].CompileDir;
        CallIndex[I] = int(Matcher->addCall(std::move(Ctx)));
      }
    Decisions = Matcher->resolve();
  }

  for (size_t I = 0; I < Calls.size(); ++I) {
    const CallRecord &C = Calls[I];
    if (!C.Fn) {
      CallContext Ctx;
      Ctx.Frames.push_back(C.Key);
      Ctx.CompileDir = C.CompileDir;
      if (Matcher && Matcher->isNoted(Ctx) && !C.AlreadyNoted)
        noteCaller(C);
      continue;
    }
    const Placement *P = CallIndex[I] >= 0 ? &Decisions[CallIndex[I]] : nullptr;
    bool Contextual = P && P->State == Placement::Contextual;
    bool Wanted = P && (P->State == Placement::Placed || Contextual) &&
                  (Contextual || !P->Entry->To.isHeap());
    bool Placed = Wanted && !C.AlreadyPlaced;
    if (P && P->State == Placement::Conflict)
      warnAt(C, "not placed: " + P->Reason);
    if (Placed) {
      const KindInfo &K =
          Contextual ? *P->Choices.front().Entry->To.Kind : *P->Entry->To.Kind;
      const char *Why = nullptr;
      switch (C.Edit) {
      case CallRecord::Editable:
        break;
      case CallRecord::InMacroBody:
        Why = "it is inside the body of a macro, which every use of the "
              "macro shares";
        break;
      case CallRecord::InSystemHeader:
        Why = "it is in a system header";
        break;
      case CallRecord::InOtherFile:
        Why = "it is in a file that is not being rewritten (only the files "
              "named on the command line are, and headers selected with "
              "--header-filter)";
        break;
      }
      if (!Why && !isRewritten(C.EditFile))
        Why = "its file is not being rewritten";
      if (!C.NotPlaceable.empty())
        Why = C.NotPlaceable.c_str();
      if (Why) {
        warnAt(C, Twine("planned ") + C.Fn->Name + " (" +
                      (Contextual ? "by caller" : K.Name) +
                      ") not rewritten: " + Why +
                      (C.Macro.empty() ? "" : " ('" + C.Macro + "')") +
                      (C.NotPlaceable.empty()
                           ? "; place it with HmPlace.so or edit the code"
                           : ""));
        continue;
      }
      // The kind: a constant, or the runtime's answer for the current
      // caller chain.
      std::string KindText =
          Contextual ? "(enum hmplace_kind)hmplace_ctx_kind(" +
                           cString(encodeContextSite(C.Key, P->Choices,
                                                     P->fallbackKind())) +
                           ")"
                     : runtimeKindConstant(K);
      if (C.IsNew) {
        addEdit(C.EditFile, C.NewOffset, 0,
                C.NewInParens ? KindText + ", " : " (" + KindText + ")");
      } else {
        addEdit(C.EditFile, C.CalleeOffset, C.CalleeLength, C.Fn->Placed);
        addEdit(C.EditFile, C.ArgOffset, 0, KindText + ", ");
      }
      ++NumPlaced;
      if (Remarks)
        D.report(C.Key.str(), Severity::Remark,
                 Twine("placed ") + C.Fn->Name + " at " + C.Key.str() +
                     (Contextual
                          ? " by its callers (" + P->contextSummary() + ")"
                          : std::string(" in ") + K.Name + " (plan entry '" +
                                P->Entry->key() + "')"));
      continue;
    }
    if (Wanted && C.AlreadyPlaced) {
      // The plan may have moved the site to another kind since: the kind
      // argument follows it, so a rerun brings the sources to the plan.
      std::string Want =
          Contextual ? std::string() : runtimeKindConstant(*P->Entry->To.Kind);
      if (!Want.empty() && !C.KindArgText.empty() && C.KindArgText != Want &&
          StringRef(C.KindArgText).starts_with("HMPLACE_") &&
          isRewritten(C.EditFile)) {
        addEdit(C.EditFile, C.KindArgOffset, C.KindArgText.size(), Want);
        ++NumRekinded;
      } else {
        ++NumAlreadyPlaced;
      }
    } else if (C.AlreadyPlaced && !C.KindArgText.empty() && !Wanted &&
               Matcher && isRewritten(C.EditFile)) {
      warnAt(C, "placed in the source (" + C.KindArgText +
                    ") but no plan entry names this call; left as it is");
    }
    // Everything else that frees must dispatch: free, and realloc that is
    // not placed (it keeps the block wherever it lives).
    if (C.Fn->Dispatch && !C.AlreadyPlaced &&
        (C.Edit == CallRecord::Editable || C.Edit == CallRecord::InMacroBody) &&
        !C.EditFile.empty() && isRewritten(C.EditFile)) {
      addEdit(C.EditFile, C.CalleeOffset, C.CalleeLength, C.Fn->Dispatch);
      ++NumDispatch;
    }
  }
  if (Matcher) {
    Coverage Cov;
    Cov.Read.assign(FilesRead.begin(), FilesRead.end());
    Cov.Failed.assign(Failed.begin(), Failed.end());
    Cov.ListUnexamined = Verbose;
    Cov.NotLoaded = Src ? Src->unloaded() : 0;
    Matcher->reportUsage(D, &Cov);
    Matcher->reportUnnoted(D);
  }

  for (auto &[File, Reps] : Edits) {
    if (Reps.empty())
      continue;
    // A header named on the command line is a main file to clang, but its
    // include goes where it goes in a header selected by --header-filter, so
    // that both ways give the same text.
    auto It = MainFiles.find(File);
    if (It != MainFiles.end() && !isHeaderPath(File)) {
      if (!It->second.IncludesRuntime)
        insertInclude(File, It->second, Reps.begin()->getOffset(), 0);
      continue;
    }
    if (!Headers.count(File) && It == MainFiles.end())
      continue;
    // A header: its includes sit inside the include guard (depth 1).
    auto Buf = MemoryBuffer::getFile(File);
    if (!Buf)
      continue;
    MainFileInfo Info;
    Info.Path = File;
    SmallVector<StringRef, 64> Lines;
    (*Buf)->getBuffer().split(Lines, '\n');
    for (size_t L = 0; L < Lines.size(); ++L) {
      StringRef T = Lines[L].ltrim();
      if (!T.consume_front("#") || !T.ltrim().starts_with("include"))
        continue;
      Info.LastIncludeLine = L + 1;
      Info.IncludesRuntime |= T.contains("hmplace.h");
    }
    if (!Info.IncludesRuntime)
      insertInclude(File, Info, Reps.begin()->getOffset(), 1);
  }
  return D.errors() == ErrorsBefore;
}

/// Put `#include <hmplace.h>` on a blank file-level line after the last
/// top-level #include (and before the first edit), so that no line moves;
/// if there is none, on a new line after the last include.
void RewriteSession::insertInclude(const std::string &File,
                                   const MainFileInfo &Info, unsigned FirstEdit,
                                   int GuardDepth) {
  auto Buf = MemoryBuffer::getFile(File);
  if (!Buf) {
    D.report(File, Severity::Error, "cannot read: " + Buf.getError().message());
    return;
  }
  StringRef Text = (*Buf)->getBuffer();
  static constexpr llvm::StringLiteral Line = "#include <hmplace.h>";
  // Start of the line after the last include.
  size_t Pos = 0;
  for (unsigned L = 1; L <= Info.LastIncludeLine && Pos < Text.size(); ++L) {
    size_t NL = Text.find('\n', Pos);
    Pos = NL == StringRef::npos ? Text.size() : NL + 1;
  }
  // A UTF-8 byte order mark stays the file's first bytes.
  size_t LineStartAt = 0;
  if (Pos == 0 && Text.starts_with("\xEF\xBB\xBF"))
    Pos = LineStartAt = 3;
  size_t AfterIncludes = Pos;
  // Scan forward for a blank line at file scope: outside comments, strings,
  // braces, and not continuing a directive with a backslash.
  bool InBlock = false, InLine = false, PrevBackslash = false;
  char Quote = 0;
  int Depth = 0, PPDepth = 0;
  size_t LineStart = Pos;
  for (size_t I = Pos; I <= Text.size() && I <= FirstEdit; ++I) {
    if (I == Text.size() || Text[I] == '\n') {
      StringRef L = Text.slice(LineStart, I);
      StringRef Dir = L.ltrim();
      if (!InBlock && !PrevBackslash && Dir.consume_front("#")) {
        Dir = Dir.ltrim();
        if (Dir.starts_with("if"))
          ++PPDepth; // #if, #ifdef, #ifndef
        else if (Dir.starts_with("endif") && PPDepth > 0)
          --PPDepth;
      }
      if (!InBlock && !Quote && Depth == 0 && PPDepth <= GuardDepth &&
          L.trim().empty() && !PrevBackslash && I <= FirstEdit) {
        addEdit(File, LineStart, L.rtrim("\r").size(), Line);
        return;
      }
      PrevBackslash =
          !L.rtrim(" \t\r").empty() && L.rtrim(" \t\r").back() == '\\';
      InLine = false;
      LineStart = I + 1;
      continue;
    }
    char Ch = Text[I], Next = I + 1 < Text.size() ? Text[I + 1] : 0;
    if (InLine)
      continue;
    if (InBlock) {
      if (Ch == '*' && Next == '/')
        InBlock = false, ++I;
      continue;
    }
    if (Quote) {
      if (Ch == '\\')
        ++I;
      else if (Ch == Quote)
        Quote = 0;
      continue;
    }
    if (Ch == '/' && Next == '*')
      InBlock = true, ++I;
    else if (Ch == '/' && Next == '/')
      InLine = true;
    else if (Ch == '"' || Ch == '\'')
      Quote = Ch;
    else if (Ch == '{')
      ++Depth;
    else if (Ch == '}')
      --Depth;
  }
  // No blank line to take: two new lines, and `#line` so that the lines
  // after them keep their numbers for the compiler, debug info and the plan.
  // Inserted lines end as the file's lines do.
  StringRef EOL = Text.contains("\r\n") ? "\r\n" : "\n";
  StringRef Before =
      AfterIncludes > LineStartAt && Text[AfterIncludes - 1] != '\n' ? EOL : "";
  addEdit(
      File, AfterIncludes, 0,
      (Before + Line + EOL + "#line " + Twine(Info.LastIncludeLine + 1) + EOL)
          .str());
}

} // namespace hmplace
