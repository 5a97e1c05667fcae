//===- RawStacks.h - what LLVM's reader drops from a stack ----*- C++ -*-===//
///
/// \file
/// LLVM's raw MemProf reader (19, 22) keeps, of each call stack the runtime
/// unwound, only the addresses the binary's debug info names: the
/// allocation function the program called (MemProf's interceptor, inside
/// the binary but without debug info) and any frames in shared libraries
/// vanish. Two things the advisor needs are in those frames:
///
///  - whether the allocation was made by a shared library: libomp's own
///    memory, allocated when a `#pragma omp parallel` forks, reads as an
///    allocation at the pragma's line, which no front end can place;
///  - which allocation function was called (posix_memalign, operator new
///    with an alignment, ...), which decides how the runtime rounds the
///    block (the capacity is counted in the runtime's usable bytes).
///
/// This walks the raw stacks itself, with the same address mapping and the
/// same rule for which frames the reader keeps, and files the facts under
/// the innermost frame the reader keeps (a function, a line offset from its
/// declaration, a column: LLVM's memprof::Frame).
///
//===----------------------------------------------------------------------===//
#ifndef HMPLACE_HMPLAN_RAWSTACKS_H
#define HMPLACE_HMPLAN_RAWSTACKS_H

#include "RawProfile.h"

#include "llvm/DebugInfo/DWARF/DWARFContext.h"
#include "llvm/Object/ObjectFile.h"
#include "llvm/ProfileData/MemProf.h"

#include <map>
#include <string>
#include <tuple>
#include <vector>

namespace hmplace {

/// What the stacks that reach one program frame say.
struct RawSiteFacts {
  /// Some allocation reached from there was made inside a shared library.
  bool Foreign = false;
  /// The allocation function the program called there (malloc,
  /// posix_memalign, operator new, ...), as the binary's symbols name it;
  /// empty where the stack does not say.
  std::string Allocator;
};

/// Allocations whose call stack holds no frame the reader keeps: made
/// inside a library's or a language runtime's own calls (stdio's buffers,
/// flang's runtime after a statement's first array) where the stack stops
/// before reaching the program. LLVM's reader leaves them out.
struct RawUnnamed {
  uint64_t Objects = 0, Bytes = 0, Accesses = 0;
};

class RawStacks {
public:
  RawStacks(const llvm::object::ObjectFile &Binary, llvm::DWARFContext &Ctx);
  /// Read the stacks of one raw profile of the binary with build id \p Id.
  /// Returns each of its call stacks by its id, as the frames LLVM's reader
  /// gives it (stackKey's text of them): what ties a stack id to the
  /// reader's context.
  std::map<uint64_t, std::string> add(const RawProfileFacts &Facts,
                                      llvm::StringRef Id);
  /// The facts filed under the frame (LLVM's memprof::Frame fields), or null.
  const RawSiteFacts *at(uint64_t Function, uint32_t LineOffset,
                         uint32_t Column) const;
  /// What the profiles added so far allocated with no frame of the program.
  const RawUnnamed &unnamed() const { return Unnamed; }
  /// How many of the allocations with frames \p Key (stackKey), of
  /// \p Objects objects and \p Bytes bytes as LLVM's reader gives them, come
  /// from stacks it misread: their innermost frame comes from an address in
  /// no segment of the process (a library without frame pointers, libomp's
  /// dispatch buffers on a worker thread, left the unwinder a stale value),
  /// which LLVM's reader symbolizes as if it were the binary's. Such an
  /// allocation is the library's, never the program's at that line.
  unsigned misread(const std::string &Key, uint64_t Objects,
                   uint64_t Bytes) const;
  /// What the misread stacks allocated, in all.
  const RawUnnamed &misreadTotal() const { return MisreadTotal; }

private:
  struct Symbol {
    uint64_t Address, Size;
    std::string Name;
  };
  const Symbol *symbolAt(uint64_t Address) const;
  /// The frames the reader gives the stack \p PCs (stackKey's text), as
  /// RawMemProfReader does: an address of the binary's segment \p Ours
  /// mapped to the binary, any other left as it is (and symbolized all the
  /// same). \p Misread: the innermost frame kept is such an other.
  std::string readerKey(llvm::ArrayRef<uint64_t> PCs,
                        llvm::ArrayRef<std::pair<uint64_t, uint64_t>> Ours,
                        bool &Misread) const;
  /// The frame the reader keeps for \p Address (binary-relative), if any.
  bool keptFrame(uint64_t Address,
                 std::tuple<uint64_t, uint32_t, uint32_t> &Key) const;

  llvm::DWARFContext &Ctx;
  uint64_t TextAddress = 0;    ///< the executable segment's preferred address
  std::vector<Symbol> Symbols; ///< functions, by address
  std::map<std::tuple<uint64_t, uint32_t, uint32_t>, RawSiteFacts> Facts;
  RawUnnamed Unnamed;
  /// Misread stacks' allocations by the reader's key, not yet answered.
  std::map<std::string, std::vector<RawUnnamed>> Misread;
  RawUnnamed MisreadTotal;
};

/// The text of a context's frames as LLVM's reader gives them (function,
/// line offset, column, inlined), the key add() returns for each stack.
std::string stackKey(llvm::ArrayRef<llvm::memprof::Frame> Frames);

/// The alignment the runtime gives a block from \p Allocator when the
/// program does not say (a profile has no alignment): 64 bytes for the
/// aligned forms (posix_memalign, aligned_alloc, memalign, aligned operator
/// new: HPC codes align to cache lines), a page for valloc/pvalloc, 0 (the
/// allocator's own) for the others.
uint64_t assumedAlignment(llvm::StringRef Allocator);

} // namespace hmplace

#endif
