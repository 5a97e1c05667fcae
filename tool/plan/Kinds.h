//===- Kinds.h - memory kinds, aliases and sizes a plan can name *- C++ -*-===//
///
/// \file
/// The vocabulary of plan targets: memkind 1.14's static kinds, the ordinary
/// heap, and the friendly aliases users and advisors write (`hbm`, `ddr`,
/// `memkind/hbwmalloc`, ...). Also the size syntax used for budgets.
///
//===----------------------------------------------------------------------===//
#ifndef HMPLACE_PLAN_KINDS_H
#define HMPLACE_PLAN_KINDS_H

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/StringRef.h"

#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace hmplace {

/// A memory a site can be sent to. `Heap` is the program's ordinary heap
/// (glibc malloc): a site planned there is left as written. Every other entry
/// is a memkind static kind, named as in memkind.h.
struct KindInfo {
  const char *Name;
  const char *Description;
  bool isHeap() const;
};

/// The ordinary-heap pseudo kind; its name is "posix", as in advisor output.
const KindInfo &heapKind();
/// All static kinds of memkind 1.14, in memkind.h's order, then the heap.
llvm::ArrayRef<KindInfo> allKinds();
/// hmplace.h's kinds table as placed code passes it to the runtime's start-up
/// check ("REGULAR,DEFAULT,...,": each name and a comma, in index order).
llvm::StringRef kindsAbiTable();
/// Kind name lookup (`MEMKIND_HBW`, `posix`), in any case (`memkind_hbw`,
/// as AutoHBW's AUTO_HBW_MEM_TYPE takes it); nullptr if unknown.
const KindInfo *findKind(llvm::StringRef Name);
/// How a plan writes \p Name: a memkind kind name as memkind spells it
/// (`memkind_hbw` -> `MEMKIND_HBW`), anything else as given.
std::string kindSpelling(llvm::StringRef Name);

struct KindAlias {
  const char *Name;
  const char *Kind;
};
llvm::ArrayRef<KindAlias> allAliases();
/// Alias lookup (`hbm`, `memkind/hbwmalloc`); nullptr if unknown.
const KindInfo *findAlias(llvm::StringRef Name);

/// The closest of \p Candidates to \p Bad by edit distance, or "" if none is
/// close enough to be a plausible typo.
std::string closestName(llvm::StringRef Bad,
                        llvm::ArrayRef<std::string> Candidates);

/// Parse a byte count: `1073741824`, `16GiB`, `512 MiB`, `1.5GB`, `64k`.
/// IEC units (KiB, MiB, GiB, TiB) and bare K/M/G/T are powers of 1024; SI units
/// (kB, MB, GB, TB) are powers of 1000. On failure returns std::nullopt and
/// sets \p Err to a sentence saying why.
std::optional<uint64_t> parseSize(llvm::StringRef Text, std::string &Err);
/// The shortest exact spelling of \p Bytes: `16GiB`, `1536MiB`, `1000`.
std::string formatSize(uint64_t Bytes);
/// A rounded human spelling for tables: `16.0 GiB`, `1.5 MiB`, `512 B`.
std::string humanSize(uint64_t Bytes);
/// \p A and \p B for a comparison ("its 5.2 MiB exceed 4.0 MiB"): as
/// humanSize, or in bytes where the two would read alike.
std::pair<std::string, std::string> humanSizes(uint64_t A, uint64_t B);

} // namespace hmplace

#endif
