//===- Spelling.cpp - the text hmrewrite writes into sources --------------===//
#include "Spelling.h"
#include "plan/Context.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/Path.h"

using namespace llvm;

namespace hmplace {

std::string frameText(const SourcePos &P, bool Here) {
  if (Here)
    return (HereMacro + "(" + Twine(P.Line) + ", " + Twine(P.Column) + ")")
        .str();
  return (FrameMacro + "(" + cStringLiteral(sys::path::filename(P.File)) +
          ", " + Twine(P.Line) + ", " + Twine(P.Column) + ")")
      .str();
}

/// \p Table as the source spells it: its last kind, the fallback, says it
/// is what the other callers get (the comment is gone before the table is
/// made a string, so the runtime reads what HmPlace.so passes).
static std::string labelled(StringRef Table) {
  return (Table + " /* other callers */").str();
}

std::string callerArgument(const SourcePos &P, bool Here,
                           StringRef ContainerTable) {
  if (ContainerTable.empty())
    return frameText(P, Here);
  return (ContainersMacro + "(" + frameText(P, Here) + ", " +
          labelled(ContainerTable) + ")")
      .str();
}

std::string wrapperPrefix(NoteSite::NoteForm F, StringRef Arg) {
  if (F == NoteSite::NoteInit) // around a mem-initializer's first argument
    return (Twine("(") + CallerInitMacro + "(" + Arg + "), ").str();
  StringRef Macro = F == NoteSite::NoteDecl     ? CallerDeclMacro
                    : F == NoteSite::NoteStmts  ? CallerStmtsMacro
                    : F == NoteSite::NoteStmt   ? CallerStmtMacro
                    : F == NoteSite::NoteCall   ? CallMacro
                    : F == NoteSite::NoteBinary ? BinaryMacro
                                                : CallerMacro;
  return (Macro + "(" + Arg + ", ").str();
}

std::string blockOpening(StringRef Arg, bool Braces) {
  return (Twine(Braces ? "{ " : " ") + BlockMacro + "(" + Arg + ");" +
          (Braces ? " " : ""))
      .str();
}

std::string blockClosing(const SourcePos &P, bool Here, bool Braces) {
  return (Twine(Braces ? " " : "") + BlockEndMacro + "(" + frameText(P, Here) +
          ");" + (Braces ? " }" : " "))
      .str();
}

std::string kindArgument(int RuntimeKind) { return kindConstant(RuntimeKind); }

/// A size as a person writes it in C: HMPLACE_MiB(5), or the number.
static std::string sizeLiteral(uint64_t B) {
  static const char *Units[] = {"HMPLACE_GiB", "HMPLACE_MiB", "HMPLACE_KiB"};
  static const unsigned Shifts[] = {30, 20, 10};
  for (unsigned I = 0; I < 3; ++I)
    if (B && (B & ((1ULL << Shifts[I]) - 1)) == 0)
      return std::string(Units[I]) + "(" + std::to_string(B >> Shifts[I]) + ")";
  return std::to_string(B);
}

std::string windowArgument(int RuntimeKind, ArrayRef<std::string> Sizes,
                           std::optional<uint64_t> Min,
                           std::optional<uint64_t> Max) {
  // calloc's two sizes go separately: hmplace_in_window2 multiplies them
  // with an overflow check, as HmPlace.so does (a product that wraps would
  // otherwise look small).
  std::string Fn =
      Sizes.size() == 2 ? "hmplace_in_window2(" : "hmplace_in_window(";
  std::string Size =
      Sizes.size() == 2 ? Sizes[0] + ", " + Sizes[1] : Sizes.front();
  return Fn + kindConstant(RuntimeKind) + ", " + Size + ", " +
         (Min ? sizeLiteral(*Min) : "0") + ", " +
         (Max ? sizeLiteral(*Max) : "SIZE_MAX") + ")";
}

std::string byCallersArgument(StringRef Table) {
  return (ByCallersMacro + "(" + labelled(Table) + ")").str();
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
