//===- Misses.h - the misses a profiled run made, per context ---*- C++ -*-===//
///
/// \file
/// The profile support library (runtime/profile/misses.c) writes, beside
/// each raw MemProf profile `P`, a file `P.misses` with what the sampled
/// accesses of the run found: per allocation context (MemProf's id of its
/// call stack, the id of its record in `P`), a histogram of reuse
/// distances, from which the misses an LRU cache of any size takes follow
/// (reuse.h). The format, a text file of lines:
///
///   hmplace-misses 1
///   profile memprof.profraw.4242   the raw profile's file name
///   pid 4242
///   line 64                        cache line, bytes
///   sample 1/128                   one access in 128 sampled, at the end
///   buckets 1024 8 160             [0, 1024) lines, then 8 per doubling,
///                                  160 of them; then one for deeper and
///                                  first accesses
///   accesses N                     every sampled access, weighted
///   contexts N DROPPED             with a histogram; over the table's room
///   layout memprof|unknown         whether blocks could be attributed
///   ctx ID SERIES B:COUNT ...      SERIES: all, stream, write; context 0:
///                                  no block (the stack, globals)
///   end
///
/// Counts are accesses (sampled ones times their weight). Every line is
/// checked; an error names the file, line and column.
///
//===----------------------------------------------------------------------===//
#ifndef HMPLACE_HMPLAN_MISSES_H
#define HMPLACE_HMPLAN_MISSES_H

#include "plan/Diag.h"

#include "llvm/ADT/StringRef.h"

#include <cstdint>
#include <map>
#include <string>
#include <vector>

namespace hmplace {

/// The histogram's buckets of reuse distance, in lines.
struct MissBuckets {
  uint64_t Near = 1024;   ///< bucket 0: [0, Near)
  unsigned PerOctave = 8; ///< then this many per doubling
  unsigned Count = 160;   ///< buckets 1..Count; Count + 1: first or deeper
  size_t size() const { return Count + 2; }
  /// Bucket \p B's distances, [Lo, Hi) lines (the last: Hi infinite).
  double lo(size_t B) const;
  double hi(size_t B) const;
  bool operator==(const MissBuckets &O) const {
    return Near == O.Near && PerOctave == O.PerOctave && Count == O.Count;
  }
};

/// A cache as the misses are read for it: \p Lines lines, \p Ways to a set
/// (0: fully associative), LRU. For each bucket of reuse distance, the
/// chance that an access at that distance misses. Fully associative: the
/// distance is at least the cache. Set-associative (Smith's model, as
/// StatCache uses it): the d lines touched since spread over the sets at
/// random (real LLCs hash addresses to sets), so the access misses when W
/// or more of them fell in its set, a Poisson tail of mean d / sets. The
/// two differ most where a working set is near the cache's size: on
/// examples/particles (1.6 MB) against cachegrind's 16-way LL of 1 MiB,
/// 1.13x its misses fully associative, 0.99x with this model; but
/// cachegrind indexes its sets by address bits, so contiguous arrays fill
/// them evenly, and where they fit (examples/fortran, 3.2 MB in 4 MiB) it
/// has no conflicts, which this model counts (4.7x). Fully associative is
/// the default (`--llc-ways`).
class MissModel {
public:
  MissModel(const MissBuckets &B, double Lines, unsigned Ways);
  /// The misses of \p PerBucket (accesses per bucket).
  double misses(const std::vector<double> &PerBucket) const;

private:
  std::vector<double> Chance; ///< per bucket
};

/// One context's accesses by reuse distance: the misses at every cache
/// size.
struct MissCurve {
  MissBuckets Buckets;
  std::vector<double> All, Stream, Write; ///< accesses per bucket
  bool empty() const { return All.empty(); }
  void add(const MissCurve &O);
  double accesses() const;
  /// Accesses an LRU cache of \p Lines lines and \p Ways ways (0: fully
  /// associative) misses (MissModel), first accesses included.
  double missesAt(double Lines, unsigned Ways = 0) const;
  /// The share of those misses that stream (sequential lines): the sample
  /// tells a stream by the unit's other line being touched just before,
  /// which a forward or backward sweep shows on every second line, so the
  /// share is twice what is seen (at most 1). 0 without misses.
  double streamShareAt(double Lines, unsigned Ways = 0) const;
  /// The share of those misses that are writes.
  double writeShareAt(double Lines, unsigned Ways = 0) const;
};

/// One run's misses file.
struct MissProfile {
  std::string Path;
  std::string Profile; ///< the raw profile's file name it goes with
  uint64_t Pid = 0;
  uint64_t Sample = 128;  ///< one access in this many, at the end of the run
  uint64_t Dropped = 0;   ///< contexts beyond the table's room (counted as 0)
  bool Attributed = true; ///< false: the allocator's layout was unknown
  std::map<uint64_t, MissCurve> ByContext; ///< MemProf stack id -> curve
};

/// Whether \p Data starts like a misses file.
bool looksLikeMissFile(llvm::StringRef Data);

/// Parse \p Data, the misses file \p Path, into \p Out; every problem is
/// reported at its line and column, and false returned.
bool parseMissFile(llvm::StringRef Path, llvm::StringRef Data, MissProfile &Out,
                   DiagEngine &D);

} // namespace hmplace

#endif
