//===- RawProfile.cpp - structure check of a raw MemProf profile ----------===//
//
// Every read goes through a cursor bounded by the current section: a count
// or offset that points outside it is the error, never a read.
//
//===----------------------------------------------------------------------===//
#include "RawProfile.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/ADT/Twine.h"
#include "llvm/Config/llvm-config.h"
#include "llvm/Support/Endian.h"

#include <cstdint>
#include <cstring>

#include "llvm/ProfileData/MemProfData.inc"

using namespace llvm;

namespace hmplace {

namespace {

/// Reads little-endian words of [Pos, End) of the file.
class Cursor {
public:
  Cursor(StringRef Data, uint64_t Pos, uint64_t End)
      : Data(Data), Pos(Pos), End(End) {}
  bool word(uint64_t &V) {
    if (Pos > End || End - Pos < 8)
      return false;
    V = support::endian::read64le(Data.data() + Pos);
    Pos += 8;
    return true;
  }
  bool skip(uint64_t Bytes) {
    if (Pos > End || End - Pos < Bytes)
      return false;
    Pos += Bytes;
    return true;
  }
  const char *here() const { return Data.data() + Pos; }
  uint64_t pos() const { return Pos; }

private:
  StringRef Data;
  uint64_t Pos, End;
};

std::string at(uint64_t Offset) { return "at byte " + utostr(Offset); }

/// The raw versions the LLVM HmPlace is built with reads (19: 3 and 4; 22:
/// also 5, whose access histograms are 16-bit counts).
const uint64_t Supported[] = MEMPROF_RAW_SUPPORTED_VERSIONS;

std::string supportedVersions() {
  std::string S;
  for (size_t I = 0; I < std::size(Supported); ++I)
    S += (I == 0                         ? "versions "
          : I + 1 < std::size(Supported) ? ", "
                                         : " and ") +
         utostr(Supported[I]);
  return S;
}

} // namespace

bool looksLikeRawMemProfile(StringRef Data) {
  return Data.size() >= 8 &&
         support::endian::read64le(Data.data()) == MEMPROF_RAW_MAGIC_64;
}

bool scanRawMemProfile(StringRef Data, RawProfileFacts &Facts,
                       std::string &Err) {
  const uint64_t HeaderSize = sizeof(memprof::Header);
  const uint64_t SegmentSize = sizeof(memprof::SegmentEntry);
  uint64_t Start = 0;
  while (Start < Data.size()) {
    uint64_t Magic, Version, Total, SegOff, MIBOff, StackOff;
    Cursor H(Data, Start, Data.size());
    if (!H.word(Magic) || !H.word(Version) || !H.word(Total) ||
        !H.word(SegOff) || !H.word(MIBOff) || !H.word(StackOff)) {
      Err = "truncated: a profile header " + at(Start) + " is cut off";
      return false;
    }
    if (Magic != MEMPROF_RAW_MAGIC_64) {
      Err = "not a raw MemProf profile " + at(Start) + " (bad magic number)";
      return false;
    }
    if (!is_contained(Supported, Version)) {
      Err = "raw MemProf version " + utostr(Version) + " " + at(Start) +
            "; the LLVM " LLVM_VERSION_STRING " HmPlace is built with reads " +
            supportedVersions() +
            " (profile with that LLVM's clang, as hmcc --profile does)";
      return false;
    }
    if (Total > Data.size() - Start) {
      Err = "truncated: the profile " + at(Start) + " says it has " +
            utostr(Total) + " bytes, the file has " +
            utostr(Data.size() - Start) + " from there";
      return false;
    }
    if (Total < HeaderSize || SegOff < HeaderSize || SegOff > MIBOff ||
        MIBOff > StackOff || StackOff > Total) {
      Err = "corrupt: the section offsets of the profile " + at(Start) +
            " are out of order or outside it";
      return false;
    }
    uint64_t End = Start + Total;
    // Segments: the mapped objects of the process, with their build ids.
    Cursor S(Data, Start + SegOff, Start + MIBOff);
    uint64_t N;
    if (!S.word(N) || N > (MIBOff - SegOff) / SegmentSize) {
      Err = "corrupt: the segment table " + at(Start + SegOff) +
            " does not fit its section";
      return false;
    }
    for (uint64_t I = 0; I < N; ++I) {
      memprof::SegmentEntry E(0, 0, 0);
      std::memcpy(static_cast<void *>(&E), S.here(), SegmentSize);
      S.skip(SegmentSize);
      if (E.BuildIdSize > MEMPROF_BUILDID_MAX_SIZE) {
        Err = "corrupt: a build id of " + utostr(E.BuildIdSize) + " bytes " +
              at(S.pos() - SegmentSize);
        return false;
      }
      std::string Id = toHex(ArrayRef<uint8_t>(E.BuildId, E.BuildIdSize),
                             /*LowerCase=*/true);
      Facts.Segments.push_back({E.Start, E.End, Id});
      if (!Id.empty() && !is_contained(Facts.BuildIds, Id))
        Facts.BuildIds.push_back(std::move(Id));
    }
    // Allocation records: an id and a MemInfoBlock (from version 4: then
    // its access histogram).
    Cursor M(Data, Start + MIBOff, Start + StackOff);
    const uint64_t MIBSize = Version == 3 ? 132 : sizeof(memprof::MemInfoBlock);
    if (!M.word(N)) {
      Err = "corrupt: the allocation records " + at(Start + MIBOff) +
            " are cut off";
      return false;
    }
    for (uint64_t I = 0; I < N; ++I) {
      uint64_t Id;
      const char *Block = M.here() + 8;
      if (!M.word(Id) || !M.skip(MIBSize)) {
        Err = "truncated: allocation record " + utostr(I + 1) + " of " +
              utostr(N) + " " + at(M.pos()) + " is cut off";
        return false;
      }
      if (Version >= 4) {
        memprof::MemInfoBlock B;
        std::memcpy(&B, Block, sizeof(B));
        uint64_t CountSize = Version == 4 ? 8 : 2;
        if (!M.skip(uint64_t(B.AccessHistogramSize) * CountSize)) {
          Err = "truncated: the access histogram of allocation record " +
                utostr(I + 1) + " " + at(M.pos()) + " is cut off";
          return false;
        }
      }
    }
    Facts.Allocations += N;
    // Call stacks: an id, a depth, that many return addresses.
    Cursor K(Data, Start + StackOff, End);
    uint64_t Stacks;
    if (!K.word(Stacks)) {
      Err = "corrupt: the call stacks " + at(Start + StackOff) + " are cut off";
      return false;
    }
    for (uint64_t I = 0; I < Stacks; ++I) {
      uint64_t Id, Depth;
      if (!K.word(Id) || !K.word(Depth) || Depth > (End - K.pos()) / 8) {
        Err = "truncated: call stack " + utostr(I + 1) + " of " +
              utostr(Stacks) + " " + at(K.pos()) + " is cut off";
        return false;
      }
      std::vector<uint64_t> &PCs = Facts.StackPCs.emplace_back(Depth);
      for (uint64_t &PC : PCs)
        K.word(PC);
    }
    Facts.Stacks += Stacks;
    ++Facts.Profiles;
    // Whatever follows is a profile of its own (the runtime appends one
    // per dump), checked in turn.
    Start = End;
  }
  if (!Facts.Profiles) {
    Err = "empty file";
    return false;
  }
  return true;
}

} // namespace hmplace
