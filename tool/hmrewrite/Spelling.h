//===- Spelling.h - the text hmrewrite writes into sources ------*- C++ -*-===//
///
/// \file
/// Every piece of generated source is spelled here, in terms of hmplace.h's
/// macros and functions: what a rewritten file says is defined by the
/// header, so a compiler without GNU extensions gets a form it can compile
/// without a new hmrewrite (hmplace.h picks the form).
///
//===----------------------------------------------------------------------===//
#ifndef HMPLACE_HMREWRITE_SPELLING_H
#define HMPLACE_HMREWRITE_SPELLING_H

#include "CallRecord.h"

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/StringRef.h"

#include <cstdint>
#include <optional>
#include <string>

namespace hmplace {

inline constexpr llvm::StringLiteral FrameMacro = "HMPLACE_FRAME";
inline constexpr llvm::StringLiteral HereMacro = "HMPLACE_AT";
inline constexpr llvm::StringLiteral CallerMacro = "HMPLACE_CALLER";
inline constexpr llvm::StringLiteral CallerStmtMacro = "HMPLACE_CALLER_STMT";
inline constexpr llvm::StringLiteral CallerDeclMacro = "HMPLACE_CALLER_DECL";
inline constexpr llvm::StringLiteral CallerStmtsMacro = "HMPLACE_CALLER_STMTS";
inline constexpr llvm::StringLiteral CallerInitMacro = "HMPLACE_CALLER_INIT";
inline constexpr llvm::StringLiteral CallMacro = "HMPLACE_CALL";
inline constexpr llvm::StringLiteral BinaryMacro = "HMPLACE_BINARY";
inline constexpr llvm::StringLiteral ByCallersMacro = "HMPLACE_BY_CALLERS";
inline constexpr llvm::StringLiteral ContainersMacro = "HMPLACE_CONTAINERS";
inline constexpr llvm::StringLiteral BlockMacro = "HMPLACE_CALLER_BLOCK";
inline constexpr llvm::StringLiteral BlockEndMacro = "HMPLACE_CALLER_BLOCK_END";

/// `HMPLACE_FRAME("main.c", 19, 15)` for the call at \p P: its file name
/// only, so the text is the same in every checkout; `HMPLACE_AT(19, 15)`
/// when \p Here (the text goes into that file, outside a directive: the
/// compiler supplies the name).
std::string frameText(const SourcePos &P, bool Here);
/// What a caller frame's wrapper notes: the frame at \p P, or with a
/// container table (C++), `HMPLACE_CONTAINERS(frame, <table>)`.
std::string callerArgument(const SourcePos &P, bool Here,
                           llvm::StringRef ContainerTable);
/// What goes before the wrapped text of a caller frame noting \p Arg:
/// `HMPLACE_CALLER(HMPLACE_FRAME("main.c", 19, 15), ` (or _STMT, _DECL);
/// `)` goes after it.
std::string wrapperPrefix(NoteSite::NoteForm F, llvm::StringRef Arg);
/// What opens and closes a noted block (a parallel region's body), with
/// the braces when the body had none.
std::string blockOpening(llvm::StringRef Arg, bool Braces);
std::string blockClosing(const SourcePos &P, bool Here, bool Braces);
/// The kind argument of a placed call: `HMPLACE_HBW`, or for a context site
/// `HMPLACE_BY_CALLERS(<table>)`.
std::string kindArgument(int RuntimeKind);
/// The kind argument of a site with a size window: `hmplace_in_window(
/// HMPLACE_HBW, n, HMPLACE_MiB(1), HMPLACE_MiB(5))` (hmplace.h), the size as
/// written in the call; for calloc (\p Sizes: its two) `hmplace_in_window2(
/// HMPLACE_HBW, count, size, ...)`, which checks their product for overflow.
std::string windowArgument(int RuntimeKind, llvm::ArrayRef<std::string> Sizes,
                           std::optional<uint64_t> Min,
                           std::optional<uint64_t> Max);
std::string byCallersArgument(llvm::StringRef Table);

/// The contents of the C string literal \p Lit (quotes and escapes of `"`
/// and `\` removed).
std::string unquote(llvm::StringRef Lit);
/// \p Text without white space outside string literals: an earlier run's
/// text that a formatter reflowed still says the same.
std::string withoutSpace(llvm::StringRef Text);

} // namespace hmplace

#endif
