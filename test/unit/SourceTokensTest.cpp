//===- SourceTokensTest.cpp - a call's id before and after a rewrite ------===//
//
// The tokens ids count (no comments, literals, preprocessor lines, or the
// brackets and separators an edit adds); an allocation function and its
// runtime replacement as one family; what hmrewrite writes left out; and a
// call's id the same in a file as written, as rewritten and as reformatted,
// with identical statements told apart by their rank.
//
//===----------------------------------------------------------------------===//
#include "plan/SourceTokens.h"

#include "gtest/gtest.h"

using namespace hmplace;

namespace {

std::string texts(llvm::StringRef Source) {
  std::string S;
  for (const SourceToken &T : sourceTokens(Source))
    S += (S.empty() ? "" : " ") + T.Text;
  return S;
}

TEST(SourceTokens, LeavesOutWhatIsNoToken) {
  EXPECT_EQ(texts("#include <stdlib.h>\n#define N(x) \\\n  (x)\n"
                  "int f(int n) { /* c */ return n + 'a' + 0x1f; } // e\n"
                  "const char *s = u8\"x\\\"y\" R\"d(a)\"b)d\";\n"),
            "int f int n return n + + const char * s =");
}

TEST(SourceTokens, PositionsAreLinesAndColumns) {
  std::vector<SourceToken> T = sourceTokens("a\n  bb = c;\n");
  ASSERT_EQ(T.size(), 4u);
  EXPECT_EQ(T[1].Text, "bb");
  EXPECT_EQ(T[1].Line, 2u);
  EXPECT_EQ(T[1].Column, 3u);
  EXPECT_EQ(T[1].Offset, 4u);
}

TEST(SourceTokens, AllocationFamilies) {
  EXPECT_EQ(texts("p = malloc(n); q = hbw_malloc(n); r = hmplace_malloc("
                  "HMPLACE_HBW, n); hmplace_free(p); realloc(p, n);"),
            "p = malloc n q = malloc n r = malloc n free p realloc p n");
}

TEST(SourceTokens, LeavesOutWhatHmrewriteWrites) {
  EXPECT_EQ(texts("x = HMPLACE_CALLER(HMPLACE_AT(19, 15), get(n));"),
            "x = get n");
  EXPECT_EQ(texts("p = hmplace_malloc(hmplace_in_window(HMPLACE_HBW, n, "
                  "HMPLACE_MiB(1), 0), n);"),
            "p = malloc n");
  EXPECT_EQ(texts("p = hmplace_malloc((enum hmplace_kind)hmplace_ctx_kind("
                  "HMPLACE_BY_CALLERS(\"m.h:9:13\", t)), n);"),
            "p = malloc n");
  EXPECT_EQ(texts("p = std::malloc(n); q = ::calloc(1, n);"),
            "p = malloc n q = calloc n");
  EXPECT_EQ(texts("T *t = new (HMPLACE_HBW, std::nothrow) T;"),
            "T * t = new std :: nothrow T");
}

const char *Original = "#include <stdlib.h>\n"
                       "\n"
                       "int main(void) {\n"
                       "  char *q = malloc(100);\n"
                       "  char *p = malloc(200);\n"
                       "  char *r = get(1 << 20);\n"
                       "  char *s = get(1 << 20);\n"
                       "  return 0;\n"
                       "}\n";

const char *Rewritten = "#include <hmplace.h>\n"
                        "#line 1\n"
                        "#include <stdlib.h>\n"
                        "\n"
                        "int\n"
                        "main (void)\n"
                        "{\n"
                        "  char *q = malloc (100);\n"
                        "  char *p = hmplace_malloc (HMPLACE_HBW, 200);\n"
                        "  char *r = HMPLACE_CALLER (HMPLACE_AT (6, 13),\n"
                        "                            get (1 << 20));\n"
                        "  char *s = get (1 << 20);\n"
                        "  return 0;\n"
                        "}\n";

unsigned offsetOf(llvm::StringRef Text, llvm::StringRef What, unsigned Nth) {
  size_t At = Text.find(What);
  while (Nth-- && At != llvm::StringRef::npos)
    At = Text.find(What, At + 1);
  return unsigned(At);
}

TEST(SourceTokens, SameIdAfterRewriteAndReformat) {
  TokenIndex A(Original), B(Rewritten);
  for (unsigned N = 0; N < 2; ++N) {
    std::optional<TokenId> Before = A.idAt(offsetOf(Original, "malloc", N));
    ASSERT_TRUE(Before);
    const SourceToken *After = B.find(*Before);
    ASSERT_TRUE(After);
    EXPECT_EQ(After->Line, 8u + N);
  }
  std::optional<TokenId> R = A.idAt(offsetOf(Original, "get", 0));
  std::optional<TokenId> S = A.idAt(offsetOf(Original, "get", 1));
  ASSERT_TRUE(R && S);
  EXPECT_NE(R->Context, S->Context); // `r =` and `s =` tell them apart
  EXPECT_EQ(B.find(*R)->Line, 11u);
  EXPECT_EQ(B.find(*S)->Line, 12u);
}

std::string repeated(unsigned N) {
  std::string S = "void f(void) {";
  for (unsigned I = 0; I < N; ++I)
    S += " g();";
  return S + " }\n";
}

TEST(SourceTokens, IdenticalStatementsByRank) {
  // Of fifteen `g();`, the 7th to the 9th have six alike on each side.
  std::string T = repeated(15);
  TokenIndex I(T);
  std::optional<TokenId> Eighth = I.idAt(offsetOf(T, "g", 7));
  ASSERT_TRUE(Eighth);
  EXPECT_EQ(Eighth->Count, 3u);
  EXPECT_EQ(Eighth->Rank, 2u);
  EXPECT_EQ(I.find(*Eighth)->Offset, offsetOf(T, "g", 7));
  // One more alike: which one was meant cannot be told.
  EXPECT_FALSE(TokenIndex(repeated(16)).find(*Eighth));
  EXPECT_FALSE(I.idAt(1)); // not where a token begins
}

} // namespace
