//===- SourceTokens.cpp - a call found again after a reformat or an edit --===//
#include "plan/SourceTokens.h"
#include "plan/AllocFns.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/ADT/StringSwitch.h"
#include "llvm/Support/MemoryBuffer.h"

#include <algorithm>
#include <map>

using namespace llvm;

namespace hmplace {

namespace {

enum class RawKind { Ident, Punct, Literal };

struct RawToken {
  RawKind Kind;
  StringRef Text;
  unsigned Offset, Line, Column;
};

/// A lexer of C, C++ and their preprocessor's lines, enough to tell
/// identifiers, punctuators and literals apart and to skip what is not a
/// token (whitespace, comments, preprocessor lines).
class RawLexer {
public:
  explicit RawLexer(StringRef T) : T(T) {}
  std::vector<RawToken> run();

private:
  char at(size_t I) const { return I < T.size() ? T[I] : '\0'; }
  void advance(size_t N);
  /// Whitespace and comments; a newline outside a comment sets AtLineStart.
  void skipSpace(bool InDirective);
  void skipDirective();
  size_t identEnd(size_t I) const;
  size_t numberEnd(size_t I) const;
  size_t quotedEnd(size_t I, char Q) const;
  size_t rawStringEnd(size_t I) const;
  size_t punctLength(size_t I) const;

  StringRef T;
  size_t P = 0;
  unsigned Line = 1, Col = 1;
  bool AtLineStart = true;
};

bool isIdentStart(char C) {
  return isalpha(static_cast<unsigned char>(C)) || C == '_' || C == '$' ||
         static_cast<unsigned char>(C) >= 0x80;
}
bool isIdentChar(char C) {
  return isIdentStart(C) || isdigit(static_cast<unsigned char>(C));
}

} // namespace

void RawLexer::advance(size_t N) {
  for (size_t E = std::min(P + N, T.size()); P < E; ++P) {
    if (T[P] == '\n') {
      ++Line;
      Col = 1;
    } else {
      ++Col;
    }
  }
}

void RawLexer::skipSpace(bool InDirective) {
  while (P < T.size()) {
    char C = T[P];
    if (C == '\\' &&
        (at(P + 1) == '\n' || (at(P + 1) == '\r' && at(P + 2) == '\n'))) {
      advance(at(P + 1) == '\n' ? 2 : 3); // a spliced line
    } else if (C == '\n') {
      if (InDirective)
        return;
      AtLineStart = true;
      advance(1);
    } else if (C == ' ' || C == '\t' || C == '\r' || C == '\f' || C == '\v') {
      advance(1);
    } else if (C == '/' && at(P + 1) == '/') {
      while (P < T.size() && T[P] != '\n') {
        if (T[P] == '\\' && at(P + 1) == '\n')
          advance(1);
        advance(1);
      }
    } else if (C == '/' && at(P + 1) == '*') {
      size_t E = T.find("*/", P + 2);
      advance(E == StringRef::npos ? T.size() - P : E + 2 - P);
    } else {
      return;
    }
  }
}

/// From a line's `#` to its end (spliced lines and comments included).
void RawLexer::skipDirective() {
  while (P < T.size()) {
    skipSpace(/*InDirective=*/true);
    if (P >= T.size() || T[P] == '\n')
      return;
    char C = T[P];
    if (C == '"' || C == '\'')
      advance(quotedEnd(P, C) - P);
    else
      advance(1);
  }
}

size_t RawLexer::identEnd(size_t I) const {
  while (I < T.size() && isIdentChar(T[I]))
    ++I;
  return I;
}

/// A pp-number: digits, letters, dots, signs after an exponent, and C++14
/// digit separators.
size_t RawLexer::numberEnd(size_t I) const {
  ++I;
  while (I < T.size()) {
    char C = T[I];
    if ((C == '+' || C == '-') && strchr("eEpP", T[I - 1]))
      ++I;
    else if (C == '\'' && isIdentChar(at(I + 1)))
      I += 2;
    else if (isIdentChar(C) || C == '.')
      ++I;
    else
      break;
  }
  return I;
}

size_t RawLexer::quotedEnd(size_t I, char Q) const {
  for (++I; I < T.size() && T[I] != Q && T[I] != '\n'; ++I)
    if (T[I] == '\\')
      ++I;
  return std::min(I + 1, T.size());
}

/// R"delim( ... )delim", \p I at the quote.
size_t RawLexer::rawStringEnd(size_t I) const {
  size_t Open = T.find('(', I);
  if (Open == StringRef::npos || Open - I > 17)
    return quotedEnd(I, '"');
  std::string Close = ")" + T.slice(I + 1, Open).str() + "\"";
  size_t E = T.find(Close, Open);
  return E == StringRef::npos ? T.size() : E + Close.size();
}

size_t RawLexer::punctLength(size_t I) const {
  static const char *const Long[] = {
      "<=>", "->*", "...", "<<=", ">>=", "->", "::", "<<", ">>",
      "<=",  ">=",  "==",  "!=",  "&&",  "||", "++", "--", "+=",
      "-=",  "*=",  "/=",  "%=",  "&=",  "|=", "^=", ".*", "##"};
  for (const char *L : Long)
    if (T.substr(I).starts_with(L))
      return strlen(L);
  return 1;
}

std::vector<RawToken> RawLexer::run() {
  std::vector<RawToken> Out;
  while (true) {
    skipSpace(/*InDirective=*/false);
    if (P >= T.size())
      return Out;
    char C = T[P];
    if (C == '#' && AtLineStart) {
      skipDirective();
      continue;
    }
    AtLineStart = false;
    size_t E;
    RawKind K = RawKind::Literal;
    if (isIdentStart(C)) {
      E = identEnd(P);
      StringRef Id = T.slice(P, E);
      char Q = at(E);
      // An encoding prefix and its literal are one literal.
      bool Prefix = StringSwitch<bool>(Id)
                        .Cases("L", "u", "U", "u8", true)
                        .Cases("R", "LR", "uR", "UR", "u8R", true)
                        .Default(false);
      if (Prefix && Q == '"')
        E = Id.ends_with("R") ? rawStringEnd(E) : quotedEnd(E, '"');
      else if (Prefix && Q == '\'' && !Id.ends_with("R"))
        E = quotedEnd(E, '\'');
      else
        K = RawKind::Ident;
    } else if (isdigit(static_cast<unsigned char>(C)) ||
               (C == '.' && isdigit(static_cast<unsigned char>(at(P + 1))))) {
      E = numberEnd(P);
    } else if (C == '"' || C == '\'') {
      E = quotedEnd(P, C);
    } else {
      E = P + punctLength(P);
      K = RawKind::Punct;
    }
    Out.push_back({K, T.slice(P, E), unsigned(P), Line, Col});
    advance(E - P);
  }
}

/// What an earlier hmrewrite wrote that names no call of the program: its
/// frames, tables and windows (with their parenthesised arguments).
static bool hasOwnArguments(StringRef Id) {
  return StringSwitch<bool>(Id)
      .Cases("HMPLACE_AT", "HMPLACE_FRAME", "HMPLACE_BY_CALLERS", true)
      .Cases("hmplace_in_window", "hmplace_in_window2", "hmplace_ctx_kind",
             true)
      .Default(false);
}

/// The family an allocation function (or its runtime replacement) stands
/// for, or "".
static StringRef familyOf(StringRef Id) {
  bool TakesKind;
  const AllocFn *F = findAllocFn(Id);
  if (F)
    Id = F->Placed ? F->Placed : F->Dispatch ? F->Dispatch : F->Name;
  if (const AllocFn *R = findReplacedAllocFn(Id, TakesKind))
    return R->Name;
  return F ? F->Name : "";
}

/// Past the parenthesised group that begins at or after \p I.
static size_t skipGroup(const std::vector<RawToken> &R, size_t I) {
  if (I >= R.size() || R[I].Text != "(")
    return I;
  int Depth = 0;
  for (; I < R.size(); ++I) {
    if (R[I].Text == "(")
      ++Depth;
    else if (R[I].Text == ")" && --Depth == 0)
      return I + 1;
  }
  return I;
}

std::vector<SourceToken> sourceTokens(StringRef Text) {
  std::vector<RawToken> R = RawLexer(Text).run();
  std::vector<SourceToken> Out;
  for (size_t I = 0; I < R.size(); ++I) {
    const RawToken &T = R[I];
    if (T.Kind == RawKind::Literal)
      continue;
    if (T.Kind == RawKind::Punct) {
      // Brackets and separators hmrewrite's edits add.
      if (T.Text.size() == 1 && StringRef("(),;{}").contains(T.Text[0]))
        continue;
      Out.push_back({T.Text.str(), T.Offset, T.Line, T.Column});
      continue;
    }
    StringRef Family = familyOf(T.Text);
    if (!Family.empty()) {
      // `std::malloc` and `::malloc` become `hmplace_malloc(...)`.
      if (!Out.empty() && Out.back().Text == "::") {
        Out.pop_back();
        if (!Out.empty() && Out.back().Text == "std")
          Out.pop_back();
      }
      Out.push_back({Family.str(), T.Offset, T.Line, T.Column});
      continue;
    }
    if (T.Text.starts_with("HMPLACE_") || T.Text.starts_with("hmplace_")) {
      if (T.Text == "hmplace_kind" && !Out.empty() && Out.back().Text == "enum")
        Out.pop_back(); // `(enum hmplace_kind)`
      if (hasOwnArguments(T.Text))
        I = skipGroup(R, I + 1) - 1;
      continue;
    }
    Out.push_back({T.Text.str(), T.Offset, T.Line, T.Column});
  }
  return Out;
}

namespace {
constexpr size_t Window = 6; ///< tokens on each side that make a context
}

static uint32_t fnv(uint32_t H, StringRef S) {
  for (char C : S)
    H = (H ^ static_cast<unsigned char>(C)) * 16777619u;
  return (H ^ 0x1f) * 16777619u;
}

TokenIndex::TokenIndex(StringRef Text) : Tokens(sourceTokens(Text)) {
  Contexts.reserve(Tokens.size());
  for (size_t I = 0; I < Tokens.size(); ++I) {
    Contexts.push_back(contextOf(I));
    Alike[{Tokens[I].Text, Contexts[I]}].push_back(unsigned(I));
  }
}

uint32_t TokenIndex::contextOf(size_t I) const {
  uint32_t H = 2166136261u;
  size_t Lo = I > Window ? I - Window : 0;
  size_t Hi = std::min(Tokens.size(), I + Window + 1);
  for (size_t J = Lo; J < Hi; ++J)
    H = fnv(H, J == I ? StringRef("\x01") : StringRef(Tokens[J].Text));
  // Near the file's ends the window is shorter: say how much.
  return fnv(H, std::to_string(I - Lo) + "/" + std::to_string(Hi - I));
}

std::optional<TokenId> TokenIndex::idAt(unsigned Offset) const {
  auto It = llvm::partition_point(
      Tokens, [&](const SourceToken &T) { return T.Offset < Offset; });
  if (It == Tokens.end() || It->Offset != Offset)
    return std::nullopt;
  unsigned I = unsigned(It - Tokens.begin());
  const std::vector<unsigned> &Same = Alike.at({It->Text, Contexts[I]});
  unsigned Rank = unsigned(llvm::lower_bound(Same, I) - Same.begin()) + 1;
  return TokenId{It->Text, Contexts[I], Rank, unsigned(Same.size())};
}

const SourceToken *TokenIndex::find(const TokenId &Id) const {
  auto It = Alike.find({Id.Text, Id.Context});
  if (It == Alike.end() || It->second.size() != Id.Count || !Id.Rank ||
      Id.Rank > Id.Count)
    return nullptr;
  return &Tokens[It->second[Id.Rank - 1]];
}

std::string tokenText(const TokenId &Id) {
  return Id.Text + "#" + llvm::utohexstr(Id.Context, /*LowerCase=*/true, 8);
}

bool isTokenText(StringRef Text) {
  auto [Tok, Hash] = Text.rsplit('#');
  return !Tok.empty() && Hash.size() == 8 && !Tok.contains(' ') &&
         llvm::all_of(Hash, llvm::isHexDigit);
}

bool tokenIs(StringRef Text, const TokenId &Id) {
  auto [Tok, Hash] = Text.rsplit('#');
  uint32_t Context = 0;
  return Tok == Id.Text && !Hash.getAsInteger(16, Context) &&
         Context == Id.Context;
}

struct SourceTokenFiles::File {
  std::unique_ptr<llvm::MemoryBuffer> Buf;
  std::vector<unsigned> LineStart;
  std::unique_ptr<TokenIndex> Index;
};

SourceTokenFiles::SourceTokenFiles() = default;
SourceTokenFiles::~SourceTokenFiles() = default;

std::optional<TokenId> SourceTokenFiles::at(StringRef Path, unsigned Line,
                                            unsigned Column) {
  auto [It, New] = Files.try_emplace(Path.str());
  if (New) {
    auto Buf = llvm::MemoryBuffer::getFile(Path, /*IsText=*/false,
                                           /*RequiresNullTerminator=*/false);
    if (Buf && (*Buf)->getBufferSize() <= (64u << 20)) {
      auto F = std::make_unique<File>();
      F->Buf = std::move(*Buf);
      StringRef Text = F->Buf->getBuffer();
      F->LineStart.push_back(0);
      for (size_t I = 0; I < Text.size(); ++I)
        if (Text[I] == '\n')
          F->LineStart.push_back(unsigned(I + 1));
      F->Index = std::make_unique<TokenIndex>(Text);
      It->second = std::move(F);
    }
  }
  const File *F = It->second.get();
  if (!F || !Line || !Column || Line > F->LineStart.size())
    return std::nullopt;
  return F->Index->idAt(F->LineStart[Line - 1] + Column - 1);
}

} // namespace hmplace
