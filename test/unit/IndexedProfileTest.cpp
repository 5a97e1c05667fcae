//===- IndexedProfileTest.cpp - another LLVM's indexed profiles -----------===//
//
// fitIndexedProfile on indexed profile headers as LLVM 19's and 22's
// llvm-profdata write them: a newer header of a known layout is read as the
// reader's own version (its variant flags kept), LLVM 22's memory profile
// version 4 as version 3 for LLVM 19 (its header moved to where the summary
// ends; one whose summary runs past the end refused), a memory profile
// section newer than that is refused with the versions it reads, one of
// version 0 or 1 that the reader dropped goes to readOldMemProf, and a
// header newer than any hmplan knows is refused. readOldMemProf on a
// section written here byte by byte: its record with frames and fields,
// and every shorter copy of it refused without a crash.
//
//===----------------------------------------------------------------------===//
#include "IndexedProfile.h"

#include "llvm/Support/Endian.h"

#include "gtest/gtest.h"

#include <string>

using namespace hmplace;
using llvm::support::endian::read64le;
using llvm::support::endian::write64le;

namespace {

constexpr uint64_t MemProfFlag = uint64_t(1) << 62; // a variant flag
constexpr IndexedReader LLVM19 = {19, 12, 0, 3};
constexpr IndexedReader LLVM22 = {22, 13, 2, 4};

/// A header of \p Version whose memory profile section begins with
/// \p FirstWord (a version, or version 0's offset), then some bytes.
std::string profile(uint64_t Version, uint64_t FirstWord) {
  std::string P(128, '\0');
  write64le(&P[0], 0x8169666f72706cffULL); // the indexed magic
  write64le(&P[8], Version | MemProfFlag);
  write64le(&P[40], 64); // the memory profile's offset
  write64le(&P[64], FirstWord);
  return P;
}

TEST(IndexedProfile, NewerHeaderReadAsTheReadersOwn) {
  std::string P = profile(13, 3), Patched, Why;
  ASSERT_TRUE(fitIndexedProfile(P, LLVM19, Patched, Why)) << Why;
  ASSERT_EQ(Patched.size(), P.size());
  EXPECT_EQ(read64le(&Patched[8]), 12 | MemProfFlag);
  EXPECT_EQ(Patched.substr(16), P.substr(16));
}

TEST(IndexedProfile, OwnOrOlderHeaderReadAsItIs) {
  std::string Patched, Why;
  EXPECT_TRUE(fitIndexedProfile(profile(12, 2), LLVM19, Patched, Why));
  EXPECT_TRUE(Patched.empty());
  EXPECT_TRUE(fitIndexedProfile(profile(13, 4), LLVM22, Patched, Why));
  EXPECT_TRUE(Patched.empty());
  EXPECT_TRUE(fitIndexedProfile(profile(12, 3), LLVM22, Patched, Why));
  EXPECT_TRUE(Patched.empty());
}

TEST(IndexedProfile, MemProfNewerThanTheReaderRefused) {
  std::string Patched, Why;
  EXPECT_FALSE(fitIndexedProfile(profile(13, 5), LLVM19, Patched, Why));
  EXPECT_NE(Why.find("version 5, newer than hmplan reads with LLVM 19"),
            std::string::npos);
  EXPECT_NE(Why.find("(0 to 4)"), std::string::npos);
  EXPECT_NE(Why.find("--memprof-version=3"), std::string::npos);
  EXPECT_FALSE(fitIndexedProfile(profile(13, 5), LLVM22, Patched, Why));
  EXPECT_NE(Why.find("version 5, newer than hmplan reads with LLVM 22"),
            std::string::npos);
  EXPECT_NE(Why.find("(2 to 4)"), std::string::npos);
}

TEST(IndexedProfile, MemProfFourReadAsThreeByLLVM19) {
  // Version 4: version, four offsets, a summary of two fields, the schema.
  std::string P = profile(13, 4);
  for (unsigned I = 1; I <= 4; ++I)
    write64le(&P[64 + 8 * I], 1000 + I);
  llvm::support::endian::write32le(&P[104], 2);
  write64le(&P[108], 0x5151), write64le(&P[116], 0x5252); // to 124
  std::string Patched, Why;
  ASSERT_TRUE(fitIndexedProfile(P, LLVM19, Patched, Why)) << Why;
  ASSERT_EQ(Patched.size(), P.size());
  EXPECT_EQ(read64le(&Patched[8]), 12 | MemProfFlag);
  // Version 3's header ends where the summary ended: version, the offsets
  // of the call stacks, the records' payload and their table.
  uint64_t Start = read64le(&Patched[40]);
  ASSERT_EQ(Start, 124u - 32);
  EXPECT_EQ(read64le(&Patched[Start]), 3u);
  for (unsigned I = 1; I <= 3; ++I)
    EXPECT_EQ(read64le(&Patched[Start + 8 * I]), 1000 + I);
  // LLVM 22 reads it as it is.
  EXPECT_TRUE(fitIndexedProfile(P, LLVM22, Patched, Why));
  EXPECT_TRUE(Patched.empty());
}

TEST(IndexedProfile, MemProfFourWithItsSummaryCutRefused) {
  std::string P = profile(13, 4), Patched, Why;
  llvm::support::endian::write32le(&P[104], 3); // 24 bytes from 108: 132
  EXPECT_FALSE(fitIndexedProfile(P, LLVM19, Patched, Why));
  EXPECT_NE(Why.find("version 4) is cut short"), std::string::npos);
  llvm::support::endian::write32le(&P[104], 0xffffffff);
  EXPECT_FALSE(fitIndexedProfile(P, LLVM19, Patched, Why));
}

TEST(IndexedProfile, MemProfVersionsZeroAndOneReadByHmplan) {
  // Version 0 (LLVM 19's default) begins with its record table's offset.
  std::string Patched, Why;
  EXPECT_TRUE(fitIndexedProfile(profile(12, 1008), LLVM19, Patched, Why));
  EXPECT_FALSE(isOldMemProf(profile(12, 1008), LLVM19));
  EXPECT_TRUE(fitIndexedProfile(profile(12, 1008), LLVM22, Patched, Why));
  EXPECT_TRUE(isOldMemProf(profile(12, 1008), LLVM22));
  EXPECT_TRUE(isOldMemProf(profile(12, 1), LLVM22));
  EXPECT_FALSE(isOldMemProf(profile(12, 2), LLVM22));
  EXPECT_FALSE(isOldMemProf(profile(13, 4), LLVM22));
}

/// Little-endian words and halves appended to a profile being written.
struct Writer {
  std::string S;
  void u64(uint64_t V) {
    S.append(8, '\0');
    write64le(&S[S.size() - 8], V);
  }
  void u32(uint32_t V) {
    S.append(4, '\0');
    llvm::support::endian::write32le(&S[S.size() - 4], V);
  }
  void u16(uint16_t V) {
    S.append(2, '\0');
    llvm::support::endian::write16le(&S[S.size() - 2], V);
  }
  size_t at() const { return S.size(); }
};

/// An indexed profile with a version-0 memory profile: one function
/// (GUID 77) with one allocation site of two frames, AllocCount and
/// TotalSize in its schema.
std::string versionZeroProfile() {
  Writer W;
  W.u64(0x8169666f72706cffULL);
  W.u64(12 | MemProfFlag);
  W.u64(0), W.u64(0), W.u64(0);
  W.u64(64); // the memory profile's offset
  W.u64(0), W.u64(0);
  size_t Offsets = W.at();
  W.u64(0), W.u64(0), W.u64(0); // record table, frame payload, frame table
  W.u64(2), W.u64(1), W.u64(5); // schema: AllocCount, TotalSize
  size_t Records = W.at();
  W.u16(1), W.u64(77), W.u64(8), W.u64(8 + 8 + 16 + 4 + 8 + 8);
  W.u64(77); // the key: the function's GUID
  W.u64(1);  // one allocation site
  W.u64(2);  // two frames
  W.u64(11), W.u64(12);
  W.u32(3);    // AllocCount
  W.u64(4096); // TotalSize
  W.u64(0);    // no call sites
  size_t FramePayload = W.at();
  W.u16(2);
  W.u64(11), W.u64(8), W.u64(17), W.u64(11);
  W.u64(0xaa), W.u32(3), W.u32(5), W.S.push_back(0);
  W.u64(12), W.u64(8), W.u64(17), W.u64(12);
  W.u64(0xbb), W.u32(7), W.u32(2), W.S.push_back(1);
  size_t RecordTable = W.at();
  W.u64(1), W.u64(1), W.u64(Records);
  size_t FrameTable = W.at();
  W.u64(1), W.u64(2), W.u64(FramePayload);
  write64le(&W.S[Offsets], RecordTable);
  write64le(&W.S[Offsets + 8], FramePayload);
  write64le(&W.S[Offsets + 16], FrameTable);
  return W.S;
}

TEST(IndexedProfile, VersionZeroRecordRead) {
  std::string P = versionZeroProfile(), Why;
  ASSERT_TRUE(isOldMemProf(P, LLVM22));
  unsigned Records = 0;
  ASSERT_TRUE(readOldMemProf(
      P,
      [&](uint64_t GUID, llvm::ArrayRef<llvm::memprof::AllocationInfo> Sites) {
        ++Records;
        EXPECT_EQ(GUID, 77u);
        ASSERT_EQ(Sites.size(), 1u);
        const auto &AI = Sites[0];
        ASSERT_EQ(AI.CallStack.size(), 2u);
        EXPECT_EQ(AI.CallStack[0].Function, 0xaau);
        EXPECT_EQ(AI.CallStack[0].LineOffset, 3u);
        EXPECT_EQ(AI.CallStack[0].Column, 5u);
        EXPECT_FALSE(AI.CallStack[0].IsInlineFrame);
        EXPECT_EQ(AI.CallStack[1].Function, 0xbbu);
        EXPECT_TRUE(AI.CallStack[1].IsInlineFrame);
        EXPECT_EQ(AI.Info.getAllocCount(), 3u);
        EXPECT_EQ(AI.Info.getTotalSize(), 4096u);
      },
      Why))
      << Why;
  EXPECT_EQ(Records, 1u);
}

TEST(IndexedProfile, VersionZeroCutShortOrCorruptRefused) {
  std::string P = versionZeroProfile(), Why;
  auto Ignore = [](uint64_t, llvm::ArrayRef<llvm::memprof::AllocationInfo>) {};
  // Every shorter copy past the header: refused, never a crash. (The last
  // 8 bytes, the frame table's bucket array, are not needed to walk its
  // items, which is all the reader does.)
  for (size_t N = 48; N < P.size() - 8; ++N)
    EXPECT_FALSE(readOldMemProf(P.substr(0, N), Ignore, Why)) << N;
  EXPECT_NE(Why.find("malformed or cut short"), std::string::npos);
  // A frame id the frame table lacks.
  std::string Bad = P;
  size_t At = Bad.find(std::string("\x0b\0\0\0\0\0\0\0\x0c", 9));
  ASSERT_NE(At, std::string::npos);
  Bad[At] = 13;
  EXPECT_FALSE(readOldMemProf(Bad, Ignore, Why));
}

TEST(IndexedProfile, HeaderNewerThanAnyKnownRefused) {
  std::string Patched, Why;
  EXPECT_FALSE(fitIndexedProfile(profile(14, 3), LLVM22, Patched, Why));
  EXPECT_NE(Why.find("indexed version 14; this hmplan reads up to 13"),
            std::string::npos);
  EXPECT_TRUE(Patched.empty());
}

TEST(IndexedProfile, ShortOrSectionlessLeftToTheReader) {
  std::string Patched, Why;
  EXPECT_TRUE(fitIndexedProfile(std::string(20, '\0'), LLVM19, Patched, Why));
  std::string P = profile(12, 3);
  write64le(&P[40], 0); // no memory profile: the reader says so
  EXPECT_TRUE(fitIndexedProfile(P, LLVM22, Patched, Why));
  write64le(&P[40], 4096); // past the end
  EXPECT_TRUE(fitIndexedProfile(P, LLVM22, Patched, Why));
  write64le(&P[40], ~uint64_t(3)); // past the end, and wrapping past zero
  EXPECT_TRUE(fitIndexedProfile(P, LLVM22, Patched, Why));
  EXPECT_FALSE(isOldMemProf(P, LLVM22));
}

} // namespace
