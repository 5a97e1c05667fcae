//===- FrameHashTest.cpp - the three frame-name hashes agree --------------===//
//
// A call-stack entry's frames are compared at run time by id; the id's high
// half hashes the frame's file name. Three codes compute it: the tools
// (contextNameHash, tool/plan), the runtime (hmplace_name_hash, for names
// over 64 bytes and for tables) and hmplace.h's constant-expression macro
// (HMPLACE_NAME_HASH_, which rewritten C and C++ sources expand). They must
// agree for every name: short, exactly 64 and 65 bytes (the macro's limit),
// long, upper case (the hash is case-insensitive), with directories (only
// the base name counts for the tools and the runtime; the rewriter writes
// the base name into the macro).
//
//===----------------------------------------------------------------------===//
#include "plan/Context.h"

#include "hmplace.h"

#include "gtest/gtest.h"

#include <string>

using namespace hmplace;

namespace {

// The macro takes a string literal: one per length under test.
#define NAME1 "a"
#define NAME63 "abcdefghijklmnopqrstuvwxyz0123456789abcdefghijklmnopqrstuvwxy.c"
#define NAME64                                                                 \
  "abcdefghijklmnopqrstuvwxyz0123456789abcdefghijklmnopqrstuvwxyz.c"
#define NAME65                                                                 \
  "abcdefghijklmnopqrstuvwxyz0123456789abcdefghijklmnopqrstuvwxyza.c"
#define NAME200                                                                \
  "a_very_long_generated_source_file_name_that_an_autotools_or_cmake_build_"   \
  "might_produce_for_a_templated_kernel_instantiation_of_some_physics_"        \
  "module_with_many_parameters_and_variants_0123456789.cpp"
#define UPPER "Solver_MAIN.F90"

TEST(FrameHash, MacroLiteralLengthsAreWhatTheTestSays) {
  EXPECT_EQ(sizeof(NAME63) - 1, 63u);
  EXPECT_EQ(sizeof(NAME64) - 1, 64u);
  EXPECT_EQ(sizeof(NAME65) - 1, 65u);
  EXPECT_GT(sizeof(NAME200) - 1, 128u);
}

#define EXPECT_THREE_AGREE(lit)                                                \
  do {                                                                         \
    uint32_t Tools = contextNameHash(lit);                                     \
    EXPECT_EQ(Tools, hmplace_name_hash(lit)) << lit;                           \
    EXPECT_EQ(Tools, (uint32_t)HMPLACE_NAME_HASH_(lit)) << lit;                \
  } while (0)

TEST(FrameHash, ToolsRuntimeAndMacroAgree) {
  EXPECT_THREE_AGREE(NAME1);
  EXPECT_THREE_AGREE(NAME63);
  EXPECT_THREE_AGREE(NAME64);
  EXPECT_THREE_AGREE(NAME65);
  EXPECT_THREE_AGREE(NAME200);
  EXPECT_THREE_AGREE(UPPER);
}

TEST(FrameHash, CaseInsensitiveAndBaseNameOnly) {
  EXPECT_EQ(contextNameHash("solver_main.f90"), contextNameHash(UPPER));
  EXPECT_EQ(contextNameHash("/home/u/src/" UPPER), contextNameHash(UPPER));
  EXPECT_EQ(hmplace_name_hash("../src/" NAME200), hmplace_name_hash(NAME200));
  EXPECT_EQ(contextNameHash("src/" NAME200),
            (uint32_t)HMPLACE_NAME_HASH_(NAME200));
}

TEST(FrameHash, DistinguishesNamesThatDifferLate) {
  // Names that differ only in their last bytes (a 200-byte name's tail):
  // the macro's 64 terms alone would not see it; the runtime's loop must.
  std::string A = NAME200, B = NAME200;
  B[B.size() - 5] = 'X';
  EXPECT_NE(hmplace_name_hash(A.c_str()), hmplace_name_hash(B.c_str()));
  EXPECT_EQ(contextNameHash(B), hmplace_name_hash(B.c_str()));
}

TEST(FrameHash, FrameIdsOfOnePlaceAgree) {
  uint64_t Macro = HMPLACE_FRAME(NAME200, 19, 15);
  EXPECT_EQ(contextFrameId("/x/" NAME200, 19, 15), Macro);
  EXPECT_TRUE(contextFrameMatches(Macro, contextFrameId(NAME200, 19, 0)));
  EXPECT_FALSE(contextFrameMatches(Macro, contextFrameId(NAME200, 20, 0)));
}

TEST(FrameHash, HereIsThisFilesFrame) {
  // HMPLACE_AT takes the file from the compiler: this file's name, as the
  // tools name a frame in it (from __FILE_NAME__, or the runtime's hash of
  // __FILE__'s last component).
  uint64_t Here = HMPLACE_AT(19, 15);
  EXPECT_EQ(contextFrameId(__FILE__, 19, 15), Here);
  EXPECT_EQ(HMPLACE_FRAME("FrameHashTest.cpp", 19, 15), Here);
}

} // namespace
