//===- RawProfile.cpp - structure check of a raw MemProf profile ----------===//
//
// Every read goes through a cursor bounded by the current section: a count
// or offset that points outside it is the error, never a read.
//
//===----------------------------------------------------------------------===//
#include "RawProfile.h"
#include "ProfileBytes.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/ADT/Twine.h"
#include "llvm/Config/llvm-config.h"
#include "llvm/Support/Endian.h"
#include "llvm/Support/MathExtras.h"

#include <cstdint>
#include <cstring>

#include "llvm/ProfileData/MemProfData.inc"

using namespace llvm;

namespace hmplace {

namespace {

std::string at(uint64_t Offset) { return "at byte " + utostr(Offset); }

/// A profile's header: its version, size, and where its sections begin
/// (offsets from the profile's start).
struct RawHeader {
  uint64_t Magic, Version, Total, SegOff, MIBOff, StackOff;
};

/// The header of the profile at \p Start of \p Data; false where it is cut
/// off.
bool readHeader(StringRef Data, uint64_t Start, RawHeader &H) {
  ByteCursor C{Data, Start};
  return C.word(H.Magic) && C.word(H.Version) && C.word(H.Total) &&
         C.word(H.SegOff) && C.word(H.MIBOff) && C.word(H.StackOff);
}

/// The raw versions the LLVM HmPlace is built with reads (19: 3 and 4; 22:
/// also 5, whose access histograms are 16-bit counts), and 5 always:
/// rawAsReadable widens it for LLVM 19's reader.
const uint64_t Supported[] = MEMPROF_RAW_SUPPORTED_VERSIONS;
const bool ReadsVersion5 = is_contained(Supported, 5);

bool readable(uint64_t Version) {
  return is_contained(Supported, Version) || Version == 5;
}

std::string supportedVersions() {
  std::string S;
  std::vector<uint64_t> V(std::begin(Supported), std::end(Supported));
  if (!ReadsVersion5)
    V.push_back(5);
  for (size_t I = 0; I < V.size(); ++I)
    S += (I == 0             ? "versions "
          : I + 1 < V.size() ? ", "
                             : " and ") +
         utostr(V[I]);
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
    RawHeader Header;
    if (!readHeader(Data, Start, Header)) {
      Err = "truncated: a profile header " + at(Start) + " is cut off";
      return false;
    }
    auto [Magic, Version, Total, SegOff, MIBOff, StackOff] = Header;
    if (Magic != MEMPROF_RAW_MAGIC_64) {
      Err = "not a raw MemProf profile " + at(Start) + " (bad magic number)";
      return false;
    }
    if (!readable(Version)) {
      Err = "raw MemProf version " + utostr(Version) + " " + at(Start) +
            "; HmPlace (built with LLVM " LLVM_VERSION_STRING ") reads " +
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
    ByteCursor S{Data.take_front(Start + MIBOff), Start + SegOff};
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
              at(S.At - SegmentSize);
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
    ByteCursor M{Data.take_front(Start + StackOff), Start + MIBOff};
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
              utostr(N) + " " + at(M.At) + " is cut off";
        return false;
      }
      // Version 3's block is version 4's without the histogram's fields.
      memprof::MemInfoBlock B;
      std::memcpy(static_cast<void *>(&B), Block,
                  std::min<uint64_t>(MIBSize, sizeof(B)));
      Facts.Blocks.push_back(
          {Id, B.AllocCount, B.TotalSize, B.TotalAccessCount});
      if (Version >= 4) {
        uint64_t CountSize = Version == 4 ? 8 : 2;
        if (!M.skip(uint64_t(B.AccessHistogramSize) * CountSize)) {
          Err = "truncated: the access histogram of allocation record " +
                utostr(I + 1) + " " + at(M.At) + " is cut off";
          return false;
        }
      }
    }
    Facts.Allocations += N;
    // Call stacks: an id, a depth, that many return addresses.
    ByteCursor K{Data.take_front(End), Start + StackOff};
    uint64_t Stacks;
    if (!K.word(Stacks)) {
      Err = "corrupt: the call stacks " + at(Start + StackOff) + " are cut off";
      return false;
    }
    for (uint64_t I = 0; I < Stacks; ++I) {
      uint64_t Id, Depth;
      if (!K.word(Id) || !K.word(Depth) || Depth > (End - K.At) / 8) {
        Err = "truncated: call stack " + utostr(I + 1) + " of " +
              utostr(Stacks) + " " + at(K.At) + " is cut off";
        return false;
      }
      Facts.StackIds.push_back(Id);
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

/// A version 5 histogram count: 12 bits of mantissa, 4 of exponent
/// (MemProfData.inc's decodeHistogramCount, which LLVM 19 lacks).
static uint64_t histogramCount(uint16_t Encoded) {
  return uint64_t(Encoded & 0xfff) << (Encoded >> 12);
}

/// Append \p V to \p Out as a little-endian 64-bit word.
static void putWord(std::string &Out, uint64_t V) {
  char B[8];
  support::endian::write64le(B, V);
  Out.append(B, 8);
}

/// One version 5 profile \p P (checked), its header \p H, as version 4,
/// appended to \p Out: its histograms' 16-bit counts widened to 64 bits,
/// the call stacks moved after them.
static void widenProfile(StringRef P, const RawHeader &H, std::string &Out) {
  std::string MIBs;
  uint64_t N = support::endian::read64le(P.data() + H.MIBOff);
  uint64_t At = H.MIBOff + 8;
  putWord(MIBs, N);
  for (uint64_t I = 0; I < N; ++I) {
    memprof::MemInfoBlock B;
    std::memcpy(&B, P.data() + At + 8, sizeof(B));
    MIBs.append(P.data() + At, 8 + sizeof(B)); // the id and the block
    At += 8 + sizeof(B);
    for (uint32_t H = 0; H < B.AccessHistogramSize; ++H, At += 2)
      putWord(MIBs, histogramCount(support::endian::read16le(P.data() + At)));
  }
  MIBs.resize(alignTo(MIBs.size(), 8), '\0'); // as the runtime pads it
  uint64_t StackOff = H.MIBOff + MIBs.size();
  for (uint64_t W : {H.Magic, uint64_t(4), StackOff + (H.Total - H.StackOff),
                     H.SegOff, H.MIBOff, StackOff})
    putWord(Out, W);
  const uint64_t HeaderSize = sizeof(memprof::Header);
  Out.append(P.data() + HeaderSize, H.MIBOff - HeaderSize); // the segments
  Out += MIBs;
  Out.append(P.data() + H.StackOff, H.Total - H.StackOff); // the call stacks
}

std::string rawAsReadable(StringRef Data) {
  if (ReadsVersion5)
    return "";
  std::string Out;
  bool Widened = false;
  RawHeader H;
  for (uint64_t Start = 0; Start < Data.size() && readHeader(Data, Start, H);
       Start += H.Total) {
    StringRef P = Data.substr(Start, H.Total);
    if (H.Version == 5) {
      widenProfile(P, H, Out);
      Widened = true;
    } else {
      Out += P;
    }
  }
  return Widened ? Out : "";
}

} // namespace hmplace
