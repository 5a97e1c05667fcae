//===- Harmless.h - calls that cannot reach an allocation -------*- C++ -*-===//
///
/// \file
/// A caller frame's note in the source covers a range of text; HmPlace.so's
/// covers the call alone, after its arguments are evaluated. The two place
/// the same objects when nothing else that runs inside the text can reach
/// an allocation the note would change: `work(domain.numNode())`, where
/// numNode returns a member, is noted as written. This decides, for one
/// translation unit, which calls are such: a call can allocate unless
///  - it is a compiler builtin that is no library function;
///  - its callee's body is in the translation unit and everything the body
///    runs is such a call (no new- or delete-expression, no allocation
///    function, no call through a pointer or a virtual function, no
///    constructor or destructor that is not trivial or itself such);
///  - or its callee is a C function of a system header (the C library
///    calls none of the program's allocation sites and no operator new)
///    that is no allocation function, takes no function pointer and is not
///    one of the runtime's entry points (hmplace_*: they choose a kind by
///    the noted frames).
/// A caller frame whose own call cannot allocate needs no note at all.
/// Unknown is "can allocate": the note is then refused, never wrong.
///
//===----------------------------------------------------------------------===//
#ifndef HMPLACE_HMREWRITE_HARMLESS_H
#define HMPLACE_HMREWRITE_HARMLESS_H

#include "clang/AST/ASTContext.h"
#include "clang/AST/Decl.h"
#include "llvm/ADT/DenseMap.h"

namespace hmplace {

class HarmlessCalls {
public:
  explicit HarmlessCalls(clang::ASTContext &Ctx) : Ctx(Ctx) {}

  /// Whether evaluating the call, construction, destruction or expression
  /// \p S itself (not its operands) cannot allocate.
  bool node(const clang::Stmt *S);

  /// Whether calling \p FD cannot allocate.
  bool function(const clang::FunctionDecl *FD);

private:
  /// Whether everything under \p Root runs only calls that cannot allocate.
  bool tree(const clang::Stmt *Root);
  bool body(const clang::FunctionDecl *Def);

  clang::ASTContext &Ctx;
  /// Decided functions.
  llvm::DenseMap<const clang::FunctionDecl *, bool> Known;
  /// Functions being decided, by their depth in the chain of calls: one
  /// counts as harmless for the calls back into it (a fixed point: the
  /// least one, as nothing else can make it allocate), and every function
  /// decided while assuming so is decided again later, not cached.
  llvm::DenseMap<const clang::FunctionDecl *, unsigned> OnStack;
  /// The outermost depth the function being decided assumed of.
  unsigned Low = ~0u;
  unsigned Depth = 0;
};

} // namespace hmplace

#endif
