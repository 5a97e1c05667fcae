//===- AllocFns.cpp - the C allocation functions HmPlace rewrites ---------===//
//
// realloc appears twice in spirit: at a planned site it becomes
// hmplace_realloc_to (the result must live in the planned kind, whatever the
// old block was); everywhere else hmplace_realloc (keep the block's heap).
//
//===----------------------------------------------------------------------===//
#include "plan/AllocFns.h"

using namespace llvm;

namespace hmplace {

static const AllocFn Fns[] = {
    {"malloc", "hmplace_malloc", nullptr, 1},
    {"calloc", "hmplace_calloc", nullptr, 2},
    {"realloc", "hmplace_realloc_to", "hmplace_realloc", 2},
    {"aligned_alloc", "hmplace_aligned_alloc", nullptr, 2},
    {"posix_memalign", "hmplace_posix_memalign", nullptr, 3},
    {"memalign", "hmplace_memalign", nullptr, 2},
    {"valloc", "hmplace_valloc", nullptr, 1},
    {"strdup", "hmplace_strdup", nullptr, 1},
    {"strndup", "hmplace_strndup", nullptr, 2},
    {"free", nullptr, "hmplace_free", 1},
};

const AllocFn *findAllocFn(StringRef Name) {
  for (const AllocFn &F : Fns)
    if (Name == F.Name)
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
