// split-maps.c - for split-maps.test: many live split objects, each a kernel
// mapping per run of one policy, against vm.max_map_count. 300 objects of
// 400 KiB, 75% HBW: the first are bound; once mbind fails (ENOMEM: the
// mapping limit) the rest go to the ordinary heap, counted as fallbacks.
// Prints how many are placed (owner HBW) and how many are the heap's.
#include <hmplace.h>
#include <stdio.h>
#include <string.h>

int main(void) {
  setvbuf(stdout, NULL, _IONBF, 0);
  enum { N = 300 };
  static char *p[N];
  int placed = 0, heap = 0;
  for (int i = 0; i < N; ++i) {
    p[i] = hmplace_malloc(HMPLACE_SPLIT(HMPLACE_HBW, 75, HMPLACE_REGULAR),
                          400 << 10);
    memset(p[i], 1, 400 << 10);
    if (hmplace_owner(p[i]) == HMPLACE_HBW + 1)
      ++placed;
    else if (hmplace_owner(p[i]) == 0)
      ++heap;
  }
  printf("placed %d, heap %d, of %d\n", placed, heap, N);
  return placed > 0 && heap > 0 ? 0 : 1;
}
