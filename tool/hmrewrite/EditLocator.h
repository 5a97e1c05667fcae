//===- EditLocator.h - where an edit of a call goes -------------*- C++ -*-===//
///
/// \file
/// A call's AST locations are macro locations as often as not: `malloc(SIZE)`,
/// `F(malloc(n))`, `XMALLOC(n)` whose body holds the call. An edit needs file
/// offsets of text that belongs to this one call: the callee name where it is
/// spelled, the position before the first argument, an earlier run's kind
/// argument. EditLocator answers those questions for one translation unit,
/// and says why there is no such text (a macro body every use shares, a
/// system header, a file not being rewritten).
///
//===----------------------------------------------------------------------===//
#ifndef HMPLACE_HMREWRITE_EDITLOCATOR_H
#define HMPLACE_HMREWRITE_EDITLOCATOR_H

#include "CallRecord.h"
#include "Format.h"
#include "Harmless.h"

#include "clang/AST/ASTContext.h"
#include "clang/Basic/SourceManager.h"
#include "llvm/ADT/DenseMap.h"

namespace hmplace {

class RewriteSession;

class EditLocator {
public:
  EditLocator(clang::ASTContext &Ctx, llvm::StringRef Dir,
              const RewriteSession &S);

  /// What an edit needs to know of a file, asked once per file: a
  /// translation unit's allocation calls are thousands, its files few.
  struct FileFacts {
    bool System = false, Selected = false;
    /// The text holds an earlier run's note (`HMPLACE_...`): files that
    /// hold none are not searched for one at every call.
    bool HasNotes = false;
    llvm::StringRef Path; ///< normalized and interned; empty: no file entry
  };
  const FileFacts &factsOf(clang::FileID FID);

  unsigned offsetOf(clang::SourceLocation L) const {
    return SM.getFileOffset(L);
  }

  /// The file position where text inserted goes right before the token at
  /// \p L: through macro arguments to where they are written, and out of
  /// macro uses that start at \p L (`malloc(SIZE)`, `F(malloc(SIZE))`).
  /// Invalid if \p L is in the middle of a macro body.
  clang::SourceLocation insertionLoc(clang::SourceLocation L) const;

  /// Length of the token at \p L: the callee's name when the file holds
  /// exactly that there (the common case, and no relexing), else measured.
  unsigned tokenLength(clang::SourceLocation L, llvm::StringRef Expected) const;

  /// Where an edit of the tokens \p B..\p E (the callee, or the `new`
  /// keyword) would go: their file positions in \p R, or why there is none.
  /// Returns the file the edit would be in.
  clang::FileID locateEdit(CallRecord &R, clang::SourceLocation B,
                           clang::SourceLocation E, llvm::StringRef LastToken);

  /// The file offset where text inserted right before the expression at
  /// \p L would go, if that is in \p FID (the edit's file) after the callee.
  bool argumentOffset(const CallRecord &R, clang::FileID FID,
                      clang::SourceLocation L, unsigned &Off);

  /// An earlier run's kind argument \p Arg, where a later plan may change
  /// it: its text and file range, if written in the edit's file as plain
  /// text or one macro use; and where \p NextArg (if any) begins.
  void recordKindArg(CallRecord &R, clang::FileID FID, const clang::Expr *Arg,
                     const clang::Expr *NextArg);

  /// \p Column (of the file position \p FileLoc) as it was before an
  /// earlier run added text before it on its line (Rewritten.h): the column
  /// a plan key names.
  unsigned keyColumn(clang::SourceLocation FileLoc, unsigned Column);

  /// For a call at \p FileLoc on a later line of a statement an earlier
  /// run broke at the column limit (Format.h): \p Key where the statement
  /// joined again puts it (its first line, the column there before the run
  /// added text). None elsewhere.
  std::optional<SourcePos> joinedKey(clang::SourceLocation FileLoc,
                                     const SourcePos &Key);

  /// Where the token of the call at \p Loc is in its file (KeyRecord.h):
  /// set on \p R when that is the file its key names (no `#line` naming
  /// another).
  void keyOffset(CallRecord &R, clang::SourceLocation Loc) const;

  /// \p Path made absolute against the TU's directory, normalized (one
  /// normalizer per TU: keys name the same few paths thousands of times).
  const std::string &normalize(llvm::StringRef Path) const {
    return Norm(Path);
  }
  PathNormalizer &normalizer() const { return Norm; }
  const RewriteSession &session() const { return S; }

  clang::ASTContext &context() const { return Ctx; }
  /// Which calls of this translation unit cannot allocate (Harmless.h).
  HarmlessCalls &harmless() { return Harmless; }
  clang::SourceManager &sourceManager() const { return SM; }

private:
  clang::ASTContext &Ctx;
  clang::SourceManager &SM;
  const RewriteSession &S;
  mutable PathNormalizer Norm;
  llvm::DenseMap<clang::FileID, FileFacts> Facts;
  /// What earlier runs added, by file (computed when first asked).
  llvm::DenseMap<clang::FileID, std::vector<std::pair<unsigned, unsigned>>>
      Added;
  /// The statements earlier runs broke, by file (computed when first asked).
  const std::vector<JoinedStatement> &joinedStatementsOf(clang::FileID FID);
  llvm::DenseMap<clang::FileID, std::vector<JoinedStatement>> Joined;
  HarmlessCalls Harmless{Ctx};
};

} // namespace hmplace

#endif
