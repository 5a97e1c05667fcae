//===- Diag.cpp - clang-style diagnostics for plan files ------------------===//
//
// Thin wrapper over llvm::SourceMgr, which already prints the clang format
// (location, severity, message, source line, caret).
//
//===----------------------------------------------------------------------===//
#include "plan/Diag.h"

using namespace llvm;

namespace hmplace {

static SourceMgr::DiagKind toKind(Severity S) {
  switch (S) {
  case Severity::Error:
    return SourceMgr::DK_Error;
  case Severity::Warning:
    return SourceMgr::DK_Warning;
  case Severity::Note:
    return SourceMgr::DK_Note;
  case Severity::Remark:
    return SourceMgr::DK_Remark;
  }
  return SourceMgr::DK_Error;
}

static const char *label(Severity S) {
  switch (S) {
  case Severity::Error:
    return "error";
  case Severity::Warning:
    return "warning";
  case Severity::Note:
    return "note";
  case Severity::Remark:
    return "remark";
  }
  return "error";
}

unsigned DiagEngine::addBuffer(std::unique_ptr<MemoryBuffer> Buf) {
  return SM.AddNewSourceBuffer(std::move(Buf), SMLoc());
}

void DiagEngine::count(Severity S) {
  if (S == Severity::Error)
    ++NumErrors;
  else if (S == Severity::Warning)
    ++NumWarnings;
}

void DiagEngine::report(SMLoc Loc, Severity S, const Twine &Msg) {
  S = effective(S);
  count(S);
  if (!Loc.isValid()) {
    report(S, Msg);
    return;
  }
  SM.PrintMessage(OS, Loc, toKind(S), Msg);
}

void DiagEngine::report(StringRef File, Severity S, const Twine &Msg) {
  S = effective(S);
  count(S);
  OS << File << ": " << label(S) << ": " << Msg << "\n";
}

void DiagEngine::report(Severity S, const Twine &Msg) {
  S = effective(S);
  count(S);
  OS << label(S) << ": " << Msg << "\n";
}

SMLoc DiagEngine::locAt(unsigned ID, unsigned Line, unsigned Col) const {
  const MemoryBuffer *Buf = SM.getMemoryBuffer(ID);
  const char *End = Buf->getBufferEnd();
  std::vector<const char *> &Starts = LineStarts[ID];
  if (Starts.empty()) {
    Starts.push_back(Buf->getBufferStart());
    for (const char *P = Buf->getBufferStart(); P < End; ++P)
      if (*P == '\n')
        Starts.push_back(P + 1);
  }
  const char *P = Line < Starts.size() ? Starts[Line] : End;
  for (unsigned C = 0; C < Col && P < End && *P != '\n'; ++C)
    ++P;
  return SMLoc::getFromPointer(P);
}

std::string DiagEngine::describe(SMLoc Loc) const {
  unsigned ID = SM.FindBufferContainingLoc(Loc);
  if (!ID)
    return "<unknown>";
  auto LC = SM.getLineAndColumn(Loc, ID);
  return (SM.getMemoryBuffer(ID)->getBufferIdentifier() + ":" +
          Twine(LC.first) + ":" + Twine(LC.second))
      .str();
}

} // namespace hmplace
