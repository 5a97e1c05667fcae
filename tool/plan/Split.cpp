//===- Split.cpp - targets that split an object across kinds --------------===//
//
// The placement code's layout is hmplace.h's HMPLACE_SPLIT/HMPLACE_SPLIT3:
// bit 30 set; kinds in bits 0-4, 5-9 and 10-14 (31: no third part); the
// first two percentages in bits 15-21 and 22-28 (the last part has the
// rest). runtime/split.c decodes it.
//
//===----------------------------------------------------------------------===//
#include "plan/Split.h"
#include "plan/AllocFns.h"

#include "llvm/ADT/StringExtras.h"

#include <algorithm>

using namespace llvm;

namespace hmplace {

static constexpr int SplitFlag = 0x40000000;

bool isSplitCode(int Code) { return Code > 0 && (Code & SplitFlag); }

int runtimeCode(const Target &T) {
  if (!T.isSplit())
    return T.Kind ? runtimeKindIndex(*T.Kind) : -1;
  const std::vector<SplitPart> &P = T.Parts;
  int K0 = runtimeKindIndex(*P[0].Kind), K1 = runtimeKindIndex(*P[1].Kind);
  int K2 = P.size() > 2 ? runtimeKindIndex(*P[2].Kind) : 31;
  unsigned P1 = P.size() > 2 ? P[1].Percent : 100 - P[0].Percent;
  return SplitFlag | K0 | K1 << 5 | K2 << 10 | int(P[0].Percent) << 15 |
         int(P1) << 22;
}

/// The kinds and percentages of a split code.
static unsigned decode(int Code, int *K, unsigned *Pct) {
  K[0] = Code & 31;
  K[1] = Code >> 5 & 31;
  K[2] = Code >> 10 & 31;
  Pct[0] = unsigned(Code) >> 15 & 127;
  Pct[1] = unsigned(Code) >> 22 & 127;
  unsigned N = K[2] == 31 ? 2 : 3;
  Pct[N - 1] = 100 - (N == 3 ? Pct[0] + Pct[1] : Pct[0]);
  return N;
}

static std::string constantOf(int Kind) {
  return Kind < 0 ? "HMPLACE_HEAP" : runtimeKindConstant(allKinds()[Kind]);
}

std::string runtimeCodeText(int Code) {
  if (!isSplitCode(Code))
    return constantOf(Code);
  int K[3];
  unsigned Pct[3];
  unsigned N = decode(Code, K, Pct);
  if (N == 2)
    return "HMPLACE_SPLIT(" + constantOf(K[0]) + ", " + utostr(Pct[0]) + ", " +
           constantOf(K[1]) + ")";
  return "HMPLACE_SPLIT3(" + constantOf(K[0]) + ", " + utostr(Pct[0]) + ", " +
         constantOf(K[1]) + ", " + utostr(Pct[1]) + ", " + constantOf(K[2]) +
         ")";
}

std::string runtimeCodeName(int Code) {
  if (Code < 0)
    return "the ordinary heap";
  if (!isSplitCode(Code))
    return allKinds()[Code].Name;
  int K[3];
  unsigned Pct[3];
  unsigned N = decode(Code, K, Pct);
  std::string S;
  for (unsigned I = 0; I < N; ++I)
    S += (I ? " + " : "") + std::string(allKinds()[K[I]].Name) + " " +
         utostr(Pct[I]) + "%";
  return S;
}

std::vector<std::pair<int, unsigned>> runtimeCodeParts(int Code) {
  if (Code < 0 || !isSplitCode(Code))
    return {{Code < 0 ? -1 : Code, 100}};
  int K[3];
  unsigned Pct[3];
  unsigned N = decode(Code, K, Pct);
  std::vector<std::pair<int, unsigned>> Parts;
  for (unsigned I = 0; I < N; ++I)
    Parts.push_back({K[I], Pct[I]});
  return Parts;
}

bool Target::samePlacement(const Target &O) const {
  if (Parts.size() != O.Parts.size())
    return false;
  for (size_t I = 0; I < Parts.size(); ++I)
    if (Parts[I].Kind != O.Parts[I].Kind ||
        Parts[I].TheTier != O.Parts[I].TheTier ||
        Parts[I].Percent != O.Parts[I].Percent)
      return false;
  return Kind == O.Kind && TheTier == O.TheTier;
}

std::string Target::kindText() const {
  if (!isSplit())
    return Kind ? Kind->Name : "";
  std::string S;
  for (const SplitPart &P : Parts)
    S += (S.empty() ? "" : " + ") + std::string(P.Kind->Name) + " " +
         utostr(P.Percent) + "%";
  return S;
}

std::string parsePercent(StringRef Text, unsigned &Out) {
  StringRef T = Text.trim();
  T.consume_back("%");
  T = T.rtrim();
  if (T.getAsInteger(10, Out) || Out == 0 || Out >= 100)
    return "a share must be a whole percentage from 1% to 99%, not '" +
           Text.str() + "'";
  return "";
}

std::string resolveSplit(const Plan &P, Target &T) {
  if (T.Parts.size() < 2 || T.Parts.size() > 3)
    return "a split has two or three shares, not " + utostr(T.Parts.size());
  unsigned Sum = 0;
  for (SplitPart &Pt : T.Parts) {
    Pt.Kind = P.resolveKind(Pt.Spelling, &Pt.TheTier);
    if (!Pt.Kind)
      return "unknown kind '" + Pt.Spelling + "' in the split";
    if (Pt.Kind->isHeap())
      return "a split cannot give a share to the ordinary heap ('" +
             Pt.Spelling + "'): its blocks are not pages of one mapping";
    Sum += Pt.Percent;
  }
  for (size_t I = 0; I < T.Parts.size(); ++I)
    for (size_t J = 0; J < I; ++J)
      if (T.Parts[I].Kind == T.Parts[J].Kind)
        return "'" + T.Parts[J].Spelling + "' and '" + T.Parts[I].Spelling +
               "' are the same kind (" + T.Parts[I].Kind->Name +
               "); give it one share";
  if (Sum != 100)
    return "the shares add up to " + utostr(Sum) + "%, not 100%";
  std::stable_sort(T.Parts.begin(), T.Parts.end(),
                   [](const SplitPart &A, const SplitPart &B) {
                     return A.Percent > B.Percent;
                   });
  T.Kind = T.Parts[0].Kind;
  T.TheTier = nullptr;
  T.Spelling = "{";
  for (const SplitPart &Pt : T.Parts)
    T.Spelling += (T.Spelling.size() > 1 ? ", " : "") + Pt.Spelling + ": " +
                  utostr(Pt.Percent) + "%";
  T.Spelling += "}";
  return "";
}

std::string parseSplitSpelling(const Plan &P, StringRef Text, Target &T) {
  StringRef S = Text.trim();
  if (!S.consume_front("{") || !S.consume_back("}"))
    return "not a split: '" + Text.str() + "'";
  T.Parts.clear();
  SmallVector<StringRef, 3> Items;
  S.split(Items, ',');
  for (StringRef Item : Items) {
    auto [Name, Pct] = Item.split(':');
    SplitPart Pt;
    Pt.Spelling = Name.trim().str();
    std::string Err = parsePercent(Pct, Pt.Percent);
    if (!Err.empty())
      return Err;
    T.Parts.push_back(std::move(Pt));
  }
  return resolveSplit(P, T);
}

} // namespace hmplace
