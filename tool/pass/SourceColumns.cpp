//===- SourceColumns.cpp - a call's column in the source it came from -----===//
#include "SourceColumns.h"

#include "plan/LLVMCompat.h"
#include "plan/PreprocessedCopy.h"
#include "plan/SiteKey.h"

#include "llvm/BinaryFormat/Dwarf.h"
#include "llvm/Support/MemoryBuffer.h"

#include <map>
#include <memory>
#include <vector>

using namespace llvm;

namespace hmplace {

namespace {
/// One compile's files, read once: the copies, and the sources they name.
struct Files {
  std::map<std::string, std::unique_ptr<PreprocessedCopy>> Copies;
  std::map<std::string, std::unique_ptr<MemoryBuffer>> Sources;
  /// Where each line of a source begins (read once: a module has many
  /// calls).
  std::map<std::string, std::vector<size_t>> LineStarts;

  const PreprocessedCopy *copy(const std::string &Path) {
    auto [It, New] = Copies.try_emplace(Path);
    if (New) {
      if (auto B = MemoryBuffer::getFile(Path, /*IsText=*/true))
        It->second =
            std::make_unique<PreprocessedCopy>((*B)->getBuffer().str());
    }
    return It->second && It->second->hasDirectives() ? It->second.get()
                                                     : nullptr;
  }
  std::optional<StringRef> sourceLine(const std::string &Path, unsigned Line) {
    auto [It, New] = Sources.try_emplace(Path);
    std::vector<size_t> &Starts = LineStarts[Path];
    if (New) {
      if (auto B = MemoryBuffer::getFile(Path, /*IsText=*/true)) {
        It->second = std::move(*B);
        StringRef Text = It->second->getBuffer();
        Starts.push_back(0);
        for (size_t I = 0; I < Text.size(); ++I)
          if (Text[I] == '\n')
            Starts.push_back(I + 1);
      }
    }
    if (!It->second || Line == 0 || Line > Starts.size())
      return std::nullopt;
    StringRef Text = It->second->getBuffer().drop_front(Starts[Line - 1]);
    return Text.take_until([](char C) { return C == '\n'; }).rtrim('\r');
  }
};

Files &files() {
  static Files F;
  return F;
}

/// The copy \p DL's module was compiled from, when that is a preprocessed
/// copy of another file (a Fortran module whose compile unit's file is not
/// the location's and has line directives).
const PreprocessedCopy *copyOf(const DILocation *DL, std::string &CopyPath) {
  const DISubprogram *SP = DL->getScope()->getSubprogram();
  const DICompileUnit *CU = SP ? SP->getUnit() : nullptr;
  if (!CU || !isFortranUnit(*CU) || CU->getFilename() == DL->getFilename())
    return nullptr;
  CopyPath = normalizePath(CU->getFilename(), CU->getDirectory());
  return files().copy(CopyPath);
}

struct Reading {
  std::optional<unsigned> Column;
  std::string Problem;
};

Reading readBack(const DILocation *DL) {
  std::string CopyPath;
  const PreprocessedCopy *Copy = copyOf(DL, CopyPath);
  if (!Copy)
    return {DL->getColumn(), ""};
  std::optional<StringRef> From =
      Copy->lineFor(DL->getFilename(), DL->getLine());
  StringRef Dir = DL->getDirectory();
  if (Dir.empty())
    if (const DISubprogram *SP = DL->getScope()->getSubprogram())
      Dir = SP->getUnit()->getDirectory();
  std::string Source = normalizePath(DL->getFilename(), Dir);
  std::optional<StringRef> To = files().sourceLine(Source, DL->getLine());
  std::string Where = "the build compiles a preprocessed copy, " + CopyPath +
                      ", whose columns are not the source's";
  if (!From || !To)
    return {std::nullopt, Where + ", and " + (From ? Source : CopyPath) +
                              " has no line " + std::to_string(DL->getLine()) +
                              " to read them back from"};
  if (std::optional<unsigned> C = alignColumn(*From, DL->getColumn(), *To))
    return {C, ""};
  return {std::nullopt,
          Where + ", and line " + std::to_string(DL->getLine()) +
              " differs there in more than blanks (a continuation, a "
              "comment, a macro)"};
}
} // namespace

unsigned sourceColumn(const DILocation *DL) {
  Reading R = readBack(DL);
  return R.Column ? *R.Column : DL->getColumn();
}

std::string columnProblem(const DILocation *DL) { return readBack(DL).Problem; }

} // namespace hmplace
