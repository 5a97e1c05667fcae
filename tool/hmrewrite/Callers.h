//===- Callers.h - caller frames in the source ------------------*- C++ -*-===//
///
/// \file
/// A call that a plan names as a caller frame must note itself on the
/// runtime's shadow stack while it runs (plan/Context.h). In the source that
/// means wrapping the call, or the macro use it is written through, in a
/// form from hmplace.h. The recorder finds a candidate frame's call, its
/// key and the text to wrap, and takes over an earlier run's wrapper
/// (Wrappers.h); NoteForm.h decides the form that covers exactly what
/// HmPlace.so's note covers, or why none can.
///
//===----------------------------------------------------------------------===//
#ifndef HMPLACE_HMREWRITE_CALLERS_H
#define HMPLACE_HMREWRITE_CALLERS_H

#include "CallRecord.h"
#include "EditLocator.h"
#include "Wrappers.h"

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
/// plan names (empty: it can), and where an edit of it would go (\p Edit:
/// a file not rewritten, a system header): what --list-sites checks before
/// it offers a container entry through the call.
std::string callerNoteProblem(EditLocator &L, const clang::Expr *CE,
                              const clang::FunctionDecl *CurFn,
                              llvm::StringRef CompileDir,
                              CallRecord::EditState &Edit);

/// Record the OpenMP directive \p D as a candidate caller frame if it is a
/// parallel region on a line that a plan names as one: its body is noted in
/// every thread that runs it.
void recordRegion(EditLocator &L, const clang::OMPExecutableDirective *D,
                  const clang::FunctionDecl *CurFn, llvm::StringRef CompileDir,
                  std::vector<CallRecord> &Out);

} // namespace hmplace

#endif
