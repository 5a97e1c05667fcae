//===- IndexedLayout.cpp - an indexed profile checked before LLVM reads it ===//
//
// The layout (LLVM 19's and 22's IndexedInstrProfReader::readHeader and
// IndexedMemProfReader::deserialize): a header of 5 to 9 words by version;
// from version 4 a summary (field and entry counts, 8 bytes a field, 24 an
// entry), two with the context-sensitive variant; the counts' on-disk hash
// table at HashOffset (bucket and entry counts, then a word per bucket,
// each bucket a count and its items: a hash, the key's and data's lengths,
// the key and the data); with the memory profile variant, at MemProfOffset
// its version (version 0 none), its offsets, (version 4) its summary, its
// schema (a count and a word per field), its record table and (versions 0
// to 2) its frame and call stack tables (hash tables as the counts'); from
// version 9 the binary ids (a length, then the ids), from 12 the virtual table
// names (a length, then the names).
//
//===----------------------------------------------------------------------===//
#include "IndexedLayout.h"
#include "ProfileBytes.h"

#include "llvm/ProfileData/MemProf.h"
#include "llvm/Support/Endian.h"

#include <cstdint>
#include <optional>

using namespace llvm;

namespace hmplace {

namespace {
constexpr uint64_t CSVariant = 1ULL << 57, MemProfVariant = 1ULL << 62;

/// The profile's bytes, and the first problem found in them.
struct Layout {
  StringRef Data;
  std::string &Why;

  bool fail(const std::string &What) {
    if (Why.empty())
      Why = "it is corrupt or cut short: " + What + " (the file has " +
            std::to_string(Data.size()) + " bytes)";
    return false;
  }
  /// Whether \p N bytes from \p At are in the file.
  bool has(uint64_t At, uint64_t N) const {
    return inBytes(Data.size(), At, N);
  }
  uint64_t word(uint64_t At) const { return wordAt(Data, At); }
  /// The word at \p At, or a failure naming \p What.
  bool word(uint64_t At, uint64_t &Out, const std::string &What) {
    if (!has(At, 8))
      return fail(What + " at byte " + std::to_string(At) + " is past the end");
    Out = word(At);
    return true;
  }

  /// Versions 3 and 4 (IndexedMemProfReader::deserializeV3): the frames,
  /// 17 bytes each, from the schema's end to the call stacks; the call
  /// stacks' radix tree of 32-bit entries from there to the records; the
  /// size of a record's MemInfoBlock by the schema. Set: records are walked.
  struct Linear {
    uint64_t Frames = 0, StackAt = 0, StackEnd = 0, InfoSize = 0;
  };
  std::optional<Linear> Arrays;

  bool summary(uint64_t &At, const char *Which);
  bool table(uint64_t At, const std::string &What, bool KeyLengths = true);
  bool items(uint64_t Off, const std::string &What, bool KeyLengths);
  bool lengthAt(uint64_t At, const std::string &What);
  bool memProf(uint64_t At);
  bool schema(uint64_t &At, uint64_t &InfoSize);
  bool linearArrays(uint64_t At, uint64_t FrameAt, uint64_t InfoSize);
  bool record(uint64_t At, uint64_t Len);
  bool callStack(uint64_t Id);
};

/// The header's size for \p Version (IndexedInstrProf::Header::size()).
uint64_t headerSize(uint64_t Version) {
  if (Version >= 12)
    return 9 * 8;
  if (Version >= 10)
    return 8 * 8;
  if (Version == 9)
    return 7 * 8;
  if (Version == 8)
    return 6 * 8;
  return 5 * 8;
}

bool Layout::summary(uint64_t &At, const char *Which) {
  uint64_t Fields, Entries;
  if (!word(At, Fields, std::string(Which) + "'s field count") ||
      !word(At + 8, Entries, std::string(Which) + "'s entry count"))
    return false;
  uint64_t Room = Data.size() - At - 16;
  if (Fields > Room / 8 || Entries > (Room - 8 * Fields) / 24)
    return fail(std::string(Which) + " of " + std::to_string(Fields) +
                " fields and " + std::to_string(Entries) +
                " entries runs past the end");
  At += 16 + 8 * Fields + 24 * Entries;
  return true;
}

bool Layout::table(uint64_t At, const std::string &What, bool KeyLengths) {
  uint64_t Buckets, Entries;
  if (!word(At, Buckets, What + "'s bucket count") ||
      !word(At + 8, Entries, What + "'s entry count"))
    return false;
  if (Buckets == 0 || (Buckets & (Buckets - 1)) ||
      Buckets > (Data.size() - At - 16) / 8)
    return fail(What + "'s " + std::to_string(Buckets) +
                " buckets are no power of two within the file");
  if (Entries > Data.size())
    return fail(What + " claims " + std::to_string(Entries) + " entries");
  for (uint64_t B = 0; B < Buckets; ++B) {
    uint64_t Off = word(At + 16 + 8 * B);
    if (Off && !items(Off, What + "'s bucket " + std::to_string(B), KeyLengths))
      return false;
  }
  return true;
}

bool Layout::items(uint64_t Off, const std::string &What, bool KeyLengths) {
  // A bucket: a 16-bit count, then its items, each a 64-bit hash, the key's
  // (where the key's length varies) and the data's lengths (64-bit each),
  // the key and the data.
  ByteCursor C{Data, Off};
  unsigned Count = C.next<uint16_t>();
  for (unsigned I = 0; I < Count && !C.Bad; ++I) {
    C.next<uint64_t>();
    uint64_t KeyLen = KeyLengths ? C.next<uint64_t>() : 8;
    uint64_t DataLen = C.next<uint64_t>();
    if (!C.Bad && (!C.has(KeyLen) || !C.skip(KeyLen) || !C.has(DataLen)))
      return fail(What + "'s item " + std::to_string(I + 1) + " (" +
                  std::to_string(KeyLen) + " and " + std::to_string(DataLen) +
                  " bytes) runs past the end");
    if (Arrays && !C.Bad && !record(C.At, DataLen))
      return false;
    C.skip(DataLen);
  }
  if (C.Bad)
    return fail(What + " at byte " + std::to_string(Off) +
                " runs past the end");
  return true;
}

bool Layout::lengthAt(uint64_t At, const std::string &What) {
  uint64_t Len;
  if (!word(At, Len, What + "'s length"))
    return false;
  if (!has(At + 8, Len))
    return fail(What + " of " + std::to_string(Len) +
                " bytes runs past the end");
  return true;
}

bool Layout::schema(uint64_t &At, uint64_t &InfoSize) {
  uint64_t Count;
  if (!word(At, Count, "the memory profile's schema"))
    return false;
  if (Count > (Data.size() - At - 8) / 8)
    return fail("the memory profile's schema of " + std::to_string(Count) +
                " fields runs past the end");
  memprof::MemProfSchema Schema;
  for (uint64_t I = 0; I < Count; ++I) {
    uint64_t Id = word(At + 8 + 8 * I);
    if (Id == 0 || Id >= uint64_t(memprof::Meta::Size)) // 0: Meta::Start
      return fail("the memory profile's schema names field " +
                  std::to_string(Id) + ", which LLVM does not know");
    Schema.push_back(memprof::Meta(Id));
  }
  InfoSize = memprof::PortableMemInfoBlock::serializedSize(Schema);
  At += 8 + 8 * Count;
  return true;
}

bool Layout::linearArrays(uint64_t At, uint64_t FrameAt, uint64_t InfoSize) {
  // The offsets after the version: the call stacks', the records', ...
  uint64_t StackAt = word(At + 8), RecordAt = word(At + 16);
  if (FrameAt > StackAt || StackAt > RecordAt || RecordAt > Data.size())
    return fail("the memory profile's frames (byte " + std::to_string(FrameAt) +
                "), call stacks (" + std::to_string(StackAt) +
                ") and records (" + std::to_string(RecordAt) +
                ") are out of order or past the end");
  constexpr uint64_t FrameSize = 8 + 4 + 4 + 1; // GUID, line, column, inline
  Arrays = Linear{(StackAt - FrameAt) / FrameSize, StackAt, RecordAt, InfoSize};
  return true;
}

bool Layout::record(uint64_t At, uint64_t Len) {
  // Its allocation sites (a count, then each one's call stack id and
  // MemInfoBlock), then its call sites (a count, then their ids).
  ByteCursor R{Data.take_front(At + Len), At};
  uint64_t Sites = R.next<uint64_t>();
  for (uint64_t I = 0; I < Sites && !R.Bad; ++I) {
    uint32_t Id = R.next<uint32_t>();
    if (R.skip(Arrays->InfoSize) && !callStack(Id))
      return false;
  }
  uint64_t Calls = R.next<uint64_t>();
  for (uint64_t I = 0; I < Calls && !R.Bad; ++I)
    if (uint32_t Id = R.next<uint32_t>(); !R.Bad && !callStack(Id))
      return false;
  if (R.Bad)
    return fail("a memory profile record at byte " + std::to_string(At) +
                " runs past its " + std::to_string(Len) + " bytes");
  return true;
}

bool Layout::callStack(uint64_t Id) {
  // LinearCallStackIdConverter: a frame count, then per frame its id, or a
  // negative step forward to it (the radix tree shares callers' frames).
  const Linear &L = *Arrays;
  uint64_t Words = (L.StackEnd - L.StackAt) / 4;
  auto Bad = [&](const char *What) {
    return fail("the memory profile's call stack " + std::to_string(Id) + " " +
                What);
  };
  if (Id >= Words)
    return Bad("begins past the call stacks");
  uint64_t Pos = Id + 1;
  uint32_t N = support::endian::read32le(Data.data() + L.StackAt + 4 * Id);
  if (N > Words - Pos)
    return Bad("has more frames than the call stacks hold");
  for (uint32_t K = 0; K < N; ++K, ++Pos) {
    if (Pos >= Words)
      return Bad("runs past the call stacks");
    int32_t E =
        int32_t(support::endian::read32le(Data.data() + L.StackAt + 4 * Pos));
    if (E < 0) { // the walk goes on from where the step leads
      uint64_t Step = uint64_t(-int64_t(E));
      if (Step >= Words - Pos)
        return Bad("steps past the call stacks");
      Pos += Step;
      E = int32_t(support::endian::read32le(Data.data() + L.StackAt + 4 * Pos));
    }
    if (E < 0 || uint64_t(E) >= L.Frames)
      return Bad("names a frame the profile does not hold");
  }
  return true;
}

bool Layout::memProf(uint64_t At) {
  uint64_t First;
  if (!word(At, First, "the memory profile's version"))
    return false;
  // Version 0 has no version word: its first is an offset, at least 24.
  uint64_t Version = First >= 24 ? 0 : First;
  if (Version > 4)
    return fail("the memory profile's version is " + std::to_string(Version));
  // The offsets after the version: 0 and 1 three (0's first is the version
  // word itself), 2 five, 3 three, 4 four.
  static const unsigned Offsets[] = {2, 3, 5, 3, 4};
  uint64_t Cur = At + 8;
  for (unsigned I = 0; I < Offsets[Version]; ++I, Cur += 8) {
    uint64_t Off;
    if (!word(Cur, Off, "a memory profile offset"))
      return false;
    if (Off > Data.size())
      return fail("a memory profile offset (" + std::to_string(Off) +
                  ") is past the end");
  }
  if (Version == 4) { // its summary: a 32-bit count, then the fields
    if (!has(Cur, 4))
      return fail("the memory profile's summary is past the end");
    uint64_t Fields = support::endian::read32le(Data.data() + Cur);
    if (Fields > (Data.size() - Cur - 4) / 8)
      return fail("the memory profile's summary runs past the end");
    Cur += 4 + 8 * Fields;
  }
  uint64_t InfoSize;
  if (!schema(Cur, InfoSize))
    return false;
  if (Version >= 3 && !linearArrays(At, Cur, InfoSize))
    return false;
  // The record table's header: in versions 0-2 the first offset, in 3 and 4
  // the third.
  uint64_t Records = Version == 0 ? First : word(At + (Version <= 2 ? 8 : 24));
  if (!table(Records, "the memory profile's record table"))
    return false;
  // Versions 0 to 2: the frames' table after the record table's offset and
  // the frames' payload; version 2: the call stacks' two more on (its keys
  // are 8 bytes, their length not written). Versions 3 and 4 hold them as
  // arrays, walked from the records (record()).
  uint64_t Offsets0 = Version == 0 ? At : At + 8;
  if (Version <= 2 &&
      !table(word(Offsets0 + 16), "the memory profile's frame table"))
    return false;
  if (Version == 2 &&
      !table(word(Offsets0 + 32), "the memory profile's call stack table",
             /*KeyLengths=*/false))
    return false;
  return true;
}

} // namespace

bool checkIndexedLayout(StringRef Data, std::string &Why) {
  Layout L{Data, Why};
  if (!L.has(0, 16))
    return L.fail("no header");
  uint64_t Word = L.word(8), Version = Word & 0xffffffffu;
  uint64_t At = headerSize(Version);
  if (!L.has(0, At))
    return L.fail("its header (version " + std::to_string(Version) + ", " +
                  std::to_string(At) + " bytes) is past the end");
  if (Version >= 4 && !L.summary(At, "the summary"))
    return false;
  if (Version >= 4 && (Word & CSVariant) &&
      !L.summary(At, "the context-sensitive summary"))
    return false;
  if (!L.table(L.word(32), "the counts' hash table"))
    return false;
  if (Version >= 8 && (Word & MemProfVariant) && !L.memProf(L.word(40)))
    return false;
  if (Version >= 9 && !L.lengthAt(L.word(48), "the binary ids"))
    return false;
  if (Version >= 12 && !L.lengthAt(L.word(64), "the virtual table names"))
    return false;
  return true;
}

} // namespace hmplace
