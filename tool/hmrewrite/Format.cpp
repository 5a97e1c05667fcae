//===- Format.cpp - rewritten lines in the tree's format ------------------===//
#include "Format.h"
#include "KeyRecord.h"
#include "RawTokens.h"
#include "Spelling.h"
#include "Wrappers.h"
#include "plan/AllocFns.h"

#include "clang/Basic/CharInfo.h"
#include "llvm/ADT/STLExtras.h"

#include <algorithm>
#include <map>
#include <optional>
#include <set>

using namespace clang;
using namespace llvm;

namespace hmplace {

format::FormatStyle treeStyle(StringRef File) {
  Expected<format::FormatStyle> S = format::getStyle("file", File, "LLVM");
  if (S)
    return *S;
  consumeError(S.takeError()); // a broken .clang-format: LLVM's
  return format::getLLVMStyle();
}

namespace {

/// The file's physical lines and the compiler's numbers for them.
struct TextLines {
  std::vector<unsigned> Begin, End; ///< [Begin, End) without the newline
  std::vector<unsigned> Presumed;
  std::vector<bool> Directive; ///< or spliced to one by a backslash
  std::vector<std::optional<unsigned>> BareLine; ///< `#line N` alone

  unsigned size() const { return Begin.size(); }
  unsigned lineAt(unsigned Offset) const {
    return unsigned(std::upper_bound(Begin.begin(), Begin.end(), Offset) -
                    Begin.begin() - 1);
  }
};

/// A statement the pass looks at: physical lines [First, Last], and the
/// `#line` after them when an earlier run broke it.
struct Unit {
  unsigned First, Last;
  std::optional<unsigned> Marker;
  bool Alone = false; ///< formatted alone (UnitFormatter::standsAlone)
};

} // namespace

/// `#line N` or `# N "file"`: N, and whether it is `#line N` alone.
static std::optional<unsigned> lineDirective(StringRef L, bool &Bare) {
  L = L.ltrim(" \t");
  if (!L.consume_front("#"))
    return std::nullopt;
  L = L.ltrim(" \t");
  bool Named = L.consume_front("line");
  if (Named && (L.empty() || !isHorizontalWhitespace(L[0])))
    return std::nullopt;
  L = L.ltrim(" \t");
  StringRef Digits = L.take_while([](char C) { return isDigit(C); });
  unsigned N;
  if (Digits.empty() || Digits.getAsInteger(10, N))
    return std::nullopt;
  Bare = Named && L.drop_front(Digits.size()).trim().empty();
  return N;
}

static TextLines linesOf(StringRef Text) {
  TextLines T;
  unsigned Next = 1;
  for (size_t Pos = 0;;) {
    size_t NL = Text.find('\n', Pos);
    StringRef L =
        Text.slice(Pos, NL == StringRef::npos ? Text.size() : NL).rtrim('\r');
    bool Spliced = !T.End.empty() && T.End.back() > T.Begin.back() &&
                   Text[T.End.back() - 1] == '\\';
    T.Begin.push_back(Pos);
    T.End.push_back(Pos + L.size());
    T.Presumed.push_back(Next);
    // A macro body's lines: a #line among them would end the definition.
    T.Directive.push_back(L.ltrim(" \t").starts_with("#") || Spliced ||
                          L.ends_with("\\"));
    bool Bare = false;
    std::optional<unsigned> N = lineDirective(L, Bare);
    T.BareLine.push_back(Bare ? N : std::nullopt);
    Next = N ? *N : Next + 1;
    if (NL == StringRef::npos || NL + 1 == Text.size())
      return T;
    Pos = NL + 1;
  }
}

/// Statements an earlier run broke: lines [First, Last] that the compiler
/// numbers as one line, closed by the `#line` that says so. By the line
/// they begin on.
static std::map<unsigned, Unit> brokenStatements(const TextLines &T) {
  std::map<unsigned, Unit> Out;
  for (unsigned M = 1; M < T.size(); ++M) {
    if (!T.BareLine[M])
      continue;
    unsigned Last = M - 1;
    // Extra 0: the statement fits on its line again after a rerun's edit;
    // the `#line` is left over.
    long Extra = long(T.Presumed[Last]) - long(*T.BareLine[M] - 1);
    if (Extra < 0 || Extra > long(Last))
      continue;
    unsigned First = Last - unsigned(Extra);
    bool Code = true;
    for (unsigned L = First; L <= Last; ++L)
      Code &= !T.Directive[L];
    if (Code)
      Out[First] = Unit{First, Last, M};
  }
  return Out;
}

/// The statements the rewrite wrote into, each once, in order.
static std::vector<Unit>
unitsOf(const TextLines &T, ArrayRef<std::pair<unsigned, unsigned>> Changed) {
  std::map<unsigned, Unit> Broken = brokenStatements(T);
  std::map<unsigned, Unit> Out;
  auto Add = [&](unsigned L) {
    if (auto It = Broken.upper_bound(L); It != Broken.begin())
      if (const Unit &U = std::prev(It)->second; L <= U.Last) {
        Out[U.First] = U;
        return;
      }
    if (!T.Directive[L])
      Out[L] = Unit{L, L, std::nullopt};
  };
  for (auto [B, E] : Changed)
    for (unsigned L = T.lineAt(B), Z = T.lineAt(std::max(B, E ? E - 1 : 0));
         L <= Z && L < T.size(); ++L)
      Add(L);
  std::vector<Unit> V;
  for (auto &[First, U] : Out)
    V.push_back(U);
  return V;
}

/// \p Text[B, E) with the replacements that fall in it; false if one
/// crosses its bounds (clang-format's statement goes on beyond them).
static bool applyWithin(StringRef Text, const tooling::Replacements &Reps,
                        unsigned B, unsigned E, std::string &Out) {
  Out.clear();
  unsigned Pos = B;
  for (const tooling::Replacement &R : Reps) {
    unsigned RB = R.getOffset(), RE = RB + R.getLength();
    if (RE < B || RB > E || (RE == B && R.getLength()))
      continue;
    // The next line's indentation (a tab clang-format makes spaces), with
    // the line break before it: not the line's.
    if (RB == E && Text.slice(RB, RE).trim().empty() &&
        R.getReplacementText().contains('\n'))
      continue;
    // The line's indentation, which clang-format replaces together with the
    // line break before it (code it would indent otherwise): the new
    // indentation.
    if (RB < B && RE <= E && Text.slice(RB, RE).trim().empty()) {
      StringRef New = R.getReplacementText();
      Out += New.substr(New.find_last_of('\n') + 1);
      Pos = RE;
      continue;
    }
    if (RB < B || RE > E)
      return false;
    Out += Text.slice(Pos, RB);
    Out += R.getReplacementText();
    Pos = RE;
  }
  Out += Text.slice(Pos, E);
  return true;
}

/// Display columns of \p L (tabs to \p TabWidth, UTF-8 sequences as one).
static unsigned widthOf(StringRef L, unsigned TabWidth) {
  unsigned W = 0;
  for (char C : L) {
    if (C == '\t')
      W += TabWidth - W % TabWidth;
    else if ((uint8_t(C) & 0xC0) != 0x80)
      ++W;
  }
  return W;
}

static unsigned widest(StringRef Text, unsigned TabWidth) {
  unsigned W = 0;
  for (StringRef Rest = Text; !Rest.empty();) {
    auto [L, R] = Rest.split('\n');
    W = std::max(W, widthOf(L, TabWidth));
    Rest = R;
  }
  return W;
}

/// Where in \p Buf (NUL-terminated), from \p From to \p To, a call a plan
/// could name is written: an identifier (or `new`) before its arguments, a
/// C++ subscript. hmplace.h's own forms, size operators and statement
/// keywords are none.
static std::vector<unsigned> callsIn(const std::string &Buf, unsigned From,
                                     unsigned To, const LangOptions &LO) {
  std::vector<unsigned> Out;
  RawTokens R(Buf, From, LO);
  StringRef Prev;
  unsigned PrevAt = 0;
  for (R.next(); !R.atEnd() && R.offset() < To; R.next()) {
    if (R.tok().isOneOf(tok::l_paren, tok::l_brace) && !Prev.empty()) {
      bool Ours =
          Prev.starts_with("HMPLACE_") || Prev.starts_with("hmplace_in_window");
      static const StringRef Operators[] = {
          "sizeof", "alignof",    "_Alignof", "__alignof__", "decltype",
          "typeof", "__typeof__", "_Generic", "defined",     "if",
          "while",  "for",        "switch",   "return"};
      bool Operator = is_contained(Operators, Prev);
      if (!Ours && !Operator)
        Out.push_back(PrevAt);
    }
    if (LO.CPlusPlus && R.tok().is(tok::l_square))
      Out.push_back(R.offset());
    Prev = R.identifier();
    PrevAt = R.offset();
    if (Prev == "new" && LO.CPlusPlus)
      Out.push_back(PrevAt);
  }
  return Out;
}

/// The tree's style for breaking lines: the fixers that do not touch line
/// breaks (namespace end comments, using-declaration order) are off, each
/// lexes the text once more.
static format::FormatStyle breakingStyle(format::FormatStyle S) {
  S.FixNamespaceComments = false;
  S.SortUsingDeclarations = format::FormatStyle::SUD_Never;
  return S;
}

namespace {
/// formatRewrittenLines' work on one file.
class UnitFormatter {
public:
  UnitFormatter(StringRef FileName, StringRef Text,
                const format::FormatStyle &TreeStyle, bool AloneAllowed,
                const std::set<unsigned> *Harmless = nullptr)
      : FileName(FileName), Text(Text), AloneAllowed(AloneAllowed),
        Harmless(Harmless), Style(breakingStyle(TreeStyle)), T(linesOf(Text)),
        EOL(Text.contains("\r\n") ? "\r\n" : "\n"),
        KeysRecorded(findKeyRecord(Text).has_value()) {
    LO.CPlusPlus = !FileName.ends_with(".c");
    LO.CPlusPlus11 = LO.CPlusPlus;
  }
  Formatted run(ArrayRef<std::pair<unsigned, unsigned>> Changed);
  std::vector<JoinedStatement> joined();

private:
  std::optional<std::string> oneLineForm(const Unit &U);
  bool needsLook(const Unit &U) const;
  bool standsAlone(const Unit &U) const;
  std::optional<std::string> aloneForm(const Unit &U, bool OneLine = false) {
    return aloneText(Text.slice(T.Begin[U.First], T.End[U.Last]), OneLine);
  }
  std::optional<std::string> aloneText(StringRef Line, bool OneLine);
  std::optional<std::string> joinedAlone(StringRef Lines);
  bool mayBreakAs(StringRef F, unsigned B, StringRef Line);
  void formatStretches(ArrayRef<Unit> Units);
  void decideLine(const Unit &U, std::optional<std::string> F);
  void decideBroken(const Unit &U);
  void replace(unsigned B, unsigned E, const std::string &New);
  bool continuationHoldsNoCall(StringRef F, unsigned B,
                               bool PlacedMayMove) const;
  bool cannotAllocate(StringRef F, unsigned B, unsigned Call) const;
  void leave(const Unit &U, unsigned Width, const char *Why) {
    Out.Left.push_back({T.Presumed[U.First], Width, Why});
  }

  StringRef FileName, Text;
  bool AloneAllowed;
  const std::set<unsigned> *Harmless; ///< calls that cannot allocate
  format::FormatStyle Style;
  TextLines T;
  StringRef EOL;
  /// The file ends with its key record (KeyRecord.h): a rerun finds the
  /// calls the plan names by their tokens, wherever a break moved them.
  bool KeysRecorded;
  LangOptions LO;
  tooling::Replacements Wrapped, OneLine; ///< clang-format's, its limit / none
  /// Statements that stand alone, by indentation, text and whether on one
  /// line: their lines.
  std::map<std::tuple<unsigned, std::string, bool>, std::optional<std::string>>
      Alone;
  Formatted Out;
};
} // namespace

/// The style that puts a statement on one line: no limit, and nothing
/// merged into its line that the limit kept apart (a short function's body,
/// an if's).
static format::FormatStyle oneLineStyle(format::FormatStyle S) {
  S.ColumnLimit = 100000;
  S.AllowShortFunctionsOnASingleLine = format::FormatStyle::SFS_None;
  S.AllowShortBlocksOnASingleLine = format::FormatStyle::SBS_Never;
  S.AllowShortIfStatementsOnASingleLine = format::FormatStyle::SIS_Never;
  S.AllowShortLoopsOnASingleLine = false;
  S.AllowShortCaseLabelsOnASingleLine = false;
  S.AllowShortLambdasOnASingleLine = format::FormatStyle::SLS_None;
  S.AllowShortEnumsOnASingleLine = false;
  return S;
}

/// The placements the rewrite gave new-expressions in \p S (`new
/// (HMPLACE_HBW) T`): where each `new` is, and whether a space follows it.
static std::vector<std::pair<size_t, bool>> placedNews(StringRef S) {
  std::vector<std::pair<size_t, bool>> Out;
  for (size_t At = S.find("new"); At != StringRef::npos;
       At = S.find("new", At + 3)) {
    StringRef Rest = S.substr(At + 3);
    bool Space = Rest.consume_front(" ");
    if (Rest.starts_with("(HMPLACE_") &&
        (At == 0 || !isAsciiIdentifierContinue(S[At - 1])))
      Out.push_back({At, Space});
  }
  return Out;
}

/// \p Mine with the spacing \p Guide (clang-format's form of it) gives the
/// rewrite's placements of new-expressions: clang-format writes `new (p) T`
/// as `new(p) T` in some places (a constructor's member initializers). The
/// rewrite's own text only: the program's keeps its spacing, and no column
/// a plan names moves (what a run added is not counted, Rewritten.h).
static std::string placementsSpaced(StringRef Mine, StringRef Guide) {
  std::vector<std::pair<size_t, bool>> M = placedNews(Mine),
                                       G = placedNews(Guide);
  std::string Out = Mine.str();
  if (M.size() != G.size())
    return Out;
  for (size_t K = M.size(); K-- > 0;) // back to front: offsets hold
    if (M[K].second && !G[K].second)
      Out.erase(M[K].first + 3, 1);
    else if (!M[K].second && G[K].second)
      Out.insert(M[K].first + 3, " ");
  return Out;
}

bool UnitFormatter::needsLook(const Unit &U) const {
  // A line within the limit that no earlier run broke is left as it is,
  // but for the spacing of a placement the rewrite gave a new-expression.
  StringRef Now = Text.slice(T.Begin[U.First], T.End[U.Last]);
  return U.Marker || widthOf(Now, Style.TabWidth) > Style.ColumnLimit ||
         !placedNews(Now).empty();
}

/// The code of line \p L: not blank, a comment or a directive.
static bool isCode(StringRef L) {
  L = L.trim();
  return !L.empty() && !L.starts_with("//") && !L.starts_with("/*") &&
         !L.starts_with("*") && !L.starts_with("#");
}

static bool startsControl(StringRef L) {
  L = L.ltrim();
  L.consume_front("} ");
  for (StringRef K : {"if", "for", "while", "switch", "else", "do"})
    if (L.starts_with(K) &&
        (L.size() == K.size() || !isAsciiIdentifierContinue(L[K.size()])))
      return true;
  return false;
}

/// Whether \p O, the code line that opens a block (ending in its `{` when
/// \p Brace, else followed by a line with the `{` alone), opens a
/// function's body or a condition's: not a class, an initializer, a
/// namespace.
static bool opensBody(StringRef O, bool Brace) {
  if (startsControl(O))
    return true;
  for (StringRef K : {"class", "struct", "union", "enum", "namespace", "extern",
                      "template", "typedef"})
    if (O.starts_with(K))
      return false;
  return (!Brace || O.ends_with("{")) && !O.contains('=') && O.contains(')');
}

/// Whether the statement on \p U's line depends on nothing around it but
/// its depth, so that clang-format lays it out alone as it does in the file:
/// it begins a statement (the code line before ends one, or opens its
/// block), that block is a function's body or a condition's (not a class,
/// an initializer, a namespace: found by the line that opens it), it has no
/// comment (aligned with its neighbours'), and the style aligns nothing
/// across lines and indents with spaces.
bool UnitFormatter::standsAlone(const Unit &U) const {
  if (!AloneAllowed || Style.UseTab != format::FormatStyle::UT_Never ||
      Style.AlignConsecutiveAssignments.Enabled ||
      Style.AlignConsecutiveDeclarations.Enabled ||
      Style.AlignConsecutiveMacros.Enabled ||
      Style.AlignConsecutiveBitFields.Enabled)
    return false;
  // A trailing comment is aligned with its neighbours'; one inside the
  // statement (the caller table's `/* other callers */`) is not.
  StringRef Line = Text.slice(T.Begin[U.First], T.End[U.Last]);
  if (Line.contains("//") || Line.rtrim().ends_with("*/") ||
      Line.contains('\t'))
    return false;
  unsigned Indent = Line.size() - Line.ltrim(" ").size();
  bool Begins = true, Opened = Indent == 0;
  for (unsigned L = U.First; L-- > 0;) {
    StringRef Prev = Text.slice(T.Begin[L], T.End[L]);
    if (T.Directive[L] || !isCode(Prev))
      continue;
    if (Begins) {
      StringRef E = Prev.rtrim();
      Begins = E.ends_with(";") || E.ends_with("{") || E.ends_with("}") ||
               (E.ends_with(")") && startsControl(Prev)) ||
               E.trim() == "else" || E.trim() == "do";
      if (!Begins)
        return false;
    }
    if (Opened)
      return true;
    if (Prev.size() - Prev.ltrim(" ").size() >= Indent)
      continue;
    // The line that opens the statement's block; a brace on a line of its
    // own (Allman, GNU, a function's in Linux style) opens the block of the
    // code line before it.
    StringRef O = Prev.trim();
    if (O != "{")
      return opensBody(O, /*Brace=*/true);
    while (L-- > 0)
      if (StringRef Head = Text.slice(T.Begin[L], T.End[L]);
          !T.Directive[L] && isCode(Head))
        return opensBody(Head.trim(), /*Brace=*/false);
    return false;
  }
  return Opened;
}

/// clang-format's lines for a statement that stands alone: formatted in a
/// function body of its own (at file scope if it is there) one level deep,
/// with the column limit less the columns it is deeper in the file, then
/// moved to its place. Layout is the same at any depth once the limit is
/// moved with it. Identical statements at one depth are formatted once.
/// \p OneLine: on one line, whatever its length (a statement an earlier run
/// broke, to join).
std::optional<std::string> UnitFormatter::aloneText(StringRef Line,
                                                    bool OneLine) {
  StringRef Body = Line.ltrim(" ");
  unsigned Indent = Line.size() - Body.size();
  auto [It, New] = Alone.try_emplace({Indent, Body.str(), OneLine});
  if (!New)
    return It->second;
  unsigned Level = Indent ? Style.IndentWidth : 0;
  if (Indent < Level || Indent - Level >= Style.ColumnLimit)
    return It->second = std::nullopt;
  unsigned Shift = Indent - Level;
  format::FormatStyle S = OneLine ? oneLineStyle(Style) : Style;
  S.ColumnLimit -= Shift;
  std::string Head = Indent ? "void hmplace_alone() {\n" : "";
  std::string Code = Head + std::string(Level, ' ') + Body.str() + "\n" +
                     (Indent ? "}\n" : "");
  unsigned B = Head.size(), E = B + Level + Body.size();
  std::string F;
  if (!applyWithin(
          Code, format::reformat(S, Code, {tooling::Range(B, E - B)}, FileName),
          B, E, F))
    return It->second = std::nullopt;
  std::string Out = std::string(Shift, ' ');
  for (char C : F) {
    if (C == '\n')
      Out += (EOL + StringRef(std::string(Shift, ' '))).str();
    else
      Out += C;
  }
  return It->second = Out;
}

/// clang-format weighs every range against every line, so one call over a
/// large file with a range per rewritten line is quadratic. A '}' in column
/// 0 ends a top-level block: each stretch of the file between two such
/// lines is formatted alone, with the units in it.
void UnitFormatter::formatStretches(ArrayRef<Unit> Units) {
  format::FormatStyle Unlimited = oneLineStyle(Style);
  for (size_t I = 0; I < Units.size();) {
    unsigned First = Units[I].First;
    while (First > 0 && !Text.substr(T.Begin[First - 1]).starts_with("}"))
      --First;
    unsigned Last = Units[I].Last, Base = T.Begin[First];
    while (Last + 1 < T.size() && !Text.substr(T.Begin[Last]).starts_with("}"))
      ++Last;
    std::vector<tooling::Range> Ranges;
    bool Broken = false;
    for (; I < Units.size() && Units[I].Last <= Last; ++I) {
      const Unit &U = Units[I];
      Ranges.emplace_back(T.Begin[U.First] - Base,
                          T.End[U.Last] - T.Begin[U.First]);
      Broken |= bool(U.Marker);
    }
    StringRef Stretch = Text.slice(Base, T.End[Last]);
    auto Shifted = [&](const tooling::Replacements &Reps,
                       tooling::Replacements &Into) {
      for (const tooling::Replacement &R : Reps)
        cantFail(Into.add(tooling::Replacement(FileName, R.getOffset() + Base,
                                               R.getLength(),
                                               R.getReplacementText())));
    };
    Shifted(format::reformat(Style, Stretch, Ranges, FileName), Wrapped);
    if (Broken) // the statements an earlier run broke, as one line each
      Shifted(format::reformat(Unlimited, Stretch, Ranges, FileName), OneLine);
  }
}

Formatted UnitFormatter::run(ArrayRef<std::pair<unsigned, unsigned>> Changed) {
  if (Style.ColumnLimit == 0 || Style.DisableFormat)
    return std::move(Out);
  std::vector<Unit> Units = unitsOf(T, Changed);
  llvm::erase_if(Units, [&](const Unit &U) { return !needsLook(U); });
  if (Units.empty())
    return std::move(Out);
  // A statement that stands alone is formatted alone; the others with the
  // top-level block they are in.
  std::vector<Unit> InContext;
  for (Unit &U : Units)
    if (!(U.Alone = standsAlone(U)))
      InContext.push_back(U);
  formatStretches(InContext);
  for (const Unit &U : Units) {
    if (U.Marker) {
      decideBroken(U);
      continue;
    }
    std::optional<std::string> F;
    if (U.Alone) {
      F = aloneForm(U);
    } else if (std::string W;
               applyWithin(Text, Wrapped, T.Begin[U.First], T.End[U.Last], W)) {
      F = W;
    }
    decideLine(U, std::move(F));
  }
  return std::move(Out);
}

void UnitFormatter::replace(unsigned B, unsigned E, const std::string &New) {
  if (Text.slice(B, E) == New)
    return;
  cantFail(Out.Reps.add(tooling::Replacement(FileName, B, E - B, New)));
}

/// \p Mine laid out on the lines of \p Guide (clang-format's form of the
/// same statement), nothing else of it taken: where either has a line break
/// between two characters, the guide's whitespace there (its break and
/// indentation, or the space a join leaves); elsewhere \p Mine's own
/// spacing, so that a tree clang-format would respace (`(double *) p`,
/// three-space indentation) keeps its columns. A continuation the guide
/// aligns (deeper than \p ContinuationIndent past the statement's
/// indentation) moves by what the spacing kept on its line moved, to stay
/// aligned; another keeps its depth below the statement's indentation as
/// written. None where the two differ in more than whitespace.
static std::optional<std::string> respaced(StringRef Mine, StringRef Guide,
                                           unsigned ContinuationIndent,
                                           unsigned TabWidth) {
  auto Run = [](StringRef S, size_t &At) {
    size_t From = At;
    while (At < S.size() && isWhitespace(S[At]))
      ++At;
    return S.slice(From, At);
  };
  std::string Out;
  size_t I = 0, J = 0;
  // Columns on the current line, in the output and in the guide; the
  // statement's indentation in the guide and as written.
  long OutCol = 0, GuideCol = 0, StmtIndent = 0, MineIndent = 0;
  for (bool First = true;; First = false) {
    StringRef MineWS = Run(Mine, I), GuideWS = Run(Guide, J);
    bool Breaks = MineWS.contains('\n') || GuideWS.contains('\n');
    if (Breaks && !First && GuideWS.contains('\n')) {
      size_t NL = GuideWS.rfind('\n');
      long Indent = long(GuideWS.size() - NL - 1);
      long Moved = Indent > StmtIndent + long(ContinuationIndent)
                       ? OutCol - GuideCol
                       : MineIndent - StmtIndent;
      // Deeper than the statement, but for the brace that closes a body
      // the statement opened (a function's on one line).
      long Here = I < Mine.size() && Mine[I] == '}'
                      ? std::max(Indent + Moved, 0L)
                      : std::max(Indent + Moved, MineIndent + 1);
      Out += GuideWS.take_front(NL + 1);
      Out.append(size_t(Here), ' ');
      OutCol = Here;
      GuideCol = Indent;
    } else {
      StringRef WS = Breaks && !First ? GuideWS : MineWS;
      Out += WS;
      // (The statement's own indentation may hold tabs: in columns.)
      OutCol += long(First ? widthOf(WS, TabWidth) : WS.size());
      GuideCol += long(GuideWS.size());
      if (First) {
        StmtIndent = long(GuideWS.size());
        MineIndent = long(widthOf(MineWS, TabWidth));
      }
    }
    if (I >= Mine.size() || J >= Guide.size())
      break;
    if (Mine[I] != Guide[J])
      return std::nullopt;
    Out += Mine[I];
    ++I, ++J, ++OutCol, ++GuideCol;
  }
  if (I < Mine.size() || J < Guide.size())
    return std::nullopt;
  return Out;
}

/// Whether the statement \p F (clang-format's lines for \p Line) ends on
/// its last line: a `#line` after it must not split a statement that goes
/// on below (a condition's body may: it is a statement of its own).
static bool endsStatement(StringRef Line, StringRef F) {
  StringRef Last = F.rsplit('\n').second.empty() ? F : F.rsplit('\n').second;
  Last = Last.rtrim();
  if (Last.ends_with("*/") && Last.rfind("/*") != StringRef::npos)
    Last = Last.take_front(Last.rfind("/*")).rtrim();
  else if (size_t C = Last.rfind("//"); C != StringRef::npos)
    Last = Last.take_front(C).rtrim();
  if (Last.ends_with(";") || Last.ends_with("{") || Last.ends_with("}"))
    return true;
  StringRef Head = Line.ltrim();
  Head.consume_front("} else ");
  return Last.ends_with(")") &&
         (Head.starts_with("if") || Head.starts_with("for") ||
          Head.starts_with("while") || Head.starts_with("switch"));
}

/// Where in \p Buf, from \p From on, the calls an earlier run placed or
/// made dispatching are (`hmplace_malloc(`, `new (HMPLACE_HBW)`, and a
/// placed array new's `[`, which callsIn takes for a subscript): a rerun
/// finds them on a later line of a broken statement by where joining puts
/// them.
static std::set<unsigned> placedCalls(const std::string &Buf, unsigned From,
                                      const LangOptions &LO) {
  std::set<unsigned> Out;
  RawTokens R(Buf, From, LO);
  for (R.next(); !R.atEnd();) {
    StringRef Id = R.identifier();
    unsigned At = R.offset();
    bool TakesKind = false;
    R.next();
    if (Id.starts_with("hmplace_") && findReplacedAllocFn(Id, TakesKind))
      Out.insert(At);
    if (Id != "new" || R.tok().isNot(tok::l_paren))
      continue;
    if (!R.next().isAnyIdentifier() ||
        !R.identifier().starts_with("HMPLACE_") || !R.skipToClose())
      continue;
    Out.insert(At);
    // The type, up to its array bound.
    while (R.next().isAnyIdentifier() ||
           R.tok().isOneOf(tok::coloncolon, tok::star, tok::less, tok::greater,
                           tok::comma))
      ;
    if (R.tok().is(tok::l_square))
      Out.insert(R.offset());
  }
  return Out;
}

/// Whether a line of \p F (a statement's lines) ends in `{` or begins with
/// `}`, comments aside.
static bool opensOrClosesBlock(StringRef F) {
  for (StringRef Rest = F; !Rest.empty();) {
    auto [L, R] = Rest.split('\n');
    Rest = R;
    L = L.trim();
    if (size_t C = L.find("//"); C != StringRef::npos)
      L = L.take_front(C).rtrim();
    if (L.starts_with("}") || L.ends_with("{"))
      return true;
  }
  return false;
}

/// Whether the lines after the first of \p F hold no call a plan could
/// name by its place. The call a wrapper on the first line notes
/// (HMPLACE_CALLER(HMPLACE_AT(19, 15), call(...))) is named by the wrapper's
/// frame, and a rerun finds it on the wrapper's line: it may move (no
/// wrapper may begin on a later line). A call an earlier run placed may
/// move: nothing keys it but a rerun, which finds it (joinedStatements).
bool UnitFormatter::continuationHoldsNoCall(StringRef F, unsigned B,
                                            bool PlacedMayMove) const {
  std::string Buf = F.str();
  size_t FirstEnd = Buf.find('\n');
  if (FirstEnd == std::string::npos)
    return true;
  // Wrappers on the first line; with a key record, also those further on
  // that carry their frame (HMPLACE_AT): a rerun keys either by the frame
  // it carries, not by its line.
  std::set<unsigned> Noted, Carried;
  for (size_t At = Buf.find("HMPLACE_");
       At != std::string::npos && (At < FirstEnd || KeysRecorded);
       At = Buf.find("HMPLACE_", At + 1)) {
    std::optional<Wrapper> W = parseWrapperNamedAt(Buf, unsigned(At), LO);
    if (!W || (At > FirstEnd && !W->Line))
      continue;
    if (At > FirstEnd)
      Carried.insert(unsigned(At));
    if (std::vector<unsigned> C = callsIn(Buf, W->InnerBegin, W->InnerEnd, LO);
        !C.empty())
      Noted.insert(C.front());
  }
  // A rerun finds the calls that moved by the key record, or else by
  // joining the statement: one that opens or closes a block (a function's
  // body on one line, a lambda) joins to no single line.
  std::set<unsigned> Placed;
  if (PlacedMayMove && (KeysRecorded || !opensOrClosesBlock(F)))
    Placed = placedCalls(Buf, unsigned(FirstEnd), LO);
  for (unsigned C : callsIn(Buf, unsigned(FirstEnd), unsigned(Buf.size()), LO))
    if (!Noted.count(C) && !Placed.count(C) && !cannotAllocate(F, B, C))
      return false;
  // Every wrapper begins on the first line: a rerun keys the call in it by
  // the line the wrapper begins on.
  RawTokens R(Buf, unsigned(FirstEnd), LO);
  for (R.next(); !R.atEnd(); R.next())
    if (StringRef Id = R.identifier();
        (Id.starts_with(CallerMacro) || Id == CallMacro || Id == BinaryMacro) &&
        !Carried.count(R.offset()))
      return false;
  return true;
}

/// Whether the call at \p Call in \p F (the statement written at \p B in the
/// text, laid out anew: the same characters but for whitespace) is one the
/// parse found cannot allocate (Harmless.h): no plan names it, no profile
/// has it, it may go to another line.
bool UnitFormatter::cannotAllocate(StringRef F, unsigned B,
                                   unsigned Call) const {
  if (!Harmless || Harmless->empty())
    return false;
  unsigned Nth = 0;
  for (unsigned I = 0; I < Call; ++I)
    Nth += !isWhitespace(F[I]);
  for (unsigned At = B; At < Text.size(); ++At)
    if (!isWhitespace(Text[At]) && Nth-- == 0)
      return Harmless->count(At);
  return false;
}

/// \p Lines, a statement's, joined as a rerun joins them to key the placed
/// calls that moved (joinedStatements): where broken, the spacing of the
/// statement formatted alone on one line, which depends on nothing around
/// it; elsewhere its own.
std::optional<std::string> UnitFormatter::joinedAlone(StringRef Lines) {
  std::optional<std::string> Guide = aloneText(Lines, /*OneLine=*/true);
  if (!Guide || StringRef(*Guide).contains('\n'))
    return std::nullopt;
  return respaced(Lines, *Guide, Style.ContinuationIndentWidth, Style.TabWidth);
}

/// Whether \p Line may be written as \p F (its lines broken at the limit):
/// no call a plan could name moves, but calls the rewrite placed where a
/// rerun finds them again in the statement joined (\p F joins back to
/// \p Line exactly).
bool UnitFormatter::mayBreakAs(StringRef F, unsigned B, StringRef Line) {
  if (continuationHoldsNoCall(F, B, /*PlacedMayMove=*/false))
    return true;
  if (!continuationHoldsNoCall(F, B, /*PlacedMayMove=*/true))
    return false;
  if (KeysRecorded)
    return true;
  std::optional<std::string> One = joinedAlone(F);
  return One && *One == Line;
}

/// A line the rewrite made longer than the limit: broken where clang-format
/// breaks it, with `#line` after it, if no call moves.
void UnitFormatter::decideLine(const Unit &U, std::optional<std::string> Form) {
  unsigned B = T.Begin[U.First], E = T.End[U.Last];
  // The placements take clang-format's spacing, whatever follows.
  std::string Spaced =
      Form ? placementsSpaced(Text.slice(B, E), *Form) : Text.slice(B, E).str();
  StringRef Now = Spaced;
  unsigned Width = widthOf(Now, Style.TabWidth);
  auto Leave = [&](const char *Why) {
    replace(B, E, Spaced);
    if (Width > Style.ColumnLimit)
      leave(U, Width, Why);
  };
  if (!Form)
    return Leave("its statement goes on over other lines");
  if (Width <= Style.ColumnLimit || !StringRef(*Form).contains('\n'))
    return Leave("clang-format finds no place to break it");
  std::optional<std::string> Broken =
      respaced(Now, *Form, Style.ContinuationIndentWidth, Style.TabWidth);
  if (!Broken)
    return Leave("clang-format would change more of it than its spacing");
  const std::string &F = *Broken;
  if (!endsStatement(Now, F))
    return Leave("its statement goes on over other lines");
  if (!mayBreakAs(F, B, Now))
    return Leave("clang-format would break it before a call, which moves the "
                 "call to another line");
  replace(B, E,
          F + EOL.str() + "#line " + std::to_string(T.Presumed[U.Last] + 1));
  ++Out.Broken;
}

/// A statement an earlier run broke, joined where it was broken: its text
/// with clang-format's spacing of one line there. None where clang-format
/// would change more than its spacing.
std::optional<std::string> UnitFormatter::oneLineForm(const Unit &U) {
  unsigned B = T.Begin[U.First], E = T.End[U.Last];
  std::optional<std::string> Guide;
  if (std::string G; U.Alone)
    Guide = aloneForm(U, /*OneLine=*/true);
  else if (applyWithin(Text, OneLine, B, E, G))
    Guide = G;
  if (!Guide || StringRef(*Guide).contains('\n'))
    return std::nullopt;
  return respaced(Text.slice(B, E), *Guide, Style.ContinuationIndentWidth,
                  Style.TabWidth);
}

/// A statement an earlier run broke, edited again: joined when it fits,
/// else broken again (its `#line` stays); joined and left whole if a break
/// would now move a call.
void UnitFormatter::decideBroken(const Unit &U) {
  unsigned B = T.Begin[U.First], E = T.End[U.Last],
           MarkerEnd = T.End[*U.Marker];
  StringRef Now = Text.slice(B, E);
  std::optional<std::string> One = oneLineForm(U);
  if (!One)
    return leave(U, widest(Now, Style.TabWidth),
                 "its statement goes on over other lines");
  unsigned Width = widthOf(*One, Style.TabWidth);
  if (Width <= Style.ColumnLimit) {
    // Fits again: one line (as it is, if it is one already), no `#line`.
    replace(B, MarkerEnd, U.First == U.Last ? Now.str() : *One);
    ++Out.Joined;
    return;
  }
  // clang-format's form broken at the limit.
  std::optional<std::string> Wrap, Again;
  if (std::string W; U.Alone)
    Wrap = aloneForm(U);
  else if (applyWithin(Text, Wrapped, B, E, W))
    Wrap = W;
  if (Wrap)
    Again = respaced(Now, *Wrap, Style.ContinuationIndentWidth, Style.TabWidth);
  if (Again && mayBreakAs(*Again, B, *One)) {
    replace(B, E, *Again);
    ++Out.Broken;
    return;
  }
  replace(B, MarkerEnd, *One);
  leave(U, Width,
        "clang-format would break it before a call, which moves the call to "
        "another line");
}

std::vector<JoinedStatement> UnitFormatter::joined() {
  // Joined as mayBreakAs checked it would be.
  std::vector<JoinedStatement> Out;
  for (auto &[First, U] : brokenStatements(T))
    if (U.First < U.Last)
      if (std::optional<std::string> One =
              joinedAlone(Text.slice(T.Begin[U.First], T.End[U.Last])))
        Out.push_back({T.Begin[U.First], T.End[U.Last], std::move(*One)});
  return Out;
}

unsigned JoinedStatement::joinedOffset(StringRef Text, unsigned Offset) const {
  // The two hold the same characters but for whitespace, and whitespace
  // where the other has some (respaced).
  StringRef Now = Text.slice(Begin, End);
  size_t Want = std::min<size_t>(Offset - Begin, Now.size()), I = 0, J = 0;
  auto RunEnd = [](StringRef S, size_t At) {
    while (At < S.size() && isWhitespace(S[At]))
      ++At;
    return At;
  };
  while (I < Want) {
    size_t IE = RunEnd(Now, I), JE = RunEnd(OneLine, J);
    if (IE == I) {
      ++I, J = JE + 1;
      continue;
    }
    if (Want < IE)
      return unsigned(J + std::min(Want - I, JE - J));
    I = IE, J = JE;
  }
  return unsigned(std::min(J, OneLine.size()));
}

std::vector<std::pair<unsigned, unsigned>>
brokenStatementSpans(StringRef Text) {
  std::vector<std::pair<unsigned, unsigned>> Out;
  if (!Text.contains("#line"))
    return Out;
  TextLines T = linesOf(Text);
  for (auto &[First, U] : brokenStatements(T))
    if (U.First < U.Last)
      Out.push_back({T.Begin[U.First], T.End[U.Last]});
  return Out;
}

std::vector<JoinedStatement>
joinedStatements(StringRef FileName, StringRef Text,
                 const format::FormatStyle &Style) {
  if (!Text.contains("#line"))
    return {};
  return UnitFormatter(FileName, Text, Style, /*AloneAllowed=*/true).joined();
}

Formatted formatRewrittenLines(StringRef FileName, StringRef Text,
                               ArrayRef<std::pair<unsigned, unsigned>> Changed,
                               const format::FormatStyle &Style,
                               bool AloneAllowed,
                               const std::set<unsigned> &Harmless) {
  return UnitFormatter(FileName, Text, Style, AloneAllowed, &Harmless)
      .run(Changed);
}

} // namespace hmplace
