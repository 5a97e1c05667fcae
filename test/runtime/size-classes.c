// The size classes of the runtime's per-thread cache: every size from 0 to
// past the largest cached class gets a placed block of at least that many
// usable bytes, calloc clears a block that may come back dirty, and live
// bytes return to zero. (That the cache serves freed blocks:
// thread-cache.c.)
// RUN: %clang %hmplace_cflags -O1 %s %hmplace_lib -o %t
// RUN: %hbw %t | FileCheck %s
#include "Inputs/expect.h"
#include <hmplace.h>
#include <string.h>

int main(void) {
  for (int round = 0; round < 2; ++round)
    for (size_t n = 0; n <= 40000; n += (n < 1100 ? 1 : 37)) {
      char *p = hmplace_malloc(HMPLACE_HBW, n);
      EXPECT(p && hmplace_owner(p) == HMPLACE_HBW + 1);
      EXPECT(hmplace_malloc_usable_size(p) >= n);
      memset(p, 0xab, n);
      char *q = hmplace_calloc(HMPLACE_HBW, 1, n);
      for (size_t i = 0; i < n; ++i)
        EXPECT(q[i] == 0); // cached blocks are dirty: calloc must clear
      hmplace_free(p);
      hmplace_free(q);
    }
  struct hmplace_stats s;
  hmplace_get_stats(HMPLACE_HBW, &s);
  EXPECT(s.live == 0);
  printf("classes ok: allocs %llu\n", (unsigned long long)s.allocs);
  // CHECK: classes ok: allocs {{[0-9]+}}
  return 0;
}
