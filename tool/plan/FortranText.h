//===- FortranText.h - a Fortran statement's characters ---------*- C++ -*-===//
///
/// \file
/// A Fortran statement as the compiler reads it: its lines joined at their
/// continuations, continuation marks, comments and (fixed form) the columns
/// past 72 taken out. Two spellings of one statement (a source and the copy
/// `flang -E` writes of it, which wraps lines where it likes and drops
/// comments) have the same characters other than blanks, in the same
/// order, so the Nth of one is the Nth of the other.
///
//===----------------------------------------------------------------------===//
#ifndef HMPLACE_PLAN_FORTRANTEXT_H
#define HMPLACE_PLAN_FORTRANTEXT_H

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/StringRef.h"

#include <cstddef>
#include <vector>

namespace hmplace {

/// One character of a statement: the character, the index of its line among
/// the lines given, and its column there (1-based).
struct StmtChar {
  char C;
  size_t Line;
  unsigned Col;
};

/// Whether a Fortran file of this name is in fixed form by default (.f,
/// .for, .ftn, .f77 and their upper-case and preprocessed spellings).
bool isFixedFormName(llvm::StringRef Path);

/// Where the text of \p L from \p Begin up to \p End stops: before a `!`
/// comment outside a character constant. \p Quote carries an open
/// constant's quote from line to line.
size_t endOfCode(llvm::StringRef L, size_t Begin, size_t End, char &Quote);

/// \p L up to a `!` comment outside character constants (a line of its
/// own, no constant open before it).
inline llvm::StringRef withoutComment(llvm::StringRef L) {
  char Quote = 0;
  return L.take_front(endOfCode(L, 0, L.size(), Quote));
}

/// The lines of a Fortran source, each known as a statement's first line, a
/// continuation of the one before, or a comment (blank lines and
/// preprocessor lines too).
class FortranText {
public:
  /// \p Lines stay the caller's; they must outlive this.
  FortranText(llvm::ArrayRef<llvm::StringRef> Lines, bool Fixed);

  size_t size() const { return Parts.size(); }
  /// Whether line \p I begins a statement (or statements separated by `;`).
  bool beginsStatement(size_t I) const {
    return I < Parts.size() && Parts[I].Kind == Initial;
  }
  /// The first line of the statement line \p I belongs to (\p I itself for
  /// a comment).
  size_t firstOf(size_t I) const { return Parts[I].First; }
  /// The characters other than blanks of the statement that begins at line
  /// \p First, up to the next line that begins one.
  std::vector<StmtChar> statementAt(size_t First) const;

private:
  enum LineKind { Comment, Initial, Continuation };
  /// Where the statement's text of a line is: [Begin, End) (0-based),
  /// with the columns of \p Skip (a continuation mark) left out.
  struct Part {
    LineKind Kind = Comment;
    size_t Begin = 0, End = 0, Skip = size_t(-1), First = 0;
  };
  void readFixed(size_t I, char &Quote);
  bool readFree(size_t I, char &Quote, bool Pending);

  llvm::ArrayRef<llvm::StringRef> Lines;
  std::vector<Part> Parts;
};

} // namespace hmplace

#endif
