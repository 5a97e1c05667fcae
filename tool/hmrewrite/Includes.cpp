//===- Includes.cpp - where the runtime header goes in an edited file -----===//
//
// `#include <hmplace.h>` must go at file scope (not in a function, not
// between a declarator and its body, not in a namespace or extern "C"
// block), outside every conditional block (or the edits would not compile
// in the other configuration), and before the first edit. Within that, where
// a person would put it: after the last include, on its own line.
//
// And it must not move a line. Plan keys, profiles, debug info and a later
// rerun all name lines; a new line would shift every line below it. So the
// include takes the place of a blank line, but not of the one that
// separates the includes from the code:
//   1. right after the last include when two blank lines follow it (one
//      blank line stays between the includes and the code);
//   2. else the last blank line at file scope between two includes (between
//      two groups of includes: never before the first include, which may be
//      a config.h that must come before any system header);
//   3. else the first blank line at file scope before the first edit, after
//      the one that separates the includes from the code;
//   4. else (no blank line to take) a new line after the last include,
//      followed by `#line N`, which gives the lines below their old numbers
//      in the compiler's view (an editor then shows them one line lower:
//      docs/user-guide.md says so).
// And it must be where clang-format sorts it, or `git clang-format` over the
// rewrite would move it: where the place above joins a block of includes
// out of order, a line of its own where it sorts in that block, with `#line`
// after it (which also ends the block there) -- never before the file's
// first include when that is a quoted one (a "config.h"). Nor in a block the
// tree keeps unsorted (`git clang-format` would sort the program's includes
// with it): then the first place by the rules above that joins no block, or
// a line of its own after the block with a comment line before it (which
// ends the block in every style; a blank line does not where includes are
// regrouped) and `#line` after it.
// "The last include" is the last one before the first edit at file scope;
// one inside a conditional block stands for the block's #endif line. A
// header's include guard is no conditional block; the include goes inside
// it, after its #define.
//
//===----------------------------------------------------------------------===//
#include "ClangCompat.h"
#include "Format.h"
#include "Rewrite.h"

#include "llvm/ADT/StringExtras.h"

#include <algorithm>
#include <map>
#include <optional>

using namespace clang;
using namespace llvm;

namespace hmplace {

namespace {

/// A physical line of the file, as the include placement sees it.
struct TextLine {
  unsigned Begin, End; ///< [Begin, End): the text without its newline
  unsigned Next;       ///< where the next line begins
  /// Only white space, and a line of its own to the preprocessor: not in a
  /// block comment, not spliced to the line before by a backslash.
  bool Blank;
};

} // namespace

/// The file's lines, with the lexical state a blank line depends on.
static std::vector<TextLine> linesOf(StringRef Text) {
  std::vector<TextLine> Out;
  bool InBlock = false, Spliced = false;
  size_t Pos = 0;
  while (Pos < Text.size()) {
    size_t NL = Text.find('\n', Pos);
    size_t End = NL == StringRef::npos ? Text.size() : NL;
    StringRef L = Text.slice(Pos, End).rtrim('\r');
    TextLine TL{unsigned(Pos), unsigned(Pos + L.size()),
                unsigned(NL == StringRef::npos ? Text.size() : NL + 1),
                !InBlock && !Spliced && L.trim().empty()};
    Out.push_back(TL);
    // Comments and literals decide whether the next line begins inside a
    // block comment.
    bool InLine = false;
    char Quote = 0;
    for (size_t I = 0; I < L.size(); ++I) {
      char C = L[I], N = I + 1 < L.size() ? L[I + 1] : 0;
      if (InBlock) {
        if (C == '*' && N == '/')
          InBlock = false, ++I;
      } else if (InLine) {
        break;
      } else if (Quote) {
        if (C == '\\')
          ++I;
        else if (C == Quote)
          Quote = 0;
      } else if (C == '/' && N == '*') {
        InBlock = true, ++I;
      } else if (C == '/' && N == '/') {
        InLine = true;
      } else if (C == '"' || C == '\'') {
        Quote = C;
      }
    }
    Spliced = !L.empty() && L.back() == '\\';
    Pos = TL.Next;
  }
  return Out;
}

/// Offset of the first character of \p Text that is not white space or a
/// comment (from the front), or one past the last (from the back).
static unsigned codeBoundary(StringRef Text, bool FromBack) {
  // Only needed for include guards: a simple scan that knows comments.
  if (!FromBack) {
    size_t I = 0;
    while (I < Text.size()) {
      if (isSpace(Text[I]))
        ++I;
      else if (Text.substr(I).starts_with("//"))
        I = std::min(Text.find('\n', I), Text.size());
      else if (Text.substr(I).starts_with("/*"))
        I = std::min(Text.find("*/", I + 2) + 2, Text.size());
      else
        break;
    }
    return unsigned(I);
  }
  StringRef T = Text.rtrim();
  while (true) {
    if (T.ends_with("*/")) {
      size_t B = T.rfind("/*");
      if (B == StringRef::npos)
        break;
      T = T.take_front(B).rtrim();
      continue;
    }
    size_t LS = T.rfind('\n');
    StringRef Last = T.substr(LS == StringRef::npos ? 0 : LS + 1);
    size_t C = Last.find("//");
    if (C != StringRef::npos && Last.take_front(C).trim().empty()) {
      T = T.take_front(LS == StringRef::npos ? 0 : LS).rtrim();
      continue;
    }
    break;
  }
  return unsigned(T.size());
}

/// The line that keeps the include apart from a block of the program's
/// includes when nothing else can (a blank line does not end a block in
/// styles that regroup includes).
static constexpr llvm::StringLiteral ApartComment =
    "/* HmPlace's runtime, apart from the includes above */";

/// Rule 4: a line of its own, `#line` after it giving the lines below their
/// old numbers: at \p Anchor; where that does not fit (\p Fits), line by
/// line after it at file scope (\p Open), before the line, or else with a
/// comment line before it, which ends the block of includes above in every
/// style (a blank line does not where a style regroups includes), on a
/// blank line, which it takes, or before the line.
static IncludeEdit ownLineEdit(StringRef Text, ArrayRef<TextLine> Lines,
                               size_t K, unsigned Anchor, unsigned FirstEdit,
                               function_ref<bool(const TextLine &)> AtFileScope,
                               function_ref<bool(unsigned)> Open,
                               function_ref<bool(const IncludeEdit &)> Fits) {
  static constexpr llvm::StringLiteral Include = "#include <hmplace.h>";
  StringRef EOL = Text.contains("\r\n") ? "\r\n" : "\n";
  auto LineNoAt = [&](unsigned At) {
    unsigned LineNo = 1; // a BOM is no line
    for (size_t I = 0; I < Lines.size() && Lines[I].Next <= At; ++I)
      ++LineNo;
    return LineNo;
  };
  auto Insert = [&](unsigned At, bool Apart) {
    std::string Before =
        At > 0 && At == Text.size() && Text.back() != '\n' ? EOL.str() : "";
    if (Apart)
      Before += (ApartComment + EOL).str();
    return IncludeEdit{
        At, 0,
        (Before + Include + EOL + "#line " + Twine(LineNoAt(At)) + EOL).str()};
  };
  IncludeEdit AtAnchor = Insert(Anchor, false);
  if (!Fits || Fits(AtAnchor))
    return AtAnchor;
  for (size_t J = K; J < Lines.size() && Lines[J].Begin <= FirstEdit; ++J) {
    const TextLine &L = Lines[J];
    if (!Open(L.Begin))
      continue;
    if (L.Begin != Anchor) {
      IncludeEdit E = Insert(L.Begin, false);
      if (Fits(E))
        return E;
    }
    IncludeEdit E = Insert(L.Begin, true);
    if (AtFileScope(L)) // the comment takes the blank line
      E = IncludeEdit{L.Begin, L.End - L.Begin,
                      (ApartComment + EOL + Include + EOL + "#line " +
                       Twine(LineNoAt(L.Begin) + 1))
                          .str()};
    if (Fits(E))
      return E;
  }
  return AtAnchor;
}

IncludeEdit runtimeIncludeEdit(StringRef Text, const FileLayout &Layout,
                               unsigned FirstEdit,
                               function_ref<bool(const IncludeEdit &)> Fits) {
  static constexpr llvm::StringLiteral Include = "#include <hmplace.h>";
  // Only the lines up to the first edit can take the include (a site-dense
  // file is 50k lines, its first edit near the top).
  size_t Upto = Text.find('\n', std::min<size_t>(FirstEdit, Text.size()));
  std::vector<TextLine> Lines = linesOf(
      Text.take_front(Upto == StringRef::npos ? Text.size() : Upto + 1));
  std::vector<std::pair<unsigned, unsigned>> Conds = Layout.Conditionals;
  unsigned Start = Text.starts_with("\xEF\xBB\xBF") ? 3 : 0;
  // An include guard: a conditional block that is the whole file. Inside it
  // is file scope; the include goes after its #define.
  unsigned CodeBegin = codeBoundary(Text, false),
           CodeEnd = codeBoundary(Text, true);
  for (auto It = Conds.begin(); It != Conds.end(); ++It) {
    if (It->first > CodeBegin || It->second < CodeEnd ||
        !Text.substr(CodeBegin).starts_with("#"))
      continue;
    // Start after the #ifndef line and a #define line that follows it.
    for (size_t I = 0; I < Lines.size(); ++I) {
      if (Lines[I].Begin < It->first)
        continue;
      Start = Lines[I].Next;
      if (I + 1 < Lines.size() &&
          Text.slice(Lines[I + 1].Begin, Lines[I + 1].End)
              .ltrim()
              .starts_with("#define"))
        Start = Lines[I + 1].Next;
      break;
    }
    Conds.erase(It);
    break;
  }
  auto InRanges = [](unsigned Off,
                     const std::vector<std::pair<unsigned, unsigned>> &R,
                     bool Strict) {
    for (const auto &[B, E] : R)
      if (Strict ? (B < Off && Off < E) : (B <= Off && Off < E))
        return true;
    return false;
  };
  auto AtFileScope = [&](const TextLine &L) {
    return L.Blank && L.Begin >= Start && L.Next <= FirstEdit &&
           !InRanges(L.Begin, Layout.Decls, true) &&
           !InRanges(L.Begin, Conds, false);
  };
  // The anchor: where the last include before the first edit ends (or the
  // conditional block around it), at file scope.
  unsigned Anchor = Start;
  for (const auto &[B, E] : Layout.Includes) {
    if (E > FirstEdit || B < Start || InRanges(B, Layout.Decls, true))
      continue;
    unsigned End = E; // the end of the outermost block around the include
    for (const auto &[CB, CE] : Conds)
      if (CB <= B && B < CE)
        End = std::max(End, CE);
    if (End <= FirstEdit)
      Anchor = std::max(Anchor, End);
  }
  size_t K = 0;
  while (K < Lines.size() && Lines[K].Begin < Anchor)
    ++K;
  auto Replace = [&](const TextLine &L) {
    return IncludeEdit{L.Begin, L.End - L.Begin, Include.str()};
  };
  auto FitsAt = [&](const TextLine &L) { return !Fits || Fits(Replace(L)); };
  unsigned FirstInclude = Anchor;
  for (const auto &[B, E] : Layout.Includes)
    if (B >= Start && E <= Anchor && !InRanges(B, Layout.Decls, true))
      FirstInclude = std::min(FirstInclude, B);
  // The blank line right after the includes separates them from the code
  // (without includes before it, it separates nothing).
  bool AtAnchor = K < Lines.size() && AtFileScope(Lines[K]) &&
                  Text.slice(Anchor, Lines[K].Begin).trim().empty();
  bool Separated = AtAnchor && FirstInclude < Anchor;
  if (AtAnchor &&
      (!Separated || (K + 1 < Lines.size() && AtFileScope(Lines[K + 1]))) &&
      FitsAt(Lines[K]))
    return Replace(Lines[K]); // 1
  for (size_t J = K; J-- > 0 && Lines[J].Begin > FirstInclude;)
    if (AtFileScope(Lines[J]) && FitsAt(Lines[J]))
      return Replace(Lines[J]); // 2
  for (size_t J = K + Separated; J < Lines.size() && Lines[J].Begin < FirstEdit;
       ++J)
    if (AtFileScope(Lines[J]) && FitsAt(Lines[J]))
      return Replace(Lines[J]); // 3
  // 4: a line of its own, and the numbers of the lines below restored.
  auto Open = [&](unsigned At) {
    return At >= Anchor && !InRanges(At, Layout.Decls, true) &&
           !InRanges(At, Conds, false);
  };
  return ownLineEdit(Text, Lines, K, Anchor, FirstEdit, AtFileScope, Open,
                     Fits);
}

std::optional<IncludeEdit> runtimeIncludeRemoval(StringRef Text,
                                                 const FileLayout &Layout) {
  auto [B, E] = Layout.RuntimeInclude;
  if (E <= B || E > Text.size())
    return std::nullopt;
  StringRef Line = Text.slice(B, E).rtrim("\r\n").trim();
  if (Line != "#include <hmplace.h>")
    return std::nullopt; // the user's own spelling: theirs to keep
  // Rule 4 above added a #line after it: both lines go, and the comment
  // that kept it apart from the includes above, if it wrote one.
  size_t NL = Text.find('\n', E);
  StringRef Next = Text.slice(E, NL == StringRef::npos ? Text.size() : NL);
  unsigned LineNo = 1 + unsigned(Text.take_front(B).count('\n'));
  StringRef Above = Text.take_front(B);
  Above = Above.drop_back(Above.ends_with("\r\n") ? 2
                          : Above.ends_with("\n") ? 1
                                                  : 0);
  size_t AboveBegin = Above.rfind('\n') + 1; // npos + 1 == 0
  bool Apart = B > 0 && Above.substr(AboveBegin).rtrim("\r") == ApartComment;
  StringRef LineDirective = Next.rtrim("\r").trim();
  unsigned LineEnd = unsigned(NL == StringRef::npos ? Text.size() : NL + 1);
  if (LineDirective == ("#line " + Twine(LineNo - unsigned(Apart))).str()) {
    unsigned From = Apart ? unsigned(AboveBegin) : B;
    return IncludeEdit{From, LineEnd - From, ""};
  }
  // With a comment that took a blank line: the blank line comes back.
  if (Apart && LineDirective == ("#line " + Twine(LineNo)).str())
    return IncludeEdit{
        unsigned(AboveBegin),
        unsigned(E + Next.rtrim("\r").size()) - unsigned(AboveBegin), ""};
  // Else it took the place of a blank line: the blank line comes back.
  unsigned TextEnd = B + unsigned(Text.slice(B, E).rtrim("\r\n").size());
  return IncludeEdit{B, TextEnd - B, ""};
}

/// Whether clang-format (\p Style) leaves \p E's include where it is in
/// the block of #include lines it is in (for an edit without an include,
/// the block at its place).
static bool sortsInPlace(StringRef File, StringRef Text, const IncludeEdit &E,
                         const format::FormatStyle &Style) {
  std::string New =
      (Text.take_front(E.Offset) + E.Text + Text.substr(E.Offset + E.Length))
          .str();
  size_t Own = StringRef(E.Text).find("#include"); // else: the line at E
  unsigned At = E.Offset + unsigned(Own == StringRef::npos ? 0 : Own);
  unsigned Len = unsigned(StringRef(New).substr(At).find_first_of("\r\n"));
  tooling::Replacements Reps = format::sortIncludes(
      Style, New,
      {tooling::Range(At, std::min<unsigned>(Len, New.size() - At))}, File);
  Expected<std::string> Sorted = tooling::applyAllReplacements(New, Reps);
  if (!Sorted) {
    consumeError(Sorted.takeError());
    return true; // nothing clang-format would do
  }
  return *Sorted == New;
}

/// The starts of the #include lines next to \p E's place (the block its
/// include joins), in order.
static std::vector<unsigned>
blockAround(StringRef Text, const FileLayout &Layout, const IncludeEdit &E) {
  std::map<unsigned, unsigned> ByBegin, ByEnd; // an include line's two ends
  for (const auto &[B, End] : Layout.Includes) {
    ByBegin[B] = End;
    ByEnd[End] = B;
  }
  std::vector<unsigned> Starts;
  for (auto It = ByEnd.find(E.Offset); It != ByEnd.end();
       It = ByEnd.find(It->second))
    Starts.insert(Starts.begin(), It->second);
  // After the line E takes (its text replaced), or at the lines it adds.
  size_t After = E.Offset;
  if (!StringRef(E.Text).ends_with("\n")) {
    After = Text.find('\n', E.Offset);
    After = After == StringRef::npos ? Text.size() : After + 1;
  }
  for (auto It = ByBegin.find(unsigned(After)); It != ByBegin.end();
       It = ByBegin.find(It->second))
    Starts.push_back(It->first);
  return Starts;
}

/// clang-format sorts each block of #include lines, so `git clang-format`
/// would move an include that joins a block out of order. Then a line of
/// its own where it sorts in that block, and `#line` after it (which also
/// ends the block there, and keeps the numbering).
static IncludeEdit sortedInclude(StringRef File, StringRef Text,
                                 const FileLayout &Layout,
                                 const format::FormatStyle &Style,
                                 unsigned FirstEdit) {
  IncludeEdit E = runtimeIncludeEdit(Text, Layout, FirstEdit);
  if (!sortsIncludes(Style) || sortsInPlace(File, Text, E, Style))
    return E;
  // A block the tree keeps out of clang-format's order (a config.h that
  // must come first): the include joins no block of the program's, or
  // `git clang-format` would sort the whole block.
  auto Alone = [&]() {
    return runtimeIncludeEdit(Text, Layout, FirstEdit,
                              [&](const IncludeEdit &C) {
                                return sortsInPlace(File, Text, C, Style);
                              });
  };
  std::vector<unsigned> Block = blockAround(Text, Layout, E);
  if (Block.empty() ||
      !sortsInPlace(File, Text, IncludeEdit{Block[0], 0, ""}, Style))
    return Alone();
  // Nor before the file's first include when that is the project's own
  // (a "config.h" may define feature macros every system header must see).
  auto First = std::min_element(Layout.Includes.begin(), Layout.Includes.end());
  bool FirstIsOwn = First != Layout.Includes.end() &&
                    Text.slice(First->first, First->second).contains('"');
  StringRef EOL = Text.contains("\r\n") ? "\r\n" : "\n";
  for (unsigned At : Block) {
    if (FirstIsOwn && At == First->first)
      continue;
    unsigned LineNo = 1 + unsigned(Text.take_front(At).count('\n'));
    IncludeEdit C{
        At, 0,
        ("#include <hmplace.h>" + EOL + "#line " + Twine(LineNo) + EOL).str()};
    if (sortsInPlace(File, Text, C, Style))
      return C;
  }
  return Alone();
}

void RewriteSession::insertInclude(const std::string &File, StringRef Text,
                                   const FileLayout &Layout,
                                   const format::FormatStyle &Style,
                                   unsigned FirstEdit) {
  IncludeEdit E = sortedInclude(File, Text, Layout, Style, FirstEdit);
  addEdit(File, E.Offset, E.Length, E.Text);
}

} // namespace hmplace
