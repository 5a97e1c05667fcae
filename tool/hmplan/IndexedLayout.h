//===- IndexedLayout.h - an indexed profile checked before LLVM reads it ===//
///
/// \file
/// LLVM's IndexedInstrProfReader trusts an indexed profile past its first 24
/// bytes: a profile cut short or corrupt makes it read outside the file
/// (measured: ASan's heap-buffer-overflow in readSummary for a profile cut
/// to 80 bytes, messages quoting bytes past the end). Every offset, length
/// and count its header reading and the memory profile's opening use is
/// checked here against the file first.
///
//===----------------------------------------------------------------------===//
#ifndef HMPLACE_HMPLAN_INDEXEDLAYOUT_H
#define HMPLACE_HMPLAN_INDEXEDLAYOUT_H

#include "llvm/ADT/StringRef.h"

#include <string>

namespace hmplace {

/// Whether the indexed profile \p Data (its magic checked already) holds
/// within its bytes everything LLVM's reader reads on opening it: the
/// header of its version, the summaries, the counts' hash table header and
/// buckets, the memory profile section's offsets, schema, summary and hash
/// tables' headers, the binary ids and the virtual table names. False with
/// \p Why naming the first that does not.
bool checkIndexedLayout(llvm::StringRef Data, std::string &Why);

} // namespace hmplace

#endif
