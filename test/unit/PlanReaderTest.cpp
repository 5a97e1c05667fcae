//===- PlanReaderTest.cpp - plan parsing edge cases -----------------------===//
//
// Each malformed plan is an error at its line and column; well-formed edge
// cases (splits, windows, files: entries, any-case kinds, empty entries,
// merged calls and calls without debug info named by their function) read
// as written.
//
//===----------------------------------------------------------------------===//
#include "plan/Plan.h"

#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/raw_ostream.h"

#include "gtest/gtest.h"

using namespace hmplace;

namespace {

struct Parsed {
  std::unique_ptr<Plan> P;
  std::string Diags;
  unsigned Errors = 0;
};

Parsed parse(const std::string &Text) {
  Parsed R;
  llvm::raw_string_ostream OS(R.Diags);
  DiagEngine D(OS);
  R.P = parsePlan(llvm::MemoryBuffer::getMemBufferCopy(Text, "plan.yaml"), D);
  R.Errors = D.errors();
  OS.flush();
  return R;
}

TEST(PlanReader, SiteEntryReadsItsKindAndKey) {
  Parsed R = parse("version: 1\nsites:\n  - {site: src/a.c:12:5, kind: hbm}\n");
  ASSERT_TRUE(R.P) << R.Diags;
  ASSERT_EQ(R.P->Entries.size(), 1u);
  EXPECT_EQ(R.P->Entries[0].key(), "src/a.c:12:5");
  EXPECT_STREQ(R.P->Entries[0].To.Kind->Name, "MEMKIND_HBW");
}

TEST(PlanReader, UnknownKindIsAnErrorAtItsColumn) {
  Parsed R = parse("version: 1\nsites:\n  - {site: a.c:1, kind: hbmm}\n");
  EXPECT_FALSE(R.P);
  EXPECT_GE(R.Errors, 1u);
  EXPECT_NE(R.Diags.find("plan.yaml:3:"), std::string::npos) << R.Diags;
  EXPECT_NE(R.Diags.find("hbmm"), std::string::npos) << R.Diags;
}

TEST(PlanReader, SplitSharesMustAddUpTo100) {
  Parsed Good = parse("version: 1\nsites:\n"
                      "  - {site: a.c:1, kind: {hbm: 75%, ddr: 25%}}\n");
  ASSERT_TRUE(Good.P) << Good.Diags;
  EXPECT_TRUE(Good.P->Entries[0].To.isSplit());
  EXPECT_EQ(Good.P->Entries[0].To.Parts[0].Percent, 75u);
  Parsed Bad = parse("version: 1\nsites:\n"
                     "  - {site: a.c:1, kind: {hbm: 75%, ddr: 30%}}\n");
  EXPECT_FALSE(Bad.P);
  EXPECT_NE(Bad.Diags.find("plan.yaml:3:"), std::string::npos) << Bad.Diags;
}

TEST(PlanReader, KindsInAnyCase) {
  Parsed R =
      parse("version: 1\nsites:\n  - {site: a.c:1, kind: memkind_hbw}\n");
  ASSERT_TRUE(R.P) << R.Diags;
  EXPECT_STREQ(R.P->Entries[0].To.Kind->Name, "MEMKIND_HBW");
}

TEST(PlanReader, SizeWindowAndFilesEntry) {
  Parsed R = parse("version: 1\nsites:\n"
                   "  - {files: ['src/*.c'], kind: hbm, min-size: 1MiB, "
                   "max-size: 5MiB}\n");
  ASSERT_TRUE(R.P) << R.Diags;
  const PlanEntry &E = R.P->Entries[0];
  EXPECT_TRUE(E.isFileSet());
  EXPECT_EQ(E.MinSize, uint64_t(1) << 20);
  EXPECT_EQ(E.MaxSize, uint64_t(5) << 20);
}

TEST(PlanReader, AWindowTheWrongWayRoundIsAnError) {
  Parsed R = parse("version: 1\nsites:\n"
                   "  - {site: a.c:1, kind: hbm, min-size: 5MiB, "
                   "max-size: 1MiB}\n");
  EXPECT_FALSE(R.P);
  EXPECT_NE(R.Diags.find("plan.yaml:3:"), std::string::npos) << R.Diags;
}

TEST(PlanReader, MalformedYamlIsAnErrorNotACrash) {
  for (const char *Text :
       {"", "version: 1\nsites: [\n", "version: 1\nsites:\n  - site\n",
        "version: 2\nsites: []\n", "\t- {site: a.c:1}\n",
        "version: 1\nsites:\n  - {site: a.c:0, kind: hbm}\n"}) {
    Parsed R = parse(Text);
    EXPECT_FALSE(R.P) << "accepted: " << Text;
    EXPECT_NE(R.Diags.find("error:"), std::string::npos) << Text;
  }
}

TEST(PlanReader, MergedCallFramesReadBackAsWritten) {
  // A C function, a C++ one with a template and a lambda's call operator:
  // the function is everything between ` (` and the last `)`.
  for (const char *Text :
       {"c3.c:0 (make)", "src/grid.h:0 (Field<double>::alloc)",
        "a.cpp:0 (main::{lambda(int)#1}::operator())"}) {
    std::string Err;
    std::optional<Frame> F = parseFrame(Text, Err);
    ASSERT_TRUE(F) << Text << ": " << Err;
    EXPECT_EQ(F->Kind, Frame::Form::Merged) << Text;
    EXPECT_EQ(F->Line, 0u);
    EXPECT_EQ(F->str(), Text);
    std::string Again;
    EXPECT_EQ(parseFrame(F->str(), Again), F);
  }
  std::string Err;
  std::optional<Frame> F = parseFrame("  dir/c3.c:0  ( make ) ", Err);
  ASSERT_TRUE(F) << Err;
  EXPECT_EQ(F->File, "dir/c3.c");
  EXPECT_EQ(F->Function, "make");
  // The position a front end computes for a merged call prints the same.
  SourcePos P{"/src/c3.c", 0, 0, "make"};
  EXPECT_EQ(P.str(), "/src/c3.c:0 (make)");
}

TEST(PlanReader, NoDebugFramesReadBackAsWritten) {
  for (const char *Text : {"(xalloc)", "(Field<double>::alloc)",
                           "(main::{lambda(int)#1}::operator())"}) {
    std::string Err;
    std::optional<Frame> F = parseFrame(Text, Err);
    ASSERT_TRUE(F) << Text << ": " << Err;
    EXPECT_EQ(F->Kind, Frame::Form::NoDebug) << Text;
    EXPECT_TRUE(F->File.empty());
    EXPECT_FALSE(F->namesFile());
    EXPECT_EQ(F->str(), Text);
  }
  std::string Err;
  EXPECT_FALSE(parseFrame("()", Err));
  EXPECT_NE(Err.find("missing function name"), std::string::npos) << Err;
  SourcePos P{"", 0, 0, "xalloc"};
  EXPECT_EQ(P.str(), "(xalloc)");
}

} // namespace
