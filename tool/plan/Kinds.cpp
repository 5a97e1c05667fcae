//===- Kinds.cpp - memory kinds, aliases and sizes a plan can name --------===//
//
// The kind table mirrors `extern memkind_t MEMKIND_*` in memkind 1.14's
// memkind.h; test/plan/kinds-match-memkind.test checks it against the
// installed header so the two cannot drift apart silently.
//
//===----------------------------------------------------------------------===//
#include "plan/Kinds.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/StringExtras.h"

#include <cmath>
#include <limits>

using namespace llvm;

namespace hmplace {

static const KindInfo Kinds[] = {
    {"MEMKIND_REGULAR", "memory on nodes with CPUs (DDR), no HBM/PMem"},
    {"MEMKIND_DEFAULT", "memkind's default heap (its own jemalloc arenas)"},
    {"MEMKIND_HUGETLB", "default policy, 2 MiB huge pages"},
    {"MEMKIND_HBW", "high-bandwidth memory (HBM/MCDRAM), fails if absent"},
    {"MEMKIND_HBW_ALL", "HBW on any node, not only the closest"},
    {"MEMKIND_HBW_PREFERRED", "HBW if available, else other memory"},
    {"MEMKIND_HBW_HUGETLB", "HBW with 2 MiB huge pages"},
    {"MEMKIND_HBW_ALL_HUGETLB", "HBW on any node with 2 MiB huge pages"},
    {"MEMKIND_HBW_PREFERRED_HUGETLB", "HBW preferred, 2 MiB huge pages"},
    {"MEMKIND_HBW_INTERLEAVE", "interleaved across all HBW nodes"},
    {"MEMKIND_INTERLEAVE", "interleaved across all nodes"},
    {"MEMKIND_DAX_KMEM", "persistent memory / CXL exposed as KMEM DAX nodes"},
    {"MEMKIND_DAX_KMEM_ALL", "any KMEM DAX node"},
    {"MEMKIND_DAX_KMEM_PREFERRED", "KMEM DAX if available, else other memory"},
    {"MEMKIND_DAX_KMEM_INTERLEAVE", "interleaved across KMEM DAX nodes"},
    {"MEMKIND_HIGHEST_CAPACITY", "the node(s) with the most memory"},
    {"MEMKIND_HIGHEST_CAPACITY_PREFERRED", "highest capacity, else other"},
    {"MEMKIND_HIGHEST_CAPACITY_LOCAL", "highest capacity local to the CPU"},
    {"MEMKIND_HIGHEST_CAPACITY_LOCAL_PREFERRED",
     "highest capacity local, else other"},
    {"MEMKIND_LOWEST_LATENCY_LOCAL", "lowest-latency node local to the CPU"},
    {"MEMKIND_LOWEST_LATENCY_LOCAL_PREFERRED",
     "lowest latency local, else other"},
    {"MEMKIND_HIGHEST_BANDWIDTH_LOCAL", "highest-bandwidth node local to CPU"},
    {"MEMKIND_HIGHEST_BANDWIDTH_LOCAL_PREFERRED",
     "highest bandwidth local, else other"},
    {"posix", "the program's ordinary heap: the site is left as written"},
};

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

} // namespace hmplace
