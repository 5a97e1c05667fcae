// C++: new (KIND) T in every form (array, aligned, nothrow), delete of placed
// objects through the replaced global operator delete (all its forms), and
// the placement delete when a constructor throws.
// RUN: %clangxx %hmplace_cflags -std=c++17 %s %hmplace_lib -o %t
// RUN: %hbw env PLACED=1 %t | FileCheck %s
// RUN: %t 2>/dev/null | FileCheck %s
#include "Inputs/expect.h"
#include <hmplace.h>
#include <cstdint>
#include <new>
#include <stdexcept>

struct Cell {
  double v[4] = {1, 2, 3, 4};
};
struct alignas(256) Wide {
  char c[512];
};
struct Throws {
  Throws() { throw std::runtime_error("boom"); }
};

static int owned(const void *p, int placed) {
  return hmplace_owner(p) == (placed ? HMPLACE_HBW + 1 : 0);
}

int main() {
  int placed = placed_expected();
  Cell *c = new (HMPLACE_HBW) Cell;
  Cell *arr = new (HMPLACE_HBW) Cell[100];
  Wide *w = new (HMPLACE_HBW) Wide;
  Wide *wa = new (HMPLACE_HBW) Wide[3];
  Cell *n = new (HMPLACE_HBW, std::nothrow) Cell;
  Wide *wn = new (HMPLACE_HBW, std::nothrow) Wide;
  EXPECT(owned(c, placed) && owned(arr, placed) && owned(n, placed));
  EXPECT(owned(w, placed) && owned(wn, placed));
  EXPECT(((uintptr_t)w & 255) == 0 && ((uintptr_t)wn & 255) == 0);
  EXPECT(c->v[3] == 4 && arr[99].v[0] == 1);
  delete c;    // operator delete(void*, size_t)
  delete[] arr; // operator delete[](void*)
  delete w;    // aligned sized delete
  delete[] wa; // aligned array delete
  delete n;
  delete wn;
  // Explicit calls of the remaining replaced forms.
  ::operator delete(hmplace_malloc(HMPLACE_HBW, 8));
  ::operator delete[](hmplace_malloc(HMPLACE_HBW, 8));
  ::operator delete(hmplace_malloc(HMPLACE_HBW, 8), std::nothrow);
  ::operator delete[](hmplace_malloc(HMPLACE_HBW, 8), std::nothrow);
  ::operator delete(hmplace_aligned_alloc(HMPLACE_HBW, 64, 64),
                    std::align_val_t(64));
  ::operator delete[](hmplace_aligned_alloc(HMPLACE_HBW, 64, 64),
                      std::align_val_t(64), std::nothrow);
  ::operator delete(hmplace_aligned_alloc(HMPLACE_HBW, 64, 64), 64,
                    std::align_val_t(64));
  // NULL through every delete form is a no-op.
  delete static_cast<Cell *>(nullptr);
  delete[] static_cast<Cell *>(nullptr);
  ::operator delete(nullptr);
  ::operator delete[](nullptr, std::nothrow);
  ::operator delete(nullptr, std::align_val_t(64));
  ::operator delete(nullptr, 16);
  // Ordinary new/delete still work (they go to the C++ library and glibc).
  int *plain = new int[10];
  EXPECT(hmplace_owner(plain) == 0);
  delete[] plain;
  // A throwing constructor: the matching placement delete frees the block.
  bool caught = false;
  try {
    new (HMPLACE_HBW) Throws;
  } catch (const std::runtime_error &) {
    caught = true;
  }
  EXPECT(caught);
  struct hmplace_stats s;
  hmplace_get_stats(HMPLACE_HBW, &s);
  EXPECT(s.live == 0);
  std::printf("c++ ok, placed allocations %llu\n",
              (unsigned long long)s.allocs);
  // CHECK: c++ ok, placed allocations {{(0|14)}}
  return 0;
}
