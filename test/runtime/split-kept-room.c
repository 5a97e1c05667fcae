// A kept (freed) split object gives its pages back before a placed
// allocation of a kind it holds only where it could hold memory that
// allocation needs. Here the HBW node (node 0) has gigabytes free: after a
// 32 MiB 75%-HBW split object is written and freed, a whole 20 MiB HBW block
// and 100 small ones leave the kept object's pages as they were (none lazily
// freed: a lazily freed page costs its next write), and once the block is
// freed the next split object of that size is the kept one. With a budget of
// 40 MiB for HBW, the kept object's 24 MiB of HBW count against it: 20 MiB
// live + 24 MiB kept is over, so its pages are lazily freed (MADV_FREE:
// /proc/self/smaps counts them as LazyFree) and it stays kept for reuse once
// the block is freed. Checked failing with the pages given back at every such
// allocation (the first run) and with the budget not counted (the second).
// RUN: %clang %hmplace_cflags -O1 %s %hmplace_lib -o %t
// RUN: %hbw %t | FileCheck --check-prefix=ROOM %s
// RUN: %hbw HMPLACE_BUDGET=HBW=40MiB %t | FileCheck --check-prefix=BUDGET %s
// ROOM: kept object reused, 0 kB of it lazily freed
// BUDGET: kept object reused, {{[1-9][0-9]*}} kB of it lazily freed
#include <hmplace.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

/* LazyFree of the mappings that overlap [p, p + n), from /proc/self/smaps
 * (the kept object's runs may be one mapping with the block beside it,
 * whose pages are not lazily freed). */
static unsigned long lazy_kb(const void *p, size_t n) {
  FILE *f = fopen("/proc/self/smaps", "r");
  char line[512];
  unsigned long sum = 0, kb;
  int inside = 0;
  uintptr_t lo = (uintptr_t)p, hi = lo + n, a, b;
  while (f && fgets(line, sizeof line, f)) {
    if (sscanf(line, "%lx-%lx ", &a, &b) == 2)
      inside = a < hi && b > lo;
    else if (inside && sscanf(line, "LazyFree: %lu kB", &kb) == 1)
      sum += kb;
  }
  if (f)
    fclose(f);
  return sum;
}

int main(void) {
  enum { N = 32 << 20, W = 20 << 20 };
  enum hmplace_kind s = HMPLACE_SPLIT(HMPLACE_HBW, 75, HMPLACE_REGULAR);
  char *p = hmplace_malloc(s, N);
  memset(p, 7, N);
  hmplace_free(p);
  char *w = hmplace_malloc(HMPLACE_HBW, W);
  memset(w, 1, W);
  for (int i = 0; i < 100; ++i) /* small ones: the last reading's limit */
    hmplace_free(hmplace_malloc(HMPLACE_HBW, 64));
  unsigned long lazy = lazy_kb(p, N);
  hmplace_free(w);
  char *q = hmplace_malloc(s, N);
  printf("kept object %s, %lu kB of it lazily freed\n",
         q == p ? "reused" : "not reused", lazy);
  hmplace_free(q);
  return 0;
}
