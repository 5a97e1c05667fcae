//===- AllocSites.h - the allocation calls of a translation unit -*- C++
//-*-===//
///
/// \file
/// The AST walk's allocation calls and new-expressions as CallRecords: the
/// key debug info gives each, and the offsets of the edit that would place
/// it. Part of the walk (Collect.cpp), apart from the caller frames
/// (Callers.h) and containers (ContainerCalls.h) it also records.
///
//===----------------------------------------------------------------------===//
#ifndef HMPLACE_HMREWRITE_ALLOCSITES_H
#define HMPLACE_HMREWRITE_ALLOCSITES_H

#include "CallRecord.h"
#include "EditLocator.h"

#include "clang/AST/ExprCXX.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/StringRef.h"

#include <vector>

namespace hmplace {

class AllocSites {
public:
  /// Records go to the end of \p Out, their compile directory \p IDir.
  AllocSites(EditLocator &L, llvm::StringRef IDir, std::vector<CallRecord> &Out)
      : L(L), Ctx(L.context()), SM(L.sourceManager()), IDir(IDir), Out(Out) {}

  /// Record \p CE, inside the function \p CurFn (or none), if it calls an
  /// allocation or free function: false if it does not (it may be a caller
  /// frame).
  bool call(const clang::CallExpr *CE, const clang::FunctionDecl *CurFn);
  /// A new-expression is placed by giving it the kind as a placement
  /// argument: `new (HMPLACE_HBW) T(args)`. The compiler then calls the
  /// runtime's operator new(size_t, hmplace_kind) (with align_val_t for
  /// over-aligned types, nothrow if asked), still runs the constructors, and
  /// if one throws calls the matching placement delete, which frees to the
  /// right heap. `delete` needs no edit: libhmplace.so replaces the global
  /// operator delete with one that finds each block's heap.
  void newExpr(const clang::CXXNewExpr *NE, const clang::FunctionDecl *CurFn);

private:
  CallRecord *start(clang::SourceLocation Begin, const AllocFn *Fn,
                    bool Already, const clang::FunctionDecl *CurFn);
  void sizeArguments(CallRecord &R, const clang::CallExpr *CE, unsigned Shift);
  void record(const clang::CallExpr *CE, const clang::FunctionDecl *FD,
              const AllocFn *Fn, bool Already, bool Dispatching,
              const clang::FunctionDecl *CurFn);

  EditLocator &L;
  clang::ASTContext &Ctx;
  clang::SourceManager &SM;
  llvm::StringRef IDir;
  std::vector<CallRecord> &Out;
  /// new-expressions recorded, by their first token: index into Out.
  llvm::DenseMap<clang::SourceLocation::UIntTy, size_t> NewSeen;
  /// Presumed file names are the same few strings over and over.
  const char *LastPresumed = nullptr;
  const std::string *LastKeyFile = nullptr;
};

} // namespace hmplace

#endif
