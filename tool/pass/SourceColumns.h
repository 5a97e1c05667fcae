//===- SourceColumns.h - a call's column in the source it came from -*- C++
//-*-===//
///
/// \file
/// CMake's Ninja generator compiles a Fortran source from a preprocessed
/// copy (`CMakeFiles/app.dir/main.f90-pp.f90`): debug info then has the
/// source's lines (through the copy's line directives) but the copy's
/// columns, and plan entries name the source's. The pass reads the copy's
/// columns back onto the source (plan/PreprocessedCopy.h).
///
//===----------------------------------------------------------------------===//
#ifndef HMPLACE_PASS_SOURCECOLUMNS_H
#define HMPLACE_PASS_SOURCECOLUMNS_H

#include "llvm/IR/DebugInfoMetadata.h"

#include <string>

namespace hmplace {

/// The column of \p DL in its own file: as debug info has it, except in a
/// Fortran module compiled from a preprocessed copy of that file, where the
/// copy's column is read back onto the source line.
unsigned sourceColumn(const llvm::DILocation *DL);

/// Why a column of \p DL's line could not be read back ("" when it was, or
/// when the module is compiled from the source itself): for messages about
/// entries that match nothing.
std::string columnProblem(const llvm::DILocation *DL);

} // namespace hmplace

#endif
