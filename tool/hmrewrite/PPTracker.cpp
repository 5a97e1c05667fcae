//===- PPTracker.cpp - what hmrewrite learns from the preprocessor -------===//
//
// Text the preprocessor skipped need not even lex, so allocation calls in it
// are found by a scan that only knows comments, literals and identifiers.
//
//===----------------------------------------------------------------------===//
#include "PPTracker.h"
#include "Rewrite.h"

#include "clang/Basic/CharInfo.h"
#include "llvm/Support/Path.h"

using namespace clang;
using namespace llvm;

namespace hmplace {

std::vector<unsigned> allocationCallsIn(StringRef Text, bool CPlusPlus) {
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

FileLayout *PPTracker::layoutOf(FileID FID) {
  auto [It, New] = Tracked.try_emplace(FID, nullptr);
  if (!New)
    return It->second;
  if (FID.isInvalid() ||
      SrcMgr::isSystem(SM.getFileCharacteristic(SM.getLocForStartOfFile(FID))))
    return nullptr;
  OptionalFileEntryRef FE = SM.getFileEntryRefForID(FID);
  if (!FE)
    return nullptr;
  std::string Path = normalizePath(FE->getName(), Dir);
  if (FID != SM.getMainFileID() && !S.headerSelected(Path))
    return nullptr;
  return It->second = &Info.Layouts[Path];
}

std::pair<unsigned, unsigned> PPTracker::lineOf(SourceLocation L) const {
  auto [FID, Off] = SM.getDecomposedLoc(L);
  StringRef Buf = SM.getBufferData(FID);
  // StringRef::rfind looks at the characters before From.
  size_t B = Buf.rfind('\n', Off);
  B = B == StringRef::npos ? 0 : B + 1;
  size_t E = Buf.find('\n', Off);
  E = E == StringRef::npos ? Buf.size() : E + 1;
  return {unsigned(B), unsigned(E)};
}

void PPTracker::InclusionDirective(SourceLocation Hash, const Token &,
                                   StringRef Name, bool, CharSourceRange,
                                   OptionalFileEntryRef, StringRef, StringRef,
                                   const Module *, bool,
                                   SrcMgr::CharacteristicKind) {
  if (!Hash.isFileID())
    return;
  FileLayout *L = layoutOf(SM.getFileID(Hash));
  if (!L)
    return;
  L->Includes.push_back(lineOf(Hash));
  if (sys::path::filename(Name) == "hmplace.h") {
    L->IncludesRuntime = true;
    L->RuntimeInclude = L->Includes.back();
  }
}

void PPTracker::open(SourceLocation L) {
  if (L.isFileID() && layoutOf(SM.getFileID(L)))
    Open[SM.getFileID(L)].push_back(lineOf(L).first);
}

void PPTracker::Endif(SourceLocation L, SourceLocation) {
  if (!L.isFileID())
    return;
  FileID FID = SM.getFileID(L);
  FileLayout *Layout = layoutOf(FID);
  auto It = Open.find(FID);
  if (!Layout || It == Open.end() || It->second.empty())
    return;
  unsigned Begin = It->second.back();
  It->second.pop_back();
  Layout->Conditionals.push_back({Begin, lineOf(L).second});
}

void PPTracker::FileChanged(SourceLocation Loc, FileChangeReason Reason,
                            SrcMgr::CharacteristicKind Kind, FileID) {
  if ((Reason != EnterFile && Reason != RenameFile) || SrcMgr::isSystem(Kind))
    return;
  if (OptionalFileEntryRef FE = SM.getFileEntryRefForID(SM.getFileID(Loc)))
    S.seeFile(FE->getName());
  PresumedLoc PL = SM.getPresumedLoc(Loc);
  if (PL.isValid())
    S.seeFile(PL.getFilename());
}

void PPTracker::SourceRangeSkipped(SourceRange Range, SourceLocation) {
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
    Info.SkippedCalls.insert({{Path, B + Off}, SM.getLineNumber(FID, B + Off)});
}

} // namespace hmplace
