//===- PlacedCost.h - the placed path's cost, HBM's saving -----*- C++ -*-===//
///
/// \file
/// A context of millions of short-lived objects (a Fortran code's array
/// temporaries) can have a share of the misses worth placing and still lose
/// time in HBM: every placed allocation and free goes through the runtime
/// and memkind, which cost more than the ordinary heap's. The advisor keeps
/// a context whose allocations would cost more on the placed path than HBM
/// saves it:
///
///   cost  = allocations x allocCost(object size)
///   saves = misses x SavedPerMiss
///
/// allocCost is what a placed allocation and its free cost more than
/// glibc's, measured on this machine class (`scripts/bench alloc`, an
/// allocation and free in a loop, HBW on node 0): 13 ns up to 16 KiB,
/// 205 ns at 256 KiB, 335 ns at 1 MiB (memkind's large extents), linear
/// between and beyond. SavedPerMiss is the time a 64-byte line takes at
/// one core's share of DDR's bandwidth less at its share of HBM's, every
/// core of the socket streaming: 64 B x cores x (1/DDR - 1/HBM), 6.4 ns at
/// a Xeon Max socket's 1100 and 370 GB/s over 56 cores (the defaults;
/// `--bandwidth` or `--machine` give the tiers', `--cores` the cores).
/// Where the misses are guessed (live bytes), a context's accesses x miss
/// chance counts eight accesses a line (8-byte words).
///
//===----------------------------------------------------------------------===//
#ifndef HMPLACE_HMPLAN_PLACEDCOST_H
#define HMPLACE_HMPLAN_PLACEDCOST_H

#include "Shares.h"

#include <cstdint>
#include <string>

namespace hmplace {

struct PlacedCost {
  /// Nanoseconds HBM saves for each last-level miss it serves.
  double SavedPerMiss = 0;
  /// --alloc-cost: a flat cost per allocation in nanoseconds (0 turns the
  /// term off); below 0, the measured curve.
  double Flat = -1;
  double FastBW = 0, SlowBW = 0; ///< bytes per second
  unsigned Cores = 0;

  /// The model for tiers of \p BW (the defaults where not given), \p Cores
  /// sharing them, and \p Flat.
  static PlacedCost make(const Bandwidths &BW, unsigned Cores, double Flat);
  /// Nanoseconds a placed allocation of \p Bytes and its free cost more
  /// than the ordinary heap's.
  double allocCost(uint64_t Bytes) const;
  /// Whether the term is on (not --alloc-cost=0).
  bool on() const { return Flat != 0; }
  /// The model in a sentence, for --explain.
  std::string describe() const;
};

/// The default bandwidths and cores: a Xeon Max socket.
constexpr double DefaultFastBW = 1100e9, DefaultSlowBW = 370e9;
constexpr unsigned DefaultCores = 56;

} // namespace hmplace

#endif
