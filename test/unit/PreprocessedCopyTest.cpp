//===- PreprocessedCopyTest.cpp - positions read back from a flang -E copy ===//
//
// CMake's Ninja generator compiles `flang -E`'s copy of a Fortran source:
// its lines come back through line directives, its columns do not (flang
// writes statements at column 7, tokens with its own spacing), and where it
// wraps a long statement into more lines than the source has, the line it
// adds is counted as the next statement's line too. Checked, on copies as
// flang 19 writes them: statements read with their continuations, comments
// and marks taken out, in free and fixed form; a position of the copy maps
// onto the source's statement whatever the blanks, case and wrapping,
// the line included (a statement after `;` on an added line); of two lines
// counted alike the right one is taken; a macro expanded before the
// position gives none, with the reason; the directive forms flang, cpp and
// gfortran write are read, and a file named by a directory debug info does
// not use is found by its name.
//
//===----------------------------------------------------------------------===//
#include "plan/PreprocessedCopy.h"

#include "gtest/gtest.h"

#include <string>

using namespace hmplace;

namespace {

std::string text(const std::vector<StmtChar> &Chars) {
  std::string S;
  for (const StmtChar &C : Chars)
    S += C.C;
  return S;
}

TEST(FortranText, FreeFormStatements) {
  std::vector<llvm::StringRef> L = {
      "  allocate(a(n), & ! first",   // 0
      "  ! a comment line",           // 1
      "  &        b(n)) ; x = 'a!b'", // 2
      "",                             // 3
      "#ifdef X",                     // 4
      "  y = 1 &",                    // 5
      "    + 2",                      // 6
  };
  FortranText T(L, /*Fixed=*/false);
  EXPECT_TRUE(T.beginsStatement(0));
  EXPECT_FALSE(T.beginsStatement(1));
  EXPECT_FALSE(T.beginsStatement(2));
  EXPECT_EQ(T.firstOf(2), 0u);
  EXPECT_EQ(text(T.statementAt(0)), "allocate(a(n),b(n));x='a!b'");
  std::vector<StmtChar> S = T.statementAt(0);
  EXPECT_EQ(S[14].C, 'b'); // after the continuation's own `&`
  EXPECT_EQ(S[14].Line, 2u);
  EXPECT_EQ(S[14].Col, 12u);
  EXPECT_TRUE(T.beginsStatement(5));
  EXPECT_EQ(text(T.statementAt(5)), "y=1+2");
  EXPECT_TRUE(T.statementAt(1).empty());
}

TEST(FortranText, FixedFormStatements) {
  std::vector<llvm::StringRef> L = {
      "      ALLOCATE(A(N),",      // 0
      "C     a comment line",      // 1
      "     +         B(N))",      // 2
      "   10 X = 'A!B' ! comment", // 3
      "      Y = 1                                                     "
      "         123456", // 4
  };
  FortranText T(L, /*Fixed=*/true);
  EXPECT_EQ(text(T.statementAt(0)), "ALLOCATE(A(N),B(N))");
  EXPECT_EQ(T.firstOf(2), 0u);
  EXPECT_EQ(text(T.statementAt(3)), "10X='A!B'");
  EXPECT_EQ(text(T.statementAt(4)), "Y=1"); // past column 72: no text
  EXPECT_TRUE(isFixedFormName("/src/old.F"));
  EXPECT_TRUE(isFixedFormName("a.for"));
  EXPECT_FALSE(isFixedFormName("a.F90"));
}

FortranSource source(const char *Text, bool Fixed = false) {
  return FortranSource(Text, Fixed);
}

std::optional<SourcePoint> point(const PreprocessedCopy &C, const char *File,
                                 unsigned Line, unsigned Col,
                                 const FortranSource &S) {
  std::string Why;
  return C.pointInSource(File, Line, Col, S, "allocate", Why);
}

TEST(PreprocessedCopy, BlanksAndCase) {
  FortranSource S = source("program a\n"
                           "  ALLOCATE( u(n), v(n) )\n"
                           "    read (arg, *) n\n");
  PreprocessedCopy C("#line \"./a.f90\" 1\n"
                     "      program a\n"
                     "      allocate(u(n),v(n))\n"
                     "      read(arg, *) n\n");
  EXPECT_EQ(point(C, "a.f90", 2, 7, S), (SourcePoint{2, 3}));
  // `v`, after the spacing differs: still its own character.
  EXPECT_EQ(point(C, "a.f90", 2, 21, S), (SourcePoint{2, 19}));
  EXPECT_EQ(point(C, "a.f90", 3, 7, S), (SourcePoint{3, 5}));
  // At a blank, or past the end: nothing names a character there.
  EXPECT_EQ(point(C, "a.f90", 3, 16, S), std::nullopt);
  EXPECT_EQ(point(C, "a.f90", 3, 40, S), std::nullopt);
}

// The copy flang 19 writes of a source with statements over 72 columns.
const char *LongSource =
    "program d\n"       // 1
    "  implicit none\n" // 2
    "#define N 1000\n"  // 3
    "  real, allocatable :: alpha_array_with_long_name(:), "
    "beta_array_with_long_name(:), gamma(:)\n" // 4
    "  integer :: n\n"                         // 5
    "  n = N\n"                                // 6
    "  allocate(alpha_array_with_long_name(n), "
    "beta_array_with_long_name(n), gamma(n))\n" // 7
    "  ! a comment between them\n"              // 8
    "  allocate(alpha_array_with_long_name(N), "
    "beta_array_with_long_name(n), &\n" // 9
    "    ! a comment inside\n"          // 10
    "           gamma(N))\n"            // 11
    "\n"                                // 12
    "  allocate(alpha_array_with_long_name(n), "
    "beta_array_with_long_name(n), gamma(n)); allocate(gamma(n))\n" // 13
    "  print *, size(alpha_array_with_long_name)\n"                 // 14
    "end program\n";
const char *LongCopy =
    "#line \"./d.F90\" 1\n"
    "      program d\n"
    "      implicit none\n"
    "\n"
    "      real, allocatable :: alpha_array_with_long_name(:), "
    "beta_array_wit&\n"
    "     &h_long_name(:), gamma(:)\n"
    "#line 5\n"
    "      integer :: n\n"
    "      n = 1000\n"
    "      allocate(alpha_array_with_long_name(n), "
    "beta_array_with_long_name(&\n"
    "     &n), gamma(n))\n"
    "      allocate(alpha_array_with_long_name(1000), "
    "beta_array_with_long_na&\n"
    "     &me(n), gamma(1000))\n"
    "\n"
    "\n"
    "      allocate(alpha_array_with_long_name(n), "
    "beta_array_with_long_name(&\n"
    "     &n), gamma(n)); allocate(gamma(n))\n"
    "#line 14\n"
    "      print *, size(alpha_array_with_long_name)\n"
    "      end program\n";

TEST(PreprocessedCopy, StatementsWrappedOtherwise) {
  FortranSource S = source(LongSource);
  PreprocessedCopy C(LongCopy);
  ASSERT_TRUE(C.hasDirectives());
  EXPECT_EQ(point(C, "d.F90", 7, 7, S), (SourcePoint{7, 3}));
  EXPECT_EQ(point(C, "d.F90", 9, 7, S), (SourcePoint{9, 3}));
  EXPECT_EQ(point(C, "d.F90", 13, 7, S), (SourcePoint{13, 3}));
  // `gamma` of line 9's statement, on the copy's added line (counted 10)
  // and the source's line 11, after a macro: the macro differs before it.
  std::string Why;
  EXPECT_EQ(C.pointInSource("d.F90", 10, 12, S, "allocate", Why), std::nullopt);
  EXPECT_NE(Why.find("differs"), std::string::npos) << Why;
  // The statement after `;` on the copy's added line, which is counted as
  // line 14, like the print statement after the directive: the source's
  // line 13, and the print statement's own line still 14.
  EXPECT_EQ(point(C, "d.F90", 14, 22, S), (SourcePoint{13, 84}));
  EXPECT_EQ(point(C, "d.F90", 14, 7, S), (SourcePoint{14, 3}));
  EXPECT_EQ(point(C, "d.F90", 14, 16, S), (SourcePoint{14, 12}));
}

TEST(PreprocessedCopy, AnAllocateOnAnAddedLine) {
  // The copy's added line and the next statement are both counted as line
  // 3, and at column 24 both have a word: the ALLOCATE is the one asked
  // for; without a word to prefer, the statement's own line.
  FortranSource S = source(
      "program e\n"
      "  allocate(pressure_field(n), velocity_field(n), density_field(n), "
      "energy_field(n)); allocate(small(n))\n"
      "  pressure_field = 1; velocity_field = 2; density_field = 3; "
      "energy_field = 4; small = 5\n");
  PreprocessedCopy C(
      "#line \"./e.f90\" 1\n"
      "      program e\n"
      "      allocate(pressure_field(n), velocity_field(n), density_field(n), "
      "e&\n"
      "     &nergy_field(n)); allocate(small(n))\n"
      "#line 3\n"
      "      pressure_field = 1; velocity_field = 2; density_field = 3; "
      "energy_&\n"
      "     &field = 4; small = 5\n");
  EXPECT_EQ(point(C, "e.f90", 3, 24, S), (SourcePoint{2, 86}));
  std::string Why;
  EXPECT_EQ(C.pointInSource("e.f90", 3, 24, S, "", Why), (SourcePoint{3, 20}));
}

TEST(PreprocessedCopy, TwoContinuedAllocatesEachRewrapped) {
  // Each statement takes two source lines and three copy lines: the copy's
  // third line of the first is counted as line 9, the second's first line.
  FortranSource S = source(
      "program c\n"
      "  real, allocatable :: a(:), b(:)\n"
      "  integer :: n\n"
      "  n = 4\n"
      "  ! two statements\n"
      "#define M n\n"
      "  allocate(a(n), b(n), a(n), b(n), a(n), b(n), a(n), b(n), a(n), &\n"
      "           b(n), a(n), b(n), a(n), b(n), a(n), b(n), a(n), b(n))\n"
      "  allocate(a(n), b(n), a(n), b(n), a(n), b(n), a(n), b(n), a(n), &\n"
      "           b(n), a(n), b(n), a(n), b(n), a(n), b(n), a(n), b(n))\n");
  PreprocessedCopy C(
      "#line \"./c.f90\" 1\n"
      "      program c\n"
      "      real, allocatable :: a(:), b(:)\n"
      "      integer :: n\n"
      "      n = 4\n"
      "\n"
      "\n"
      "      allocate(a(n), b(n), a(n), b(n), a(n), b(n), a(n)&\n"
      "     &, b(n), a(n), b(n), a(n), b(n), a(n), b(n), a(n)&\n"
      "     &, b(n), a(n), b(n))\n"
      "#line 9\n"
      "      allocate(a(n), b(n), a(n), b(n), a(n), b(n), a(n)&\n"
      "     &, b(n), a(n), b(n), a(n), b(n), a(n), b(n), a(n)&\n"
      "     &, b(n), a(n), b(n))\n"
      "#line 11\n");
  EXPECT_EQ(point(C, "c.f90", 7, 7, S), (SourcePoint{7, 3}));
  EXPECT_EQ(point(C, "c.f90", 9, 7, S), (SourcePoint{9, 3}));
}

TEST(PreprocessedCopy, FixedFormSource) {
  FortranSource S =
      source("      PROGRAM G\n"
             "      N = 10\n"
             "      ALLOCATE(ALPHA_ARRAY_WITH_LONG_NAME(N),B(N),\n"
             "     +         ALPHA_ARRAY_WITH_LONG_NAME(N),  B(N),\n"
             "     +         ALPHA_ARRAY_WITH_LONG_NAME(N), B(N))\n"
             "   10 ALLOCATE(B(N))\n",
             /*Fixed=*/true);
  PreprocessedCopy C("#line \"./g.F\" 1\n"
                     "      PROGRAM G\n"
                     "      N = 10\n"
                     "      ALLOCATE(ALPHA_ARRAY_WITH_LONG_NAME(N),B(N),"
                     "ALPHA_ARRAY_WITH_LONG_&\n"
                     "     &NAME(N),B(N),ALPHA_ARRAY_WITH_LONG_NAME(N),B(N))\n"
                     "\n"
                     "   10 ALLOCATE(B(N))\n");
  EXPECT_EQ(point(C, "g.F", 3, 7, S), (SourcePoint{3, 7}));
  // The second line's `B(N)` of the copy is the source's fourth line's.
  EXPECT_EQ(point(C, "g.F", 4, 15, S), (SourcePoint{4, 48}));
  EXPECT_EQ(point(C, "g.F", 6, 7, S), (SourcePoint{6, 7}));
}

TEST(PreprocessedCopy, DirectiveForms) {
  FortranSource S = source("a\nb\nc\nd\ne\nf\ng\nx = 1\ny = 2\n");
  PreprocessedCopy C("#line \"/src/a.f90\" 8\n"
                     "      x = 1\n"
                     "#line 9\n"
                     "      y = 2\n"
                     "# 5 \"/src/b.inc\" 1\n"
                     "      e\n"
                     "#line 7 \"/src/c.f90\"\n"
                     "      g\n");
  ASSERT_TRUE(C.hasDirectives());
  EXPECT_EQ(point(C, "/src/a.f90", 8, 7, S), (SourcePoint{8, 1}));
  EXPECT_EQ(point(C, "/src/a.f90", 9, 7, S), (SourcePoint{9, 1}));
  EXPECT_EQ(point(C, "/src/b.inc", 5, 7, S), (SourcePoint{5, 1}));
  EXPECT_EQ(point(C, "/src/c.f90", 7, 7, S), (SourcePoint{7, 1}));
  EXPECT_EQ(point(C, "/src/a.f90", 10, 7, S), std::nullopt);
  // Named relative to another directory: found by its file name.
  EXPECT_EQ(point(C, "a.f90", 9, 7, S), (SourcePoint{9, 1}));
}

TEST(PreprocessedCopy, PlainSourceHasNoDirectives) {
  PreprocessedCopy C("program a\n  x = 1\nend program\n");
  EXPECT_FALSE(C.hasDirectives());
}

TEST(PreprocessedCopy, TwoFilesOfOneNameAreNotGuessed) {
  FortranSource S = source("p = 1\n");
  PreprocessedCopy C("#line \"/x/a.inc\" 1\n      p = 1\n"
                     "#line \"/y/a.inc\" 1\n      p = 1\n");
  EXPECT_EQ(point(C, "a.inc", 1, 7, S), std::nullopt);
  EXPECT_EQ(point(C, "/y/a.inc", 1, 7, S), (SourcePoint{1, 1}));
}

} // namespace
