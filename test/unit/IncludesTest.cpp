//===- IncludesTest.cpp - where hmrewrite puts #include <hmplace.h> -------===//
//
// The rules (Includes.cpp): at file scope, outside every #if block, before
// the first edit, after the last include, and without moving a line: the
// include takes a blank line's place (not the one between the includes and
// the code), else a new line followed by `#line N`.
//
//===----------------------------------------------------------------------===//
#include "Rewrite.h"

#include "gtest/gtest.h"

#include <string>

using namespace hmplace;

namespace {

/// A layout with the #include lines, #if blocks and top-level declarations
/// of \p Text found the simple way (enough for these sources).
FileLayout layoutOf(const std::string &Text) {
  FileLayout L;
  size_t Pos = 0;
  std::vector<size_t> Open;
  while (Pos < Text.size()) {
    size_t End = Text.find('\n', Pos);
    End = End == std::string::npos ? Text.size() : End + 1;
    std::string Line = Text.substr(Pos, End - Pos);
    if (Line.rfind("#include", 0) == 0)
      L.Includes.push_back({unsigned(Pos), unsigned(End)});
    else if (Line.rfind("#if", 0) == 0)
      Open.push_back(Pos);
    else if (Line.rfind("#endif", 0) == 0 && !Open.empty()) {
      L.Conditionals.push_back({unsigned(Open.back()), unsigned(End)});
      Open.pop_back();
    } else if (Line.rfind("int ", 0) == 0 || Line.rfind("void ", 0) == 0) {
      size_t Close = Text.find("\n}\n", Pos);
      L.Decls.push_back({unsigned(Pos), unsigned(Close + 3)});
    }
    Pos = End;
  }
  return L;
}

/// \p Text with the include placed before the edit at \p Needle.
std::string place(const std::string &Text, const char *Needle) {
  IncludeEdit E =
      runtimeIncludeEdit(Text, layoutOf(Text), unsigned(Text.find(Needle)));
  std::string Out = Text;
  Out.replace(E.Offset, E.Length, E.Text);
  return Out;
}

unsigned lines(const std::string &S) {
  return unsigned(std::count(S.begin(), S.end(), '\n'));
}

/// The 1-based line \p N of \p S.
std::string line(const std::string &S, unsigned N) {
  size_t Pos = 0;
  for (unsigned I = 1; I < N; ++I)
    Pos = S.find('\n', Pos) + 1;
  return S.substr(Pos, S.find('\n', Pos) - Pos);
}

TEST(Includes, TakesTheFirstOfTwoBlankLinesAfterTheIncludes) {
  std::string In = "#include <stdlib.h>\n\n\nint f(void) {\n"
                   "  return malloc(8) != 0;\n}\n";
  std::string Out = place(In, "malloc");
  EXPECT_EQ(lines(Out), lines(In)) << Out;
  EXPECT_EQ(line(Out, 2), "#include <hmplace.h>") << Out;
  EXPECT_EQ(line(Out, 3), "") << "the blank line before the code stays";
}

TEST(Includes, TakesABlankLineBetweenTwoIncludeGroups) {
  std::string In = "#include \"config.h\"\n#include <stdio.h>\n\n"
                   "#include <stdlib.h>\n\nint f(void) {\n"
                   "  return malloc(8) != 0;\n}\n";
  std::string Out = place(In, "malloc");
  EXPECT_EQ(lines(Out), lines(In)) << Out;
  EXPECT_EQ(line(Out, 3), "#include <hmplace.h>") << Out;
  EXPECT_EQ(line(Out, 1), "#include \"config.h\"") << "config.h stays first";
  EXPECT_EQ(line(Out, 5), "") << "the separating blank line stays";
}

TEST(Includes, WithoutABlankLineAddsALineDirective) {
  std::string In = "#include <stdlib.h>\nint f(void) {\n"
                   "  return malloc(8) != 0;\n}\n";
  std::string Out = place(In, "malloc");
  EXPECT_EQ(line(Out, 2), "#include <hmplace.h>") << Out;
  EXPECT_EQ(line(Out, 3), "#line 2") << Out;
  EXPECT_EQ(line(Out, 4), "int f(void) {") << Out;
}

TEST(Includes, NeverInsideAConditionalBlock) {
  std::string In = "#include <stdlib.h>\n#ifdef USE_MPI\n#include <mpi.h>\n\n"
                   "#endif\n\n\nint f(void) {\n  return malloc(8) != 0;\n}\n";
  std::string Out = place(In, "malloc");
  EXPECT_EQ(lines(Out), lines(In)) << Out;
  unsigned Include = 0;
  for (unsigned N = 1; N <= lines(Out); ++N)
    if (line(Out, N) == "#include <hmplace.h>")
      Include = N;
  EXPECT_GT(Include, 5u) << "after the #endif, not in the #ifdef: " << Out;
  EXPECT_LT(Include, 8u) << "before the code: " << Out;
}

TEST(Includes, RemovalGivesTheBlankLineBack) {
  std::string In = "#include <stdlib.h>\n\n\nint f(void) {\n"
                   "  return malloc(8) != 0;\n}\n";
  std::string Out = place(In, "malloc");
  FileLayout L = layoutOf(Out);
  size_t At = Out.find("#include <hmplace.h>");
  L.IncludesRuntime = true;
  L.RuntimeInclude = {unsigned(At), unsigned(Out.find('\n', At) + 1)};
  std::optional<IncludeEdit> R = runtimeIncludeRemoval(Out, L);
  ASSERT_TRUE(R.has_value());
  std::string Back = Out;
  Back.replace(R->Offset, R->Length, R->Text);
  EXPECT_EQ(Back, In);
}

} // namespace
