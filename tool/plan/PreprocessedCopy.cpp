//===- PreprocessedCopy.cpp - positions of a preprocessed copy ------------===//
#include "plan/PreprocessedCopy.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/Path.h"

#include <tuple>

using namespace llvm;

namespace hmplace {

/// \p Text's lines, without their line ends.
static std::vector<StringRef> splitLines(StringRef Text) {
  std::vector<StringRef> Out;
  for (size_t Pos = 0; Pos < Text.size();) {
    size_t NL = Text.find('\n', Pos);
    size_t End = NL == StringRef::npos ? Text.size() : NL;
    Out.push_back(Text.slice(Pos, End).rtrim('\r'));
    Pos = End + 1;
  }
  return Out;
}

FortranSource::FortranSource(std::string TextIn, bool Fixed)
    : Text(std::move(TextIn)), Lines(splitLines(Text)) {
  Statements.emplace(Lines, Fixed);
}

/// A line directive's source line and file ("" when it names none).
static std::optional<std::pair<unsigned, std::string>>
lineDirective(StringRef L) {
  L = L.ltrim();
  if (!L.consume_front("#"))
    return std::nullopt;
  L = L.ltrim();
  L.consume_front("line");
  L = L.ltrim();
  std::string File;
  if (L.starts_with("\"")) { // flang: #line "file" N
    size_t End = L.find('"', 1);
    if (End == StringRef::npos)
      return std::nullopt;
    File = L.slice(1, End).str();
    L = L.drop_front(End + 1).ltrim();
  }
  StringRef Num = L.take_while(isDigit);
  unsigned N = 0;
  if (Num.empty() || Num.getAsInteger(10, N))
    return std::nullopt;
  L = L.drop_front(Num.size()).ltrim();
  if (File.empty() && L.starts_with("\"")) { // #line N "file", # N "file"
    size_t End = L.find('"', 1);
    if (End != StringRef::npos)
      File = L.slice(1, End).str();
  }
  return std::make_pair(N, File);
}

PreprocessedCopy::PreprocessedCopy(std::string TextIn)
    : Text(std::move(TextIn)) {
  std::string File;
  unsigned Line = 0;
  bool Seen = false;
  for (StringRef L : splitLines(Text)) {
    if (auto D = lineDirective(L)) {
      Seen = true;
      Line = D->first;
      if (!D->second.empty())
        File = D->second;
      continue;
    }
    if (Seen) {
      ByKey.emplace(std::make_pair(File, Line), Lines.size());
      Files.insert(File);
      Lines.push_back(L);
      Keys.emplace_back(File, Line);
    }
    ++Line;
  }
  // flang writes the copy in a form both fixed and free form read: `&` at
  // the end of a line and at column 6 of the next.
  Statements.emplace(Lines, /*Fixed=*/false);
}

std::string PreprocessedCopy::keyFile(StringRef File) const {
  if (Files.count(File.str()))
    return File.str();
  StringRef Name = sys::path::filename(File);
  std::string Only;
  for (const std::string &F : Files)
    if (sys::path::filename(F) == Name) {
      if (!Only.empty())
        return "";
      Only = F;
    }
  return Only;
}

namespace {
/// A line of the copy read back onto the source.
struct Reading {
  SourcePoint At;
  bool Preferred, WordStart, StatementStart;
  auto rank() const {
    return std::make_tuple(Preferred, WordStart, StatementStart);
  }
};

bool isWordChar(char C) { return isAlnum(C) || C == '_'; }
} // namespace

std::optional<SourcePoint>
PreprocessedCopy::pointInSource(StringRef File, unsigned Line, unsigned Col,
                                const FortranSource &Source, StringRef Prefer,
                                std::string &Why) const {
  std::string Key = keyFile(File);
  auto [Begin, End] = ByKey.equal_range({Key, Line});
  if (Key.empty() || Begin == End) {
    Why = "the copy has no line " + std::to_string(Line) + " of " + File.str();
    return std::nullopt;
  }
  const FortranText &Src = Source.text();
  std::optional<Reading> Best;
  for (auto It = Begin; It != End; ++It) {
    size_t I = It->second;
    size_t First = Statements->firstOf(I);
    if (Keys[First].first != Key || Col == 0 || Col > Lines[I].size())
      continue;
    std::vector<StmtChar> Copy = Statements->statementAt(First);
    size_t K = 0;
    while (K < Copy.size() && !(Copy[K].Line == I && Copy[K].Col == Col))
      ++K;
    size_t SrcFirst = Keys[First].second - 1;
    if (K == Copy.size() || !Src.beginsStatement(SrcFirst))
      continue;
    std::vector<StmtChar> Orig = Src.statementAt(SrcFirst);
    if (Orig.size() <= K)
      continue;
    bool Same = true;
    for (size_t J = 0; J <= K && Same; ++J)
      Same = toLower(Copy[J].C) == toLower(Orig[J].C);
    if (!Same)
      continue;
    Reading R{{unsigned(Orig[K].Line + 1), Orig[K].Col},
              !Prefer.empty() &&
                  Lines[I].drop_front(Col - 1).starts_with_insensitive(Prefer),
              isWordChar(Copy[K].C) &&
                  (Col == 1 || !isWordChar(Lines[I][Col - 2])),
              First == I};
    if (!Best || R.rank() > Best->rank())
      Best = R;
  }
  if (Best)
    return Best->At;
  Why = "line " + std::to_string(Line) +
        " differs there in more than blanks (a macro expanded, a statement "
        "split otherwise)";
  return std::nullopt;
}

} // namespace hmplace
