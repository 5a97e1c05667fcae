//===- IndexedProfile.cpp - another LLVM's indexed profiles ---------------===//
#include "IndexedProfile.h"

#include "llvm/Support/Endian.h"

#include <algorithm>

using namespace llvm;

namespace hmplace {

namespace {
// The header's fields (IndexedInstrProf::Header, native byte order): magic,
// version (low 32 bits; the high ones are variant flags), unused, hash type,
// hash table offset, memory profile offset, ...
constexpr size_t VersionAt = 8, MemProfOffsetAt = 40, HeaderMin = 48;

uint64_t word(StringRef Data, size_t At) {
  return support::endian::read64le(Data.data() + At);
}
} // namespace

/// The memory profile section's version: its first word (version 0 has no
/// version there but an offset, which is past the header).
static uint64_t memProfVersion(StringRef Data, uint64_t At) {
  uint64_t First = word(Data, At);
  return First < HeaderMin ? First : 0;
}

bool fitIndexedProfile(StringRef Data, const IndexedReader &Reader,
                       std::string &Patched, std::string &Why) {
  Patched.clear();
  if (Data.size() < HeaderMin)
    return true; // the reader says what is wrong with it
  uint64_t Word = word(Data, VersionAt);
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
  uint64_t MemProfAt = word(Data, MemProfOffsetAt);
  if (MemProfAt && MemProfAt + 8 <= Data.size()) {
    uint64_t MemProf = memProfVersion(Data, MemProfAt);
    if (MemProf < Reader.MemProfMin || MemProf > Reader.MemProfMax) {
      Why = "its memory profile is version " + std::to_string(MemProf) +
            (MemProf > Reader.MemProfMax ? ", newer" : ", older") +
            " than LLVM " + std::to_string(Reader.LLVMMajor) +
            ", which this hmplan was built with, reads (" +
            std::to_string(Reader.MemProfMin) + " to " +
            std::to_string(Reader.MemProfMax) +
            "): merge the raw profiles again with `llvm-profdata merge "
            "--memprof-version=3 --memprof-full-schema` (LLVM 19 and 22 "
            "both write it), or give hmplan the raw profiles";
      return false;
    }
  }
  if (Version <= Reader.Version)
    return true;
  Patched = Data.str();
  support::endian::write64le(Patched.data() + VersionAt,
                             (Word & ~uint64_t(0xffffffffu)) | Reader.Version);
  return true;
}

} // namespace hmplace
