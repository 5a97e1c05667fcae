//===- TryPoints.cpp - `hmplan try`: which parts of a plan to run ---------===//
#include "TryPoints.h"
#include "plan/Kinds.h"
#include "plan/Plan.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/StringExtras.h"

#include <algorithm>
#include <set>

using namespace llvm;

namespace hmplace {

std::vector<TryEntry> placingEntries(const Plan &P) {
  std::vector<TryEntry> Out;
  std::set<std::string> Seen;
  for (const PlanEntry &E : P.Entries) {
    if (E.To.isHeap() || !Seen.insert(E.key()).second)
      continue;
    TryEntry T{E.key(), E.To.kindText(), std::nullopt};
    std::string Err;
    if (!E.Size.empty())
      T.Size = parseSize(E.Size, Err);
    Out.push_back(std::move(T));
  }
  return Out;
}

/// The point of the first \p N entries, with their bytes where known.
static TryPoint pointAt(const std::vector<TryEntry> &Entries, size_t N) {
  TryPoint P;
  P.N = N;
  uint64_t Sum = 0;
  for (size_t I = 0; I < N; ++I) {
    if (!Entries[I].Size)
      return P;
    Sum += *Entries[I].Size;
  }
  P.Bytes = Sum;
  return P;
}

std::vector<TryPoint> defaultPoints(const std::vector<TryEntry> &Entries,
                                    size_t Most) {
  size_t K = Entries.size();
  std::vector<size_t> Ns;
  if (K + 1 <= Most || Most < 2) {
    for (size_t N = 0; N <= K; ++N)
      Ns.push_back(N);
  } else {
    for (size_t I = 0; I < Most; ++I) {
      size_t N = (K * I + (Most - 1) / 2) / (Most - 1);
      if (Ns.empty() || Ns.back() != N)
        Ns.push_back(N);
    }
  }
  std::vector<TryPoint> Points;
  for (size_t N : Ns)
    Points.push_back(pointAt(Entries, N));
  return Points;
}

bool pointsFromList(const std::vector<std::string> &Specs,
                    const std::vector<TryEntry> &Entries,
                    std::vector<TryPoint> &Points, std::string &Err) {
  std::set<size_t> Seen;
  for (StringRef S : Specs) {
    size_t N;
    S = S.trim();
    if (S == "all")
      N = Entries.size();
    else if (S.getAsInteger(10, N)) {
      Err = "'" + S.str() + "' is not a count of entries (0, 1, ... or all)";
      return false;
    } else if (N > Entries.size()) {
      Err = "the plan has " + std::to_string(Entries.size()) +
            " placing entries, not " + S.str();
      return false;
    }
    Seen.insert(N);
  }
  Seen.insert(0); // the baseline every point is measured against
  for (size_t N : Seen)
    Points.push_back(pointAt(Entries, N));
  return true;
}

bool pointsFromCapacities(const std::vector<std::string> &Specs,
                          const std::vector<TryEntry> &Entries,
                          std::vector<TryPoint> &Points, std::string &Err) {
  for (const TryEntry &E : Entries)
    if (!E.Size) {
      Err = "entry " + E.Key +
            " has no size: --capacities needs every placing entry's "
            "size: (hmplan advise writes them); --points names counts";
      return false;
    }
  Points.push_back(pointAt(Entries, 0));
  for (const std::string &S : Specs) {
    std::optional<uint64_t> C = parseSize(S, Err);
    if (!C)
      return false;
    size_t N = 0;
    uint64_t Sum = 0;
    while (N < Entries.size() && Sum + *Entries[N].Size <= *C)
      Sum += *Entries[N++].Size;
    if (llvm::any_of(Points, [&](const TryPoint &Q) { return Q.N == N; }))
      continue; // a smaller capacity already placed these entries
    TryPoint P = pointAt(Entries, N);
    P.Capacity = *C;
    Points.push_back(P);
  }
  llvm::stable_sort(
      Points, [](const TryPoint &A, const TryPoint &B) { return A.N < B.N; });
  return true;
}

std::string entriesFileText(const std::vector<TryEntry> &Entries, size_t N,
                            StringRef PlanName) {
  std::string S = "# hmplan try: the first " + std::to_string(N) + " of " +
                  std::to_string(Entries.size()) + " placing entries of " +
                  PlanName.str() + "\n";
  for (size_t I = 0; I < N && I < Entries.size(); ++I)
    S += Entries[I].Key + "\n";
  return S;
}

} // namespace hmplace
