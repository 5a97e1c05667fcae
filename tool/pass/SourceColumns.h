//===- SourceColumns.h - a call's column in the source it came from -*- C++
//-*-===//
///
/// \file
/// CMake's Ninja generator compiles a Fortran source from a preprocessed
/// copy (`CMakeFiles/app.dir/main.f90-pp.f90`): debug info then has the
/// source's lines (through the copy's line directives) but the copy's
/// columns, and plan entries name the source's. The pass reads the copy's
/// positions back onto the source (plan/PreprocessedCopy.h).
///
//===----------------------------------------------------------------------===//
#ifndef HMPLACE_PASS_SOURCECOLUMNS_H
#define HMPLACE_PASS_SOURCECOLUMNS_H

#include "plan/PreprocessedCopy.h"

#include "llvm/IR/DebugInfoMetadata.h"

#include <string>

namespace hmplace {

/// The line and column of \p DL in its own file: as debug info has them,
/// except in a Fortran module compiled from a preprocessed copy of that
/// file, where the copy's position is read back onto the source.
SourcePoint sourcePoint(const llvm::DILocation *DL);

/// Why \p DL's position could not be read back ("" when it was, or when
/// the module is compiled from the source itself): for messages about
/// entries that match nothing.
std::string columnProblem(const llvm::DILocation *DL);

/// Every debug location of \p M that a preprocessed copy gives, moved onto
/// the source's line and column (sourcePoint), its inlined-at chain too:
/// profile mode, so that the profiled binary's debug info names the source
/// as plan entries do, whatever the generator compiled. Returns whether
/// anything moved.
bool moveLocationsToSource(llvm::Module &M);

} // namespace hmplace

#endif
