//===- Explain.cpp - the advisor's `--explain` and `--curve` --------------===//
//
// Every figure a reason quotes is a column of the table: the gain share is
// what the choice maximises and what "kept: 0.004% of the gain" refers to.
//
//===----------------------------------------------------------------------===//
#include "AdvisorParts.h"
#include "Knapsack.h"
#include "plan/Context.h"
#include "plan/Kinds.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/Format.h"

#include <numeric>

using namespace llvm;

namespace hmplace {

namespace {

/// A context's stack for people: function (frame), innermost first; a run
/// of library frames is shown by the outermost, the one the user called.
std::string stackText(const ProfileContext &C, const PlanPathNamer &Names) {
  std::string S;
  for (size_t I = 0; I < C.Frames.size(); ++I) {
    const ProfileFrame &F = C.Frames[I];
    bool Library = isStdLibraryFile(F.File);
    if (Library && I + 1 < C.Frames.size() &&
        isStdLibraryFile(C.Frames[I + 1].File))
      continue;
    S += (S.empty() ? "" : " < ") +
         (Library ? libraryName(F.Function) + " (C++ library)"
                  : F.Function + " (" + planFrame(F, Names) + ")");
  }
  if (!C.CutAfter.empty())
    S += " (cut: " + C.CutAfter + " keeps no frame pointer)";
  return S;
}

/// "DDR", "hbm", "hbm 75%".
std::string decisionText(const ContextDecision &CD) {
  if (CD.Tier.empty())
    return "DDR";
  return CD.Share < 100 ? CD.Tier + " " + std::to_string(CD.Share) + "%"
                        : CD.Tier;
}

/// The bandwidth model's prediction for the plan, after the table.
void printPrediction(const Advice &A, raw_ostream &OS) {
  if (!A.BW.given() || A.Shares.Time <= 0)
    return;
  OS << format("predicted time (bandwidth model: hbm %s and ddr %s serving "
               "at once): %.2f of all-DDR, %.2f of all-HBM (capacity aside)\n",
               rateText(A.BW.Fast).c_str(), rateText(A.BW.Slow).c_str(),
               A.Shares.Time / A.Shares.TimeAllSlow,
               A.Shares.Time / A.Shares.TimeAllFast);
}

/// What the profiles could not show, after the table.
void printBlindSpots(const Advice &A, raw_ostream &OS) {
  const ProfileBlindSpots &B = A.Blind;
  if (!B.NoSupport && B.NoFramePointer.empty() && !B.Foreign &&
      !B.UnnamedObjects && !B.MisreadObjects)
    return;
  OS << "not seen:\n";
  if (B.NoSupport)
    OS << "  - blocks over 128 KiB still allocated at exit: the binary was "
          "not linked with HmPlace's profile support (hmcc --profile), and "
          "LLVM's MemProf (19 and 22) leaves them out\n";
  if (!B.NoFramePointer.empty())
    OS << "  - the callers of " << join(B.NoFramePointer, ", ")
       << ": built without frame pointers, so stacks stop there\n";
  if (B.Foreign)
    OS << "  - the accesses of " << count(B.Foreign, "context", "contexts")
       << " allocated inside shared libraries: what the libraries do with "
          "them (qsort's buffers, libomp's) is not instrumented, so their "
          "share of the traffic is unknown (the program's own code made "
       << share(B.ForeignAccesses, A.TotalAccesses)
       << " of all counted accesses to them); no front end places those\n";
  if (B.UnnamedObjects)
    OS << "  - " << count(B.UnnamedObjects, "object", "objects") << " ("
       << humanSize(B.UnnamedBytes)
       << " in all) allocated where the call stack reaches no frame of the "
          "program (inside a library's or a language runtime's own calls: "
          "stdio's buffers, flang's runtime beyond a statement's first "
          "array): LLVM's reader leaves them out, so they are in no context "
          "and no entry can name them; the program's own code made "
       << B.UnnamedAccesses
       << " accesses to them, what the library does with them is not "
          "counted\n";
  if (B.MisreadObjects)
    OS << "  - " << count(B.MisreadObjects, "object", "objects") << " ("
       << humanSize(B.MisreadBytes)
       << " in all) allocated inside libraries built without frame pointers "
          "(libomp's dispatch buffers on worker threads, for one), whose "
          "stacks the unwinder read from stale values that LLVM's reader "
          "takes for lines of the program: left out of the contexts, as the "
          "library's; the program's own code made "
       << B.MisreadAccesses << " accesses to them\n";
}

/// The LLC the gain is at, in lines.
double llcLines(const Advice &A) { return double(A.LLC) / 64; }

/// "1234", "12.3 K", "4.56 M": an estimated count.
std::string countText(double N) {
  std::string S;
  raw_string_ostream OS(S);
  if (N < 10000)
    OS << format("%.0f", N);
  else if (N < 1e6)
    OS << format("%.1f K", N / 1e3);
  else if (N < 1e9)
    OS << format("%.2f M", N / 1e6);
  else
    OS << format("%.2f G", N / 1e9);
  return S;
}

/// What the columns mean, for the gain the advisor used.
void printLegend(const Advice &A, raw_ostream &OS) {
  OS << A.Cost.describe() << "\n";
  OS << "peak: bytes live at once as the runtime holds them (size classes); ";
  if (!A.Measured) {
    OS << "miss: the chance an access misses the LLC, from the bytes the "
          "context keeps live; gain: accesses x miss, as a share of all "
          "contexts' gain (what the choice maximises)\n";
    return;
  }
  OS << "miss: the share of its accesses that miss an LLC of "
     << humanSize(A.LLC)
     << (A.LLCWays ? " (" + std::to_string(A.LLCWays) + "-way)" : "")
     << ", measured (the reuse distances of 1 line in " << A.Misses.Sample
     << ", sampled in the profiled run); misses: those accesses; stream: the "
        "share of them to sequential lines (a stream, which HBM's bandwidth "
        "serves), the rest scattered; gain: its misses as a share of all "
        "contexts' misses (what the choice maximises)\n";
}

/// With measured misses: those of no context, after the table.
void printOutsideContexts(const Advice &A, raw_ostream &OS) {
  if (!A.Measured)
    return;
  double NoBlock = A.Misses.NoBlock.missesAt(llcLines(A), A.LLCWays);
  double NoContext = A.Misses.NoContext.missesAt(llcLines(A), A.LLCWays);
  double All = A.TotalGain + NoBlock + NoContext;
  OS << "misses outside the contexts: " << countText(NoBlock)
     << " to no heap block (the stack, globals, blocks already freed)";
  if (NoContext > 0)
    OS << ", " << countText(NoContext)
       << " to blocks of call stacks no context holds (made inside a "
          "library's or a language runtime's own calls)";
  OS << ": " << share(NoBlock + NoContext, All)
     << " of all misses, which no plan moves\n";
}

} // namespace

void printExplanation(const Advice &A, raw_ostream &OS) {
  // Each unit: a row of figures under its allocation call, its stack
  // (function and frame, innermost first), and why it goes where it goes.
  std::vector<std::string> Where;
  size_t Width = 7;
  for (const ContextDecision &CD : A.Decisions) {
    const ProfileContext &C = CD.U->Sum;
    Where.push_back(isContainer(C)     ? std::string(ContainerSite)
                    : C.Frames.empty() ? "(no frame)"
                                       : planFrame(C.Frames.front(), A.Names));
    Width = std::max(Width, Where.back().size());
  }
  printLegend(A, OS);
  OS << left_justify("#", 4) << " " << left_justify("context", Width)
     << "   objects       peak       accesses  per byte  access   miss"
     << (A.Measured ? "     misses  stream" : "") << "    gain  decision\n";
  for (size_t N = 0; N < A.Decisions.size(); ++N) {
    const ContextDecision &CD = A.Decisions[N];
    const ProfileContext &C = CD.U->Sum;
    uint64_t Peak = CD.U->Usable;
    OS << left_justify(utostr(N + 1), 4) << " " << left_justify(Where[N], Width)
       << format(" %9llu %10s %14llu %9.2f %7s %6s",
                 (unsigned long long)C.AllocCount, humanSize(Peak).c_str(),
                 (unsigned long long)C.Accesses,
                 double(C.Accesses) / double(std::max<uint64_t>(Peak, 1)),
                 share(C.Accesses, A.TotalAccesses).c_str(),
                 percent(CD.MissChance).c_str());
    if (A.Measured)
      OS << format(
          " %10s %7s", countText(CD.Gain).c_str(),
          percent(C.Misses.streamShareAt(llcLines(A), A.LLCWays)).c_str());
    OS << format(" %7s  %s\n", share(CD.Gain, A.TotalGain).c_str(),
                 decisionText(CD).c_str());
    OS << "     " << stackText(C, A.Names);
    if (CD.U->Stacks > 1)
      OS << " (" << CD.U->Stacks
         << " call stacks that differ only in the library's frames)";
    OS << "\n     " << CD.Reason;
    if (!CD.FramesUsed && CD.Tier.empty() && nameable(C))
      OS << "; no entry: none claims it, so malloc places it";
    OS << "\n";
  }
  printOutsideContexts(A, OS);
  printPrediction(A, OS);
  printBlindSpots(A, OS);
}

namespace {

/// With bandwidths: the predicted speed against the HBM capacity (the
/// capacities at a tenth of the candidates' peak and up), each choice made
/// as advise makes it (knapsack, then shares).
void printSpeedCurve(const Advice &A, raw_ostream &OS) {
  std::vector<ShareItem> Items;
  std::vector<KnapItem> K;
  std::vector<size_t> KOf;
  Timeline Time(A.Units);
  IntervalLoad All(Time.size());
  for (const ContextDecision &CD : A.Decisions) {
    const PlanUnit &U = *CD.U;
    const ProfileContext &C = U.Sum;
    if (CD.Candidate) {
      K.push_back({CD.Gain, U.Usable, Time.at(C.Start), Time.at(C.End)});
      KOf.push_back(Items.size());
      All.add(K.back().Lo, K.back().Hi, U.Usable);
    }
    Items.push_back({CD.Gain, C.objectBytes(), C.objectsAtOnce() * U.Stacks,
                     U.Usable, C.Start, C.End, CD.Candidate, !A.Whole});
  }
  uint64_t Peak = All.max(0, Time.size() - 1);
  OS << "   HBM bytes  speed against all-DDR (bandwidth model)\n";
  for (unsigned Tenth = 1; Tenth <= 10 && Peak; ++Tenth) {
    uint64_t Cap = Peak * Tenth / 10;
    std::vector<bool> Whole(Items.size(), false);
    for (size_t N : chooseItems(K, Cap, Time.size()))
      Whole[KOf[N]] = true;
    ShareChoice C = chooseShares(Items, Whole, Cap, A.BW);
    OS << format("%12s  %.2fx\n", humanSize(Cap).c_str(),
                 C.Time > 0 ? C.TimeAllSlow / C.Time : 1.0);
  }
}

} // namespace

void printCurve(const Advice &A, raw_ostream &OS) {
  if (A.BW.given())
    printSpeedCurve(A, OS);
  // Units by gain per byte (the gains the decisions weighed); each step's
  // capacity is the peak of what is live at once so far.
  std::vector<double> GainOf(A.Units.size());
  for (const ContextDecision &CD : A.Decisions)
    GainOf[CD.U - A.Units.data()] = CD.Gain;
  std::vector<size_t> Steps(A.Units.size());
  std::iota(Steps.begin(), Steps.end(), 0);
  auto Density = [&](size_t U) {
    return GainOf[U] / double(std::max<uint64_t>(A.Units[U].Usable, 1));
  };
  llvm::stable_sort(
      Steps, [&](size_t X, size_t Y) { return Density(X) > Density(Y); });
  Timeline Time(A.Units);
  IntervalLoad Load(Time.size());
  OS << "   HBM bytes  contexts  of all accesses    of the gain\n";
  double Gain = 0;
  uint64_t Acc = 0;
  unsigned N = 0;
  double NextMark = 0.1;
  bool Knee = false;
  for (size_t S : Steps) {
    const PlanUnit &U = A.Units[S];
    Load.add(Time.at(U.Sum.Start), Time.at(U.Sum.End), U.Usable);
    Gain += GainOf[S];
    Acc += U.Sum.Accesses;
    ++N;
    double G = A.TotalGain > 0 ? Gain / A.TotalGain : 1;
    // A row per tenth of the gain (and every row of a short profile).
    if (Steps.size() > 20 && G < NextMark && N != Steps.size())
      continue;
    while (NextMark <= G)
      NextMark += 0.1;
    OS << format("%12s %9u %16s %14s",
                 humanSize(Load.max(0, Time.size() - 1)).c_str(), N,
                 share(Acc, A.TotalAccesses).c_str(), percent(G).c_str());
    if (!Knee && G >= 0.9) {
      OS << "  <- 90% of the gain";
      Knee = true;
    }
    OS << "\n";
  }
}

} // namespace hmplace
