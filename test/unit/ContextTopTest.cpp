//===- ContextTopTest.cpp - a context site decided by its innermost frame -===//
//
// Placement::choiceWithTop is what HmPlace.so uses to give a caller a copy
// of the function with the site's kind as a constant: it must pick what
// kindOnStack (the run-time check) picks on every stack whose innermost
// noted frame is the top, and say "not decided" where frames further out
// matter.
//
//===----------------------------------------------------------------------===//
#include "plan/Plan.h"

#include "gtest/gtest.h"

using namespace hmplace;

namespace {

uint64_t id(unsigned Line, unsigned Col = 0) {
  return contextFrameId("main.c", Line, Col);
}

ContextChoice choice(std::vector<uint64_t> Callers, int Kind) {
  ContextChoice C;
  C.Callers = std::move(Callers);
  C.Kind = Kind;
  return C;
}

Placement site(std::vector<ContextChoice> Choices) {
  Placement P;
  P.State = Placement::Contextual;
  P.Choices = std::move(Choices);
  return P;
}

TEST(ContextTop, OneFrameChoiceDecides) {
  Placement P = site({choice({id(10, 5)}, 1), choice({id(20, 3)}, 2)});
  EXPECT_EQ(P.choiceWithTop(id(10, 5)), 0);
  EXPECT_EQ(P.choiceWithTop(id(20, 3)), 1);
  EXPECT_EQ(P.kindOnStack({id(20, 3), id(99)}), 2);
}

TEST(ContextTop, NoChoiceNamingTheTopIsTheFallback) {
  Placement P = site({choice({id(10, 5)}, 1)});
  EXPECT_EQ(P.choiceWithTop(id(11, 5)), -1);
  EXPECT_EQ(P.choiceWithTop(id(10, 6)), -1);
  EXPECT_EQ(P.kindOnStack({id(11, 5)}), -1);
}

TEST(ContextTop, ALongerChainNamingTheTopFirstIsUndecided) {
  // The recursive case: [call 11, call 18] before [call 18].
  Placement P =
      site({choice({id(11, 9), id(18, 3)}, 1), choice({id(18, 3)}, 2)});
  EXPECT_EQ(P.choiceWithTop(id(11, 9)), std::nullopt);
  EXPECT_EQ(P.kindOnStack({id(11, 9), id(18, 3)}), 1);
  EXPECT_EQ(P.kindOnStack({id(11, 9), id(11, 9)}), -1);
  // The longer chain names 11 first, not 18: the top 18 decides.
  EXPECT_EQ(P.choiceWithTop(id(18, 3)), 1);
}

TEST(ContextTop, AColumnLessFrameMatchesEveryColumn) {
  Placement P = site({choice({id(10)}, 1)});
  EXPECT_EQ(P.choiceWithTop(id(10, 7)), 0);
  EXPECT_EQ(P.kindOnStack({id(10, 7)}), 1);
}

TEST(ContextTop, AgreesWithTheRunTimeCheckOnEveryStack) {
  std::vector<uint64_t> Frames = {id(1, 1), id(2, 1), id(3, 1)};
  Placement P = site({choice({Frames[0], Frames[1]}, 1), choice({Frames[1]}, 2),
                      choice({Frames[2]}, 3)});
  for (uint64_t Top : Frames) {
    std::optional<int> C = P.choiceWithTop(Top);
    if (!C)
      continue;
    int Kind = *C < 0 ? P.fallbackKind() : P.Choices[*C].Kind;
    for (uint64_t Below : Frames)
      EXPECT_EQ(P.kindOnStack({Top, Below}), Kind);
    EXPECT_EQ(P.kindOnStack({Top}), Kind);
  }
}

} // namespace
