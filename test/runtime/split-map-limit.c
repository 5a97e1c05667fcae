// Split objects past the kernel's mapping limit, outside the VM: the
// program takes its mappings up to vm.max_map_count (one page each, every
// other one read-only so that none merge) and gives back 200, then makes 300
// live split objects of 400 KiB, 75% HBW. Each run of one policy is a
// mapping: the first objects are bound, then binding fails (ENOMEM). Those
// go to the ordinary heap (owner 0), each a counted fallback of HBW, after
// one warning naming the limit; the split line counts only the objects
// bound (and the warm-up one). test/vm/split-maps.test checks the pages'
// nodes under a lowered limit.
// RUN: %clang %hmplace_cflags -O1 %s %hmplace_lib -o %t
// RUN: %hbw env HMPLACE_REPORT=1 %t 2>&1 | FileCheck %s
// CHECK: hmplace: warning: cannot bind a split object's runs (Cannot allocate memory; each run is a kernel mapping, and vm.max_map_count limits them): it and later split objects that cannot be bound use the ordinary heap
// CHECK-NOT: cannot bind
// CHECK: placed [[#PLACED:]], heap [[#HEAP:]], of 300
// CHECK: hmplace: MEMKIND_HBW [[#PLACED+1]] {{.*}} [[#HEAP]] -
// CHECK: hmplace: MEMKIND_HBW 75% + MEMKIND_REGULAR 25% [[#PLACED+1]] {{[0-9.]+}} MiB
#include "Inputs/expect.h"
#include <hmplace.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>

#define SPLIT HMPLACE_SPLIT(HMPLACE_HBW, 75, HMPLACE_REGULAR)

/* Take the process's mappings up to the kernel's limit, then give back
 * \p left of them. */
static void use_up_mappings(int left) {
  enum { MAX = 1 << 22 };
  static char *maps[MAX];
  int n = 0;
  while (n < MAX) {
    char *m = mmap(NULL, 4096, n % 2 ? PROT_READ : PROT_NONE,
                   MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (m == MAP_FAILED)
      break;
    maps[n++] = m;
  }
  EXPECT(n > left && n < MAX);
  for (int i = 0; i < left; ++i)
    munmap(maps[--n], 4096);
}

int main(void) {
  setvbuf(stdout, NULL, _IONBF, 0);
  enum { N = 300 };
  static char *p[N];
  int placed = 0, heap = 0;
  /* The runtime's own tables and first mappings, before the limit. */
  hmplace_free(hmplace_malloc(SPLIT, 400 << 10));
  use_up_mappings(200);
  for (int i = 0; i < N; ++i) {
    p[i] = hmplace_malloc(SPLIT, 400 << 10);
    EXPECT(p[i] != NULL);
    memset(p[i], 1, 400 << 10);
    if (hmplace_owner(p[i]) == HMPLACE_HBW + 1)
      ++placed;
    else if (hmplace_owner(p[i]) == 0)
      ++heap;
  }
  printf("placed %d, heap %d, of %d\n", placed, heap, N);
  EXPECT(placed > 0 && heap > 0 && placed + heap == N);
  return 0;
}
