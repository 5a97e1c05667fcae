//===- TrySvg.h - `hmplan try`: the measured curve as SVG -------*- C++ -*-===//
///
/// \file
/// The curve `hmplan try` measured, drawn: a point per N, its runs' range
/// as a bar and its median as a dot (filled where it differs from N = 0
/// beyond the noise), the medians joined, and N = 0's range as a band
/// across the chart, so that what lies within the noise shows at a glance.
///
//===----------------------------------------------------------------------===//
#ifndef HMPLACE_HMPLAN_TRYSVG_H
#define HMPLACE_HMPLAN_TRYSVG_H

#include "TryStats.h"

#include <string>
#include <vector>

namespace hmplace {

struct CurvePoint {
  std::string Label; ///< under the axis: "N=3"
  std::string Sub;   ///< a second line: the point's capacity or bytes
  Spread S;
  bool Beyond = false; ///< differs from the first point beyond the noise
};

struct CurveChart {
  std::string Title;              ///< the plan and the program
  std::string YLabel;             ///< "wall time (s), lower is better"
  std::vector<CurvePoint> Points; ///< the first is the baseline, N = 0
};

/// The chart as a standalone SVG document.
std::string drawCurve(const CurveChart &C);

} // namespace hmplace

#endif
