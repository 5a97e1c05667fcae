//===- LLVMCompat.h - LLVM's API where the supported versions differ ------===//
//
// HmPlace builds against each LLVM in CMakeLists.txt's HMPLACE_LLVM_VERSIONS
// (19 and 22). Every LLVM call whose form differs between them is wrapped
// here, once, for hmplan and HmPlace.so; Clang's differences, which only
// hmrewrite meets, are in tool/hmrewrite/ClangCompat.h. Headers that moved
// are chosen where they are included (`#if LLVM_VERSION_MAJOR`: PassPlugin.h
// in HmPlacePass.cpp, MemProf's instrumentation in ProfileIR.cpp).
// Header-only: a tool includes it where it already uses these parts of LLVM.
//
//===----------------------------------------------------------------------===//
#ifndef HMPLACE_PLAN_LLVMCOMPAT_H
#define HMPLACE_PLAN_LLVMCOMPAT_H

#include "llvm/BinaryFormat/Dwarf.h"
#include "llvm/Config/llvm-config.h"
#include "llvm/DebugInfo/DIContext.h"
#include "llvm/IR/DebugInfo.h"
#include "llvm/IR/DebugInfoMetadata.h"
#include "llvm/ProfileData/MemProf.h"

namespace hmplace {

/// The source line of the code at \p A (an empty DILineInfo, line 0, where
/// there is none). LLVM 22 returns std::optional.
inline llvm::DILineInfo lineInfoAt(llvm::DIContext &Ctx,
                                   llvm::object::SectionedAddress A,
                                   llvm::DILineInfoSpecifier Spec) {
#if LLVM_VERSION_MAJOR >= 22
  if (std::optional<llvm::DILineInfo> L = Ctx.getLineInfoForAddress(A, Spec))
    return *L;
  return llvm::DILineInfo();
#else
  return Ctx.getLineInfoForAddress(A, Spec);
#endif
}

/// The GUID MemProf keys a function by (its linkage name's MD5).
inline uint64_t functionGUID(llvm::StringRef LinkageName) {
#if LLVM_VERSION_MAJOR >= 22
  return llvm::memprof::getGUID(LinkageName);
#else
  return llvm::memprof::IndexedMemProfRecord::getGUID(LinkageName);
#endif
}

/// Whether \p CU is a Fortran compile unit (flang's). LLVM 22 names a
/// unit's language with DISourceLanguageName, which may be a versioned name.
inline bool isFortranUnit(const llvm::DICompileUnit &CU) {
#if LLVM_VERSION_MAJOR >= 22
  llvm::DISourceLanguageName N = CU.getSourceLanguage();
  if (N.hasVersionedName()) {
    std::optional<llvm::dwarf::SourceLanguage> L = llvm::dwarf::toDW_LANG(
        llvm::dwarf::SourceLanguageName(N.getName()), N.getVersion());
    return L && llvm::dwarf::isFortran(*L);
  }
  return llvm::dwarf::isFortran(
      llvm::dwarf::SourceLanguage(N.getUnversionedName()));
#else
  return llvm::dwarf::isFortran(
      llvm::dwarf::SourceLanguage(CU.getSourceLanguage()));
#endif
}

/// The variable a dbg.declare names for \p V (its storage), or null. LLVM
/// 22 has only debug records; 19 has records or intrinsics, as the module
/// was read.
inline llvm::DILocalVariable *declaredVariable(llvm::Value *V) {
  for (llvm::DbgVariableRecord *R : llvm::findDVRDeclares(V))
    return R->getVariable();
#if LLVM_VERSION_MAJOR < 22
  for (llvm::DbgDeclareInst *D : llvm::findDbgDeclares(V))
    return D->getVariable();
#endif
  return nullptr;
}

} // namespace hmplace

#endif
