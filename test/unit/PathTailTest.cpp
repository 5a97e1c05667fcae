//===- PathTailTest.cpp - the path that would name a built file -----------===//
//
// `hmplan summary` suggests, for an entry whose path names no built file of
// its file name, the trailing components the two paths share: the suffix
// rule (matchPath) then names the file. Checked: the suggestion does name
// the file, directories are compared whole, case only with IgnoreCase, and
// `.` components do not count.
//
//===----------------------------------------------------------------------===//
#include "plan/SiteKey.h"

#include "gtest/gtest.h"

using namespace hmplace;

namespace {

TEST(SharedTail, TreeOfAnotherName) {
  EXPECT_EQ(sharedTail("proj/lib/b.c", "/src/x/lib/b.c", false), "lib/b.c");
  EXPECT_NE(matchPath("proj/lib/b.c", "/src/x/lib/b.c", "/plans", "", false),
            PathMatch::Suffix);
  EXPECT_EQ(matchPath("lib/b.c", "/src/x/lib/b.c", "/plans", "", false),
            PathMatch::Suffix);
}

TEST(SharedTail, WholeComponentsOnly) {
  EXPECT_EQ(sharedTail("mylib/b.c", "/src/lib/b.c", false), "b.c");
  EXPECT_EQ(sharedTail("a/b.c", "/src/a/c.c", false), "");
}

TEST(SharedTail, CaseAndDots) {
  EXPECT_EQ(sharedTail("SRC/Main.F90", "/t/src/main.f90", true),
            "SRC/Main.F90");
  EXPECT_EQ(sharedTail("SRC/Main.F90", "/t/src/main.f90", false), "");
  EXPECT_EQ(sharedTail("./old/./src/a.c", "/t/src/a.c", false), "src/a.c");
}

TEST(SharedTail, AbsolutePathOfAnotherTree) {
  EXPECT_EQ(sharedTail("/home/u/app/src/a.c", "/scratch/app/src/a.c", false),
            "app/src/a.c");
}

} // namespace
