//===- ProfileBytes.h - bounded reads of a profile's bytes ------*- C++ -*-===//
///
/// \file
/// The one way the profile readers (raw, indexed, and the indexed layout's
/// check) read a file's bytes: every offset and length comes from the file,
/// so every read is checked against the end first, without overflow.
///
//===----------------------------------------------------------------------===//
#ifndef HMPLACE_HMPLAN_PROFILEBYTES_H
#define HMPLACE_HMPLAN_PROFILEBYTES_H

#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Endian.h"

#include <cstdint>

namespace hmplace {

/// Whether \p N bytes from \p At lie in a buffer of \p Size bytes.
inline bool inBytes(uint64_t Size, uint64_t At, uint64_t N) {
  return At <= Size && N <= Size - At;
}

/// The little-endian word at \p At of \p Data, which the caller checked is
/// there (inBytes).
inline uint64_t wordAt(llvm::StringRef Data, uint64_t At) {
  return llvm::support::endian::read64le(Data.data() + At);
}

/// Reads little-endian values of \p Data from \p At on, each read checked
/// against Data's end (make Data a prefix to read a section): a read past
/// it fails, reads zero and sets Bad, and every read after it fails too.
struct ByteCursor {
  llvm::StringRef Data;
  uint64_t At = 0;
  bool Bad = false;

  /// Whether \p N more bytes can be read.
  bool has(uint64_t N) const { return !Bad && inBytes(Data.size(), At, N); }
  bool skip(uint64_t N) {
    if (!has(N))
      return !(Bad = true);
    At += N;
    return true;
  }
  template <typename T> T next() {
    if (!has(sizeof(T))) {
      Bad = true;
      return T();
    }
    T V = llvm::support::endian::read<T, llvm::endianness::little>(Data.data() +
                                                                   At);
    At += sizeof(T);
    return V;
  }
  bool word(uint64_t &V) {
    V = next<uint64_t>();
    return !Bad;
  }
  const char *here() const { return Data.data() + At; }
};

} // namespace hmplace

#endif
