//===- TryRun.h - `hmplan try`: one run of the program at a point -*- C++
//-*-===//
///
/// \file
/// A run of the program with one point of the plan placed (HMPLACE_ENTRIES
/// names its file): its wall time, the figure of merit its output gives
/// (--metric), and, for the one run per point that asks the runtime for its
/// JSON report, what that point placed.
///
//===----------------------------------------------------------------------===//
#ifndef HMPLACE_HMPLAN_TRYRUN_H
#define HMPLACE_HMPLAN_TRYRUN_H

#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Regex.h"

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace hmplace {

/// What the runtime's reports of one run say it placed (every process's,
/// summed: the ranks of a job).
struct TryPlaced {
  unsigned Reports = 0;     ///< report files the run wrote
  bool ReadEntries = false; ///< every report says HMPLACE_ENTRIES was read
  uint64_t Objects = 0;     ///< allocations placed in a kind
  uint64_t Peak = 0;        ///< the kinds' peaks of live bytes, summed
  uint64_t Fallbacks = 0;   ///< allocations a kind could not take
  uint64_t Held = 0;        ///< held on the ordinary heap: not named
  uint64_t Unnamed = 0;     ///< placed with no entry to name (as built)
};

/// How to run the program.
struct TryCommand {
  std::string Program;           ///< found on PATH where it has no '/'
  std::vector<std::string> Args; ///< argv, the program's name first
  std::vector<std::string> Env;  ///< the environment, less HMPLACE_ENTRIES
                                 ///< and HMPLACE_REPORT
  /// --metric: the regular expression (POSIX extended) whose last match in
  /// the output is the run's figure; empty: none, the wall time counts.
  std::string Metric;
};

/// One run's figures.
struct TryRunResult {
  double Seconds = 0;
  std::optional<double> Metric; ///< with --metric: its last match
  TryPlaced Placed;             ///< only when the report was asked for
};

/// The command for \p Argv: the program found, the environment taken from
/// this process's. False with \p Err if the program is not found.
bool makeCommand(const std::vector<std::string> &Argv, TryCommand &C,
                 std::string &Err);

/// Run \p C once with \p EntriesFile placed, its output in \p OutFile; with
/// \p ReportStem, the runtime's JSON reports go to ReportStem.<pid>.json
/// and are read. False with \p Err if the program fails, or --metric finds
/// no number in its output.
bool runOnce(const TryCommand &C, llvm::StringRef EntriesFile,
             llvm::StringRef OutFile, llvm::StringRef ReportStem,
             TryRunResult &R, std::string &Err);

/// The last match of \p Re in \p Text as a number (its first group, if it
/// has one), or nothing.
std::optional<double> lastMetric(const llvm::Regex &Re, llvm::StringRef Text);

} // namespace hmplace

#endif
