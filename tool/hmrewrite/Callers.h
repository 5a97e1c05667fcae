//===- Callers.h - caller frames in the source ------------------*- C++ -*-===//
///
/// \file
/// A call that a plan names as a caller frame must note itself on the
/// runtime's shadow stack while it runs (plan/Context.h). In the source that
/// means wrapping the call, or the macro use it is written through, in a
/// form from hmplace.h. These rules decide what text can be wrapped, with
/// which form, and when it cannot be (and why), so that a caller the
/// rewriter notes covers exactly what HmPlace.so's note covers. They also
/// recognise an earlier run's wrapper, which a rerun compares with the plan.
///
//===----------------------------------------------------------------------===//
#ifndef HMPLACE_HMREWRITE_CALLERS_H
#define HMPLACE_HMREWRITE_CALLERS_H

#include "CallRecord.h"
#include "EditLocator.h"

#include "clang/AST/Expr.h"
#include "clang/AST/StmtOpenMP.h"

#include <optional>
#include <vector>

namespace hmplace {

/// Record \p CE, a call of anything but an allocation function (or a
/// constructor call), as a candidate caller frame if it is on a line that a
/// plan names as one, or if an earlier run wrapped it. \p CurFn is the
/// function the call is in (null outside functions).
void recordCaller(EditLocator &L, const clang::Expr *CE,
                  const clang::FunctionDecl *CurFn, llvm::StringRef CompileDir,
                  std::vector<CallRecord> &Out);

/// Why the rewrite could not note \p CE as a caller frame, whatever the
/// plan names (empty: it can): what --list-sites checks before it offers a
/// container entry through the call.
std::string callerNoteProblem(EditLocator &L, const clang::Expr *CE,
                              const clang::FunctionDecl *CurFn,
                              llvm::StringRef CompileDir);

/// Record the OpenMP directive \p D as a candidate caller frame if it is a
/// parallel region on a line that a plan names as one: its body is noted in
/// every thread that runs it.
void recordRegion(EditLocator &L, const clang::OMPExecutableDirective *D,
                  const clang::FunctionDecl *CurFn, llvm::StringRef CompileDir,
                  std::vector<CallRecord> &Out);

/// An earlier run's `HMPLACE_CALLER*(HMPLACE_FRAME("f.c", L, C), TEXT)`.
struct Wrapper {
  NoteSite::NoteForm Form = NoteSite::NoteExpr;
  unsigned Begin = 0, End = 0;           ///< the whole wrapper
  unsigned InnerBegin = 0, InnerEnd = 0; ///< TEXT
  unsigned FrameBegin = 0, FrameEnd = 0; ///< HMPLACE_FRAME(...)
  /// The first argument: the frame, or HMPLACE_CONTAINERS(frame, ...).
  unsigned FirstBegin = 0, FirstEnd = 0;
  /// HMPLACE_BINARY: the commas after the left operand and the operator.
  unsigned Comma1 = 0, Comma2 = 0;
  std::string File;
  unsigned Line = 0, Column = 0;
};

/// The wrapper that starts at \p Offset of \p Buf, if one does.
std::optional<Wrapper> parseWrapper(llvm::StringRef Buf, unsigned Offset,
                                    const clang::LangOptions &LO);
/// The wrapper whose macro name is at \p NameAt of \p Buf, if one is:
/// `(HMPLACE_CALLER_INIT(...), arg)` begins at the parenthesis before it.
std::optional<Wrapper> parseWrapperNamedAt(llvm::StringRef Buf, unsigned NameAt,
                                           const clang::LangOptions &LO);

} // namespace hmplace

#endif
