//===- AllocSites.cpp - the allocation calls of a translation unit --------===//
//
// Every call of an allocation or free function (the C library's or std::'s,
// or one an earlier run rewrote) and every new-expression becomes a
// CallRecord keyed where debug info puts it, with the file offsets its edit
// would touch (EditLocator). Part of the AST walk (Collect.cpp), apart from
// the caller frames and containers it also records.
//
//===----------------------------------------------------------------------===//
#include "AllocSites.h"
#include "EditLocator.h"
#include "Rewrite.h"

#include "clang/AST/ExprCXX.h"
#include "clang/Basic/CharInfo.h"
#include "clang/Lex/Lexer.h"

using namespace clang;
using namespace llvm;

namespace hmplace {

bool AllocSites::call(const CallExpr *CE, const FunctionDecl *CurFn) {
  const FunctionDecl *FD = CE->getDirectCallee();
  if (!FD || !FD->getIdentifier()) {
    return false;
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
    return false;
  }
  // The C library function (or std::), not a user function of that name
  // in some namespace or class.
  const DeclContext *DC = FD->getDeclContext()->getRedeclContext();
  if (!(FD->isExternC() || FD->isInStdNamespace() || DC->isTranslationUnit())) {
    return false;
  }
  // hmplace_free / hmplace_realloc: a free or realloc that dispatches
  // already, placed by nobody.
  record(CE, FD, Fn, Already && TakesKind, Already && !TakesKind, CurFn);
  return true;
}

/// Start a record, in place at the end of Out, for an allocation whose
/// expression begins at \p Begin: the key is where it begins, at its macro
/// use if written through one, in presumed coordinates (#line), exactly as
/// debug info records it. Null if it has no position.
CallRecord *AllocSites::start(SourceLocation Begin, const AllocFn *Fn,
                              bool Already, const FunctionDecl *CurFn) {
  SourceLocation At = SM.getExpansionLoc(Begin);
  PresumedLoc PL = SM.getPresumedLoc(At);
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
    LastKeyFile = &L.normalize(LastPresumed);
  }
  R.Key = {*LastKeyFile, PL.getLine(), L.keyColumn(At, PL.getColumn())};
  L.keyOffset(R, Begin);
  R.Joined = L.joinedKey(At, R.Key);
  return &R;
}

/// The text a size window's check repeats: the size argument(s) as
/// written (\p Shift: 1 past the kind of a call rewritten before).
void AllocSites::sizeArguments(CallRecord &R, const CallExpr *CE,
                               unsigned Shift) {
  const AllocFn *Fn = R.Fn;
  if (Fn->SizeArg < 0) {
    R.NoSizeWhy = std::string("the size of ") + Fn->Name +
                  " is not an argument of the call";
    return;
  }
  for (int A : {Fn->SizeArg, Fn->SizeArg2}) {
    if (A < 0 || unsigned(A) + Shift >= CE->getNumArgs())
      continue;
    const Expr *E = CE->getArg(unsigned(A) + Shift);
    if (E->HasSideEffects(Ctx)) {
      R.NoSizeWhy = "its size argument has side effects, which the "
                    "window's check would repeat";
      return;
    }
    CharSourceRange Range = Lexer::makeFileCharRange(
        CharSourceRange::getTokenRange(E->getSourceRange()), SM,
        Ctx.getLangOpts());
    if (Range.isInvalid()) {
      R.NoSizeWhy = "its size argument is written through a macro";
      return;
    }
    R.SizeArgText.push_back(
        Lexer::getSourceText(Range, SM, Ctx.getLangOpts()).str());
  }
}

void AllocSites::record(const CallExpr *CE, const FunctionDecl *FD,
                        const AllocFn *Fn, bool Already, bool Dispatching,
                        const FunctionDecl *CurFn) {
  CallRecord *R = start(CE->getBeginLoc(), Fn, Already, CurFn);
  if (!R)
    return;
  R->Dispatching = Dispatching;
  const Expr *Callee = CE->getCallee()->IgnoreParenImpCasts();
  const auto *Name = dyn_cast<DeclRefExpr>(Callee); // past `std::`
  L.keyOffset(*R, Name ? Name->getLocation() : Callee->getExprLoc());
  FileID FID = L.locateEdit(*R, Callee->getBeginLoc(), Callee->getEndLoc(),
                            FD->getName());
  if (Already && R->Edit == CallRecord::Editable)
    L.recordKindArg(*R, FID, CE->getArg(0),
                    CE->getNumArgs() > 1 ? CE->getArg(1) : nullptr);
  if (L.session().checksSizes())
    sizeArguments(*R, CE, Already ? 1 : 0);
  // The kind goes before the first argument, in the same context as the
  // callee: a file position, or the same macro argument's spelling.
  if (!Already && R->Edit == CallRecord::Editable) {
    if (L.argumentOffset(*R, FID, CE->getArg(0)->getBeginLoc(), R->ArgOffset))
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

/// `new (KIND) T`, `new (std::nothrow, KIND) T`: the kind is a placement
/// argument (AllocSites.h).
void AllocSites::newExpr(const CXXNewExpr *NE, const FunctionDecl *CurFn) {
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
    return;
  }
  CallRecord *R = start(Begin, newExprFn(NE->isArray()), Already, CurFn);
  if (!R) {
    NewSeen.erase(It);
    return;
  }
  L.keyOffset(*R, Begin);
  R->IsNew = true;
  R->NotPlaceable = Problem;
  // The `new` keyword: the expression's first token, or the one after `::`.
  SourceLocation Kw = Begin;
  if (NE->isGlobalNew()) {
    SourceLocation FileB = L.insertionLoc(Begin);
    std::optional<Token> T =
        FileB.isValid() ? Lexer::findNextToken(FileB, SM, Ctx.getLangOpts())
                        : std::nullopt;
    Kw = T ? T->getLocation() : SourceLocation();
  }
  FileID FID;
  if (Kw.isInvalid())
    R->Edit = CallRecord::InMacroBody;
  else
    FID = L.locateEdit(*R, Kw, Kw, "new");
  if (Already && R->Edit == CallRecord::Editable) {
    L.recordKindArg(*R, FID, NE->getPlacementArg(0),
                    NE->getNumPlacementArgs() > 1 ? NE->getPlacementArg(1)
                                                  : nullptr);
    // `new (KIND) T`: the parentheses go too when the kind does.
    if (NE->getNumPlacementArgs() == 1 && !R->KindArgText.empty()) {
      StringRef Buf = SM.getBufferData(FID);
      size_t Close = R->KindArgOffset + R->KindArgText.size();
      while (Close < Buf.size() && isWhitespace(Buf[Close]))
        ++Close;
      if (Close < Buf.size() && Buf[Close] == ')') {
        R->PlacementBegin = R->CalleeOffset + R->CalleeLength;
        R->PlacementEnd = Close + 1;
      }
    }
  }
  if (!Already && R->Edit == CallRecord::Editable) {
    if (Nothrow) {
      R->NewInParens = L.argumentOffset(
          *R, FID, NE->getPlacementArg(0)->getBeginLoc(), R->NewOffset);
      if (!R->NewInParens)
        R->Edit = CallRecord::InMacroBody;
    } else {
      R->NewOffset = R->CalleeOffset + R->CalleeLength;
    }
  }
}

} // namespace hmplace
