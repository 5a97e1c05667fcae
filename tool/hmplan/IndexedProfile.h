//===- IndexedProfile.h - indexed profiles of another LLVM's llvm-profdata
//-===//
//
// hmplan reads indexed profiles with the LLVM it was built with, whose
// reader refuses a header version newer than its own: LLVM 22's
// llvm-profdata writes version 13, which LLVM 19 (version 12) calls
// "unsupported", though version 13 changed only the default hash of
// frontend PGO (InstrProf.h), nothing a memory profile holds. A profile of a
// known newer version is read as its older self; LLVM 22's memory profile
// version 4 as version 3 for LLVM 19 (4 is 3 with a summary and one more
// offset in its header); one whose memory profile section is newer than
// that is refused with how to merge it again. LLVM 22's reader dropped the
// memory profile versions 0 and 1 (LLVM 19's default merge writes 0): hmplan
// reads those itself (readOldMemProf).
//
//===----------------------------------------------------------------------===//
#ifndef HMPLACE_HMPLAN_INDEXEDPROFILE_H
#define HMPLACE_HMPLAN_INDEXEDPROFILE_H

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/STLFunctionalExtras.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/ProfileData/MemProf.h"

#include <cstdint>
#include <string>

namespace hmplace {

/// The newest indexed profile version whose layout hmplan knows (LLVM 22's).
constexpr uint64_t NewestIndexedVersion = 13;

/// What the LLVM hmplan is built with (\p LLVMMajor) reads: indexed profiles up
/// to
/// \p Version, memory profile sections of versions \p MemProfMin to
/// \p MemProfMax.
struct IndexedReader {
  unsigned LLVMMajor;
  uint64_t Version, MemProfMin, MemProfMax;
};

/// Whether the indexed profile \p Data can be read by \p Reader. False with
/// \p Why when it cannot; true otherwise, with \p Patched set to the bytes
/// to read instead of \p Data where the header's version had to be lowered
/// or the memory profile read as version 3 (empty: read \p Data as it is).
bool fitIndexedProfile(llvm::StringRef Data, const IndexedReader &Reader,
                       std::string &Patched, std::string &Why);

/// Whether the indexed profile \p Data holds a memory profile of version 0
/// or 1, older than \p Reader reads: readOldMemProf reads it instead.
bool isOldMemProf(llvm::StringRef Data, const IndexedReader &Reader);

/// The memory profile of version 0 or 1 in the indexed profile \p Data,
/// one function's record at a time: \p Each gets the function's GUID and
/// its allocation sites, frames resolved. False with \p Why where the
/// section is malformed (every offset and length is checked).
bool readOldMemProf(
    llvm::StringRef Data,
    llvm::function_ref<void(uint64_t,
                            llvm::ArrayRef<llvm::memprof::AllocationInfo>)>
        Each,
    std::string &Why);

} // namespace hmplace

#endif
