//===- Rewritten.cpp - what an earlier run added to a file ----------------===//
#include "Rewritten.h"
#include "RawTokens.h"
#include "Spelling.h"
#include "Wrappers.h"
#include "plan/AllocFns.h"

#include <algorithm>
#include <cstring>

using namespace clang;
using namespace llvm;

namespace hmplace {

/// The end of the white space at \p At.
static unsigned skipSpace(StringRef Buf, unsigned At) {
  while (At < Buf.size() && (Buf[At] == ' ' || Buf[At] == '\t'))
    ++At;
  return At;
}

/// Whether \p Name starts a kind argument the rewriter writes.
static bool isKindText(StringRef Name) {
  return Name.starts_with("HMPLACE_") || Name.starts_with("hmplace_");
}

std::vector<std::pair<unsigned, unsigned>> addedSpans(StringRef Buf,
                                                      const LangOptions &LO) {
  std::vector<std::pair<unsigned, unsigned>> Out;
  if (!Buf.contains("hmplace_") && !Buf.contains("HMPLACE_"))
    return Out;
  RawTokens T(Buf, 0, LO);
  bool AfterNew = false;
  unsigned NewEnd = 0;
  while (!T.next().is(tok::eof)) {
    StringRef Id = T.identifier();
    unsigned At = T.offset();
    bool WasNew = AfterNew;
    AfterNew = Id == "new";
    if (AfterNew)
      NewEnd = T.end();
    // A caller wrapper: its opening and its closing parenthesis.
    if (Id == CallerMacro || Id == CallerStmtMacro || Id == CallerDeclMacro ||
        Id == CallMacro || Id == BinaryMacro ||
        (T.tok().is(tok::l_paren) &&
         Buf.substr(skipSpace(Buf, T.end())).starts_with(CallerInitMacro))) {
      if (std::optional<Wrapper> W = parseWrapper(Buf, At, LO)) {
        Out.push_back({W->Begin, W->InnerBegin});
        Out.push_back({W->InnerEnd, W->End});
        if (W->Comma2) { // HMPLACE_BINARY's two commas
          Out.push_back({W->Comma1, W->Comma1 + 1});
          Out.push_back({W->Comma2, W->Comma2 + 1});
        }
      }
      continue;
    }
    // A region note: ` NAME(frame);` after the brace, `NAME_END(frame); `.
    if (Id == BlockMacro || Id == BlockEndMacro) {
      unsigned Begin =
          At > 0 && Buf[At - 1] == ' ' && Id == BlockMacro ? At - 1 : At;
      size_t Semi = Buf.find(';', At);
      if (Semi != StringRef::npos) {
        unsigned End = unsigned(Semi) + 1;
        if (Id == BlockEndMacro && End < Buf.size() && Buf[End] == ' ')
          ++End;
        Out.push_back({Begin, End});
      }
      continue;
    }
    // A placed or dispatching call: its name's prefix, and its kind.
    bool TakesKind = false;
    if (const AllocFn *F = Id.starts_with("hmplace_")
                               ? findReplacedAllocFn(Id, TakesKind)
                               : nullptr) {
      unsigned Added = unsigned(Id.size() - std::strlen(F->Name));
      Out.push_back({At, At + Added});
      if (TakesKind && T.next().is(tok::l_paren)) {
        unsigned ArgBegin = T.end();
        if (T.toArgumentEnd() && T.tok().is(tok::comma))
          Out.push_back({ArgBegin, skipSpace(Buf, T.end())});
      }
      continue;
    }
    // A new-expression's placement: ` (KIND)` after `new`, or `KIND, `
    // before std::nothrow.
    if (WasNew && T.tok().is(tok::l_paren)) {
      if (T.next().is(tok::eof) || !isKindText(T.identifier()))
        continue;
      unsigned ArgBegin = T.offset();
      // Back to the kind's own first token: toArgumentEnd() starts after it.
      if (Buf[skipSpace(Buf, T.end())] == '(') {
        T.next();
        if (!T.toArgumentEnd())
          continue;
      }
      if (T.next().is(tok::eof))
        continue;
      if (T.tok().is(tok::r_paren))
        Out.push_back({NewEnd, T.end()});
      else if (T.tok().is(tok::comma))
        Out.push_back({ArgBegin, skipSpace(Buf, T.end())});
    }
  }
  llvm::sort(Out);
  return Out;
}

unsigned addedBetween(const std::vector<std::pair<unsigned, unsigned>> &Spans,
                      unsigned From, unsigned To) {
  unsigned N = 0;
  auto It =
      std::upper_bound(Spans.begin(), Spans.end(), From,
                       [](unsigned V, const std::pair<unsigned, unsigned> &S) {
                         return V < S.second;
                       });
  for (; It != Spans.end() && It->first < To; ++It)
    N += std::min(It->second, To) - std::max(It->first, From);
  return N;
}

} // namespace hmplace
