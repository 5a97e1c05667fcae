//===- PreprocessedCopy.cpp - columns of a preprocessed copy --------------===//
#include "plan/PreprocessedCopy.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/Path.h"

using namespace llvm;

namespace hmplace {

std::optional<unsigned> alignColumn(StringRef From, unsigned Col,
                                    StringRef To) {
  if (Col == 0 || Col > From.size() || isSpace(From[Col - 1]))
    return std::nullopt;
  size_t J = 0;
  for (size_t I = 0; I < Col; ++I) {
    if (isSpace(From[I]))
      continue;
    while (J < To.size() && isSpace(To[J]))
      ++J;
    if (J == To.size() || toLower(To[J]) != toLower(From[I]))
      return std::nullopt;
    if (I + 1 == Col)
      return unsigned(J + 1);
    ++J;
  }
  return std::nullopt;
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
  StringRef All(Text);
  std::string File;
  unsigned Line = 0;
  bool Seen = false;
  for (size_t Pos = 0; Pos < All.size();) {
    size_t NL = All.find('\n', Pos);
    size_t End = NL == StringRef::npos ? All.size() : NL;
    StringRef L = All.slice(Pos, End).rtrim('\r');
    if (auto D = lineDirective(L)) {
      Seen = true;
      Line = D->first;
      if (!D->second.empty())
        File = D->second;
    } else {
      if (Seen)
        Lines.emplace(std::make_pair(File, Line),
                      std::make_pair(Pos, Pos + L.size()));
      ++Line;
    }
    Pos = NL == StringRef::npos ? All.size() : NL + 1;
  }
}

std::optional<StringRef> PreprocessedCopy::lineFor(StringRef File,
                                                   unsigned Line) const {
  auto It = Lines.find({File.str(), Line});
  if (It == Lines.end()) {
    // Debug info may spell the file otherwise (relative to the compile
    // directory): the one file of the directives with its name.
    StringRef Name = sys::path::filename(File);
    std::string Only;
    for (const auto &[Key, Range] : Lines)
      if (sys::path::filename(Key.first) == Name) {
        if (!Only.empty() && Only != Key.first)
          return std::nullopt;
        Only = Key.first;
      }
    It = Lines.find({Only, Line});
    if (Only.empty() || It == Lines.end())
      return std::nullopt;
  }
  return StringRef(Text).slice(It->second.first, It->second.second);
}

} // namespace hmplace
