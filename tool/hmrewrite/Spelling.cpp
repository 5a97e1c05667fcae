//===- Spelling.cpp - the text hmrewrite writes into sources --------------===//
#include "Spelling.h"
#include "plan/Context.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/Path.h"

using namespace llvm;

namespace hmplace {

std::string frameText(const SourcePos &P) {
  return (FrameMacro + "(" + cStringLiteral(sys::path::filename(P.File)) +
          ", " + Twine(P.Line) + ", " + Twine(P.Column) + ")")
      .str();
}

std::string callerArgument(const SourcePos &P, StringRef ContainerTable) {
  if (ContainerTable.empty())
    return frameText(P);
  return (ContainersMacro + "(" + frameText(P) + ", " + ContainerTable + ")")
      .str();
}

std::string wrapperPrefix(NoteSite::NoteForm F, StringRef Arg) {
  if (F == NoteSite::NoteInit) // around a mem-initializer's first argument
    return (Twine("(") + CallerInitMacro + "(" + Arg + "), ").str();
  StringRef Macro = F == NoteSite::NoteDecl   ? CallerDeclMacro
                    : F == NoteSite::NoteStmt ? CallerStmtMacro
                                              : CallerMacro;
  return (Macro + "(" + Arg + ", ").str();
}

std::string blockOpening(StringRef Arg, bool Braces) {
  return (Twine(Braces ? "{ " : " ") + BlockMacro + "(" + Arg + ");" +
          (Braces ? " " : ""))
      .str();
}

std::string blockClosing(const SourcePos &P, bool Braces) {
  return (Twine(Braces ? " " : "") + BlockEndMacro + "(" + frameText(P) + ");" +
          (Braces ? " }" : " "))
      .str();
}

std::string kindArgument(int RuntimeKind) { return kindConstant(RuntimeKind); }

std::string byCallersArgument(StringRef Table) {
  return (ByCallersMacro + "(" + Table + ")").str();
}

std::string unquote(StringRef Lit) {
  Lit = Lit.drop_front().drop_back();
  std::string Out;
  for (size_t I = 0; I < Lit.size(); ++I) {
    if (Lit[I] == '\\' && I + 1 < Lit.size())
      ++I;
    Out += Lit[I];
  }
  return Out;
}

std::string withoutSpace(StringRef Text) {
  std::string Out;
  char Quote = 0;
  for (size_t I = 0; I < Text.size(); ++I) {
    char C = Text[I];
    if (Quote) {
      Out += C;
      if (C == '\\' && I + 1 < Text.size())
        Out += Text[++I];
      else if (C == Quote)
        Quote = 0;
      continue;
    }
    if (C == '"' || C == '\'')
      Quote = C;
    if (!isSpace(C))
      Out += C;
  }
  return Out;
}

} // namespace hmplace
