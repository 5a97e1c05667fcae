//===- TryPoints.h - `hmplan try`: which parts of a plan to run -*- C++ -*-===//
///
/// \file
/// A plan applied in part: its placing entries in the plan's order (an
/// advised plan's order of gain), and the points of the curve, each the
/// first N of them. The runtime places only the entries a point's file
/// names (HMPLACE_ENTRIES, runtime/entryfilter.c), by the keys the front
/// ends leave for it (PlanEntry::key).
///
//===----------------------------------------------------------------------===//
#ifndef HMPLACE_HMPLAN_TRYPOINTS_H
#define HMPLACE_HMPLAN_TRYPOINTS_H

#include "llvm/ADT/StringRef.h"

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace hmplace {

class Plan;

/// A plan entry that places something (its kind is not the ordinary heap).
struct TryEntry {
  std::string Key;              ///< as the runtime names it
  std::string Kind;             ///< the target as the plan table writes it
  std::optional<uint64_t> Size; ///< the entry's `size:`, where it has one
};

/// The placing entries of \p P in its order; two entries of one key (a site
/// with two windows) are one, at the first's place.
std::vector<TryEntry> placingEntries(const Plan &P);

/// One point of the curve: the first N entries placed.
struct TryPoint {
  size_t N = 0;
  /// The capacity asked for (--capacities), where the point came from one.
  std::optional<uint64_t> Capacity;
  /// The sum of the N entries' sizes, where each has one.
  std::optional<uint64_t> Bytes;
};

/// Every N from 0 to \p Entries' count, or, beyond \p Most points, 0, the
/// count and points evenly between.
std::vector<TryPoint> defaultPoints(const std::vector<TryEntry> &Entries,
                                    size_t Most);
/// The points \p Specs names ("0", "3", "all") and N = 0 (the baseline),
/// in increasing order, each once; false with \p Err on a bad one.
bool pointsFromList(const std::vector<std::string> &Specs,
                    const std::vector<TryEntry> &Entries,
                    std::vector<TryPoint> &Points, std::string &Err);
/// A point per capacity (\p Specs: sizes): the most entries from the first
/// whose sizes fit in it, and 0; a capacity that places the entries of an
/// earlier one is left out (the same run twice). False with \p Err where a size
/// does not parse or an entry has none.
bool pointsFromCapacities(const std::vector<std::string> &Specs,
                          const std::vector<TryEntry> &Entries,
                          std::vector<TryPoint> &Points, std::string &Err);

/// The HMPLACE_ENTRIES file of a point: a comment naming \p PlanName, then
/// the keys of the first \p N entries.
std::string entriesFileText(const std::vector<TryEntry> &Entries, size_t N,
                            llvm::StringRef PlanName);

} // namespace hmplace

#endif
