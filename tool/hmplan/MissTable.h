//===- MissTable.h - `hmplan misses`: the runs' misses by cache size -*- C++
//-*-===//
///
/// \file
/// What the profiled runs measured (Misses.h), as a table: per cache size,
/// the misses of the contexts, of no block (the stack, globals, blocks
/// already freed) and of blocks no context holds, their total, and the
/// share that streams. The total is what a cache simulator of the same size
/// counts for the program's own accesses (valgrind's cachegrind:
/// test/advise/misses-cachegrind.test); `--top` adds the contexts with the
/// most misses at the first size.
///
//===----------------------------------------------------------------------===//
#ifndef HMPLACE_HMPLAN_MISSTABLE_H
#define HMPLACE_HMPLAN_MISSTABLE_H

#include "MemProfile.h"

#include "llvm/ADT/StringRef.h"
#include "llvm/Support/raw_ostream.h"

#include <cstdint>
#include <vector>

namespace hmplace {

class Plan;

/// The table for caches of \p Sizes (bytes) and \p Ways (0: fully
/// associative) of \p Contexts and \p Misses; with \p Top, that many
/// contexts by their misses at the first size.
void printMissTable(const std::vector<ProfileContext> &Contexts,
                    const ProfileMisses &Misses,
                    const std::vector<uint64_t> &Sizes, unsigned Ways,
                    unsigned Top, llvm::raw_ostream &OS);

/// Where the plan \p P (named \p Name) puts the contexts' misses: per cache
/// size, the misses of the contexts each kind would serve (a split's parts
/// by their shares), as the front ends and the runtime decide the entries
/// (`hmplan misses --plan`): what a plan moves to HBM, for any plan.
void printPlanMisses(const std::vector<ProfileContext> &Contexts,
                     const Plan &P, llvm::StringRef Name,
                     const std::vector<uint64_t> &Sizes, unsigned Ways,
                     llvm::raw_ostream &OS);

} // namespace hmplace

#endif
