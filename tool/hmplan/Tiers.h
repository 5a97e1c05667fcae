//===- Tiers.h - the tier names hmplan advise takes -------------*- C++ -*-===//
///
/// \file
/// One table of the tiers `hmplan advise` places in, by every name its
/// options and machine descriptions (`--capacity`, `--bandwidth`,
/// `--machine`) give them: the fast tier (hbm, hbw), DDR, and one slow tier
/// (pmem, cxl, or `slow`, what `hmplan probe` names a memory-only node
/// slower than DDR), each with the plan kind its entries name. A name
/// missing here was an internal error once (probe's `slow`): every reader
/// asks this table.
///
//===----------------------------------------------------------------------===//
#ifndef HMPLACE_HMPLAN_TIERS_H
#define HMPLACE_HMPLAN_TIERS_H

#include "llvm/ADT/StringRef.h"

#include <cstdint>
#include <map>
#include <string>

namespace hmplace {

enum class TierRole { Fast, DDR, Slow };

struct AdvisorTier {
  llvm::StringLiteral Name;
  TierRole Role;
  /// The plan's spelling of its kind (a plan alias, plan/Kinds.h).
  llvm::StringLiteral Kind;
};

inline constexpr AdvisorTier AdvisorTiers[] = {
    {"hbm", TierRole::Fast, "hbm"},  {"hbw", TierRole::Fast, "hbm"},
    {"ddr", TierRole::DDR, "ddr"},   {"pmem", TierRole::Slow, "pmem"},
    {"cxl", TierRole::Slow, "pmem"}, {"slow", TierRole::Slow, "pmem"},
};

/// The tier called \p Name (lower case), or null.
inline const AdvisorTier *findAdvisorTier(llvm::StringRef Name) {
  for (const AdvisorTier &T : AdvisorTiers)
    if (T.Name == Name)
      return &T;
  return nullptr;
}

/// The tier of \p R that \p Capacity (tier name -> bytes) names, or null.
inline const std::string *
tierOfRole(const std::map<std::string, uint64_t> &Capacity, TierRole R) {
  for (const auto &[Name, Cap] : Capacity)
    if (const AdvisorTier *T = findAdvisorTier(Name); T && T->Role == R)
      return &Name;
  return nullptr;
}

/// "hbm, hbw, ddr, pmem, cxl or slow", for messages.
inline std::string advisorTierList() {
  std::string S;
  size_t N = std::size(AdvisorTiers);
  for (size_t I = 0; I < N; ++I)
    S += (I == 0       ? ""
          : I + 1 == N ? " or "
                       : ", ") +
         AdvisorTiers[I].Name.str();
  return S;
}

} // namespace hmplace

#endif
