//===- Diag.h - clang-style diagnostics for plan files ----------*- C++ -*-===//
///
/// \file
/// Every front end reports plan problems the same way: `plan.yaml:7:12: error:
/// ...` followed by the offending line and a caret, so editors and CI can
/// annotate them. The engine owns the plan buffers, so locations stay valid for
/// diagnostics issued long after parsing (for example stale entries reported
/// once all sources were processed).
///
//===----------------------------------------------------------------------===//
#ifndef HMPLACE_PLAN_DIAG_H
#define HMPLACE_PLAN_DIAG_H

#include "llvm/ADT/StringRef.h"
#include "llvm/ADT/Twine.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/SMLoc.h"
#include "llvm/Support/SourceMgr.h"
#include "llvm/Support/raw_ostream.h"

#include <map>
#include <memory>
#include <vector>

namespace hmplace {

enum class Severity { Error, Warning, Note, Remark };

class DiagEngine {
public:
  explicit DiagEngine(llvm::raw_ostream &OS) : OS(OS) {}

  /// Takes ownership of a plan buffer; locations inside it may be reported.
  unsigned addBuffer(std::unique_ptr<llvm::MemoryBuffer> Buf);
  const llvm::MemoryBuffer *buffer(unsigned ID) const {
    return SM.getMemoryBuffer(ID);
  }

  /// Report at a location inside a buffer added with addBuffer.
  void report(llvm::SMLoc Loc, Severity S, const llvm::Twine &Msg);
  /// Report about a file with no line to point at (unreadable file).
  void report(llvm::StringRef File, Severity S, const llvm::Twine &Msg);
  /// Report with no file at all (command-line problems).
  void report(Severity S, const llvm::Twine &Msg);

  /// Location of 0-based \p Line and \p Col in buffer \p ID, clamped to the
  /// buffer so that a parser's mark past the end still points somewhere.
  llvm::SMLoc locAt(unsigned ID, unsigned Line, unsigned Col) const;
  /// "file:line:col" of a location, for messages that cite a second place.
  std::string describe(llvm::SMLoc Loc) const;

  unsigned errors() const { return NumErrors; }
  unsigned warnings() const { return NumWarnings; }
  /// `--strict`: warnings count, and print, as errors.
  void setWarningsAsErrors(bool B) { WarningsAsErrors = B; }
  llvm::raw_ostream &stream() { return OS; }

private:
  Severity effective(Severity S) const {
    return (S == Severity::Warning && WarningsAsErrors) ? Severity::Error : S;
  }
  void count(Severity S);

  llvm::SourceMgr SM;
  /// Line starts per buffer, built on first use: locAt is called for every
  /// YAML node of a plan, and plans have tens of thousands of entries.
  mutable std::map<unsigned, std::vector<const char *>> LineStarts;
  llvm::raw_ostream &OS;
  unsigned NumErrors = 0, NumWarnings = 0;
  bool WarningsAsErrors = false;
};

} // namespace hmplace

#endif
