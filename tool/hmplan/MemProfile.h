//===- MemProfile.h - contexts from a MemProf profile -----------*- C++ -*-===//
///
/// \file
/// `clang -fmemory-profile` builds a program that writes, per allocation
/// call stack, how many objects it made, their sizes, lifetimes and memory
/// accesses. LLVM's own readers parse the profiles (raw, as the program
/// writes them, and indexed, as `llvm-profdata merge` writes them); a frame
/// there is a function, a line offset from the function's start and a
/// column. This turns them into source frames (file:line:col, from the
/// binary's debug info) and merges the contexts of several profiles (runs,
/// MPI ranks): what `hmplan advise` chooses from.
///
//===----------------------------------------------------------------------===//
#ifndef HMPLACE_HMPLAN_MEMPROFILE_H
#define HMPLACE_HMPLAN_MEMPROFILE_H

#include "Misses.h"
#include "plan/Diag.h"

#include "llvm/ADT/StringRef.h"

#include <cstdint>
#include <string>
#include <vector>

namespace hmplace {

/// One frame of an allocation context, in the source.
struct ProfileFrame {
  std::string File; ///< absolute, without `.` and `..`
  unsigned Line = 0, Column = 0;
  std::string Function; ///< demangled where possible
  /// "file:line:col", or "file:line" where the debug info has no column;
  /// the file named \p Name (a plan's path for it).
  std::string text(llvm::StringRef Name) const;
  std::string text() const { return text(File); }
};

/// One allocation context (call stack) and what the profiles say of it,
/// summed over the profiles read.
struct ProfileContext {
  std::vector<ProfileFrame> Frames; ///< innermost (the allocation call) first
  uint64_t AllocCount = 0;
  uint64_t TotalSize = 0; ///< bytes of all its objects
  uint64_t MaxSize = 0;   ///< the largest object
  uint64_t Accesses = 0;  ///< 8-byte granules touched, every access counted
  uint64_t Overlaps = 0;  ///< objects allocated while the previous one lived
  uint64_t Start = 0, End = 0; ///< ms: [Start, End] may hold live objects
  unsigned Profiles = 0;       ///< how many profiles saw it
  /// Why no entry can name its allocation call, or "": it was made by code
  /// the binary does not hold (a shared library), or the innermost frame
  /// calls a function that is no allocator (a wrapper whose allocation was
  /// a tail call, which leaves no frame).
  std::string Unnameable;
  /// Allocated inside a shared library: the accesses the library makes to
  /// it are not instrumented, so Accesses counts the program's alone.
  bool Foreign = false;
  /// The alignment its allocation call is taken to ask for (RawStacks.h's
  /// assumedAlignment), 0 for the allocator's own: it decides the runtime's
  /// rounding.
  uint64_t Align = 0;
  /// The function (without a frame pointer) after which its frames were
  /// cut, or "": a frame-pointer unwinder skips or loses its callers.
  std::string CutAfter;
  /// Its accesses by reuse distance, where the profiled run measured them
  /// (Misses.h): the misses at any cache size. Empty otherwise, or where
  /// the sample saw none of its lines.
  MissCurve Misses;
  /// The largest object, in bytes (MaxSize is 32 bits in MemProf: the mean
  /// when that is larger).
  uint64_t objectBytes() const;
  /// How many objects it may hold at once (MemProf counts the objects
  /// allocated while the previous one lived).
  uint64_t objectsAtOnce() const;
  /// Bytes it may hold at once: one object, or as many as overlapped.
  uint64_t peakBytes() const;
  /// Its frames as one string, the key that tells contexts apart.
  std::string framesKey() const;
  /// Add the figures of \p C (another run's, or a context decided with
  /// this one): counts add up, the lifetime spans both.
  void add(const ProfileContext &C);
  /// Add the figures of \p C, another allocation call of the same run at
  /// the same source location (three mallocs in one macro expansion, a
  /// multi-array ALLOCATE): as add(), and their objects may all be live at
  /// once, so the objects live together add up too.
  void addApart(const ProfileContext &C);
};

/// What the profiles could not show: said by default where it matters, and
/// by `--explain`.
struct ProfileBlindSpots {
  /// The binary was not linked with HmPlace's profile support (hmcc
  /// --profile): LLVM's MemProf leaves out blocks over 128 KiB that are
  /// still allocated at exit.
  bool NoSupport = false;
  /// Functions built without frame pointers that cut some stacks
  /// ("name (file)").
  std::vector<std::string> NoFramePointer;
  /// Contexts allocated inside shared libraries (no front end places them),
  /// and the accesses the program's own code made to them (the libraries'
  /// are not counted).
  unsigned Foreign = 0;
  uint64_t ForeignAccesses = 0;
  /// Allocations whose stacks hold no frame of the program (RawStacks.h):
  /// no context, so no entry can name them; the accesses the program's own
  /// code made to them.
  uint64_t UnnamedObjects = 0, UnnamedBytes = 0, UnnamedAccesses = 0;
  /// Allocations of libraries without frame pointers whose stacks LLVM's
  /// reader reads as the program's lines (RawStacks::misread): left out of
  /// the contexts; the accesses the program's own code made to them.
  uint64_t MisreadObjects = 0, MisreadBytes = 0, MisreadAccesses = 0;
};

/// What the profiled runs measured of cache misses (Misses.h), over every
/// profile read.
struct ProfileMisses {
  /// Profiles with their misses file, and those without (their paths).
  unsigned Measured = 0;
  std::vector<std::string> Unmeasured;
  /// The binary samples its accesses (HmPlace.so in profile mode put the
  /// check there): a profile without its misses file lost it.
  bool Instrumented = false;
  /// Accesses to no block (the stack, globals, blocks freed), and to blocks
  /// of call stacks no context holds (the reader left them out).
  MissCurve NoBlock, NoContext;
  uint64_t Sample = 0;  ///< the sparsest sample of the runs: 1 in this
  uint64_t Dropped = 0; ///< contexts beyond the runs' table, counted as none
  bool Unattributed = false; ///< some run could not attribute its blocks
  /// Every profile read has its misses: the advisor ranks by them.
  bool complete() const { return Measured && Unmeasured.empty(); }
};

/// Read \p Profiles (raw or indexed MemProf profiles) of \p Binary. Reports
/// every problem with the file it is about (a profile of another binary, no
/// debug info, an empty or corrupt profile, a program built without frame
/// pointers) and returns false then. A raw profile's misses file is read
/// with it (given among \p Profiles, or found beside it as
/// `PROFILE.misses`) into the contexts and \p Misses.
bool readMemProfiles(const std::vector<std::string> &Profiles,
                     llvm::StringRef Binary, std::vector<ProfileContext> &Out,
                     ProfileBlindSpots &Blind, ProfileMisses &Misses,
                     DiagEngine &D);

} // namespace hmplace

#endif
