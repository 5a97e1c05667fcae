//===- Try.h - `hmplan try`: a plan checked on the machine it is for -*- C++
//-*-===//
///
/// \file
/// One placed build, run at points of the plan: N = 0 (nothing placed), the
/// first entries in the plan's order (an advised plan's order of gain), all
/// of them (HMPLACE_ENTRIES, runtime/entryfilter.c: no rebuild). Each point
/// runs once first, with the runtime's report, to learn what it placed (not
/// counted: its report costs at exit), then --repeat times, the points in
/// turn and each round starting one point later, so that a machine's drift
/// falls on every point alike. The table gives each point's median and
/// range, against N = 0 (TryStats.h: ranks, Holm-adjusted), and says where
/// the points differ beyond the noise and where not; the chart is drawn
/// beside it (TrySvg.h).
///
//===----------------------------------------------------------------------===//
#ifndef HMPLACE_HMPLAN_TRY_H
#define HMPLACE_HMPLAN_TRY_H

#include "plan/Diag.h"

#include "llvm/Support/raw_ostream.h"

#include <string>
#include <vector>

namespace hmplace {

struct TryOptions {
  std::string PlanPath;
  std::vector<std::string> Argv; ///< the program and its arguments
  unsigned Repeat = 5;
  std::vector<std::string> Points;     ///< --points: counts, "all"
  std::vector<std::string> Capacities; ///< --capacities: sizes
  std::string Metric;                  ///< --metric REGEX; empty: wall time
  std::string Better;                  ///< "lower" or "higher"; "" unsaid
  std::string Svg;                     ///< the chart; "" for PLAN.try.svg
  std::string Keep; ///< keep the runs' files (entries, outputs) here
  double Alpha = 0.05;
};

/// Run the program at the plan's points and print the curve to \p OS;
/// 0, or 1 after an error (said through \p D).
int tryPlan(const TryOptions &O, DiagEngine &D, llvm::raw_ostream &OS);

} // namespace hmplace

#endif
