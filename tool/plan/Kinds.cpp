//===- Kinds.cpp - memory kinds, aliases and sizes a plan can name --------===//
//
// The kind table is hmplace.h's HMPLACE_KINDS_, which mirrors `extern
// memkind_t MEMKIND_*` in memkind 1.14's memkind.h;
// test/plan/kinds-match-memkind.test checks it against the installed header
// so the two cannot drift apart silently.
//
//===----------------------------------------------------------------------===//
#include "plan/Kinds.h"
// The table only: no start-up check of it in the tools.
#define HMPLACE_NO_KINDS_CHECK 1
#include "hmplace.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/StringExtras.h"

#include <cmath>
#include <limits>

using namespace llvm;

namespace hmplace {

// hmplace.h's table, in its order (a kind's index is its enum hmplace_kind
// value), and the ordinary heap last.
// (clang-format would take the list's expansion for an expression.)
// clang-format off
static const KindInfo Kinds[] = {
#define HMPLACE_KIND_INFO(name, what) {"MEMKIND_" #name, what},
    HMPLACE_KINDS_(HMPLACE_KIND_INFO)
#undef HMPLACE_KIND_INFO
    {"posix", "the program's ordinary heap: the site is left as written"},
};
// clang-format on
static_assert(std::size(Kinds) == HMPLACE_KIND_COUNT + 1,
              "one KindInfo per hmplace.h kind and the heap");

StringRef kindsAbiTable() { return HMPLACE_KINDS_ABI; }

// Aliases. `ddr` is MEMKIND_REGULAR rather than the ordinary heap because a
// run under `numactl --preferred=<hbm node>` would put ordinary-heap data in
// HBM; a site planned for DDR must stay in DDR whatever the process policy.
// `posix`, the advisors' name for "leave it alone", is the heap itself.
static const KindAlias Aliases[] = {
    {"hbm", "MEMKIND_HBW"},
    {"hbw", "MEMKIND_HBW"},
    {"hbm-preferred", "MEMKIND_HBW_PREFERRED"},
    {"hbw-preferred", "MEMKIND_HBW_PREFERRED"},
    {"hbm-interleave", "MEMKIND_HBW_INTERLEAVE"},
    {"hbm-huge", "MEMKIND_HBW_HUGETLB"},
    {"ddr", "MEMKIND_REGULAR"},
    {"dram", "MEMKIND_REGULAR"},
    {"regular", "MEMKIND_REGULAR"},
    {"pmem", "MEMKIND_DAX_KMEM"},
    {"pmem-preferred", "MEMKIND_DAX_KMEM_PREFERRED"},
    {"cxl", "MEMKIND_DAX_KMEM"},
    {"capacity", "MEMKIND_HIGHEST_CAPACITY"},
    {"bandwidth", "MEMKIND_HIGHEST_BANDWIDTH_LOCAL"},
    {"latency", "MEMKIND_LOWEST_LATENCY_LOCAL"},
    {"interleave", "MEMKIND_INTERLEAVE"},
    {"heap", "posix"},
    {"memkind/hbwmalloc", "MEMKIND_HBW"},
    {"memkind/pmem", "MEMKIND_DAX_KMEM"},
};

bool KindInfo::isHeap() const { return this == &heapKind(); }

const KindInfo &heapKind() { return Kinds[std::size(Kinds) - 1]; }

ArrayRef<KindInfo> allKinds() { return Kinds; }

const KindInfo *findKind(StringRef Name) {
  // In any case, as AutoHBW's AUTO_HBW_MEM_TYPE takes them (memkind_hbw).
  for (const KindInfo &K : Kinds)
    if (Name.equals_insensitive(K.Name))
      return &K;
  return nullptr;
}

std::string kindSpelling(StringRef Name) {
  const KindInfo *K = findKind(Name);
  return K ? K->Name : Name.str();
}

ArrayRef<KindAlias> allAliases() { return Aliases; }

const KindInfo *findAlias(StringRef Name) {
  // In any case, as memkind's own names are (`kind: HBM`).
  for (const KindAlias &A : Aliases)
    if (Name.equals_insensitive(A.Name))
      return findKind(A.Kind);
  return nullptr;
}

std::string closestName(StringRef Bad, ArrayRef<std::string> Candidates) {
  std::string Best;
  unsigned BestDist = std::numeric_limits<unsigned>::max();
  for (const std::string &C : Candidates) {
    // A pure case mistake (memkind_hbw) is always worth suggesting.
    if (Bad.equals_insensitive(C))
      return C;
    unsigned D = Bad.edit_distance_insensitive(C, /*AllowReplacements=*/true);
    if (D < BestDist) {
      BestDist = D;
      Best = C;
    }
  }
  // Allow roughly one typo per three characters, as clang does for
  // identifiers; beyond that a suggestion is noise.
  unsigned Limit = std::max<unsigned>(1, (Bad.size() + 2) / 3);
  return BestDist <= Limit ? Best : std::string();
}

std::optional<uint64_t> parseSize(StringRef Text, std::string &Err) {
  StringRef S = Text.trim();
  if (S.empty()) {
    Err = "empty size";
    return std::nullopt;
  }
  size_t NumEnd = 0;
  while (NumEnd < S.size() && (isDigit(S[NumEnd]) || S[NumEnd] == '.'))
    ++NumEnd;
  StringRef Num = S.take_front(NumEnd);
  StringRef Unit = S.drop_front(NumEnd).trim();
  if (Num.empty() || Num.count('.') > 1 || Num.front() == '.' ||
      Num.back() == '.') {
    Err = ("invalid size '" + Text +
           "'; expected a number with an optional unit, e.g. 16GiB")
              .str();
    return std::nullopt;
  }
  uint64_t Mult;
  std::string U = Unit.lower();
  if (U.empty() || U == "b" || U == "bytes")
    Mult = 1;
  else if (U == "k" || U == "kib" || U == "kbytes")
    Mult = 1ULL << 10;
  else if (U == "m" || U == "mib" || U == "mbytes")
    Mult = 1ULL << 20;
  else if (U == "g" || U == "gib" || U == "gbytes")
    Mult = 1ULL << 30;
  else if (U == "t" || U == "tib" || U == "tbytes")
    Mult = 1ULL << 40;
  else if (U == "kb")
    Mult = 1000ULL;
  else if (U == "mb")
    Mult = 1000ULL * 1000;
  else if (U == "gb")
    Mult = 1000ULL * 1000 * 1000;
  else if (U == "tb")
    Mult = 1000ULL * 1000 * 1000 * 1000;
  else {
    Err =
        ("invalid size unit '" + Unit +
         "'; use B, KiB, MiB, GiB, TiB (or KB, MB, GB, TB for powers of 1000)")
            .str();
    return std::nullopt;
  }
  // Integers are parsed exactly; a fraction (682.667 MBytes, as ecoHMEM writes)
  // is rounded down to whole bytes.
  if (!Num.contains('.')) {
    uint64_t V;
    if (Num.getAsInteger(10, V) ||
        (V != 0 && Mult > std::numeric_limits<uint64_t>::max() / V)) {
      Err = ("size '" + Text + "' is too large").str();
      return std::nullopt;
    }
    return V * Mult;
  }
  double D = std::strtod(Num.str().c_str(), nullptr) * double(Mult);
  if (!(D < 18446744073709551616.0)) {
    Err = ("size '" + Text + "' is too large").str();
    return std::nullopt;
  }
  return uint64_t(std::floor(D));
}

std::string formatSize(uint64_t Bytes) {
  static const char *Units[] = {"TiB", "GiB", "MiB", "KiB"};
  static const unsigned Shifts[] = {40, 30, 20, 10};
  if (Bytes == 0)
    return "0";
  for (unsigned I = 0; I < 4; ++I)
    if ((Bytes & ((1ULL << Shifts[I]) - 1)) == 0)
      return std::to_string(Bytes >> Shifts[I]) + Units[I];
  return std::to_string(Bytes);
}

std::string humanSize(uint64_t Bytes) {
  static const char *Units[] = {"B", "KiB", "MiB", "GiB", "TiB", "PiB", "EiB"};
  double V = double(Bytes);
  unsigned U = 0;
  while (V >= 1024 && U < 6) {
    V /= 1024;
    ++U;
  }
  char Buf[32];
  if (U == 0)
    snprintf(Buf, sizeof(Buf), "%llu B", (unsigned long long)Bytes);
  else
    snprintf(Buf, sizeof(Buf), "%.1f %s", V, Units[U]);
  return Buf;
}

std::pair<std::string, std::string> humanSizes(uint64_t A, uint64_t B) {
  std::string HA = humanSize(A), HB = humanSize(B);
  if (HA != HB || A == B)
    return {HA, HB};
  return {std::to_string(A) + " bytes", std::to_string(B) + " bytes"};
}

} // namespace hmplace
