//===- SourceTokens.h - a call found again after a reformat -----*- C++ -*-===//
///
/// \file
/// A formatter moves calls, never their tokens: the tokens of a file, less
/// its whitespace, comments and preprocessor lines, come in the same order
/// before and after. So a call is named, whatever its line and column, by
/// the token at its key (the callee, the operator, the variable of a
/// constructor), a hash of the tokens around it, and its rank among the
/// tokens of the file alike in both (TokenId). What HmPlace writes into a
/// file does not count: its runtime calls stand for the calls they replace
/// (`hmplace_malloc` for `malloc` and `hbw_malloc`), its kind arguments,
/// frames and notes are left out, as are numbers, strings and the brackets
/// and separators its edits add; the id of a call is the same in the file
/// as written and as hmrewrite left it.
///
//===----------------------------------------------------------------------===//
#ifndef HMPLACE_PLAN_SOURCETOKENS_H
#define HMPLACE_PLAN_SOURCETOKENS_H

#include "llvm/ADT/StringRef.h"

#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace hmplace {

/// One token of a file as the ids count it.
struct SourceToken {
  std::string Text; ///< an allocation function stands for its family
  unsigned Offset = 0, Line = 0, Column = 0; ///< where it begins (1-based)
};

/// The tokens of \p Text that ids count, in order.
std::vector<SourceToken> sourceTokens(llvm::StringRef Text);

/// A call's token, named without its position.
struct TokenId {
  std::string Text;     ///< the token (an allocation function: its family)
  uint32_t Context = 0; ///< a hash of the tokens around it
  unsigned Rank = 1;    ///< its rank among the file's tokens of this id
  unsigned Count = 1;   ///< how many the file has
  bool operator==(const TokenId &O) const {
    return Text == O.Text && Context == O.Context && Rank == O.Rank &&
           Count == O.Count;
  }
};

/// \p Id as a plan writes it: `malloc#1a2b3c4d` (its text and context).
std::string tokenText(const TokenId &Id);
/// Whether \p Text reads as tokenText writes (a plan's `tokens:`).
bool isTokenText(llvm::StringRef Text);
/// Whether \p Id is the token \p Text names (its text and context).
bool tokenIs(llvm::StringRef Text, const TokenId &Id);

/// The tokens of a file and their ids.
class TokenIndex {
public:
  explicit TokenIndex(llvm::StringRef Text);
  /// The id of the token that begins at \p Offset, if one does.
  std::optional<TokenId> idAt(unsigned Offset) const;
  /// The token \p Id names: one of its text and context at its rank, when
  /// the file has as many of them as when the id was taken.
  const SourceToken *find(const TokenId &Id) const;
  const std::vector<SourceToken> &tokens() const { return Tokens; }

private:
  uint32_t contextOf(size_t I) const;
  std::vector<SourceToken> Tokens;
  std::vector<uint32_t> Contexts;
  /// The tokens of each text and context, in order.
  std::map<std::pair<std::string, uint32_t>, std::vector<unsigned>> Alike;
};

/// The source files a front end reads, their tokens by line and column
/// (1-based; a column counts bytes), each file read once.
class SourceTokenFiles {
public:
  SourceTokenFiles();
  ~SourceTokenFiles();
  /// The id of the token that begins at \p Line, \p Column of \p File;
  /// none where the file cannot be read or no token begins there.
  std::optional<TokenId> at(llvm::StringRef File, unsigned Line,
                            unsigned Column);

private:
  struct File;
  std::map<std::string, std::unique_ptr<File>> Files;
};

} // namespace hmplace

#endif
