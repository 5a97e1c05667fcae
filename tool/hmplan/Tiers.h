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
#include <optional>
#include <string>
#include <vector>

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

/// "hbm, hbw, ddr, pmem, cxl or slow" (every tier), or the tiers of role
/// \p R only, each followed by \p Suffix ("pmem=SIZE, cxl=SIZE or
/// slow=SIZE"), for messages.
inline std::string advisorTierList(std::optional<TierRole> R = std::nullopt,
                                   llvm::StringRef Suffix = "") {
  std::vector<std::string> Names;
  for (const AdvisorTier &T : AdvisorTiers)
    if (!R || T.Role == *R)
      Names.push_back(T.Name.str() + Suffix.str());
  std::string S;
  for (size_t I = 0; I < Names.size(); ++I)
    S += (I == 0 ? "" : I + 1 == Names.size() ? " or " : ", ") + Names[I];
  return S;
}

/// --capacity's syntax: "hbm=SIZE[,ddr=SIZE][,pmem=SIZE|cxl=SIZE|slow=SIZE]"
/// (a fast tier, DDR, one of the slow ones).
inline std::string capacitySyntax() {
  auto First = [](TierRole R) {
    for (const AdvisorTier &T : AdvisorTiers)
      if (T.Role == R)
        return T.Name.str();
    return std::string();
  };
  std::string Slow;
  for (const AdvisorTier &T : AdvisorTiers)
    if (T.Role == TierRole::Slow)
      Slow += (Slow.empty() ? "" : "|") + T.Name.str() + "=SIZE";
  return First(TierRole::Fast) + "=SIZE[," + First(TierRole::DDR) + "=SIZE][," +
         Slow + "]";
}

} // namespace hmplace

#endif
