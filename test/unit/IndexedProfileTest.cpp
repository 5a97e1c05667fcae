//===- IndexedProfileTest.cpp - another LLVM's indexed profiles -----------===//
//
// fitIndexedProfile on indexed profile headers as LLVM 19's and 22's
// llvm-profdata write them: a newer header of a known layout is read as the
// reader's own version (its variant flags kept), a memory profile section of
// a version the reader does not know is refused with the versions it reads,
// and a header newer than any hmplan knows is refused.
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
  EXPECT_FALSE(fitIndexedProfile(profile(13, 4), LLVM19, Patched, Why));
  EXPECT_NE(Why.find("version 4, newer than LLVM 19"), std::string::npos);
  EXPECT_NE(Why.find("(0 to 3)"), std::string::npos);
  EXPECT_NE(Why.find("--memprof-version=3"), std::string::npos);
}

TEST(IndexedProfile, MemProfVersionZeroIsAnOffset) {
  // Version 0 (LLVM 19's default) begins with its record table's offset.
  std::string Patched, Why;
  EXPECT_TRUE(fitIndexedProfile(profile(12, 1008), LLVM19, Patched, Why));
  EXPECT_FALSE(fitIndexedProfile(profile(12, 1008), LLVM22, Patched, Why));
  EXPECT_NE(Why.find("version 0, older than LLVM 22"), std::string::npos);
  EXPECT_NE(Why.find("(2 to 4)"), std::string::npos);
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
}

} // namespace
