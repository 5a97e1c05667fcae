//===- AllocFns.cpp - the C allocation functions HmPlace rewrites ---------===//
//
// realloc appears twice in spirit: at a planned site it becomes
// hmplace_realloc_to (the result must live in the planned kind, whatever the
// old block was); everywhere else hmplace_realloc (keep the block's heap).
//
//===----------------------------------------------------------------------===//
#include "plan/AllocFns.h"

#include "llvm/Config/llvm-config.h"

#include <vector>

using namespace llvm;

namespace hmplace {

static const AllocFn Fns[] = {
    {"malloc", "hmplace_malloc", nullptr, 1, 0},
    {"calloc", "hmplace_calloc", nullptr, 2, 0, 1},
    {"realloc", "hmplace_realloc_to", "hmplace_realloc", 2, 1},
    {"aligned_alloc", "hmplace_aligned_alloc", nullptr, 2, 1},
    {"posix_memalign", "hmplace_posix_memalign", nullptr, 3, 2},
    {"memalign", "hmplace_memalign", nullptr, 2, 1},
    {"valloc", "hmplace_valloc", nullptr, 1, 0},
    {"strdup", "hmplace_strdup", nullptr, 1},
    {"strndup", "hmplace_strndup", nullptr, 2},
    {"free", nullptr, "hmplace_free", 1},
    // After their C counterparts: findReplacedAllocFn names those.
    // hbw_realloc has no dispatching form: hbw_realloc(NULL, n) allocates
    // in HBW, hmplace_realloc(NULL, n) on the heap.
    {"hbw_malloc", "hmplace_malloc", nullptr, 1, 0, -1, "malloc"},
    {"hbw_calloc", "hmplace_calloc", nullptr, 2, 0, 1, "calloc"},
    {"hbw_realloc", "hmplace_realloc_to", nullptr, 2, 1, -1, "realloc"},
    {"hbw_posix_memalign", "hmplace_posix_memalign", nullptr, 3, 2, -1,
     "posix_memalign"},
};

const AllocFn *findAllocFn(StringRef Name) {
  for (const AllocFn &F : Fns)
    if (Name == F.Name)
      return &F;
  return nullptr;
}

const AllocFn *newExprFn(bool Array) {
  static const AllocFn New = {"new", "new (kind)", nullptr, 0};
  static const AllocFn NewArray = {"new[]", "new (kind)", nullptr, 0};
  return Array ? &NewArray : &New;
}

const AllocFn *findReplacedAllocFn(StringRef Name, bool &TakesKind) {
  for (const AllocFn &F : Fns) {
    TakesKind = F.Placed && Name == F.Placed;
    if (TakesKind || (F.Dispatch && Name == F.Dispatch))
      return &F;
  }
  return nullptr;
}

// operator new(size_t [, align_val_t] [, const nothrow_t &]) and new[]: the
// runtime's forms take the kind after the size and alignment. The C
// functions are added from Fns above, kind first.
static const IRAllocFn NewFns[] = {
    {"_Znwm", "_Znwm12hmplace_kind", 1, 1, "operator new", false, 0},
    {"_Znam", "_Znam12hmplace_kind", 1, 1, "operator new[]", false, 0},
    {"_ZnwmRKSt9nothrow_t", "_Znwm12hmplace_kindRKSt9nothrow_t", 1, 2,
     "operator new(nothrow)", false, 0},
    {"_ZnamRKSt9nothrow_t", "_Znam12hmplace_kindRKSt9nothrow_t", 1, 2,
     "operator new[](nothrow)", false, 0},
    {"_ZnwmSt11align_val_t", "_ZnwmSt11align_val_t12hmplace_kind", 2, 2,
     "operator new(align_val_t)", false, 0},
    {"_ZnamSt11align_val_t", "_ZnamSt11align_val_t12hmplace_kind", 2, 2,
     "operator new[](align_val_t)", false, 0},
    {"_ZnwmSt11align_val_tRKSt9nothrow_t",
     "_ZnwmSt11align_val_t12hmplace_kindRKSt9nothrow_t", 2, 3,
     "operator new(align_val_t, nothrow)", false, 0},
    {"_ZnamSt11align_val_tRKSt9nothrow_t",
     "_ZnamSt11align_val_t12hmplace_kindRKSt9nothrow_t", 2, 3,
     "operator new[](align_val_t, nothrow)", false, 0},
};

// flang-new (19, 22) lowers every ALLOCATE but the plain `ALLOCATE(a(n))` of an
// intrinsic-type allocatable to these (STAT=, ERRMSG=, SOURCE=, MOLD= (bounds
// set by ApplyMold, then Allocate), POINTER arrays, derived types, scalars);
// the array is malloc'ed inside the runtime library.
// Their arguments, as flang of the LLVM HmPlace is built with declares them
// (flang/Runtime/allocatable.h, pointer.h): flang 22 added an async object
// and a memcpy function to AllocatableAllocate, a memcpy function to
// PointerAllocate.
#if LLVM_VERSION_MAJOR >= 22
constexpr unsigned AllocatableAllocateArgs = 7, PointerAllocateArgs = 6;
#else
constexpr unsigned AllocatableAllocateArgs = 5, PointerAllocateArgs = 5;
#endif
static const IRAllocFn FortranFns[] = {
    {"_FortranAAllocatableAllocate", nullptr, 0, AllocatableAllocateArgs,
     "ALLOCATE", true},
    {"_FortranAAllocatableAllocateSource", nullptr, 0, 6, "ALLOCATE(SOURCE=)",
     true},
    {"_FortranAPointerAllocate", nullptr, 0, PointerAllocateArgs,
     "ALLOCATE of a POINTER", true},
    {"_FortranAPointerAllocateSource", nullptr, 0, 6,
     "ALLOCATE(SOURCE=) of a POINTER", true},
};

// flang's runtime entry points that allocate what they return, or the
// variable they assign (every rank, type and kind a name of its own: matched
// by the family's prefix, any arguments): the result of MATMUL, PACK,
// RESHAPE, ... and an allocatable reallocated by an assignment
// (`c = matmul(a, b)`). Like a runtime ALLOCATE, the first malloc inside
// the call is the result's (runtime/scope.c); the runtime is built without
// frame pointers, so without the bracket the profile holds these arrays
// with no frame of the program, and no plan could name them.
static const IRAllocFn FortranResultFns[] = {
    {"_FortranAAssign", nullptr, 0, AnyArgs, "an assignment to an allocatable",
     true},
    {"_FortranAMatmul", nullptr, 0, AnyArgs, "MATMUL", true},
    {"_FortranATranspose", nullptr, 0, AnyArgs, "TRANSPOSE", true},
    {"_FortranAPack", nullptr, 0, AnyArgs, "PACK", true},
    {"_FortranAUnpack", nullptr, 0, AnyArgs, "UNPACK", true},
    {"_FortranAReshape", nullptr, 0, AnyArgs, "RESHAPE", true},
    {"_FortranACshift", nullptr, 0, AnyArgs, "CSHIFT", true},
    {"_FortranAEoshift", nullptr, 0, AnyArgs, "EOSHIFT", true},
    {"_FortranASpread", nullptr, 0, AnyArgs, "SPREAD", true},
};

const IRAllocFn *findIRAllocFn(StringRef Name) {
  static const std::vector<IRAllocFn> All = [] {
    std::vector<IRAllocFn> V;
    for (const AllocFn &F : Fns)
      if (F.allocates())
        V.push_back({F.Name, F.Placed, 0, F.NumArgs, F.Name, false, F.SizeArg,
                     F.SizeArg2, F.Heap});
    V.insert(V.end(), std::begin(NewFns), std::end(NewFns));
    V.insert(V.end(), std::begin(FortranFns), std::end(FortranFns));
    return V;
  }();
  for (const IRAllocFn &F : All)
    if (Name == F.Name)
      return &F;
  if (Name.starts_with("_FortranA"))
    for (const IRAllocFn &F : FortranResultFns)
      if (Name.starts_with(F.Name))
        return &F;
  return nullptr;
}

std::string runtimeKindConstant(const KindInfo &K) {
  if (K.isHeap())
    return "";
  StringRef N = K.Name;
  N.consume_front("MEMKIND_");
  return "HMPLACE_" + N.str();
}

int runtimeKindIndex(const KindInfo &K) {
  if (K.isHeap())
    return -1;
  return int(&K - allKinds().data());
}

} // namespace hmplace
