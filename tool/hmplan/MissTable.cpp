//===- MissTable.cpp - `hmplan misses`: the runs' misses by cache size ----===//
//
// Counts are printed whole: they are estimates (each sampled access stands
// for 128 or more), and the tests compare them with a simulator's.
//
//===----------------------------------------------------------------------===//
#include "MissTable.h"
#include "Advisor.h"
#include "plan/Kinds.h"
#include "plan/Plan.h"
#include "plan/Split.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/Support/Format.h"

using namespace llvm;

namespace hmplace {

namespace {

/// "main.c:7:20 (main)".
std::string where(const ProfileContext &C) {
  if (C.Frames.empty())
    return "(no frame)";
  const ProfileFrame &F = C.Frames.front();
  return F.text() + " (" + F.Function + ")";
}

void printTop(const std::vector<ProfileContext> &Contexts, double Lines,
              unsigned Ways, unsigned Top, raw_ostream &OS) {
  std::vector<const ProfileContext *> By;
  for (const ProfileContext &C : Contexts)
    By.push_back(&C);
  llvm::stable_sort(By, [&](const ProfileContext *A, const ProfileContext *B) {
    return A->Misses.missesAt(Lines, Ways) > B->Misses.missesAt(Lines, Ways);
  });
  OS << "\n      misses  stream   writes  context\n";
  for (size_t I = 0; I < By.size() && I < Top; ++I) {
    const MissCurve &M = By[I]->Misses;
    OS << format("%12.0f  %5.1f%%  %6.1f%%  ", M.missesAt(Lines, Ways),
                 100 * M.streamShareAt(Lines, Ways),
                 100 * M.writeShareAt(Lines, Ways))
       << where(*By[I]) << "\n";
  }
}

} // namespace

void printMissTable(const std::vector<ProfileContext> &Contexts,
                    const ProfileMisses &Misses,
                    const std::vector<uint64_t> &Sizes, unsigned Ways,
                    unsigned Top, raw_ostream &OS) {
  MissCurve All;
  for (const ProfileContext &C : Contexts)
    All.add(C.Misses);
  OS << "LRU caches, "
     << (Ways ? std::to_string(Ways) + "-way"
              : std::string("fully associative"))
     << "; misses in the contexts, in no block (the stack, globals, blocks "
        "freed), in blocks no context holds\n";
  OS << "       cache      contexts      no block    no context         "
        "total  stream\n";
  for (uint64_t Size : Sizes) {
    double Lines = double(Size) / 64;
    double InContexts = All.missesAt(Lines, Ways);
    double NoBlock = Misses.NoBlock.missesAt(Lines, Ways);
    double NoContext = Misses.NoContext.missesAt(Lines, Ways);
    MissCurve Sum = All;
    Sum.add(Misses.NoBlock);
    Sum.add(Misses.NoContext);
    OS << format("%12s %13.0f %13.0f %13.0f %13.0f  %5.1f%%\n",
                 humanSize(Size).c_str(), InContexts, NoBlock, NoContext,
                 InContexts + NoBlock + NoContext,
                 100 * Sum.streamShareAt(Lines, Ways));
  }
  if (Top && !Sizes.empty())
    printTop(Contexts, double(Sizes.front()) / 64, Ways, Top, OS);
}

void printPlanMisses(const std::vector<ProfileContext> &Contexts,
                     const Plan &P, StringRef Name,
                     const std::vector<uint64_t> &Sizes, unsigned Ways,
                     raw_ostream &OS) {
  std::vector<std::optional<int>> Codes = planCodes(Contexts, P);
  OS << "\nwhere " << Name << " puts the contexts' misses\n"
     << "       cache        misses   share  kind\n";
  for (uint64_t Size : Sizes) {
    double Lines = double(Size) / 64, All = 0;
    std::map<std::string, double> ByKind;
    for (size_t N = 0; N < Contexts.size(); ++N) {
      double M = Contexts[N].Misses.missesAt(Lines, Ways);
      All += M;
      if (!Codes[N]) {
        ByKind["nothing (entries conflict)"] += M;
        continue;
      }
      for (auto [Kind, Pct] : runtimeCodeParts(*Codes[N]))
        ByKind[runtimeCodeName(Kind)] += M * Pct / 100;
    }
    for (const auto &[Kind, M] : ByKind)
      OS << format("%12s %13.0f  %5.1f%%  ", humanSize(Size).c_str(), M,
                   All > 0 ? 100 * M / All : 0.0)
         << Kind << "\n";
  }
}

} // namespace hmplace
