//===- RawProfile.h - structure check of a raw MemProf profile --*- C++ -*-===//
///
/// \file
/// LLVM's raw MemProf reader (19, 22) trusts the file: it does not compare the
/// profile's build ids with the binary's (a profile of another program
/// reads as "no entries after symbolization"), and it reads the sections
/// where the header says they are. Before a profile goes to that reader,
/// this walks its structure with every offset and count checked against
/// the file's size, and gathers what the reader does not report: the build
/// ids of the profiled process's segments and the number of records. This
/// is HmPlace's own parsing of untrusted bytes, so it has a fuzz target
/// (tool/hmplan/fuzz).
///
/// The layout (llvm/ProfileData/MemProfData.inc, versions 3 to 5): a file
/// holds one or more profiles back to back, each
///   Header {Magic, Version, TotalSize, SegmentOffset, MIBOffset,
///           StackOffset}
///   at SegmentOffset: N, then N SegmentEntry {Start, End, Offset,
///                     BuildIdSize, BuildId[32]}
///   at MIBOffset:     N, then N {Id, MemInfoBlock[, histogram]} (the
///                     histogram: 64-bit counts in 4, 16-bit in 5)
///   at StackOffset:   N, then N {Id, Depth, Depth PCs}
/// little-endian 64-bit words but version 5's counts.
///
//===----------------------------------------------------------------------===//
#ifndef HMPLACE_HMPLAN_RAWPROFILE_H
#define HMPLACE_HMPLAN_RAWPROFILE_H

#include "llvm/ADT/StringRef.h"

#include <cstdint>
#include <string>
#include <vector>

namespace hmplace {

/// An executable segment of the profiled process: where it was mapped and
/// which object (by build id) it holds.
struct RawSegment {
  uint64_t Start = 0, End = 0;
  std::string BuildId; ///< hex; empty if the runtime recorded none
};

struct RawProfileFacts {
  unsigned Profiles = 0;    ///< profiles in the file (one per dump)
  uint64_t Allocations = 0; ///< allocation records (contexts per dump)
  uint64_t Stacks = 0;
  std::vector<std::string> BuildIds; ///< hex, every segment's, deduplicated
  std::vector<RawSegment> Segments;  ///< every profile's
  /// Every call stack's addresses, innermost (inside the allocator) first,
  /// as the runtime unwound them: what LLVM's reader keeps of them is only
  /// what the binary's debug info names.
  std::vector<std::vector<uint64_t>> StackPCs;
  std::vector<uint64_t> StackIds; ///< StackPCs' ids
  /// Every allocation record: its call stack's id and its counts.
  struct Block {
    uint64_t StackId = 0, Objects = 0, Bytes = 0, Accesses = 0;
  };
  std::vector<Block> Blocks;
};

/// Whether \p Data starts like a raw MemProf profile (its magic number).
bool looksLikeRawMemProfile(llvm::StringRef Data);

/// \p Data (checked by scanRawMemProfile) as the LLVM HmPlace is built with
/// reads it: for LLVM 19, whose reader stops at version 4, each version 5
/// profile (LLVM 22's: 16-bit histogram counts) rewritten as version 4.
/// Empty when the data reads as it is.
std::string rawAsReadable(llvm::StringRef Data);

/// Check the structure of the raw profile \p Data and fill \p Facts. On a
/// malformed or truncated file returns false with \p Err saying where.
bool scanRawMemProfile(llvm::StringRef Data, RawProfileFacts &Facts,
                       std::string &Err);

} // namespace hmplace

#endif
