//===- Context.cpp - call-stack entries applied through a shadow stack ----===//
//
// The id layout must stay in step with HMPLACE_CTX_ID in hmplace.h and with
// ctx_frame_matches in runtime/context.c: basename hash (FNV-1a, 32 bits) in
// the high half, then 20 bits of line and 12 bits of column (clamped), column
// 0 meaning "any".
//
//===----------------------------------------------------------------------===//
#include "plan/Context.h"
#include "plan/Plan.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/ADT/StringSwitch.h"
#include "llvm/Support/Path.h"

using namespace llvm;

namespace hmplace {

uint64_t contextFrameId(StringRef Path, unsigned Line, unsigned Column) {
  StringRef Base = sys::path::filename(Path);
  uint32_t H = 2166136261u;
  for (char C : Base) {
    H ^= uint8_t(toLower(C));
    H *= 16777619u;
  }
  uint64_t Col = Column > 0xFFF ? 0xFFF : Column;
  return uint64_t(H) << 32 | uint64_t(Line & 0xFFFFF) << 12 | Col;
}

bool isStdLibraryFile(StringRef Path) {
  // Installed headers: /usr/include/c++/12/bits/stl_vector.h, libc++'s
  // .../c++/v1/__memory/allocator.h.
  if (Path.contains("/c++/"))
    return true;
  // Advisors often print basenames only.
  StringRef Base = sys::path::filename(Path);
  if (Base.starts_with("stl_"))
    return true;
  return StringSwitch<bool>(Base)
      .Cases("new_allocator.h", "alloc_traits.h", "allocator.h", "vector.tcc",
             "deque.tcc", "list.tcc", "basic_string.h", true)
      .Cases("basic_string.tcc", "cow_string.h", "hashtable.h",
             "hashtable_policy.h", "shared_ptr_base.h", "shared_ptr.h",
             "unique_ptr.h", true)
      .Cases("valarray_array.h", "valarray", "vector", "memory", true)
      .Default(false);
}

bool isStdAllocatorFile(StringRef Path) {
  StringRef Base = sys::path::filename(Path);
  if (Base == "new_allocator.h")
    return true;
  // libstdc++'s std::allocator<T>::allocate (constant evaluation path) and
  // libc++'s __memory/allocator.h.
  return Base == "allocator.h" && isStdLibraryFile(Path);
}

/// Outer frames no build can note: the advisor could not name them, or they
/// are in the C library's start-up code that every stack ends in.
static bool unnotable(const Frame &F) {
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

/// Fields are separated by tabs and records by newlines; neither may occur
/// in what is written (keys come from plan frames, which have none).
static void field(std::string &Out, StringRef S) {
  for (char C : S)
    Out += (C == '\t' || C == '\n') ? ' ' : C;
}

std::string encodeContextSite(const SourcePos &Where,
                              const std::vector<ContextChoice> &Choices,
                              int Fallback) {
  std::string Out = "HM1\t";
  field(Out, Where.str());
  Out += "\t" + std::to_string(Fallback) + "\n";
  for (const ContextChoice &C : Choices) {
    Out += std::to_string(C.Kind) + "\t";
    for (size_t I = 0; I < C.Callers.size(); ++I)
      Out += (I ? "," : "") + utohexstr(C.Callers[I], /*LowerCase=*/true);
    Out += "\t";
    field(Out, C.Entry->key());
    Out += "\n";
  }
  return Out;
}

} // namespace hmplace
