//===- EditLocator.cpp - where an edit of a call goes, through macros -----===//
//
// A call written in a macro argument is edited where the argument is spelled:
// that text belongs to this use alone. A call whose tokens come from a macro
// body is not: the body is shared by every use of the macro. A macro use that
// begins with the call (`F(args)` where F expands to `malloc`) is edited at
// the use, before its first token.
//
//===----------------------------------------------------------------------===//
#include "EditLocator.h"
#include "Rewrite.h"
#include "Rewritten.h"

#include "clang/Lex/Lexer.h"

using namespace clang;
using namespace llvm;

namespace hmplace {

EditLocator::EditLocator(ASTContext &Ctx, StringRef Dir,
                         const RewriteSession &S)
    : Ctx(Ctx), SM(Ctx.getSourceManager()), S(S), Norm(Dir) {}

const EditLocator::FileFacts &EditLocator::factsOf(FileID FID) {
  auto [It, New] = Facts.try_emplace(FID);
  if (New) {
    FileFacts &F = It->second;
    F.System = SrcMgr::isSystem(
        SM.getFileCharacteristic(SM.getLocForStartOfFile(FID)));
    F.HasNotes = !F.System && SM.getBufferData(FID).contains("HMPLACE_");
    if (OptionalFileEntryRef FE = SM.getFileEntryRefForID(FID)) {
      F.Path = S.intern(Norm(FE->getName()));
      F.Selected = S.headerSelected(F.Path);
    }
  }
  return It->second;
}

unsigned EditLocator::keyColumn(SourceLocation FileLoc, unsigned Column) {
  FileID FID = SM.getFileID(FileLoc);
  auto [It, New] = Added.try_emplace(FID);
  if (New)
    It->second = addedSpans(SM.getBufferData(FID), Ctx.getLangOpts());
  if (It->second.empty())
    return Column;
  unsigned Off = SM.getFileOffset(FileLoc);
  unsigned LineStart = Off - (SM.getSpellingColumnNumber(FileLoc) - 1);
  return Column - addedBetween(It->second, LineStart, Off);
}

void EditLocator::keyOffset(CallRecord &R, SourceLocation Loc) const {
  // A call in a macro argument (an earlier run's note around it) is its
  // own token where the argument is written; through a macro's body, the
  // macro's use (itself perhaps in a note's argument).
  SourceLocation Tok = Loc;
  while (Tok.isMacroID())
    Tok = SM.isMacroArgExpansion(Tok)
              ? SM.getImmediateSpellingLoc(Tok)
              : SM.getImmediateExpansionRange(Tok).getBegin();
  PresumedLoc Raw = SM.getPresumedLoc(Tok, /*UseLineDirectives=*/false);
  if (Raw.isInvalid() || Norm(Raw.getFilename()) != R.Key.File)
    return;
  R.HaveKeyOffset = true;
  R.KeyOffset = SM.getFileOffset(Tok);
}

const std::vector<JoinedStatement> &
EditLocator::joinedStatementsOf(FileID FID) {
  auto [It, New] = Joined.try_emplace(FID);
  if (New)
    if (const FileFacts &F = factsOf(FID); !F.System && !F.Path.empty())
      It->second =
          joinedStatements(F.Path, SM.getBufferData(FID), treeStyle(F.Path));
  return It->second;
}

std::optional<SourcePos> EditLocator::joinedKey(SourceLocation FileLoc,
                                                const SourcePos &Key) {
  FileID FID = SM.getFileID(FileLoc);
  unsigned Off = SM.getFileOffset(FileLoc);
  const std::vector<JoinedStatement> &Ss = joinedStatementsOf(FID);
  auto S = llvm::upper_bound(Ss, Off, [](unsigned O, const JoinedStatement &J) {
    return O < J.Begin;
  });
  if (S == Ss.begin() || Off >= (--S)->End)
    return std::nullopt;
  StringRef Buf = SM.getBufferData(FID);
  size_t FirstEnd = Buf.find('\n', S->Begin);
  if (Off <= FirstEnd)
    return std::nullopt; // on the first line: where it was
  // The column on the joined line, less what earlier runs added before it.
  unsigned Column = S->joinedOffset(Buf, Off) + 1;
  if (auto A = Added.find(FID); A != Added.end())
    for (auto [B, E] : A->second)
      if (E > S->Begin && B < Off)
        Column -= S->joinedOffset(Buf, std::min(E, Off)) -
                  S->joinedOffset(Buf, std::max(B, S->Begin));
  return SourcePos{Key.File,
                   SM.getPresumedLineNumber(SM.getComposedLoc(FID, S->Begin)),
                   Column};
}

SourceLocation EditLocator::insertionLoc(SourceLocation L) const {
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

unsigned EditLocator::tokenLength(SourceLocation L, StringRef Expected) const {
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

FileID EditLocator::locateEdit(CallRecord &R, SourceLocation B,
                               SourceLocation E, StringRef LastToken) {
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

bool EditLocator::argumentOffset(const CallRecord &R, FileID FID,
                                 SourceLocation L, unsigned &Off) {
  SourceLocation AL = insertionLoc(L);
  if (AL.isInvalid() || !AL.isFileID() || SM.getFileID(AL) != FID ||
      offsetOf(AL) < R.CalleeOffset + R.CalleeLength)
    return false;
  Off = offsetOf(AL);
  return true;
}

void EditLocator::recordKindArg(CallRecord &R, FileID FID, const Expr *Arg,
                                const Expr *NextArg) {
  // Plain text (HMPLACE_HBW), or one macro use (HMPLACE_BY_CALLERS(...)).
  CharSourceRange CR = SM.getExpansionRange(Arg->getSourceRange());
  SourceLocation B = CR.getBegin(), E = CR.getEnd();
  if (!B.isFileID() || !E.isFileID() || SM.getFileID(B) != FID ||
      SM.getFileID(E) != FID)
    return;
  // The kind must be its own text, not part of a macro use around the call.
  if (Arg->getBeginLoc().isMacroID() &&
      !Lexer::isAtStartOfMacroExpansion(Arg->getBeginLoc(), SM,
                                        Ctx.getLangOpts()))
    return;
  unsigned Bo = offsetOf(B);
  unsigned Eo =
      offsetOf(E) + (CR.isTokenRange()
                         ? Lexer::MeasureTokenLength(E, SM, Ctx.getLangOpts())
                         : 0);
  R.KindArgOffset = Bo;
  R.KindArgText = SM.getBufferData(FID).slice(Bo, Eo).str();
  unsigned After = 0;
  if (NextArg && argumentOffset(R, FID, NextArg->getBeginLoc(), After) &&
      After > Eo)
    R.AfterKindOffset = After;
}

} // namespace hmplace
