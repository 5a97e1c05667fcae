//===- BoundedRead.h - every input read with a size bound -------*- C++ -*-===//
///
/// \file
/// HmPlace's tools read plans, profiles, machine files, reports and sources
/// through here: a file larger than the bound of its kind, or a pipe or
/// device that goes on past it (`hmplan check /dev/zero`), is an error that
/// names the bound, found within seconds and without holding more than the
/// bound in memory (a regular file's size is known before it is read).
///
//===----------------------------------------------------------------------===//
#ifndef HMPLACE_PLAN_BOUNDEDREAD_H
#define HMPLACE_PLAN_BOUNDEDREAD_H

#include "llvm/ADT/StringRef.h"
#include "llvm/Support/MemoryBuffer.h"

#include <cstdint>
#include <memory>
#include <string>

namespace hmplace {

/// What an input is, for its bound and its name in messages.
enum class InputKind { Plan, Profile, Machine, Report, Source };

/// The largest file of kind \p K that is read (bytes).
uint64_t inputBound(InputKind K);
/// What a pipe or device is read up to, whatever its kind (bytes).
uint64_t streamBound();
/// "a plan", "a profile", ... for messages.
const char *inputName(InputKind K);

/// The content of \p Path, or null with \p Err saying why (unreadable, or
/// past the bound). \p NullTerminated as MemoryBuffer's RequiresNullTerminator.
std::unique_ptr<llvm::MemoryBuffer> readBounded(llvm::StringRef Path,
                                                InputKind K, std::string &Err,
                                                bool NullTerminated = true);

} // namespace hmplace

#endif
