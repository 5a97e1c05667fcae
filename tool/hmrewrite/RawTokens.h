//===- RawTokens.h - a buffer's raw tokens, with their offsets --*- C++ -*-===//
///
/// \file
/// What reruns read of an earlier run's text (Rewritten.cpp: the spans it
/// added; Callers.cpp: its wrappers) is lexed raw, without a preprocessor:
/// this is that lexer, with the offsets of its tokens and the one bracket
/// walk both need.
///
//===----------------------------------------------------------------------===//
#ifndef HMPLACE_HMREWRITE_RAWTOKENS_H
#define HMPLACE_HMREWRITE_RAWTOKENS_H

#include "clang/Lex/Lexer.h"

namespace hmplace {

class RawTokens {
public:
  /// The tokens of \p Buf from \p Offset on.
  RawTokens(llvm::StringRef Buf, unsigned Offset, const clang::LangOptions &LO)
      : Buf(Buf), Lex(clang::SourceLocation::getFromRawEncoding(1), LO,
                      Buf.begin(), Buf.begin() + Offset, Buf.end()) {}
  /// Read the next token (tok::eof at the end).
  clang::Token &next() {
    Lex.LexFromRawLexer(T);
    return T;
  }
  clang::Token &tok() { return T; }
  bool atEnd() const { return T.is(clang::tok::eof); }
  unsigned offset() const { return T.getLocation().getRawEncoding() - 1; }
  unsigned end() const { return offset() + T.getLength(); }
  llvm::StringRef text() const { return Buf.substr(offset(), T.getLength()); }
  /// The token's name if it is an identifier, else "".
  llvm::StringRef identifier() const {
    return T.is(clang::tok::raw_identifier) ? T.getRawIdentifier()
                                            : llvm::StringRef();
  }
  bool ident(llvm::StringRef Name) const { return identifier() == Name; }

  /// From an opening bracket just read: on to the token that closes it, or
  /// with \p AtComma to a ',' at its level first. False at eof.
  bool toLevelEnd(bool AtComma) {
    unsigned Depth = 0;
    for (next(); !atEnd(); next()) {
      if (T.isOneOf(clang::tok::l_paren, clang::tok::l_square,
                    clang::tok::l_brace))
        ++Depth;
      else if (T.isOneOf(clang::tok::r_paren, clang::tok::r_square,
                         clang::tok::r_brace)) {
        if (Depth == 0)
          return true;
        --Depth;
      } else if (AtComma && T.is(clang::tok::comma) && Depth == 0)
        return true;
    }
    return false;
  }
  /// On to the parenthesis that closes the one just read.
  bool skipToClose() { return toLevelEnd(false) && T.is(clang::tok::r_paren); }
  /// At an opening parenthesis: on to the token that ends the argument (a
  /// ',' at its level or the closing ')').
  bool toArgumentEnd() { return toLevelEnd(true); }

private:
  llvm::StringRef Buf;
  clang::Lexer Lex;
  clang::Token T;
};

} // namespace hmplace

#endif
