//===- TryStats.h - `hmplan try`: a curve's points against its first ------===//
///
/// \file
/// The statistics `hmplan try` reads its runs by: each point's median and
/// range, and whether a point differs from N = 0 beyond the noise. Runs on
/// a loaded machine are neither normal nor of equal spread, so the test is
/// on ranks (Mann-Whitney's, two-sided, exact with ties through the
/// distribution of the tied ranks themselves), and the points' tests are
/// corrected together (Holm's): a curve of ten points on a machine where
/// nothing differs names none of them as often as one test at the level.
///
//===----------------------------------------------------------------------===//
#ifndef HMPLACE_HMPLAN_TRYSTATS_H
#define HMPLACE_HMPLAN_TRYSTATS_H

#include <cstddef>
#include <vector>

namespace hmplace {

/// A point's runs: their median, least and greatest.
struct Spread {
  double Median = 0, Min = 0, Max = 0;
};
/// The spread of \p Xs (at least one value).
Spread spreadOf(std::vector<double> Xs);

/// The two-sided p-value of Mann-Whitney's test that \p A and \p B come
/// from one distribution: exact (ties by their midranks) up to 80 values
/// in all, the normal approximation with the ties' correction beyond.
/// 1 when either is empty or every value is the same.
double mannWhitneyP(const std::vector<double> &A, const std::vector<double> &B);

/// The least p-value the exact test can give for samples of \p NA and
/// \p NB values (no ties): two of C(NA + NB, NA) orderings.
double smallestP(size_t NA, size_t NB);

/// Holm's step-down adjustment of \p P (in their order): a point differs
/// at level a when its adjusted p is below a, the family's chance of
/// naming any point wrongly then at most a.
std::vector<double> holmAdjust(const std::vector<double> &P);

} // namespace hmplace

#endif
