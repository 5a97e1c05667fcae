//===- NoteForm.h - the note that covers exactly a caller's text -*- C++
//-*-===//
///
/// \file
/// Which form of note (hmplace.h) wraps the text of a caller frame so that
/// it covers what HmPlace.so's note covers and nothing more, or why none
/// can. Callers.cpp finds the call and its text; this decides the form.
///
//===----------------------------------------------------------------------===//
#ifndef HMPLACE_HMREWRITE_NOTEFORM_H
#define HMPLACE_HMREWRITE_NOTEFORM_H

#include "CallRecord.h"
#include "EditLocator.h"

#include "clang/AST/DeclCXX.h"
#include "clang/AST/Expr.h"
#include "clang/AST/ParentMapContext.h"
#include "clang/AST/Stmt.h"

namespace hmplace {

/// A caller frame's call and the text a note would wrap, as the recorder
/// found them.
struct TextToWrap {
  const clang::Expr *CE = nullptr;
  /// A constructor call (CE itself), or null.
  const clang::CXXConstructExpr *Construct = nullptr;
  /// A constructor of a variable: the declaration is what gets wrapped; of
  /// a member in an initializer list, or of one of several variables
  /// declared together: its first argument.
  const clang::DeclStmt *DeclOf = nullptr;
  const clang::CXXCtorInitializer *InitOf = nullptr;
  bool SeveralDeclared = false;
  /// The text to wrap (the call, its macro use, or the declaration), its
  /// file and offsets there.
  clang::CharSourceRange Use;
  clang::FileID FID;
  llvm::StringRef Buf;
  unsigned UseBegin = 0, UseEnd = 0;
};

/// The form of \p N that covers \p T exactly (its offsets and form), or
/// \p N's NoteProblem: why no note can.
void chooseNoteForm(EditLocator &L, const TextToWrap &T, NoteSite &N);

/// Whether \p S is a statement child of \p Parent (a statement position:
/// its value, if any, is discarded), not one of its expressions.
bool inStatementPosition(const clang::Stmt *S,
                         const clang::DynTypedNode &Parent,
                         clang::ASTContext &Ctx);

} // namespace hmplace

#endif
