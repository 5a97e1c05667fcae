//===- SpellingTest.cpp - the text hmrewrite writes into sources ----------===//
#include "Spelling.h"

#include "hmplace.h"

#include "plan/AllocFns.h"
#include "plan/Kinds.h"

#include "gtest/gtest.h"

using namespace hmplace;

namespace {

SourcePos pos(const char *File, unsigned Line, unsigned Col) {
  SourcePos P;
  P.File = File;
  P.Line = Line;
  P.Column = Col;
  return P;
}

TEST(Spelling, FrameNamesTheFileOnly) {
  // The same text in every checkout: the base name, never the directory.
  EXPECT_EQ(frameText(pos("/home/a/src/main.c", 19, 15), false),
            "HMPLACE_FRAME(\"main.c\", 19, 15)");
  EXPECT_EQ(frameText(pos("/b/main.c", 19, 15), false),
            frameText(pos("/home/a/src/main.c", 19, 15), false));
}

TEST(Spelling, FrameInItsOwnFileSaysLineAndColumn) {
  // Where the note is written in the frame's file, the compiler names it.
  EXPECT_EQ(frameText(pos("/home/a/src/main.c", 19, 15), true),
            "HMPLACE_AT(19, 15)");
}

TEST(Spelling, FrameEscapesQuotesAndBackslashes) {
  EXPECT_EQ(frameText(pos("/d/we\"ird\\.c", 1, 2), false),
            "HMPLACE_FRAME(\"we\\\"ird\\\\.c\", 1, 2)");
  EXPECT_EQ(unquote("\"we\\\"ird\\\\.c\""), "we\"ird\\.c");
}

TEST(Spelling, KindArgumentNamesTheRuntimeConstant) {
  const KindInfo *K = findKind("MEMKIND_HBW");
  ASSERT_NE(K, nullptr);
  EXPECT_EQ(kindArgument(runtimeKindIndex(*K)), "HMPLACE_HBW");
  EXPECT_EQ(kindArgument(-1), "HMPLACE_HEAP");
}

TEST(Spelling, WindowArgumentUsesTheSizeAsWritten) {
  const KindInfo *K = findKind("MEMKIND_HBW");
  ASSERT_NE(K, nullptr);
  std::string W = windowArgument(runtimeKindIndex(*K), {"n * sizeof(double)"},
                                 uint64_t(1) << 20, uint64_t(5) << 20);
  EXPECT_NE(W.find("hmplace_in_window(HMPLACE_HBW"), std::string::npos) << W;
  EXPECT_NE(W.find("n * sizeof(double)"), std::string::npos) << W;
  // calloc's two sizes go to hmplace_in_window2, which multiplies them.
  EXPECT_EQ(windowArgument(runtimeKindIndex(*K), {"n", "8"}, 4096, {}),
            "hmplace_in_window2(HMPLACE_HBW, n, 8, HMPLACE_KiB(4), SIZE_MAX)");
}

TEST(Spelling, WithoutSpaceKeepsStringLiterals) {
  EXPECT_EQ(
      withoutSpace("HMPLACE_CALLER( HMPLACE_FRAME(\"a b.c\", 1,\n 2), f())"),
      "HMPLACE_CALLER(HMPLACE_FRAME(\"a b.c\",1,2),f())");
}

/// What the rewritten call decides at run time (hmplace.h), against what
/// HmPlace.so computes (umul.with.overflow: an overflowing product is out of
/// the window: HMPLACE_OUT_OF_WINDOW_, the ordinary heap's call).
TEST(Spelling, CallocWindowTreatsAnOverflowAsOutside) {
  const size_t Lo = 64 << 10, Hi = 16 << 20;
  EXPECT_EQ(hmplace_in_window2(HMPLACE_HBW, 8192, 8, Lo, Hi), HMPLACE_HBW);
  EXPECT_EQ(hmplace_in_window2(HMPLACE_HBW, 8191, 8, Lo, Hi),
            HMPLACE_OUT_OF_WINDOW_);
  // (2^61 + 8192) * 8 wraps to 64 KiB: inside the window if it wrapped.
  EXPECT_EQ(
      hmplace_in_window2(HMPLACE_HBW, (size_t(1) << 61) + 8192, 8, Lo, Hi),
      HMPLACE_OUT_OF_WINDOW_);
  EXPECT_EQ(hmplace_in_window2(HMPLACE_HBW, SIZE_MAX, 0, 0, Hi), HMPLACE_HBW);
}

} // namespace
