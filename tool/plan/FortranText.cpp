//===- FortranText.cpp - a Fortran source's statements --------------------===//
#include "plan/FortranText.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/Path.h"

#include <algorithm>

using namespace llvm;

namespace hmplace {

bool isFixedFormName(StringRef Path) {
  std::string Ext = sys::path::extension(Path).lower();
  return Ext == ".f" || Ext == ".for" || Ext == ".ftn" || Ext == ".f77" ||
         Ext == ".fpp";
}

size_t endOfCode(StringRef L, size_t Begin, size_t End, char &Quote) {
  for (size_t I = Begin; I < End; ++I) {
    char C = L[I];
    if (Quote) {
      if (C == Quote)
        Quote = 0;
    } else if (C == '\'' || C == '"') {
      Quote = C;
    } else if (C == '!') {
      return I;
    }
  }
  return End;
}

static bool blankBetween(StringRef L, size_t Begin, size_t End) {
  return L.slice(Begin, End).trim().empty();
}

/// Fixed form: a C, c, * or ! in column 1 makes a comment line; column 6
/// other than a blank or 0 a continuation; columns 7 to 72 hold the text
/// (1 to 5 a label), or what follows a tab in the first six.
void FortranText::readFixed(size_t I, char &Quote) {
  StringRef L = Lines[I];
  Part &P = Parts[I];
  if (L.empty() || strchr("cC*!#", L[0]))
    return;
  size_t Tab = L.take_front(6).find('\t');
  size_t End = std::min<size_t>(L.size(), 72);
  bool Continues =
      Tab == StringRef::npos && L.size() > 5 && L[5] != ' ' && L[5] != '0';
  if (!Continues)
    Quote = 0;
  P.Begin = Continues ? 6 : 0;
  if (!Continues && Tab == StringRef::npos)
    P.Skip = 5; // column 6 of an initial line: a blank or 0
  P.End = endOfCode(L, P.Begin, End, Quote);
  if (blankBetween(L, P.Begin, P.End))
    return;
  P.Kind = Continues ? Continuation : Initial;
}

/// Free form: a line of nothing but a comment is one; a line continues the
/// one before when that ended with `&` (\p Pending), its own leading `&`
/// then left out. Returns whether this line ends with `&`.
bool FortranText::readFree(size_t I, char &Quote, bool Pending) {
  StringRef L = Lines[I];
  Part &P = Parts[I];
  if (L.ltrim().starts_with("#"))
    return Pending;
  if (!Pending)
    Quote = 0;
  P.End = endOfCode(L, 0, L.size(), Quote);
  size_t Text = L.find_first_not_of(" \t");
  if (Text >= P.End)
    return Pending; // comment lines may sit between continuation lines
  P.Kind = Pending ? Continuation : Initial;
  if (Pending && L[Text] == '&')
    P.Skip = Text;
  size_t Last = L.slice(0, P.End).find_last_not_of(" \t");
  bool Amp = L[Last] == '&' && Last != P.Skip;
  if (Amp)
    P.End = Last;
  return Amp;
}

FortranText::FortranText(ArrayRef<StringRef> LinesIn, bool Fixed)
    : Lines(LinesIn), Parts(LinesIn.size()) {
  char Quote = 0;
  bool Pending = false;
  size_t First = 0;
  for (size_t I = 0; I < Lines.size(); ++I) {
    if (Fixed)
      readFixed(I, Quote);
    else
      Pending = readFree(I, Quote, Pending);
    if (Parts[I].Kind == Initial)
      First = I;
    Parts[I].First = Parts[I].Kind == Comment ? I : First;
  }
}

std::vector<StmtChar> FortranText::statementAt(size_t First) const {
  std::vector<StmtChar> Out;
  if (!beginsStatement(First))
    return Out;
  for (size_t I = First; I < Parts.size(); ++I) {
    const Part &P = Parts[I];
    if (I != First && P.Kind == Initial)
      break;
    if (P.Kind == Comment)
      continue;
    for (size_t C = P.Begin; C < P.End; ++C)
      if (C != P.Skip && !isSpace(Lines[I][C]))
        Out.push_back({Lines[I][C], I, unsigned(C + 1)});
  }
  return Out;
}

} // namespace hmplace
