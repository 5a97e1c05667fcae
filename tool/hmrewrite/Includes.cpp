//===- Includes.cpp - where the runtime header goes in an edited file -----===//
//
// Plan keys, profiles and debug info name lines; an edit must not move them.
//
//===----------------------------------------------------------------------===//
#include "Rewrite.h"

#include "llvm/Support/MemoryBuffer.h"

using namespace clang;
using namespace llvm;

namespace hmplace {

/// Put `#include <hmplace.h>` on a blank file-level line after the last
/// top-level #include (and before the first edit), so that no line moves;
/// if there is none, on a new line after the last include.
void RewriteSession::insertInclude(const std::string &File,
                                   const MainFileInfo &Info, unsigned FirstEdit,
                                   int GuardDepth) {
  auto Buf = MemoryBuffer::getFile(File);
  if (!Buf) {
    D.report(File, Severity::Error, "cannot read: " + Buf.getError().message());
    return;
  }
  StringRef Text = (*Buf)->getBuffer();
  static constexpr llvm::StringLiteral Line = "#include <hmplace.h>";
  // Start of the line after the last include.
  size_t Pos = 0;
  for (unsigned L = 1; L <= Info.LastIncludeLine && Pos < Text.size(); ++L) {
    size_t NL = Text.find('\n', Pos);
    Pos = NL == StringRef::npos ? Text.size() : NL + 1;
  }
  // A UTF-8 byte order mark stays the file's first bytes.
  size_t LineStartAt = 0;
  if (Pos == 0 && Text.starts_with("\xEF\xBB\xBF"))
    Pos = LineStartAt = 3;
  size_t AfterIncludes = Pos;
  // Scan forward for a blank line at file scope: outside comments, strings,
  // braces, and not continuing a directive with a backslash.
  bool InBlock = false, InLine = false, PrevBackslash = false;
  char Quote = 0;
  int Depth = 0, PPDepth = 0;
  size_t LineStart = Pos;
  for (size_t I = Pos; I <= Text.size() && I <= FirstEdit; ++I) {
    if (I == Text.size() || Text[I] == '\n') {
      StringRef L = Text.slice(LineStart, I);
      StringRef Dir = L.ltrim();
      if (!InBlock && !PrevBackslash && Dir.consume_front("#")) {
        Dir = Dir.ltrim();
        if (Dir.starts_with("if"))
          ++PPDepth; // #if, #ifdef, #ifndef
        else if (Dir.starts_with("endif") && PPDepth > 0)
          --PPDepth;
      }
      if (!InBlock && !Quote && Depth == 0 && PPDepth <= GuardDepth &&
          L.trim().empty() && !PrevBackslash && I <= FirstEdit) {
        addEdit(File, LineStart, L.rtrim("\r").size(), Line);
        return;
      }
      PrevBackslash =
          !L.rtrim(" \t\r").empty() && L.rtrim(" \t\r").back() == '\\';
      InLine = false;
      LineStart = I + 1;
      continue;
    }
    char Ch = Text[I], Next = I + 1 < Text.size() ? Text[I + 1] : 0;
    if (InLine)
      continue;
    if (InBlock) {
      if (Ch == '*' && Next == '/')
        InBlock = false, ++I;
      continue;
    }
    if (Quote) {
      if (Ch == '\\')
        ++I;
      else if (Ch == Quote)
        Quote = 0;
      continue;
    }
    if (Ch == '/' && Next == '*')
      InBlock = true, ++I;
    else if (Ch == '/' && Next == '/')
      InLine = true;
    else if (Ch == '"' || Ch == '\'')
      Quote = Ch;
    else if (Ch == '{')
      ++Depth;
    else if (Ch == '}')
      --Depth;
  }
  // No blank line to take: two new lines, and `#line` so that the lines
  // after them keep their numbers for the compiler, debug info and the plan.
  // Inserted lines end as the file's lines do.
  StringRef EOL = Text.contains("\r\n") ? "\r\n" : "\n";
  StringRef Before =
      AfterIncludes > LineStartAt && Text[AfterIncludes - 1] != '\n' ? EOL : "";
  addEdit(
      File, AfterIncludes, 0,
      (Before + Line + EOL + "#line " + Twine(Info.LastIncludeLine + 1) + EOL)
          .str());
}

} // namespace hmplace
