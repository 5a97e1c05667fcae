//===- Context.cpp - call-stack entries applied through a shadow stack ----===//
//
// The id layout is hmplace.h's HMPLACE_FRAME (which rewritten sources use)
// and runtime/context.c's frame_id (which reads tables): the file name's
// hash in the high half, then 20 bits of line and 12 bits of column
// (clamped), column 0 meaning "any".
//
//===----------------------------------------------------------------------===//
#include "plan/Context.h"
#include "plan/AllocFns.h"
#include "plan/Plan.h"
#include "plan/Split.h"

#include "hmplace_frame.h" // the runtime's frame-id layout

#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/Path.h"

#include <algorithm>

using namespace llvm;

namespace hmplace {

uint32_t contextNameHash(StringRef Path) {
  // A sum of one term per character, so that hmplace.h can spell it as a
  // flat constant expression (a sequential hash nests past compilers'
  // bracket limits): c_i * P^(i+1) plus the length, mod 2^32.
  StringRef Base = sys::path::filename(Path);
  uint32_t H = 0, Pow = 1;
  for (char C : Base) {
    Pow *= 16777619u;
    H += uint32_t(uint8_t(toLower(C))) * Pow;
  }
  return H + uint32_t(Base.size());
}

uint64_t contextFrameId(StringRef Path, unsigned Line, unsigned Column) {
  return HMPLACE_FRAME_ID(contextNameHash(Path), Line, Column);
}

bool contextFrameMatches(uint64_t Have, uint64_t Want) {
  return HMPLACE_FRAME_MATCHES(Have, Want);
}

bool isStdLibraryFile(StringRef Path) {
  if (Path == ContainerSite) // a plan's `std::allocator` frame
    return true;
  // Installed headers: /usr/include/c++/12/bits/stl_vector.h, libc++'s
  // .../c++/v1/__memory/allocator.h.
  if (Path.contains("/c++/"))
    return true;
  // Advisors often print basenames only.
  StringRef Base = sys::path::filename(Path);
  if (Base.starts_with("stl_"))
    return true;
  static const StringRef Headers[] = {"new_allocator.h",
                                      "alloc_traits.h",
                                      "allocator.h",
                                      "vector.tcc",
                                      "deque.tcc",
                                      "list.tcc",
                                      "basic_string.h",
                                      "basic_string.tcc",
                                      "cow_string.h",
                                      "hashtable.h",
                                      "hashtable_policy.h",
                                      "shared_ptr_base.h",
                                      "shared_ptr.h",
                                      "unique_ptr.h",
                                      "valarray_array.h",
                                      "valarray",
                                      "vector",
                                      "memory"};
  return is_contained(Headers, Base);
}

/// Outer frames no build can note: the advisor could not name them, or they
/// are in the C library's start-up code that every stack ends in.
static bool unnotable(const Frame &F) {
  if (F.Kind == Frame::Form::Merged || F.Kind == Frame::Form::NoDebug)
    return false; // the entry says why below
  if (F.Kind != Frame::Form::Source)
    return true;
  StringRef Base = sys::path::filename(F.File);
  return Base == "libc-start.c" || Base == "libc_start_call_main.h" ||
         Base == "start.S" || Base == "libc-start.h";
}

EntryShape shapeOf(const PlanEntry &E) {
  EntryShape S;
  unsigned N = E.Frames.size();
  if (E.Frames.front().Kind == Frame::Form::Binary) {
    S.How = EntryShape::Unusable;
    S.Why = "it uses binary frames (module!offset), which cannot be matched "
            "at build time";
    return S;
  }
  unsigned First = 1;
  bool Container = isStdLibraryFile(E.Frames.front().File);
  if (Container) {
    while (First < N && E.Frames[First].Kind == Frame::Form::Source &&
           isStdLibraryFile(E.Frames[First].File))
      ++First;
  }
  unsigned End = N;
  while (End > First && unnotable(E.Frames[End - 1]))
    --End;
  for (unsigned I = First; I < End; ++I) {
    if (E.Frames[I].Kind == Frame::Form::Source)
      continue;
    S.How = EntryShape::Unusable;
    if (E.Frames[I].Kind == Frame::Form::Merged ||
        E.Frames[I].Kind == Frame::Form::NoDebug) {
      S.Why = "caller frame '" + E.Frames[I].str() + "' names " +
              (E.Frames[I].Kind == Frame::Form::Merged
                   ? "a call the optimizer merged"
                   : "code without debug info") +
              ", which cannot be noted as a caller; leave the frame out (the "
              "frames around it are checked as a chain)";
      return S;
    }
    S.Why = "caller frame '" + E.Frames[I].str() + "' is " +
            (E.Frames[I].Kind == Frame::Form::Binary ? "a binary frame"
                                                     : "unresolved") +
            " and frames outside it must be checked; the caller chain "
            "cannot be checked exactly there";
    return S;
  }
  S.FirstCaller = First;
  S.EndCaller = End;
  if (Container) {
    if (First == End) {
      S.How = EntryShape::Unusable;
      S.Why = "every frame is inside the C++ standard library; add the user "
              "frame that calls into it";
      return S;
    }
    S.How = EntryShape::Container;
    return S;
  }
  S.How = End > 1 ? EntryShape::Stack : EntryShape::Site;
  return S;
}

std::string cStringLiteral(StringRef S) {
  std::string Out = "\"";
  for (char C : S) {
    if (C == '"' || C == '\\')
      Out += '\\';
    Out += C;
  }
  return Out + "\"";
}

std::string contextFrameText(StringRef Path, unsigned Line, unsigned Column) {
  std::string T = sys::path::filename(Path).str() + ":" + std::to_string(Line);
  if (Column)
    T += ":" + std::to_string(Column);
  return T;
}

std::string kindConstant(int RuntimeKind) {
  return runtimeCodeText(RuntimeKind);
}

bool chainsOverlap(const std::vector<uint64_t> &A,
                   const std::vector<uint64_t> &B) {
  for (size_t I = 0; I < A.size() && I < B.size(); ++I)
    if (!contextFrameMatches(A[I], B[I]) && !contextFrameMatches(B[I], A[I]))
      return false;
  return true;
}

void pruneChoices(std::vector<ContextChoice> &Choices, int Fallback) {
  std::vector<ContextChoice> Kept; // from the last, reversed
  for (size_t I = Choices.size(); I-- > 0;) {
    ContextChoice &C = Choices[I];
    bool Needed =
        C.Kind != Fallback || llvm::any_of(Kept, [&](const ContextChoice &L) {
          return L.Kind != Fallback && chainsOverlap(C.Callers, L.Callers);
        });
    if (Needed)
      Kept.push_back(std::move(C));
  }
  std::reverse(Kept.begin(), Kept.end());
  Choices = std::move(Kept);
}

std::string contextTableText(const SourcePos &Where,
                             const std::vector<ContextChoice> &Choices,
                             int Fallback) {
  // A call named by its function (merged, or without debug info): as
  // SourcePos::str() writes it, with the file name only.
  std::string Site =
      Where.Line || Where.Function.empty()
          ? contextFrameText(Where.File, Where.Line, Where.Column)
          : functionFrameText(sys::path::filename(Where.File), Where.Function);
  return contextTableText(Site, Choices, Fallback);
}

std::string contextTableText(StringRef Site,
                             const std::vector<ContextChoice> &Choices,
                             int Fallback) {
  std::string Out = cStringLiteral(Site) + ", ";
  for (const ContextChoice &C : Choices) {
    Out += "(" + kindConstant(C.Kind);
    for (const std::string &F : C.CallerText)
      Out += ", " + cStringLiteral(F);
    Out += "), ";
  }
  return Out + kindConstant(Fallback);
}

std::string heapUnusableText(const PlanEntry &E, const EntryShape &S) {
  return "plan entry '" + E.key() + "' (" + E.To.Spelling +
         ": the ordinary heap) places nothing: " + notAppliedReason(S) +
         "; it places nothing either way, its calls stay on the ordinary heap";
}

std::string notAppliedReason(const EntryShape &S) {
  return "it is not applied: " + S.Why;
}

} // namespace hmplace
