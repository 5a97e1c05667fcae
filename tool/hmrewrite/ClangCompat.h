//===- ClangCompat.h - Clang's API where the supported versions differ ----===//
//
// hmrewrite's side of tool/plan/LLVMCompat.h: each Clang call whose form
// differs between the LLVMs HmPlace builds against (19 and 22), wrapped once.
//
//===----------------------------------------------------------------------===//
#ifndef HMPLACE_HMREWRITE_CLANGCOMPAT_H
#define HMPLACE_HMREWRITE_CLANGCOMPAT_H

#include "clang/AST/ASTContext.h"
#include "clang/Format/Format.h"
#include "llvm/Config/llvm-config.h"

namespace hmplace {

/// The type of the class \p RD declares. LLVM 22 builds tag types anew and
/// has no getRecordType.
inline clang::QualType recordType(const clang::ASTContext &Ctx,
                                  const clang::RecordDecl *RD) {
#if LLVM_VERSION_MAJOR >= 22
  return Ctx.getCanonicalTagType(RD);
#else
  return Ctx.getRecordType(RD);
#endif
}

/// Whether \p Style sorts #include blocks (LLVM 22: a struct of options).
inline bool sortsIncludes(const clang::format::FormatStyle &Style) {
#if LLVM_VERSION_MAJOR >= 22
  return Style.SortIncludes.Enabled;
#else
  return Style.SortIncludes != clang::format::FormatStyle::SI_Never;
#endif
}

} // namespace hmplace

#endif
