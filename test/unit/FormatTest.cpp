//===- FormatTest.cpp - rewritten lines in the tree's format --------------===//
//
// hmrewrite breaks a rewritten statement that exceeds the column limit where
// clang-format does, with `#line` after it, only where no call moves but
// those it placed (a rerun finds them in the statement joined again), and
// keeps the line's own spacing and indentation (a tree clang-format would
// respace, three-space code, a function's brace on a line of its own); it
// leaves a line whole (and says why) where a break would move a call or
// clang-format would change more than whitespace; a statement clang-format
// would re-indent with its block is broken at its own depth; a rerun joins
// a statement it broke once it fits again, its spacing kept.
//
//===----------------------------------------------------------------------===//
#include "Format.h"

#include "gtest/gtest.h"

#include <cstring>
#include <string>
#include <vector>

using namespace hmplace;

namespace {

/// \p Text with the rewrite's text at \p Needle (its length) formatted.
Formatted format(const std::string &Text, const std::string &Needle,
                 unsigned Length, std::string &Out) {
  size_t At = Text.find(Needle);
  EXPECT_NE(At, std::string::npos) << Needle;
  std::pair<unsigned, unsigned> Changed(unsigned(At), unsigned(At + Length));
  Formatted F = formatRewrittenLines("t.c", Text, {Changed},
                                     clang::format::getLLVMStyle());
  auto New = clang::tooling::applyAllReplacements(Text, F.Reps);
  EXPECT_TRUE(bool(New));
  Out = New ? *New : "";
  return F;
}

/// \p In's rewritten line 3 (its hmplace_malloc call) is left whole, for a
/// reason that says \p Why.
void expectLeftWhole(const std::string &In, const char *Why) {
  std::string Out;
  Formatted F = format(In, "hmplace_malloc", 14, Out);
  EXPECT_EQ(F.Broken, 0u);
  ASSERT_EQ(F.Left.size(), 1u);
  EXPECT_EQ(F.Left[0].Line, 3u);
  EXPECT_NE(F.Left[0].Why.find(Why), std::string::npos) << F.Left[0].Why;
  EXPECT_EQ(Out, In);
}

const char *Head = "void *f(unsigned long n);\n"
                   "void g(void) {\n";

TEST(Format, LongLineBrokenWithLineAfter) {
  std::string In = std::string(Head) +
                   "  double *p = (double *)hmplace_malloc(HMPLACE_HBW_"
                   "PREFERRED, 1000 * sizeof(double) + 64 * 64);\n"
                   "  (void)p;\n}\n";
  std::string Out;
  Formatted F = format(In, "hmplace_malloc", 40, Out);
  EXPECT_EQ(F.Broken, 1u);
  EXPECT_TRUE(F.Left.empty());
  EXPECT_NE(
      Out.find("  double *p = (double *)hmplace_malloc(HMPLACE_HBW_PREFERRED,\n"
               "                                       1000 * sizeof(double) + "
               "64 * 64);\n#line 4\n  (void)p;\n"),
      std::string::npos)
      << Out;
}

TEST(Format, LineWithinLimitUntouched) {
  std::string In =
      std::string(Head) + "  void *p = hmplace_malloc(HMPLACE_HBW, 8);\n}\n";
  std::string Out;
  Formatted F = format(In, "hmplace_malloc", 14, Out);
  EXPECT_TRUE(F.Reps.empty());
  EXPECT_EQ(Out, In);
}

TEST(Format, BreakThatMovesACallLeavesTheLine) {
  // clang-format would put f(...) on a line of its own: its line would
  // change, and a plan names calls by line.
  std::string In = std::string(Head) +
                   "  void *p = hmplace_malloc(HMPLACE_HBW_PREFERRED, "
                   "(unsigned long)f(100000000ul) + 2000000000000ul);\n}\n";
  expectLeftWhole(In, "moves the call");
}

TEST(Format, CallANoteNamesMayMove) {
  // The call a wrapper notes is named by the wrapper's frame (a rerun finds
  // it on the wrapper's line): it may go to the next line.
  std::string In =
      std::string(Head) +
      "  void *p = HMPLACE_CALLER(HMPLACE_AT(3, 13), f(1000000000000000ul + "
      "2000000000000ul));\n}\n";
  std::string Out;
  Formatted F = format(In, "HMPLACE_CALLER", 36, Out);
  EXPECT_EQ(F.Broken, 1u);
  EXPECT_TRUE(F.Left.empty());
  EXPECT_NE(Out.find("  void *p = HMPLACE_CALLER(HMPLACE_AT(3, 13),\n"),
            std::string::npos)
      << Out;
}

TEST(Format, PlacedCallMayMove) {
  // A call the rewrite placed is found by a rerun where the statement
  // joined again puts it (joinedStatements): it may go to the next line.
  std::string In = std::string(Head) +
                   "  struct log *h = 0;\n"
                   "  h->history = hmplace_realloc_to(HMPLACE_HBW, h->history, "
                   "h->cap * sizeof(double));\n}\n";
  std::string Out;
  Formatted F = format(In, "hmplace_realloc_to", 32, Out);
  EXPECT_EQ(F.Broken, 1u);
  EXPECT_TRUE(F.Left.empty());
  EXPECT_NE(Out.find("  h->history =\n      hmplace_realloc_to(HMPLACE_HBW, "
                     "h->history, h->cap * sizeof(double));\n#line 5\n"),
            std::string::npos)
      << Out;
}

TEST(Format, PlacedCallStaysWhereJoiningWouldNotGiveTheLineBack) {
  // No space after `=`: joined again, the statement would read
  // `h->history= hmplace_...`, and the rerun's key for the call would be a
  // column off. The line is left whole.
  std::string In = std::string(Head) +
                   "  struct log *h = 0;\n"
                   "  h->history=hmplace_realloc_to(HMPLACE_HBW, h->history, "
                   "h->cap * sizeof(double));\n}\n";
  std::string Out;
  Formatted F = format(In, "hmplace_realloc_to", 32, Out);
  EXPECT_EQ(F.Broken, 0u);
  ASSERT_EQ(F.Left.size(), 1u);
  EXPECT_NE(F.Left[0].Why.find("moves the call"), std::string::npos);
  EXPECT_EQ(Out, In);
}

TEST(Format, JoinedStatementMapsOffsetsToItsOneLine) {
  // Broken after `=` (a space on one line) and after `(` (none).
  std::string In = std::string(Head) + "  history =\n"
                                       "      hmplace_realloc_to(\n"
                                       "          HMPLACE_HBW, history, 8);\n"
                                       "#line 4\n}\n";
  std::vector<JoinedStatement> J =
      joinedStatements("t.c", In, clang::format::getLLVMStyle());
  ASSERT_EQ(J.size(), 1u);
  EXPECT_EQ(J[0].OneLine,
            "  history = hmplace_realloc_to(HMPLACE_HBW, history, 8);");
  EXPECT_EQ(J[0].Begin, std::strlen(Head));
  auto At = [&](const char *Needle) {
    return J[0].joinedOffset(In, unsigned(In.find(Needle)));
  };
  EXPECT_EQ(At("hmplace_realloc_to"), 12u);
  EXPECT_EQ(At("HMPLACE_HBW"), 31u);
  EXPECT_EQ(At("8);"), 53u);
  // Inside a break: into the space joining puts there (or none), no
  // further.
  EXPECT_EQ(J[0].joinedOffset(In, unsigned(In.find("=\n") + 1)), 11u);
  EXPECT_EQ(J[0].joinedOffset(In, unsigned(In.find("=\n") + 3)), 12u);
  EXPECT_EQ(J[0].joinedOffset(In, unsigned(In.find("(\n") + 4)), 31u);
  // A statement no run broke is none.
  EXPECT_TRUE(joinedStatements("t.c", std::string(Head) + "  f(1);\n}\n",
                               clang::format::getLLVMStyle())
                  .empty());
}

TEST(Format, LineNotInClangFormatsSpacingBrokenWithItsSpacing) {
  std::string In = std::string(Head) +
                   "  double *p=(double *) hmplace_malloc(HMPLACE_HBW_"
                   "PREFERRED, 1000 * sizeof(double) + 64 * 64 + 1);\n}\n";
  std::string Out;
  Formatted F = format(In, "hmplace_malloc", 14, Out);
  EXPECT_EQ(F.Broken, 1u);
  EXPECT_TRUE(F.Left.empty());
  EXPECT_EQ(Out, std::string(Head) +
                     "  double *p=(double *) hmplace_malloc(HMPLACE_HBW_"
                     "PREFERRED,\n"
                     "                                      1000 * "
                     "sizeof(double) + 64 * 64 + 1);\n#line 4\n}\n");
}

TEST(Format, ThreeSpaceCodeWithBraceAloneBrokenAndJoined) {
  // Not the style's indentation (LLVM: 2), the function's brace on a line
  // of its own, a comment inside the statement: broken all the same, the
  // statement's first line as written.
  const std::string Fn = "void *f(unsigned long n);\n"
                         "void g(void)\n{\n";
  const std::string Long =
      "   double *p = (double *) hmplace_malloc(HMPLACE_HBW_PREFERRED "
      "/* table */, 1000 * sizeof(double) + 64 * 64 + 1);\n";
  std::string In = Fn + Long + "   (void)p;\n}\n", Out;
  Formatted F = format(In, "hmplace_malloc", 14, Out);
  EXPECT_EQ(F.Broken, 1u);
  EXPECT_TRUE(F.Left.empty());
  std::string Broken =
      Fn +
      "   double *p = (double *) hmplace_malloc(HMPLACE_HBW_PREFERRED /* "
      "table */,\n"
      "                                         1000 * sizeof(double) + 64 "
      "* 64 + 1);\n#line 5\n   (void)p;\n}\n";
  EXPECT_EQ(Out, Broken);
  // A rerun that shortens it: joined, with the spacing it had.
  std::string Shorter = Broken;
  Shorter.replace(Shorter.find("HMPLACE_HBW_PREFERRED /* table */"),
                  strlen("HMPLACE_HBW_PREFERRED /* table */"), "HMPLACE_HBW");
  Shorter.replace(Shorter.find("1000 * sizeof(double) + 64 * 64 + 1"),
                  strlen("1000 * sizeof(double) + 64 * 64 + 1"), "8");
  F = format(Shorter, "hmplace_malloc", 14, Out);
  EXPECT_EQ(F.Joined, 1u);
  EXPECT_EQ(Out, Fn + "   double *p = (double *) hmplace_malloc(HMPLACE_HBW,"
                      " 8);\n   (void)p;\n}\n");
}

TEST(Format, ReindentedInContextBrokenAtItsOwnDepth) {
  // After a case label a statement does not stand alone: formatted with its
  // block, which clang-format would re-indent (LLVM: the case body at 4,
  // here 6). Broken all the same, the continuation at its depth below the
  // statement as written.
  const std::string Fn = "void *f(unsigned long n);\n"
                         "void g(int c)\n{\n"
                         "   switch (c) {\n"
                         "   case 1:\n";
  std::string In = Fn + "      f(hmplace_malloc(HMPLACE_HBW_PREFERRED, 1000 * "
                        "sizeof(double) + 64 * 64 + 1 + 2 + 3 + 4 + 5));\n"
                        "   }\n}\n",
              Out;
  Formatted F = format(In, "hmplace_malloc", 14, Out);
  EXPECT_EQ(F.Broken, 1u);
  EXPECT_TRUE(F.Left.empty());
  EXPECT_EQ(Out, Fn +
                     "      f(hmplace_malloc(HMPLACE_HBW_PREFERRED,\n"
                     "                       1000 * sizeof(double) + 64 * 64 + "
                     "1 + 2 + 3 + 4 + 5));\n#line 7\n   }\n}\n");
}

TEST(Format, MoreThanWhitespaceChangedLeftWhole) {
  // clang-format would split the string literal (new quotes).
  std::string In =
      std::string(Head) +
      "  char *p = (char *)hmplace_malloc(HMPLACE_HBW, sizeof(\"a string "
      "literal far too long to stay on one line within eighty columns\"));"
      "\n}\n";
  expectLeftWhole(In, "more of it than its spacing");
}

TEST(Format, BrokenStatementJoinedWhenItFitsAgain) {
  // An earlier run broke line 3; a rerun took the placement out.
  std::string In = std::string(Head) + "  double *p = (double *)malloc(\n"
                                       "      1000);\n"
                                       "#line 4\n"
                                       "  (void)p;\n}\n";
  std::string Out;
  Formatted F = format(In, "malloc", 6, Out);
  EXPECT_EQ(F.Joined, 1u);
  EXPECT_EQ(Out, std::string(Head) +
                     "  double *p = (double *)malloc(1000);\n  (void)p;\n}\n");
}

TEST(Format, LineNumbersCountEarlierDirectives) {
  // After `#line 40`, the statement is line 42: its #line says 43.
  std::string In = "#line 40\n" + std::string(Head) +
                   "  double *p = (double *)hmplace_malloc(HMPLACE_HBW_"
                   "PREFERRED, 1000 * sizeof(double) + 64 * 64);\n}\n";
  std::string Out;
  Formatted F = format(In, "hmplace_malloc", 40, Out);
  EXPECT_EQ(F.Broken, 1u);
  EXPECT_NE(Out.find("\n#line 43\n}"), std::string::npos) << Out;
}

TEST(Format, AloneAgreesWithTheBlock) {
  // Statements formatted alone (a function body of their own, moved to
  // their depth) come out as clang-format lays them out in their block.
  std::string In =
      "typedef struct { double *a; unsigned long n; } blk;\n"
      "int posix_memalign(void **, unsigned long, unsigned long);\n"
      "blk *make(unsigned long n) {\n"
      "  blk *b = 0;\n"
      "  b->a = (double *)hmplace_calloc(HMPLACE_HBW_PREFERRED, n, "
      "sizeof(double) * 64);\n"
      "  for (unsigned long k = 0; k < n; ++k) {\n"
      "    if (k % 2)\n"
      "      b->a = (double *)hmplace_realloc(HMPLACE_REGULAR, b->a, k * "
      "sizeof(double) + 64);\n"
      "    double *t = (double *)hmplace_malloc(HMPLACE_HBW_PREFERRED, k * "
      "sizeof(double) + 64 * 64);\n"
      "    (void)t;\n"
      "  }\n"
      "  if (hmplace_posix_memalign(HMPLACE_HBW, (void **)&b->a, 64, n * "
      "sizeof(double)) != 0)\n"
      "    return 0;\n"
      "  return b;\n"
      "}\n";
  std::vector<std::pair<unsigned, unsigned>> Changed;
  for (size_t At = In.find("hmplace_"); At != std::string::npos;
       At = In.find("hmplace_", At + 1))
    Changed.emplace_back(unsigned(At), unsigned(At + 8));
  auto Run = [&](bool Alone) {
    Formatted F = formatRewrittenLines("t.c", In, Changed,
                                       clang::format::getLLVMStyle(), Alone);
    // Line 5 is broken after '=', which moves the placed call (a rerun
    // finds it by the statement joined).
    EXPECT_EQ(F.Broken, 4u);
    EXPECT_TRUE(F.Left.empty());
    return cantFail(clang::tooling::applyAllReplacements(In, F.Reps));
  };
  EXPECT_EQ(Run(true), Run(false));
}

} // namespace
