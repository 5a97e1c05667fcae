//===- Wrappers.h - an earlier run's notes in the text ---------*- C++ -*-===//
///
/// \file
/// The notes an earlier run wrote around caller frames, read back from the
/// text: a rerun compares them with the plan, a review counts them, the
/// line breaker keeps them whole.
///
//===----------------------------------------------------------------------===//
#ifndef HMPLACE_HMREWRITE_WRAPPERS_H
#define HMPLACE_HMREWRITE_WRAPPERS_H

#include "CallRecord.h"

#include "clang/Basic/LangOptions.h"
#include "clang/Basic/SourceManager.h"
#include "llvm/ADT/StringRef.h"

#include <optional>
#include <string>

namespace hmplace {

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

/// `NAME(HMPLACE_FRAME("f.c", L, C));` at \p Offset of \p Buf: the block
/// note's two parts. Begin/End cover the text up to the semicolon.
std::optional<Wrapper> parseBlockPart(llvm::StringRef Buf, unsigned Offset,
                                      llvm::StringRef Name,
                                      const clang::LangOptions &LO);
/// An earlier run's wrapper \p W of the call recorded in \p N.
void noteWrapper(NoteSite &N, const Wrapper &W, llvm::StringRef Buf);
/// Whether the macro use at \p Use (a file location) is one of the
/// HMPLACE_CALLER forms: a call written in it was noted by an earlier run.
bool isCallerWrapperUse(clang::SourceManager &SM, clang::SourceLocation Use);
/// The previous hmrewrite's caller wrapper (a statement expression) around
/// the text [UseBegin, UseEnd) of \p Buf; sets the wrapper's range in \p N.
bool oldWrapper(llvm::StringRef Buf, unsigned UseBegin, unsigned UseEnd,
                NoteSite &N);
/// The innermost earlier-run wrapper whose wrapped text holds the file
/// position \p At (a call's own token as written), if any.
std::optional<Wrapper> innermostWrapper(llvm::StringRef Buf,
                                        clang::SourceLocation At,
                                        clang::FileID FID,
                                        clang::SourceManager &SM,
                                        const clang::LangOptions &LO);

} // namespace hmplace

#endif
