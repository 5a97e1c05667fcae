//===- Wrappers.cpp - an earlier run's notes in the text
//-------------------===//
//
// A rerun, a review and the line breaker find what an earlier run wrote by
// its text: HMPLACE_CALLER*(HMPLACE_FRAME("f.c", L, C), TEXT) and the forms
// around it (a member's `(HMPLACE_CALLER_INIT(...), arg)`, a region's
// block, the previous hmrewrite's statement expression).
//
//===----------------------------------------------------------------------===//
#include "Wrappers.h"
#include "RawTokens.h"
#include "Spelling.h"

#include "clang/Basic/CharInfo.h"
#include "clang/Lex/Lexer.h"

using namespace clang;
using namespace llvm;

namespace hmplace {

/// `HMPLACE_FRAME("f.c", L, C)` or `HMPLACE_AT(L, C)` at the current
/// token: its values (no file for the second: the one it is written in),
/// and the range in FrameBegin/FrameEnd.
static bool parseFrame(RawTokens &R, Wrapper &W) {
  bool Here = R.ident(HereMacro);
  if (!Here && !R.ident(FrameMacro))
    return false;
  W.FrameBegin = R.offset();
  if (!R.next().is(tok::l_paren))
    return false;
  if (!Here) {
    if (!R.next().is(tok::string_literal))
      return false;
    W.File = unquote(R.text());
  }
  unsigned Nums[2];
  for (unsigned I = 0; I < 2; ++I) {
    bool Comma = I > 0 || !Here;
    if ((Comma && !R.next().is(tok::comma)) ||
        !R.next().is(tok::numeric_constant) ||
        R.text().getAsInteger(10, Nums[I]))
      return false;
  }
  W.Line = Nums[0];
  W.Column = Nums[1];
  if (!R.next().is(tok::r_paren))
    return false;
  W.FrameEnd = R.end();
  return true;
}

/// A wrapper's first argument: a frame, or HMPLACE_CONTAINERS(frame, ...).
static bool parseFirstArgument(RawTokens &R, Wrapper &W) {
  W.FirstBegin = R.offset();
  if (R.ident(ContainersMacro)) {
    if (!R.next().is(tok::l_paren))
      return false;
    R.next();
    if (!parseFrame(R, W) || !R.skipToClose())
      return false;
  } else if (!parseFrame(R, W)) {
    return false;
  }
  W.FirstEnd = R.end();
  return true;
}

std::optional<Wrapper> parseWrapper(StringRef Buf, unsigned Offset,
                                    const LangOptions &LO) {
  if (Offset >= Buf.size())
    return std::nullopt;
  RawTokens R(Buf, Offset, LO);
  Wrapper W;
  W.Begin = Offset;
  // `(HMPLACE_CALLER_INIT(frame), ARG)`: a member constructor's first
  // argument.
  bool Init = false;
  if (R.next().is(tok::l_paren)) {
    Init = true;
    R.next();
  }
  if (!R.tok().is(tok::raw_identifier))
    return std::nullopt;
  StringRef Name = R.tok().getRawIdentifier();
  if (Init != (Name == CallerInitMacro))
    return std::nullopt;
  if (Name == CallerMacro)
    W.Form = NoteSite::NoteExpr;
  else if (Name == CallerStmtMacro)
    W.Form = NoteSite::NoteStmt;
  else if (Name == CallerDeclMacro)
    W.Form = NoteSite::NoteDecl;
  else if (Name == CallerStmtsMacro)
    W.Form = NoteSite::NoteStmts;
  else if (Name == CallerInitMacro)
    W.Form = NoteSite::NoteInit;
  else if (Name == CallMacro)
    W.Form = NoteSite::NoteCall;
  else if (Name == BinaryMacro)
    W.Form = NoteSite::NoteBinary;
  else
    return std::nullopt;
  if (!R.next().is(tok::l_paren))
    return std::nullopt;
  R.next();
  if (!parseFirstArgument(R, W))
    return std::nullopt;
  if (Init && !R.next().is(tok::r_paren))
    return std::nullopt;
  if (!R.next().is(tok::comma))
    return std::nullopt;
  R.next();
  W.InnerBegin = R.offset();
  // The wrapped text ends before the parenthesis that closes the wrapper.
  unsigned Depth = 0, LastEnd = W.InnerBegin;
  for (; !R.tok().is(tok::eof); R.next()) {
    if (R.tok().is(tok::comma) && Depth == 0 && W.Form == NoteSite::NoteBinary)
      (W.Comma1 ? W.Comma2 : W.Comma1) = R.offset();
    if (R.tok().isOneOf(tok::l_paren, tok::l_square, tok::l_brace))
      ++Depth;
    else if (R.tok().isOneOf(tok::r_paren, tok::r_square, tok::r_brace)) {
      if (Depth == 0) {
        if (!R.tok().is(tok::r_paren))
          return std::nullopt;
        W.InnerEnd = LastEnd;
        W.End = R.end();
        return W;
      }
      --Depth;
    }
    LastEnd = R.end();
  }
  return std::nullopt;
}

std::optional<Wrapper> parseWrapperNamedAt(StringRef Buf, unsigned NameAt,
                                           const LangOptions &LO) {
  bool Init = NameAt > 0 && Buf[NameAt - 1] == '(' &&
              Buf.substr(NameAt).starts_with(CallerInitMacro);
  return parseWrapper(Buf, Init ? NameAt - 1 : NameAt, LO);
}

/// `NAME(HMPLACE_FRAME("f.c", L, C));` at \p Offset of \p Buf: the block
/// note's two parts. Begin/End cover the text up to the semicolon.
std::optional<Wrapper> parseBlockPart(StringRef Buf, unsigned Offset,
                                      StringRef Name, const LangOptions &LO) {
  RawTokens R(Buf, Offset, LO);
  Wrapper W;
  W.Form = NoteSite::NoteBlock;
  R.next();
  if (!R.ident(Name))
    return std::nullopt;
  W.Begin = R.offset();
  if (!R.next().is(tok::l_paren))
    return std::nullopt;
  R.next();
  if (!parseFirstArgument(R, W) || !R.next().is(tok::r_paren) ||
      !R.next().is(tok::semi))
    return std::nullopt;
  W.End = R.end();
  return W;
}

/// An earlier run's wrapper \p W of the call recorded in \p N.
void noteWrapper(NoteSite &N, const Wrapper &W, StringRef Buf) {
  N.AlreadyNoted = true;
  N.Form = W.Form;
  N.WrapBegin = W.Begin;
  N.WrapEnd = W.End;
  N.InnerBegin = W.InnerBegin;
  N.InnerEnd = W.InnerEnd;
  N.FirstBegin = W.FirstBegin;
  N.FirstEnd = W.FirstEnd;
  N.FirstText = Buf.slice(W.FirstBegin, W.FirstEnd).str();
  N.Comma1 = W.Comma1;
  N.Comma2 = W.Comma2;
}

/// Whether the macro use at \p Use (a file location) is one of the
/// HMPLACE_CALLER forms: a call written in it was noted by an earlier run.
bool isCallerWrapperUse(SourceManager &SM, SourceLocation Use) {
  bool Invalid = false;
  const char *P = SM.getCharacterData(Use, &Invalid);
  if (Invalid)
    return false;
  StringRef Rest(
      P, std::min<size_t>(64, SM.getBufferData(SM.getFileID(Use)).end() - P));
  // The macro's name, then its '(' (a formatter may have put blanks
  // between).
  StringRef Name =
      Rest.take_while([](char C) { return isAsciiIdentifierContinue(C); });
  if (!Rest.drop_front(Name.size()).ltrim().starts_with("("))
    return false;
  return Name == CallMacro || Name == BinaryMacro || Name == CallerMacro ||
         Name == CallerStmtMacro || Name == CallerDeclMacro ||
         Name == CallerStmtsMacro;
}

/// The previous hmrewrite's caller wrapper around the text [UseBegin,
/// UseEnd) of \p Buf: `__extension__({ __attribute__((cleanup(
/// hmplace_ctx_cleanup))) uint32_t hm_ctx_ = hmplace_ctx_push(0xID); ` before
/// it and `; })` after. Sets the wrapper's range in \p N.
bool oldWrapper(StringRef Buf, unsigned UseBegin, unsigned UseEnd,
                NoteSite &N) {
  static constexpr llvm::StringLiteral Prefix =
      "__extension__({ __attribute__((cleanup(hmplace_ctx_cleanup))) "
      "uint32_t hm_ctx_ = hmplace_ctx_push(0x";
  if (!Buf.substr(UseEnd).starts_with("; })") || UseBegin < Prefix.size())
    return false;
  StringRef Before = Buf.take_front(UseBegin);
  size_t At = Before.rfind(Prefix);
  if (At == StringRef::npos)
    return false;
  StringRef Id = Before.drop_front(At + Prefix.size());
  if (!Id.consume_back("); ") || Id.empty() ||
      Id.find_first_not_of("0123456789abcdefABCDEF") != StringRef::npos)
    return false;
  N.AlreadyNoted = N.OldStyle = true;
  N.WrapBegin = unsigned(At);
  N.InnerBegin = UseBegin;
  N.InnerEnd = UseEnd;
  N.WrapEnd = UseEnd + 4;
  return true;
}

/// The innermost earlier-run wrapper whose wrapped text holds the file
/// position \p At (a call's own token as written): none if \p At is not in
/// \p FID's text or no wrapper of the last few lines holds it.
std::optional<Wrapper> innermostWrapper(StringRef Buf, SourceLocation At,
                                        FileID FID, SourceManager &SM,
                                        const LangOptions &LO) {
  if (!At.isFileID() || SM.getFileID(At) != FID)
    return std::nullopt;
  unsigned Off = SM.getFileOffset(At);
  size_t From = Off;
  unsigned Floor = Off > 4096 ? Off - 4096 : 0;
  while (From > Floor) {
    // Only the window: a file with no wrapper near the call is not searched
    // back to its start for every call.
    size_t P = Buf.slice(Floor, From).rfind("HMPLACE_");
    if (P == StringRef::npos)
      break;
    From = P += Floor;
    std::optional<Wrapper> W = parseWrapperNamedAt(Buf, unsigned(P), LO);
    if (W && W->InnerBegin <= Off && Off < W->InnerEnd)
      return W; // the nearest before it is the innermost
  }
  return std::nullopt;
}

} // namespace hmplace
