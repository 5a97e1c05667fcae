//===- SourceColumns.cpp - a call's column in the source it came from -----===//
#include "SourceColumns.h"

#include "plan/LLVMCompat.h"
#include "plan/PreprocessedCopy.h"
#include "plan/SiteKey.h"

#include "llvm/ADT/DenseMap.h"
#include "llvm/BinaryFormat/Dwarf.h"
#include "llvm/IR/InstIterator.h"
#include "llvm/IR/Module.h"
#include "llvm/Support/MemoryBuffer.h"

#include <functional>
#include <map>
#include <memory>

using namespace llvm;

namespace hmplace {

namespace {
/// One compile's files, read once: the copies, and the sources they name.
struct Files {
  std::map<std::string, std::unique_ptr<PreprocessedCopy>> Copies;
  std::map<std::string, std::unique_ptr<FortranSource>> Sources;

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
  const FortranSource *source(const std::string &Path) {
    auto [It, New] = Sources.try_emplace(Path);
    if (New) {
      if (auto B = MemoryBuffer::getFile(Path, /*IsText=*/true))
        It->second = std::make_unique<FortranSource>((*B)->getBuffer().str(),
                                                     isFixedFormName(Path));
    }
    return It->second.get();
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
  std::optional<SourcePoint> At;
  std::string Problem;
};

Reading readBack(const DILocation *DL) {
  SourcePoint Own{DL->getLine(), DL->getColumn()};
  std::string CopyPath;
  const PreprocessedCopy *Copy = copyOf(DL, CopyPath);
  if (!Copy)
    return {Own, ""};
  StringRef Dir = DL->getDirectory();
  if (Dir.empty())
    if (const DISubprogram *SP = DL->getScope()->getSubprogram())
      Dir = SP->getUnit()->getDirectory();
  std::string Path = normalizePath(DL->getFilename(), Dir);
  std::string Where = "the build compiles a preprocessed copy, " + CopyPath +
                      ", whose positions are not the source's, and ";
  const FortranSource *Source = files().source(Path);
  if (!Source)
    return {std::nullopt, Where + Path + " cannot be read to read them back"};
  std::string Why;
  if (std::optional<SourcePoint> P =
          Copy->pointInSource(DL->getFilename(), DL->getLine(), DL->getColumn(),
                              *Source, "allocate", Why))
    return {P, ""};
  return {std::nullopt, Where + Why};
}
} // namespace

SourcePoint sourcePoint(const DILocation *DL) {
  Reading R = readBack(DL);
  return R.At ? *R.At : SourcePoint{DL->getLine(), DL->getColumn()};
}

std::string columnProblem(const DILocation *DL) { return readBack(DL).Problem; }

bool moveLocationsToSource(Module &M) {
  DenseMap<const DILocation *, DILocation *> Moved;
  std::function<DILocation *(DILocation *)> Move =
      [&](DILocation *DL) -> DILocation * {
    if (!DL)
      return nullptr;
    auto It = Moved.find(DL);
    if (It != Moved.end())
      return It->second;
    DILocation *In = Move(DL->getInlinedAt());
    SourcePoint P = sourcePoint(DL);
    DILocation *New = DL;
    if (In != DL->getInlinedAt() || P.Line != DL->getLine() ||
        P.Column != DL->getColumn())
      New = DILocation::get(DL->getContext(), P.Line, P.Column, DL->getScope(),
                            In, DL->isImplicitCode());
    return Moved[DL] = New;
  };
  bool Changed = false;
  for (Function &F : M)
    for (Instruction &I : instructions(F))
      if (DILocation *DL = I.getDebugLoc().get())
        if (DILocation *New = Move(DL); New != DL) {
          I.setDebugLoc(New);
          Changed = true;
        }
  return Changed;
}

} // namespace hmplace
