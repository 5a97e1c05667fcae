//===- PPTracker.h - what hmrewrite learns from the preprocessor *- C++ -*-===//
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
#include "llvm/ADT/DenseMap.h"

namespace hmplace {

class RewriteSession;

/// Offsets in \p Text of what look like allocation calls: an allocation
/// function's name followed by `(`, or (C++) the `new` keyword. Comments and
/// literals are skipped; this reads text the preprocessor skipped, which
/// need not even lex.
std::vector<unsigned> allocationCallsIn(llvm::StringRef Text, bool CPlusPlus);

/// Records the layout of the files hmrewrite may edit (FileLayout: include
/// lines, top-level conditional blocks), every file entered, and the
/// allocation calls in inactive preprocessor branches of those files.
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
    open(L);
  }
  void Ifdef(clang::SourceLocation L, const clang::Token &,
             const clang::MacroDefinition &) override {
    open(L);
  }
  void Ifndef(clang::SourceLocation L, const clang::Token &,
              const clang::MacroDefinition &) override {
    open(L);
  }
  void Endif(clang::SourceLocation L, clang::SourceLocation) override;

  /// The layout of the file \p FID, if it is one hmrewrite may edit.
  FileLayout *layoutOf(clang::FileID FID);

private:
  void open(clang::SourceLocation L);
  /// [start of the line of \p L, end of that line with its newline).
  std::pair<unsigned, unsigned> lineOf(clang::SourceLocation L) const;
  clang::SourceManager &SM;
  const clang::LangOptions &LO;
  RewriteSession &S;
  const std::string &Dir;
  MainFileInfo &Info;
  /// Per file: its layout (null: not one hmrewrite edits), and the start
  /// offsets of the conditional blocks open in it.
  llvm::DenseMap<clang::FileID, FileLayout *> Tracked;
  llvm::DenseMap<clang::FileID, std::vector<unsigned>> Open;
};

} // namespace hmplace

#endif
