//===- Shares.h - how much of each context goes to the fast tier -*- C++
//-*-===//
///
/// \file
/// The knapsack (Knapsack.h) places contexts whole. Two things want shares
/// of an object in HBM and the rest in DDR (a split entry, `kind: {hbm:
/// 75%, ddr: 25%}`, runtime/split.c):
///
///  - *Filling the capacity*: when the next context does not fit whole, a
///    share of it does; HBM that whole contexts leave empty is gain lost.
///  - *Bandwidth* (`--bandwidth hbm=1100GB/s,ddr=370GB/s`, or a machine
///    file from `hmplan probe`): both memories serve at once, so a phase of
///    the run takes as long as its slower tier needs for its traffic,
///    max(H/Bh, D/Bd), not H/Bh + D/Bd: moving everything to HBM leaves DDR
///    idle. A sweep over one array is fastest with Bh/(Bh+Bd) of it in HBM,
///    75% with those figures (Vaverka et al.'s 60-75%).
///
/// The model: a context's traffic is its gain (accesses x miss chance),
/// spread evenly over its lifetime; the run is cut into phases at the
/// lifetimes' ends (at most 256, longer runs merged); predicted time = the
/// sum over phases of max(H/Bh, D/Bd). Shares are whole 5% steps, for
/// contexts whose objects the runtime splits (80 pages or more: smaller
/// objects go whole to their largest share), else 0 or 100%. The choice
/// starts from the knapsack's and moves one context's share at a time to
/// the value that lowers the predicted time most within the capacity,
/// until no move helps.
///
/// What the capacity holds of a share: each object's part is its share of
/// the object's pages to within one run (runtime/sizeclass.h's split_run).
///
//===----------------------------------------------------------------------===//
#ifndef HMPLACE_HMPLAN_SHARES_H
#define HMPLACE_HMPLAN_SHARES_H

#include "Knapsack.h"

#include "llvm/ADT/StringRef.h"

#include <cstdint>
#include <string>
#include <vector>

namespace hmplace {

/// The tiers' bandwidths, bytes per second; 0: not given.
struct Bandwidths {
  double Fast = 0, Slow = 0;
  bool given() const { return Fast > 0 && Slow > 0; }
};

/// Parse one rate, `1100GB/s` (GB/s, GiB/s, MB/s, MiB/s, B/s), into bytes
/// per second. "" or what is wrong.
std::string parseRate(llvm::StringRef Text, double &Out);
/// Parse `hbm=1100GB/s,ddr=370GB/s` (GB/s, GiB/s, MB/s, MiB/s, or bytes/s
/// without a unit). "" or what is wrong.
std::string parseBandwidths(llvm::StringRef Spec, Bandwidths &Out);
/// "1100 GB/s": \p BytesPerSecond as people write it.
std::string rateText(double BytesPerSecond);

/// A context as the share choice sees it.
struct ShareItem {
  double Gain = 0;             ///< its traffic: accesses x miss chance
  uint64_t Object = 0;         ///< bytes of its largest object
  uint64_t Objects = 1;        ///< objects live at once
  uint64_t Usable = 0;         ///< bytes it holds whole (the knapsack's weight)
  uint64_t Start = 0, End = 0; ///< its lifetime, ms
  bool Candidate = true;       ///< may go to the fast tier at all
  bool MaySplit = true;        ///< a split entry may place it (not --whole)
  /// The runtime splits its objects (80 pages or more), and it may be.
  bool splittable() const;
  /// Bytes it holds of the fast tier with \p Share percent there.
  uint64_t heldAt(unsigned Share) const;
  /// Its largest object's pages, in bytes (what its split parts share).
  uint64_t pages() const;
};

/// The shares chosen: percent in the fast tier per item (0..100).
struct ShareChoice {
  std::vector<unsigned> Share;
  double Time = 0;        ///< predicted (bandwidth mode), arbitrary units
  double TimeAllSlow = 0; ///< everything in the slow tier
  double TimeAllFast = 0; ///< everything in the fast tier, capacity aside
  double FastGain = 0;    ///< the gain served by the fast tier
};

/// Shares for \p Items under \p Capacity, starting from the whole contexts
/// \p Whole (true: in the fast tier) the knapsack chose: without
/// bandwidths, the capacity the whole ones leave is filled by shares of the
/// densest others; with them, shares move until the predicted time stops
/// falling.
ShareChoice chooseShares(const std::vector<ShareItem> &Items,
                         const std::vector<bool> &Whole, uint64_t Capacity,
                         const Bandwidths &BW);

} // namespace hmplace

#endif
