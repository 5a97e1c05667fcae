//===- IndexedProfile.cpp - another LLVM's indexed profiles ---------------===//
#include "IndexedProfile.h"
#include "ProfileBytes.h"

#include "llvm/Support/Endian.h"

#include <algorithm>
#include <optional>
#include <unordered_map>
#include <vector>

using namespace llvm;

namespace hmplace {

namespace {
// The header's fields (IndexedInstrProf::Header, native byte order): magic,
// version (low 32 bits; the high ones are variant flags), unused, hash type,
// hash table offset, memory profile offset, ...
constexpr size_t VersionAt = 8, MemProfOffsetAt = 40, HeaderMin = 48;
} // namespace

/// The memory profile section's version: its first word (version 0 has no
/// version there but an offset, which is past the header). None where the
/// profile has no such section, or it begins past the end.
static std::optional<uint64_t> memProfVersion(StringRef Data) {
  if (Data.size() < HeaderMin)
    return std::nullopt;
  uint64_t At = wordAt(Data, MemProfOffsetAt);
  if (!At || !inBytes(Data.size(), At, 8))
    return std::nullopt;
  uint64_t First = wordAt(Data, At);
  return First < HeaderMin ? First : 0;
}

/// Where the version 4 memory profile section of \p Data would begin as
/// version 3, whose layout is 4's without its fourth offset (the data access
/// profile's) and its summary (a 32-bit field count, then the fields):
/// ending where 4's summary ends, before the schema, so that every offset
/// and the frames after the schema stay where they are. None where the
/// summary runs past the end.
static std::optional<uint64_t> versionThreeAt(StringRef Data) {
  uint64_t At = wordAt(Data, MemProfOffsetAt);
  constexpr uint64_t CountAt = 8 + 4 * 8, SummaryAt = CountAt + 4;
  if (!inBytes(Data.size(), At, SummaryAt))
    return std::nullopt;
  uint64_t Fields = support::endian::read32le(Data.data() + At + CountAt);
  if ((Data.size() - At - SummaryAt) / 8 < Fields)
    return std::nullopt;
  return At + SummaryAt + 8 * Fields - 4 * 8;
}

/// \p P's version 4 memory profile section as version 3 beginning at
/// \p Start (versionThreeAt): its version, its first three offsets, and the
/// header's offset of the section.
static void writeVersionThree(std::string &P, uint64_t Start) {
  uint64_t At = wordAt(P, MemProfOffsetAt);
  uint64_t Offsets[3] = {wordAt(P, At + 8), wordAt(P, At + 16),
                         wordAt(P, At + 24)};
  support::endian::write64le(P.data() + Start, 3);
  for (unsigned I = 0; I < 3; ++I)
    support::endian::write64le(P.data() + Start + 8 + 8 * I, Offsets[I]);
  support::endian::write64le(P.data() + MemProfOffsetAt, Start);
}

bool fitIndexedProfile(StringRef Data, const IndexedReader &Reader,
                       std::string &Patched, std::string &Why) {
  Patched.clear();
  if (Data.size() < HeaderMin)
    return true; // the reader says what is wrong with it
  uint64_t Word = wordAt(Data, VersionAt);
  uint64_t Version = Word & 0xffffffffu;
  if (Version > std::max(Reader.Version, NewestIndexedVersion)) {
    Why = "written by a newer llvm-profdata than hmplan knows (indexed "
          "version " +
          std::to_string(Version) + "; this hmplan reads up to " +
          std::to_string(std::max(Reader.Version, NewestIndexedVersion)) +
          "): give hmplan the raw profiles, which it reads whatever LLVM "
          "wrote them";
    return false;
  }
  std::optional<uint64_t> ThreeAt; // where version 4 begins as 3
  if (std::optional<uint64_t> V = memProfVersion(Data)) {
    uint64_t MemProf = *V;
    // Versions 0 and 1 are read by readOldMemProf whatever the reader;
    // version 4 by a reader of 3 as 3 (versionThreeAt).
    bool AsThree = MemProf == 4 && Reader.MemProfMax == 3;
    if (AsThree && !(ThreeAt = versionThreeAt(Data))) {
      Why = "its memory profile (version 4) is cut short: its summary runs "
            "past the end of the file";
      return false;
    }
    uint64_t Max = Reader.MemProfMax == 3 ? 4 : Reader.MemProfMax;
    if ((MemProf < Reader.MemProfMin && MemProf > 1) || MemProf > Max) {
      Why = "its memory profile is version " + std::to_string(MemProf) +
            (MemProf > Max ? ", newer" : ", older") + " than hmplan reads " +
            "with LLVM " + std::to_string(Reader.LLVMMajor) + " (" +
            std::to_string(Reader.MemProfMin) + " to " + std::to_string(Max) +
            "): merge the raw profiles again with `llvm-profdata merge "
            "--memprof-version=3 --memprof-full-schema` (LLVM 19 and 22 "
            "both write it), or give hmplan the raw profiles";
      return false;
    }
  }
  if (Version <= Reader.Version && !ThreeAt)
    return true;
  Patched = Data.str();
  if (Version > Reader.Version)
    support::endian::write64le(Patched.data() + VersionAt,
                               (Word & ~uint64_t(0xffffffffu)) |
                                   Reader.Version);
  if (ThreeAt)
    writeVersionThree(Patched, *ThreeAt);
  return true;
}

bool isOldMemProf(StringRef Data, const IndexedReader &Reader) {
  std::optional<uint64_t> V = memProfVersion(Data);
  return V && *V <= 1 && *V < Reader.MemProfMin;
}

namespace {

/// Each item of an on-disk chained hash table (llvm/Support/
/// OnDiskHashTable.h: a bucket array at \p Buckets, the items in the order
/// their buckets were written from \p Payload, each a 64-bit hash, key
/// length, data length, key and data): its 64-bit key, and where its data
/// is and how long. False where the table runs past the file, or \p Fn
/// says the data is malformed.
bool eachItem(StringRef Data, uint64_t Buckets, uint64_t Payload,
              function_ref<bool(uint64_t, uint64_t, uint64_t)> Fn) {
  ByteCursor B{Data, Buckets};
  B.next<uint64_t>(); // the number of buckets
  uint64_t Entries = B.next<uint64_t>();
  ByteCursor P{Data, Payload};
  unsigned InBucket = 0;
  for (uint64_t I = 0; I < Entries && !B.Bad; ++I) {
    if (InBucket == 0 && (InBucket = P.next<uint16_t>()) == 0)
      return false;     // only buckets with items are written
    P.next<uint64_t>(); // the hash
    uint64_t KeyLen = P.next<uint64_t>(), Len = P.next<uint64_t>();
    uint64_t Key = P.next<uint64_t>();
    if (P.Bad || KeyLen != 8 || Len > Data.size() - P.At || !Fn(Key, P.At, Len))
      return false;
    P.At += Len;
    --InBucket;
  }
  return !B.Bad;
}

/// Frame ids to frames. Any 64-bit id may come from the file: DenseMap
/// reserves two as markers.
using FrameMap = std::unordered_map<uint64_t, memprof::Frame>;

/// The frames of the frame table: id to frame.
bool readFrames(StringRef Data, uint64_t Table, uint64_t Payload,
                FrameMap &Frames) {
  return eachItem(
      Data, Table, Payload, [&](uint64_t Id, uint64_t At, uint64_t Len) {
        ByteCursor F{Data.take_front(At + Len), At};
        uint64_t Function = F.next<uint64_t>();
        uint32_t LineOffset = F.next<uint32_t>(), Column = F.next<uint32_t>();
        bool Inline = F.next<uint8_t>();
        Frames.try_emplace(
            Id, memprof::Frame(Function, LineOffset, Column, Inline));
        return !F.Bad;
      });
}

} // namespace

// The section (IndexedMemProfReader's deserialization in LLVM 19): version 1
// begins with its version, version 0 without; then the offsets of the
// record table, the frames and the frame table (from the file's start), and
// the schema: the count and the ids of the MemInfoBlock fields written. The
// records follow. A record: its allocation sites (count; for each, its
// frame ids, count first, and the fields of the schema), then its call
// sites, which the advisor does not need.
bool readOldMemProf(
    StringRef Data,
    function_ref<void(uint64_t, ArrayRef<memprof::AllocationInfo>)> Each,
    std::string &Why) {
  Why = "the memory profile (version 0 or 1) is malformed or cut short";
  if (Data.size() < HeaderMin)
    return false;
  uint64_t MemProfAt = wordAt(Data, MemProfOffsetAt);
  ByteCursor C{Data, MemProfAt};
  if (C.next<uint64_t>() > 1)
    C.At = MemProfAt; // version 0: no version word
  uint64_t RecordTable = C.next<uint64_t>();
  uint64_t FramePayload = C.next<uint64_t>();
  uint64_t FrameTable = C.next<uint64_t>();
  uint64_t Fields = C.next<uint64_t>();
  memprof::MemProfSchema Schema;
  for (uint64_t I = 0; I < Fields && !C.Bad; ++I) {
    uint64_t Id = C.next<uint64_t>();
    if (Id == 0 || Id >= uint64_t(memprof::Meta::Size))
      return false;
    Schema.push_back(memprof::Meta(Id));
  }
  if (C.Bad)
    return false;
  FrameMap Frames;
  if (!readFrames(Data, FrameTable, FramePayload, Frames))
    return false;
  size_t InfoSize = memprof::PortableMemInfoBlock::serializedSize(Schema);
  std::vector<memprof::AllocationInfo> Sites;
  bool OK = eachItem(
      Data, RecordTable, C.At, [&](uint64_t GUID, uint64_t At, uint64_t Len) {
        ByteCursor R{Data.take_front(At + Len), At};
        Sites.clear();
        uint64_t N = R.next<uint64_t>();
        for (uint64_t I = 0; I < N && !R.Bad; ++I) {
          memprof::AllocationInfo AI;
          uint64_t Depth = R.next<uint64_t>();
          for (uint64_t J = 0; J < Depth && !R.Bad; ++J) {
            auto It = Frames.find(R.next<uint64_t>());
            if (It == Frames.end())
              return false;
            AI.CallStack.push_back(It->second);
          }
          if (R.Bad || !R.has(InfoSize))
            return false;
          AI.Info.deserialize(
              Schema, reinterpret_cast<const unsigned char *>(R.here()));
          R.At += InfoSize;
          Sites.push_back(std::move(AI));
        }
        if (R.Bad)
          return false;
        Each(GUID, Sites);
        return true;
      });
  if (OK)
    Why.clear();
  return OK;
}

} // namespace hmplace
