//===- ContainerCalls.h - calls that make standard containers allocate ---===//
///
/// \file
/// For --list-sites: the calls, written in a file of the program, that make
/// a standard container allocate through std::allocator (a construction
/// with contents, a growing member call, `v = w`, `s += t`, `m[key]`, a
/// default argument that constructs one). Each becomes a CallRecord whose
/// note names the operation: a container entry `[std::allocator, frame]`
/// that both front ends place. Part of the AST walk (Collect.cpp), apart
/// from the allocation calls it records.
///
//===----------------------------------------------------------------------===//
#ifndef HMPLACE_HMREWRITE_CONTAINERCALLS_H
#define HMPLACE_HMREWRITE_CONTAINERCALLS_H

#include "CallRecord.h"

#include "clang/AST/ExprCXX.h"
#include "llvm/ADT/StringRef.h"

#include <vector>

namespace hmplace {

class EditLocator;

class ContainerCalls {
public:
  /// Records go to the end of \p Out, their compile directory \p IDir.
  ContainerCalls(EditLocator &L, llvm::StringRef IDir,
                 std::vector<CallRecord> &Out)
      : L(L), IDir(IDir), Out(Out) {}

  /// Each of the walk's calls, inside the function \p CurFn (or none).
  void construction(const clang::CXXConstructExpr *CE,
                    const clang::FunctionDecl *CurFn);
  void memberCall(const clang::CXXMemberCallExpr *CE,
                  const clang::FunctionDecl *CurFn);
  void operatorCall(const clang::CXXOperatorCallExpr *CE,
                    const clang::FunctionDecl *CurFn);
  /// Any call: the containers its default arguments construct.
  void call(const clang::CallExpr *CE, const clang::FunctionDecl *CurFn);

private:
  bool standsAlone(const clang::CXXConstructExpr *CE) const;
  template <typename Args>
  void defaultArgumentContainers(const clang::Expr *E, Args Arguments,
                                 const clang::FunctionDecl *CurFn);
  void record(const clang::Expr *E, const clang::CXXRecordDecl *RD,
              llvm::StringRef Method, llvm::StringRef DefaultOf,
              const clang::FunctionDecl *CurFn);

  EditLocator &L;
  llvm::StringRef IDir;
  std::vector<CallRecord> &Out;
};

} // namespace hmplace

#endif
