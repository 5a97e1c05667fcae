//===- PreprocessedCopyTest.cpp - columns read back from a flang -E copy --===//
//
// CMake's Ninja generator compiles `flang -E`'s copy of a Fortran source:
// its lines come back through line directives, its columns do not (flang
// writes statements at column 7, tokens with its own spacing). Checked: a
// copy's column maps onto the source line whatever the blanks and case;
// a difference before it (a macro expanded, a comment) gives none; the
// directive forms flang, cpp and gfortran write are read, lines counted
// after each, and a file named by a directory debug info does not use is
// found by its name.
//
//===----------------------------------------------------------------------===//
#include "plan/PreprocessedCopy.h"

#include "gtest/gtest.h"

using namespace hmplace;

namespace {

TEST(AlignColumn, BlanksAndCase) {
  EXPECT_EQ(
      alignColumn("      allocate(u(n), v(n))", 7, "  allocate(u(n), v(n))"),
      3u);
  EXPECT_EQ(alignColumn("      read(arg, *) n", 7, "    read (arg, *) n"), 5u);
  // `v`, after the spacing differs: still its own character.
  EXPECT_EQ(
      alignColumn("      allocate(u(n),v(n))", 21, "  ALLOCATE( u(n), v(n) )"),
      19u);
}

TEST(AlignColumn, DifferentTextBeforeGivesNone) {
  // N expanded to 10 by the preprocessor, before the column.
  EXPECT_EQ(alignColumn("      x = 10 + y", 16, "  x = N + y"), std::nullopt);
  // At a blank, or past the end: nothing names a character there.
  EXPECT_EQ(alignColumn("      x = y", 2, "  x = y"), std::nullopt);
  EXPECT_EQ(alignColumn("      x = y", 40, "  x = y"), std::nullopt);
  // Before the difference is fine.
  EXPECT_EQ(alignColumn("      x = 10 + y", 7, "  x = N + y"), 3u);
}

TEST(PreprocessedCopy, DirectiveForms) {
  PreprocessedCopy C("#line \"/src/a.f90\" 8\n"
                     "      program a\n"
                     "      x = 1\n"
                     "#line 20\n"
                     "      y = 2\n"
                     "# 5 \"/src/b.inc\" 1\n"
                     "      z = 3\n"
                     "#line 7 \"/src/c.f90\"\n"
                     "      w = 4\n");
  ASSERT_TRUE(C.hasDirectives());
  EXPECT_EQ(C.lineFor("/src/a.f90", 8),
            std::optional<llvm::StringRef>("      program a"));
  EXPECT_EQ(C.lineFor("/src/a.f90", 9),
            std::optional<llvm::StringRef>("      x = 1"));
  EXPECT_EQ(C.lineFor("/src/a.f90", 20),
            std::optional<llvm::StringRef>("      y = 2"));
  EXPECT_EQ(C.lineFor("/src/b.inc", 5),
            std::optional<llvm::StringRef>("      z = 3"));
  EXPECT_EQ(C.lineFor("/src/c.f90", 7),
            std::optional<llvm::StringRef>("      w = 4"));
  EXPECT_EQ(C.lineFor("/src/a.f90", 10), std::nullopt);
  // Named relative to another directory: found by its file name.
  EXPECT_EQ(C.lineFor("a.f90", 9),
            std::optional<llvm::StringRef>("      x = 1"));
}

TEST(PreprocessedCopy, PlainSourceHasNoDirectives) {
  PreprocessedCopy C("program a\n  x = 1\nend program\n");
  EXPECT_FALSE(C.hasDirectives());
  EXPECT_EQ(C.lineFor("a.f90", 2), std::nullopt);
}

TEST(PreprocessedCopy, TwoFilesOfOneNameAreNotGuessed) {
  PreprocessedCopy C("#line \"/x/a.inc\" 1\n      p = 1\n"
                     "#line \"/y/a.inc\" 1\n      q = 1\n");
  EXPECT_EQ(C.lineFor("a.inc", 1), std::nullopt);
  EXPECT_EQ(C.lineFor("/y/a.inc", 1),
            std::optional<llvm::StringRef>("      q = 1"));
}

} // namespace
