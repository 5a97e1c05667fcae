//===- Try.cpp - `hmplan try`: a plan checked on the machine it is for ----===//
#include "Try.h"
#include "TryPoints.h"
#include "TryRun.h"
#include "TryStats.h"
#include "TrySvg.h"
#include "plan/Kinds.h"
#include "plan/Plan.h"

#include "llvm/ADT/SmallString.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Format.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/Regex.h"

#include <cmath>

using namespace llvm;

namespace hmplace {

namespace {
/// A point of the curve and what its runs gave.
struct PointRuns {
  TryPoint At;
  std::string EntriesFile;
  TryPlaced Placed;           ///< from the first run's reports
  std::vector<double> Values; ///< the counted runs' figures
  Spread S;
  double P = 1; ///< against N = 0, Holm-adjusted
  bool Beyond = false;
};

/// The run of the curve: the plan's entries, the points, where the runs'
/// files go.
struct Curve {
  std::string PlanName;
  std::vector<TryEntry> Entries;
  std::vector<PointRuns> Points;
  SmallString<128> Dir;
  bool OwnDir = false; ///< a temporary directory, removed after
  TryCommand Cmd;
};
} // namespace

/// The options' own checks (before anything runs).
static bool checkOptions(const TryOptions &O, DiagEngine &D) {
  if (O.Argv.empty()) {
    D.report(Severity::Error, "hmplan try: no program to run: hmplan try PLAN "
                              "[options] -- PROGRAM [ARGS...]");
    return false;
  }
  if (!O.Repeat) {
    D.report(Severity::Error, "--repeat: at least 1 run a point");
    return false;
  }
  if (!O.Points.empty() && !O.Capacities.empty()) {
    D.report(Severity::Error,
             "--points and --capacities both name the points: give one");
    return false;
  }
  if (!O.Better.empty() && O.Better != "lower" && O.Better != "higher") {
    D.report(Severity::Error, "--better='" + O.Better + "': lower or higher");
    return false;
  }
  if (!O.Metric.empty() && O.Better.empty()) {
    D.report(Severity::Error,
             "--metric needs --better=higher or --better=lower: which way "
             "the program's figure is better");
    return false;
  }
  std::string Err;
  if (!O.Metric.empty() && !Regex(O.Metric).isValid(Err)) {
    D.report(Severity::Error, "--metric '" + O.Metric + "': " + Err);
    return false;
  }
  if (!(O.Alpha > 0 && O.Alpha < 1)) {
    D.report(Severity::Error, "--alpha: a level between 0 and 1");
    return false;
  }
  return true;
}

/// The plan's entries and the points (--points, --capacities or all).
static bool choosePoints(const TryOptions &O, Curve &C, DiagEngine &D) {
  std::unique_ptr<Plan> P = loadPlan(O.PlanPath, D);
  if (!P)
    return false;
  C.PlanName = sys::path::filename(O.PlanPath).str();
  C.Entries = placingEntries(*P);
  if (C.Entries.empty()) {
    D.report(O.PlanPath, Severity::Error,
             "the plan places nothing (every entry's kind is the ordinary "
             "heap): nothing to try");
    return false;
  }
  std::vector<TryPoint> Points;
  std::string Err;
  bool Ok = true;
  if (!O.Points.empty())
    Ok = pointsFromList(O.Points, C.Entries, Points, Err);
  else if (!O.Capacities.empty())
    Ok = pointsFromCapacities(O.Capacities, C.Entries, Points, Err);
  else
    Points = defaultPoints(C.Entries, 12);
  if (!Ok) {
    D.report(Severity::Error,
             (O.Points.empty() ? "--capacities: " : "--points: ") + Err);
    return false;
  }
  for (const TryPoint &T : Points)
    C.Points.push_back({T, "", {}, {}, {}, 1, false});
  return true;
}

/// The directory of the runs' files, and a file of entries per point.
static bool writeEntries(const TryOptions &O, Curve &C, DiagEngine &D) {
  std::error_code EC;
  if (!O.Keep.empty()) {
    C.Dir = O.Keep;
    EC = sys::fs::create_directories(C.Dir);
    if (!EC)
      EC = sys::fs::make_absolute(C.Dir);
  } else {
    EC = sys::fs::createUniqueDirectory("hmplan-try", C.Dir);
    C.OwnDir = !EC;
  }
  if (EC) {
    D.report(O.Keep.empty() ? "hmplan-try" : O.Keep, Severity::Error,
             "cannot make the runs' directory: " + EC.message());
    return false;
  }
  for (PointRuns &P : C.Points) {
    SmallString<128> F(C.Dir);
    sys::path::append(F, "entries-" + std::to_string(P.At.N) + ".txt");
    raw_fd_ostream OS(F, EC);
    if (!EC)
      OS << entriesFileText(C.Entries, P.At.N, C.PlanName);
    if (EC || OS.has_error()) {
      D.report(F, Severity::Error, "cannot write it: " + EC.message());
      return false;
    }
    P.EntriesFile = F.str().str();
  }
  return true;
}

/// A file of the runs' directory.
static std::string inDir(const Curve &C, const Twine &Name) {
  SmallString<128> F(C.Dir);
  sys::path::append(F, Name);
  return F.str().str();
}

/// One run of point \p P; false after saying why it failed.
static bool runPoint(Curve &C, PointRuns &P, int Round, bool Report,
                     DiagEngine &D) {
  std::string N = std::to_string(P.At.N);
  std::string Out = inDir(C, "out-" + N + "-" + std::to_string(Round) + ".txt");
  TryRunResult R;
  std::string Err;
  if (!runOnce(C.Cmd, P.EntriesFile, Out, Report ? inDir(C, "report-" + N) : "",
               R, Err)) {
    D.report(Severity::Error, "hmplan try: at N=" + N + " (" +
                                  (Round ? "run " + std::to_string(Round)
                                         : std::string("its first run")) +
                                  "): " + Err);
    return false;
  }
  if (Report)
    P.Placed = R.Placed;
  else
    P.Values.push_back(R.Metric ? *R.Metric : R.Seconds);
  return true;
}

/// The first run of every point, which reports what it placed; the
/// warnings where the reports say the curve is not what it seems.
static bool checkRuns(Curve &C, DiagEngine &D) {
  for (PointRuns &P : C.Points)
    if (!runPoint(C, P, 0, true, D))
      return false;
  const PointRuns &Last = C.Points.back();
  for (const PointRuns &P : C.Points) {
    if (!P.Placed.Reports) {
      D.report(Severity::Warning,
               "hmplan try: the program wrote no hmplace report at N=" +
                   std::to_string(P.At.N) +
                   " (not a placed build, or a launcher that does not pass "
                   "HMPLACE_REPORT on): what the points placed is not known");
      return true;
    }
    if (!P.Placed.ReadEntries) {
      D.report(Severity::Error,
               "hmplan try: the program's runtime did not read "
               "HMPLACE_ENTRIES (a libhmplace older than this hmplan?): every "
               "point would place the whole plan");
      return false;
    }
  }
  for (size_t I = 1; I < C.Points.size(); ++I) {
    const PointRuns &P = C.Points[I], &Before = C.Points[I - 1];
    if (P.Placed.Objects <= Before.Placed.Objects && P.At.N > Before.At.N)
      D.report(Severity::Warning,
               "hmplan try: N=" + std::to_string(P.At.N) +
                   " placed no more objects than N=" +
                   std::to_string(Before.At.N) + ": " +
                   (P.At.N - Before.At.N == 1
                        ? "entry " + C.Entries[P.At.N - 1].Key + " placed"
                        : std::string("its entries placed")) +
                   " nothing in this run (hmplan summary PLAN says why an "
                   "entry placed nothing in the build)");
  }
  if (C.Points.front().Placed.Unnamed)
    D.report(Severity::Note,
             "hmplan try: " + std::to_string(C.Points.front().Placed.Unnamed) +
                 " placed allocations at N=0 name no entry (a source "
                 "rewritten by hmrewrite, hbw_malloc): they place at every "
                 "point, as built");
  if (Last.At.N == C.Entries.size() && Last.Placed.Held)
    D.report(Severity::Warning,
             "hmplan try: with every entry named, " +
                 std::to_string(Last.Placed.Held) +
                 " allocations were held back: the build's entries are not "
                 "this plan's (built with another plan?)");
  return true;
}

/// The counted runs: the points in turn, each round starting one later.
static bool countedRuns(const TryOptions &O, Curve &C, DiagEngine &D) {
  size_t K = C.Points.size();
  for (unsigned R = 1; R <= O.Repeat; ++R) {
    for (size_t I = 0; I < K; ++I)
      if (!runPoint(C, C.Points[(I + R - 1) % K], int(R), false, D))
        return false;
    errs() << "hmplan try: round " << R << " of " << O.Repeat << " done\n";
  }
  return true;
}

/// Each point's spread, and its test against N = 0 (the first point).
static void judge(const TryOptions &O, Curve &C) {
  std::vector<double> Raw;
  for (PointRuns &P : C.Points) {
    P.S = spreadOf(P.Values);
    if (&P != &C.Points.front())
      Raw.push_back(mannWhitneyP(C.Points.front().Values, P.Values));
  }
  std::vector<double> Adj = holmAdjust(Raw);
  for (size_t I = 1; I < C.Points.size(); ++I) {
    C.Points[I].P = Adj[I - 1];
    C.Points[I].Beyond = Adj[I - 1] < O.Alpha;
  }
}

/// A key cut to \p W characters from its end (the caller frames last).
static std::string cut(StringRef Key, size_t W) {
  if (Key.size() <= W)
    return Key.str();
  return "..." + Key.take_back(W - 3).str();
}

static std::string value(double V) {
  std::string S;
  raw_string_ostream(S) << format("%.4g", V);
  return S;
}

/// \p V as a multiple of \p Base: "0.812x".
static std::string ratio(double V, double Base) {
  std::string S = "-";
  if (Base != 0)
    raw_string_ostream(S = "") << format("%.3fx", V / Base);
  return S;
}

/// The table: a row per point.
static void printTable(const TryOptions &O, const Curve &C, raw_ostream &OS) {
  bool Caps = !O.Capacities.empty();
  bool Known = C.Points.front().Placed.Reports;
  auto Row = [&](StringRef N, StringRef Size, StringRef Last, StringRef Obj,
                 StringRef Peak, StringRef Med, StringRef Min, StringRef Max,
                 StringRef Ratio, StringRef P, StringRef Word) {
    OS << right_justify(N, 5) << "  " << left_justify(Size, 10) << " "
       << left_justify(Last, 32) << " " << right_justify(Obj, 8) << " "
       << right_justify(Peak, 10) << " " << right_justify(Med, 10) << " "
       << right_justify(Min, 10) << " " << right_justify(Max, 10) << " "
       << right_justify(Ratio, 7) << " " << right_justify(P, 8)
       << (Word.empty() ? "" : "  ") << Word << "\n";
  };
  Row("N", Caps ? "capacity" : "plan size", "last entry placed", "objects",
      "peak", "median", "min", "max", "vs N=0", "p (Holm)", "");
  const Spread &Base = C.Points.front().S;
  for (const PointRuns &P : C.Points) {
    std::string Size = P.At.Capacity ? humanSize(*P.At.Capacity)
                       : P.At.Bytes  ? humanSize(*P.At.Bytes)
                                     : "-";
    bool First = &P == &C.Points.front();
    std::string Ratio = "-", PText = "-";
    if (!First)
      Ratio = ratio(P.S.Median, Base.Median);
    if (!First)
      raw_string_ostream(PText = "") << format("%.3f", P.P);
    Row(std::to_string(P.At.N), Size,
        P.At.N ? cut(C.Entries[P.At.N - 1].Key, 32) : "-",
        Known ? std::to_string(P.Placed.Objects) : "?",
        Known ? humanSize(P.Placed.Peak) : "?", value(P.S.Median),
        value(P.S.Min), value(P.S.Max), Ratio, PText,
        First      ? ""
        : P.Beyond ? "beyond the noise"
                   : "within the noise");
  }
}

/// What the curve says: no difference beyond the noise, or which points
/// differ, and the best of those that are better.
static void verdict(const TryOptions &O, const Curve &C, raw_ostream &OS) {
  size_t M = C.Points.size() - 1;
  std::string How = "Mann-Whitney against N=0, Holm-adjusted over " +
                    std::to_string(M) + " point" + (M == 1 ? "" : "s") +
                    ", alpha " + value(O.Alpha);
  double Least = std::min(1.0, double(M) * smallestP(O.Repeat, O.Repeat));
  if (M && Least >= O.Alpha) {
    unsigned R = O.Repeat;
    while (double(M) * smallestP(R, R) >= O.Alpha)
      ++R;
    OS << "hmplan try: note: with " << O.Repeat << " run"
       << (O.Repeat == 1 ? "" : "s") << " a point no difference can show "
       << "beyond the noise (the least adjusted p is " << value(Least)
       << "): --repeat " << R << " or more\n";
  }
  const PointRuns *Best = nullptr;
  std::string Named;
  bool Higher = O.Better == "higher";
  for (const PointRuns &P : C.Points) {
    if (!P.Beyond)
      continue;
    const Spread &Base = C.Points.front().S;
    Named += (Named.empty() ? "" : ", ") + ("N=" + std::to_string(P.At.N)) +
             " (" + ratio(P.S.Median, Base.Median) + ")";
    bool Better = Higher ? P.S.Median > Base.Median : P.S.Median < Base.Median;
    if (Better && (!Best || (Higher ? P.S.Median > Best->S.Median
                                    : P.S.Median < Best->S.Median)))
      Best = &P;
  }
  if (Named.empty()) {
    OS << "hmplan try: no difference beyond the noise: every point is within "
          "the noise of N=0 ("
       << How << ")\n";
    return;
  }
  OS << "hmplan try: beyond the noise of N=0: " << Named << " (" << How
     << ")\n";
  if (Best)
    OS << "hmplan try: the best of them: N=" << Best->At.N << ", median "
       << value(Best->S.Median) << " (" << (Higher ? "higher" : "lower")
       << " is better)\n";
  else
    OS << "hmplan try: none of them is better than N=0\n";
}

/// The chart beside the text.
static bool drawChart(const TryOptions &O, const Curve &C, DiagEngine &D,
                      raw_ostream &OS) {
  CurveChart Ch;
  Ch.Title = "hmplan try: " + C.PlanName + " -- " + join(O.Argv, " ");
  Ch.YLabel = O.Metric.empty()
                  ? "wall time (s), lower is better"
                  : "--metric '" + O.Metric + "', " + O.Better + " is better";
  for (const PointRuns &P : C.Points)
    Ch.Points.push_back({"N=" + std::to_string(P.At.N),
                         P.At.Capacity ? humanSize(*P.At.Capacity)
                         : P.At.Bytes  ? humanSize(*P.At.Bytes)
                                       : "",
                         P.S, P.Beyond});
  std::string Path =
      O.Svg.empty() ? sys::path::stem(O.PlanPath).str() + ".try.svg" : O.Svg;
  std::error_code EC;
  raw_fd_ostream F(Path, EC);
  if (!EC)
    F << drawCurve(Ch);
  if (EC || F.has_error()) {
    D.report(Path, Severity::Error, "cannot write the chart: " + EC.message());
    return false;
  }
  OS << "hmplan try: the curve drawn in " << Path << "\n";
  return true;
}

/// The header: what runs, how often, what counts.
static void printHeader(const TryOptions &O, const Curve &C, raw_ostream &OS) {
  OS << "hmplan try: " << O.PlanPath << ": " << C.Entries.size()
     << " placing entr" << (C.Entries.size() == 1 ? "y" : "ies")
     << " in the plan's order; " << C.Points.size() << " point"
     << (C.Points.size() == 1 ? "" : "s") << ", " << O.Repeat << " run"
     << (O.Repeat == 1 ? "" : "s") << " each, in turn, after a first run of "
     << "each that reports what it placed (not counted)\n";
  OS << "hmplan try: measured: "
     << (O.Metric.empty() ? "the wall time (s)"
                          : "the last match of '" + O.Metric + "'")
     << " of " << join(O.Argv, " ") << ", "
     << (O.Metric.empty() ? "lower" : O.Better) << " is better\n";
}

int tryPlan(const TryOptions &O, DiagEngine &D, raw_ostream &OS) {
  Curve C;
  std::string Err;
  if (!checkOptions(O, D) || !choosePoints(O, C, D))
    return 1;
  if (!makeCommand(O.Argv, C.Cmd, Err)) {
    D.report(Severity::Error, "hmplan try: " + Err);
    return 1;
  }
  C.Cmd.Metric = O.Metric;
  if (!writeEntries(O, C, D))
    return 1;
  bool Ok = checkRuns(C, D) && countedRuns(O, C, D);
  if (Ok) {
    judge(O, C);
    printHeader(O, C, OS);
    printTable(O, C, OS);
    verdict(O, C, OS);
    Ok = drawChart(O, C, D, OS);
  }
  if (C.OwnDir && Ok)
    sys::fs::remove_directories(C.Dir);
  else
    errs() << "hmplan try: the runs' entries files and outputs are in " << C.Dir
           << "\n";
  return Ok ? 0 : 1;
}

} // namespace hmplace
