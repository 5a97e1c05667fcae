//===- Collect.cpp - record a translation unit's allocation calls ---------===//
//
// The AST walk of hmrewrite. Every call of an allocation or free function and
// every new-expression becomes a CallRecord with the file offsets its edit
// would touch (AllocSites.cpp); calls on the plan's caller lines become
// candidate caller frames (Callers.cpp), calls that make a container
// allocate container records (ContainerCalls.cpp). Nothing is decided here: the
// records of every TU meet in RewriteSession::finish().
//
//===----------------------------------------------------------------------===//
#include "AllocSites.h"
#include "Callers.h"
#include "ContainerCalls.h"
#include "EditLocator.h"
#include "PPTracker.h"
#include "Rewrite.h"

#include "clang/AST/ASTConsumer.h"
#include "clang/AST/RecursiveASTVisitor.h"
#include "clang/AST/StmtOpenMP.h"
#include "clang/Frontend/CompilerInstance.h"
#include "clang/Frontend/FrontendAction.h"
#include "clang/Lex/Lexer.h"
#include "clang/Lex/Preprocessor.h"
#include "llvm/ADT/STLExtras.h"

using namespace clang;
using namespace llvm;

namespace hmplace {

namespace {

class CallCollector : public RecursiveASTVisitor<CallCollector> {
public:
  CallCollector(ASTContext &Ctx, StringRef Dir, const RewriteSession &S,
                std::vector<CallRecord> &Out, MainFileInfo &Info)
      : Ctx(Ctx), SM(Ctx.getSourceManager()), IDir(S.intern(Dir)),
        L(Ctx, Dir, S), Out(Out), Info(Info), Containers(L, IDir, Out),
        Sites(L, IDir, Out) {}

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
          VisitDeclRefExpr(cast<DeclRefExpr>(S));
          continue;
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
          recordRegion(L, OD, CurFn, IDir, Out);
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

  /// Constructors of class objects may be caller frames (a container
  /// constructed at a planned line).
  bool VisitCXXConstructExpr(CXXConstructExpr *CE) {
    if (!CE->getConstructor()->isTrivial())
      recordCaller(L, CE, CurFn, IDir, Out);
    if (L.session().listsContainers())
      Containers.construction(CE, CurFn);
    noteRecordLine(CE->getBeginLoc());
    return true;
  }

  bool VisitCXXMemberCallExpr(CXXMemberCallExpr *CE) {
    if (L.session().listsContainers())
      Containers.memberCall(CE, CurFn);
    noteRecordLine(CE->getBeginLoc());
    return true;
  }

  bool VisitCXXOperatorCallExpr(CXXOperatorCallExpr *CE) {
    if (L.session().listsContainers())
      Containers.operatorCall(CE, CurFn);
    noteRecordLine(CE->getBeginLoc());
    return true;
  }

  bool VisitOMPExecutableDirective(OMPExecutableDirective *D) {
    recordRegion(L, D, CurFn, IDir, Out);
    return true;
  }

  /// A function named other than as a call's callee may be called through
  /// a pointer: its direct calls are not all its callers.
  bool VisitDeclRefExpr(DeclRefExpr *DR) {
    if (L.session().recordsCallers() && !CalleeRefs.count(DR))
      if (const auto *FD = dyn_cast<FunctionDecl>(DR->getDecl()))
        if (FD->getIdentifier())
          Info.AddressTaken.insert(FD->getName().str());
    return true;
  }

  bool VisitCallExpr(CallExpr *CE) {
    if (L.session().listsContainers())
      Containers.call(CE, CurFn);
    if (L.session().recordsCallers())
      countCall(CE);
    if (!Sites.call(CE, CurFn))
      recordCaller(L, CE, CurFn, IDir, Out);
    noteCallToken(CE);
    noteRecordLine(CE->getBeginLoc());
    return true;
  }

  bool VisitCXXNewExpr(CXXNewExpr *NE) {
    Sites.newExpr(NE, CurFn);
    noteRecordLine(NE->getBeginLoc());
    return true;
  }

  /// A built-in subscript cannot allocate, but it is written as an
  /// operator[] call is (C++): its `[` is found if it is on such a line.
  bool VisitArraySubscriptExpr(ArraySubscriptExpr *E) {
    SourceLocation At = E->getLHS()->getEndLoc();
    while (At.isMacroID() && SM.isMacroArgExpansion(At))
      At = SM.getImmediateSpellingLoc(At);
    if (At.isValid() && At.isFileID()) {
      auto [FID, Off] = SM.getDecomposedLoc(At);
      Subscripts.push_back({FID, Off});
    }
    return true;
  }

  /// The calls on the lines of the calls recorded (those the rewrite may
  /// edit), as CallsNearSites.
  void recordCallsNearSites() {
    llvm::DenseMap<FileID, std::set<unsigned>> Lines;
    llvm::DenseMap<FileID, std::vector<std::pair<unsigned, unsigned>>> Broken;
    for (auto [FID, Off] : SiteTokens) {
      std::set<unsigned> &In = Lines[FID];
      In.insert(SM.getLineNumber(FID, Off));
      // A statement an earlier run broke: all its lines.
      auto [It, New] = Broken.try_emplace(FID);
      if (New)
        It->second = brokenStatementSpans(SM.getBufferData(FID));
      for (auto [B, E] : It->second)
        if (B <= Off && Off < E)
          for (unsigned N = SM.getLineNumber(FID, B),
                        Z = SM.getLineNumber(FID, E);
               N <= Z; ++N)
            In.insert(N);
    }
    // The calls of a program's file at \p Off, if on such a line.
    auto Near = [&](FileID FID, unsigned Off) -> std::map<unsigned, bool> * {
      auto It = Lines.find(FID);
      if (It == Lines.end() || !It->second.count(SM.getLineNumber(FID, Off)))
        return nullptr;
      const EditLocator::FileFacts &F = L.factsOf(FID);
      if (F.System || F.Path.empty())
        return nullptr;
      return &Info.CallsNearSites[F.Path.str()];
    };
    // Template instances share the text: it cannot allocate only where
    // none of them can.
    auto Note = [](std::map<unsigned, bool> &Calls, unsigned Off,
                   bool Harmless) {
      if (auto [At, New] = Calls.try_emplace(Off, Harmless); !New)
        At->second &= Harmless;
    };
    for (auto [FID, Off, CE] : CallTokens)
      if (std::map<unsigned, bool> *Calls = Near(FID, Off))
        Note(*Calls, Off, L.harmless().node(CE));
    for (auto [FID, Off] : Subscripts) {
      std::map<unsigned, bool> *Calls = Near(FID, Off);
      std::optional<Token> Bracket =
          Calls ? Lexer::findNextToken(SM.getComposedLoc(FID, Off), SM,
                                       Ctx.getLangOpts())
                : std::nullopt;
      if (Bracket && Bracket->is(tok::l_square))
        Note(*Calls, SM.getFileOffset(Bracket->getLocation()), true);
    }
  }

private:
  /// The token of \p CE a line break could move to another line (the
  /// callee's name, an operator[] call's `[`), if written in a file.
  void noteCallToken(const CallExpr *CE) {
    SourceLocation At;
    if (const auto *OC = dyn_cast<CXXOperatorCallExpr>(CE)) {
      if (OC->getOperator() == OO_Subscript)
        At = OC->getOperatorLoc();
    } else {
      const Expr *Callee = CE->getCallee()->IgnoreParenImpCasts();
      if (const auto *ME = dyn_cast<MemberExpr>(Callee))
        At = ME->getMemberLoc();
      else if (const auto *DR = dyn_cast<DeclRefExpr>(Callee))
        At = DR->getLocation();
    }
    // Written in a macro's argument (an earlier run's wrapper): there.
    while (At.isMacroID() && SM.isMacroArgExpansion(At))
      At = SM.getImmediateSpellingLoc(At);
    if (At.isValid() && At.isFileID()) {
      auto [FID, Off] = SM.getDecomposedLoc(At);
      CallTokens.push_back({FID, Off, CE});
    }
  }
  /// The line of the node at \p Begin, if the visit recorded a call there
  /// (an allocation, a caller frame, a container's): a line the rewrite
  /// may edit.
  void noteRecordLine(SourceLocation Begin) {
    if (Out.size() == Recorded)
      return;
    Recorded = Out.size();
    // Written in a macro's argument, or its body (the line of its use).
    for (SourceLocation At :
         {SM.getSpellingLoc(Begin), SM.getExpansionLoc(Begin)})
      if (At.isValid())
        SiteTokens.push_back(SM.getDecomposedLoc(At));
  }

  /// Record \p CE as a call of its callee (MainFileInfo::CallsTo).
  void countCall(const CallExpr *CE) {
    const FunctionDecl *FD = CE->getDirectCallee();
    if (!FD || !FD->getIdentifier())
      return;
    if (const auto *DR =
            dyn_cast<DeclRefExpr>(CE->getCallee()->IgnoreParenImpCasts()))
      CalleeRefs.insert(DR);
    SourceLocation At = SM.getExpansionLoc(CE->getExprLoc());
    PresumedLoc PL = SM.getPresumedLoc(At);
    if (PL.isInvalid())
      return;
    SourcePos Pos =
        makeSourcePos(L.normalizer(), PL.getFilename(), PL.getLine(),
                      L.keyColumn(At, PL.getColumn()));
    std::vector<SourcePos> &V = Info.CallsTo[FD->getName().str()];
    if (V.size() < 2 && llvm::none_of(V, [&](const SourcePos &P) {
          return P.File == Pos.File && P.Line == Pos.Line &&
                 P.Column == Pos.Column;
        }))
      V.push_back(Pos);
  }

private:
  ASTContext &Ctx;
  SourceManager &SM;
  StringRef IDir;
  EditLocator L;
  std::vector<CallRecord> &Out;
  MainFileInfo &Info;
  ContainerCalls Containers;
  AllocSites Sites;
  /// Callee names seen, so that they do not count as addresses taken.
  llvm::SmallPtrSet<const DeclRefExpr *, 32> CalleeRefs;
  /// Where calls and allocation calls are written (recordCallsNearSites).
  std::vector<std::tuple<FileID, unsigned, const CallExpr *>> CallTokens;
  std::vector<std::pair<FileID, unsigned>> SiteTokens, Subscripts;
  size_t Recorded = 0; ///< Out's records seen by noteRecordLine
  const FunctionDecl *CurFn = nullptr;
};

class CollectAction : public ASTFrontendAction {
public:
  explicit CollectAction(RewriteSession &S) : S(S) {}

  bool BeginSourceFileAction(CompilerInstance &CI) override {
    auto CWD =
        CI.getFileManager().getVirtualFileSystem().getCurrentWorkingDirectory();
    Dir = CWD ? *CWD : std::string();
    auto T = std::make_unique<PPTracker>(CI.getSourceManager(),
                                         CI.getLangOpts(), S, Dir, Info);
    Tracker = T.get();
    CI.getPreprocessor().addPPCallbacks(std::move(T));
    return true;
  }

  /// The extents of the top-level declarations of the files hmrewrite may
  /// edit: blank lines inside them are not at file scope.
  void recordDecls(ASTContext &Ctx) {
    SourceManager &SM = Ctx.getSourceManager();
    for (const Decl *D : Ctx.getTranslationUnitDecl()->decls()) {
      if (D->isImplicit() || D->getBeginLoc().isInvalid())
        continue;
      CharSourceRange R = SM.getExpansionRange(D->getSourceRange());
      auto [FID, B] = SM.getDecomposedLoc(R.getBegin());
      auto [EFID, E] = SM.getDecomposedLoc(R.getEnd());
      FileLayout *L = FID == EFID ? Tracker->layoutOf(FID) : nullptr;
      if (!L)
        continue;
      if (R.isTokenRange())
        E += Lexer::MeasureTokenLength(R.getEnd(), SM, Ctx.getLangOpts());
      L->Decls.push_back({B, E});
    }
  }

  /// The walk and the parent map (Ctx.getParents, which the caller frames'
  /// rules ask) cover the program's own declarations only: nothing in a
  /// system header is ever edited or noted, and in C++ the standard
  /// library's headers are most of the AST (a parent map over all of it cost
  /// a C++ code base of containers 10% of hmrewrite's time).
  static void scopeToProgram(ASTContext &Ctx) {
    SourceManager &SM = Ctx.getSourceManager();
    std::vector<Decl *> Own;
    for (Decl *D : Ctx.getTranslationUnitDecl()->decls())
      if (D->getLocation().isInvalid() ||
          !SM.isInSystemHeader(D->getLocation()))
        Own.push_back(D);
    Ctx.setTraversalScope(Own);
  }

  std::unique_ptr<ASTConsumer> CreateASTConsumer(CompilerInstance &CI,
                                                 StringRef) override {
    struct Consumer : ASTConsumer {
      CollectAction &A;
      explicit Consumer(CollectAction &A) : A(A) {}
      void HandleTranslationUnit(ASTContext &Ctx) override {
        A.recordDecls(Ctx);
        A.scopeToProgram(Ctx);
        CallCollector C(Ctx, A.Dir, A.S, A.Calls, A.Info);
        if (CallCollector::canWalkPlainly(Ctx.getLangOpts()))
          C.walkPlainly(Ctx.getTranslationUnitDecl());
        else
          C.TraverseAST(Ctx);
        C.recordCallsNearSites();
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
  PPTracker *Tracker = nullptr; ///< owned by the preprocessor
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

} // namespace hmplace
