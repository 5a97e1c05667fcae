//===- PPTracker.h - what hmrewrite learns from the preprocessor -*- C++
//-*-===//
///
/// \file
/// Preprocessor callbacks of a translation unit hmrewrite parses: the main
/// file's includes (where the runtime header can go, whether it is there
/// already), every file entered (a large plan's entries for it are loaded
/// before its calls are parsed), and allocation calls in branches the
/// preprocessor skipped, which nobody can examine.
///
//===----------------------------------------------------------------------===//
#ifndef HMPLACE_HMREWRITE_PPTRACKER_H
#define HMPLACE_HMREWRITE_PPTRACKER_H

#include "CallRecord.h"

#include "clang/Basic/LangOptions.h"
#include "clang/Basic/SourceManager.h"
#include "clang/Lex/PPCallbacks.h"

namespace hmplace {

class RewriteSession;

/// Offsets in \p Text of what look like allocation calls: an allocation
/// function's name followed by `(`, or (C++) the `new` keyword. Comments and
/// literals are skipped; this reads text the preprocessor skipped, which
/// need not even lex.
std::vector<unsigned> allocationCallsIn(llvm::StringRef Text, bool CPlusPlus);

/// Records the main file's top-level #include lines, whether it already
/// includes the runtime header, and the allocation calls in inactive
/// preprocessor branches of the files being rewritten.
class PPTracker : public clang::PPCallbacks {
public:
  PPTracker(clang::SourceManager &SM, const clang::LangOptions &LO,
            RewriteSession &S, const std::string &Dir, MainFileInfo &Info)
      : SM(SM), LO(LO), S(S), Dir(Dir), Info(Info) {}

  void InclusionDirective(clang::SourceLocation Hash, const clang::Token &,
                          llvm::StringRef Name, bool,
                          clang::CharSourceRange Range,
                          clang::OptionalFileEntryRef, llvm::StringRef,
                          llvm::StringRef, const clang::Module *, bool,
                          clang::SrcMgr::CharacteristicKind) override;
  /// Every file entered, and every name #line gives: a large plan's
  /// entries for it are loaded before its calls are parsed.
  void FileChanged(clang::SourceLocation Loc, FileChangeReason Reason,
                   clang::SrcMgr::CharacteristicKind Kind,
                   clang::FileID) override;
  void SourceRangeSkipped(clang::SourceRange Range,
                          clang::SourceLocation) override;
  void If(clang::SourceLocation L, clang::SourceRange,
          ConditionValueKind) override {
    enter(L);
  }
  void Ifdef(clang::SourceLocation L, const clang::Token &,
             const clang::MacroDefinition &) override {
    enter(L);
  }
  void Ifndef(clang::SourceLocation L, const clang::Token &,
              const clang::MacroDefinition &) override {
    enter(L);
  }
  void Endif(clang::SourceLocation L, clang::SourceLocation) override;

private:
  void enter(clang::SourceLocation L) {
    if (SM.isWrittenInMainFile(L))
      ++Depth;
  }
  clang::SourceManager &SM;
  const clang::LangOptions &LO;
  RewriteSession &S;
  const std::string &Dir;
  MainFileInfo &Info;
  int Depth = 0;
};

} // namespace hmplace

#endif
