//===- Context.h - call-stack entries at run time ---------------*- C++ -*-===//
///
/// \file
/// How a plan's call-stack entries select objects at run time, shared by
/// hmrewrite, HmPlace.so and `hmplan match`.
///
/// An entry `stack: [inner, c1, c2]` names an object by the allocation call
/// `inner` *and* the chain of call sites that reached it. Neither front end
/// can see that chain at build time: calls through wrappers, macros and
/// templates sit in other functions, other files, often other modules, and
/// HmPlace.so runs before inlining. So the chain is checked at run time with
/// a *selective shadow stack*:
///  - a call site that some entry names as a caller frame (c1, c2) is
///    *noted*: around the call it pushes its id on a per-thread stack and
///    restores the stack's depth afterwards (also when an exception leaves
///    the call);
///  - an allocation call that some entry names as its innermost frame and
///    whose callers are not known statically becomes a *context site*: it
///    asks the runtime which of its candidate entries' caller chains is on
///    top of the stack, and allocates in that entry's kind (or in the
///    fallback: a site entry for the call, else the ordinary heap).
/// Every other call is untouched, so unplanned code pays nothing.
///
/// Only noted sites are on the stack, so an entry's caller frames are
/// compared with the innermost noted frames: frames between them that no
/// entry names are invisible. Recursion, nested wrappers and threads need no
/// special case (the stack is per thread and strictly nested).
///
/// The frame id of a place is a hash of its lowercased file name, its line
/// and column packed in 64 bits (hmplace.h's HMPLACE_FRAME); a plan frame
/// without a column matches any column. Only file names count, so that the
/// same text works in every checkout: directories are checked where the id is
/// pushed (only calls that match a plan frame by the path rules are noted).
///
/// Standard containers: frames inside the C++ standard library's headers
/// (std::allocator, vector, alloc_traits, unique_ptr.h, ...) are not user
/// code and are never noted. An entry whose innermost frames are such frames
/// selects "the allocations the library makes while the first user frame's
/// call runs" (a container's buffer through std::allocator, the object of
/// make_unique or make_shared): every operator new inside the library's
/// headers is a context site for it, and the first frame outside the library
/// is its first caller frame. hmrewrite arms operator new around that call
/// (HMPLACE_CONTAINERS), which is the same set.
///
//===----------------------------------------------------------------------===//
#ifndef HMPLACE_PLAN_CONTEXT_H
#define HMPLACE_PLAN_CONTEXT_H

#include "plan/SiteKey.h"

#include "llvm/ADT/StringRef.h"

#include <cstdint>
#include <string>
#include <vector>

namespace hmplace {

struct PlanEntry;

/// The run-time id of a place: what a noted call pushes, and (with column 0
/// for "any column") what a context site compares. Only the file name of
/// \p Path counts, case-insensitively.
uint64_t contextFrameId(llvm::StringRef Path, unsigned Line, unsigned Column);
/// Whether a pushed frame id \p Have is the plan frame \p Want: file name
/// and line agree, and \p Want's column is 0 (any) or the same.
bool contextFrameMatches(uint64_t Have, uint64_t Want);
/// The high half of a frame id: hmplace.h's HMPLACE_NAME_HASH_.
uint32_t contextNameHash(llvm::StringRef Path);
/// A frame as tables and reports write it: `main.c:19` or `main.c:19:15`
/// (file name only, column if not 0).
std::string contextFrameText(llvm::StringRef Path, unsigned Line,
                             unsigned Column);
/// \p S as a C string literal (quotes and backslashes escaped): how a file
/// name goes into generated source and tables.
std::string cStringLiteral(llvm::StringRef S);
/// The runtime's constant for a kind index: HMPLACE_HBW, HMPLACE_HEAP (-1).
std::string kindConstant(int RuntimeKind);

/// Whether \p Path is a header of the C++ standard library (libstdc++'s
/// `.../include/c++/N/...`, libc++'s `.../include/c++/v1/...`).
bool isStdLibraryFile(llvm::StringRef Path);

/// How the front ends apply one plan entry.
struct EntryShape {
  enum Mode {
    Site,      ///< one frame: the call itself
    Stack,     ///< an allocation call and caller frames checked at run time
    Container, ///< std::allocator's allocation under user caller frames
    Unusable,  ///< cannot be applied exactly; Why says why
  };
  Mode How = Site;
  /// Frames to check as callers, innermost first: indices into the entry's
  /// Frames, [FirstCaller, EndCaller). For Stack, FirstCaller is 1.
  unsigned FirstCaller = 1, EndCaller = 1;
  std::string Why;
};

/// Decide how \p E is applied. Outer frames that no build can note (advisor
/// frames that are unresolved, binary, or in the C start-up code such as
/// libc-start.c) are dropped from the end of a stack: the check stops at the
/// outermost frame that is program code. An unresolved or binary frame
/// *between* program frames makes the entry Unusable: the chain could not be
/// checked exactly, and placing without it would place more than the plan
/// names.
EntryShape shapeOf(const PlanEntry &E);
/// Why an Unusable entry places nothing, worded once for every front end:
/// `it is not applied: <Why>`.
std::string notAppliedReason(const EntryShape &S);
/// The note for an Unusable entry of the ordinary heap (shape \p S): it
/// places nothing, but would keep its calls where they are anyway.
std::string heapUnusableText(const PlanEntry &E, const EntryShape &S);

/// One candidate entry of a context site, as the runtime checks it.
struct ContextChoice {
  const PlanEntry *Entry = nullptr;
  std::vector<uint64_t> Callers;       ///< frame ids, innermost first
  std::vector<std::string> CallerText; ///< the same as contextFrameText
  int Kind = -1;                       ///< runtime kind index, -1 the heap
};

/// Whether some stack matches both caller chains \p A and \p B (frame ids,
/// innermost first): they agree on every frame both have.
bool chainsOverlap(const std::vector<uint64_t> &A,
                   const std::vector<uint64_t> &B);

/// Take out of \p Choices (best first) those whose kind is \p Fallback and
/// that no later choice of another kind could also match (their caller
/// frames agree on the frames both have): the stacks they match get the
/// fallback without them. What stays is what a reader needs: the callers
/// whose objects go elsewhere.
void pruneChoices(std::vector<ContextChoice> &Choices, int Fallback);

/// The table of a context site: the text of HMPLACE_BY_CALLERS's arguments
/// (hmplace.h), which hmrewrite writes in the source and HmPlace.so passes
/// as a string to the runtime, which parses it:
///   "mem.h:9:13", (HMPLACE_HBW, "main.c:19"), HMPLACE_HEAP
/// \p Choices must be ordered best first; \p Fallback is the runtime kind
/// when none matches (-1: the ordinary heap). No path but file names, so the
/// text is the same in every checkout.
std::string contextTableText(const SourcePos &Where,
                             const std::vector<ContextChoice> &Choices,
                             int Fallback);
/// The same for the site \p Site as written (ContainerSite for the
/// standard allocator's allocations).
std::string contextTableText(llvm::StringRef Site,
                             const std::vector<ContextChoice> &Choices,
                             int Fallback);
/// How tables and reports name the allocations of std::allocator that
/// container entries place, in both front ends.
inline constexpr llvm::StringLiteral ContainerSite = "std::allocator";

} // namespace hmplace

#endif
