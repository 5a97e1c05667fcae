// split-maps.c - for split-maps.test (in the VM) and split-map-limit.test:
// many live split objects, each a kernel mapping per run of one policy,
// against vm.max_map_count. 300 objects of 400 KiB, 75% HBW: the first are
// bound; once mbind fails (ENOMEM: the mapping limit) the rest go to the
// ordinary heap, counted as fallbacks. Prints how many are placed (owner
// HBW) and how many are the heap's; exits 1 unless there are both and
// nothing else.
//
// With an argument N the program first makes and frees one split object
// (the runtime's own tables and first mappings, before the limit), then
// takes its mappings up to the kernel's limit (one page each, every other
// one read-only so that none merge) and gives N of them back: the limit
// reached without lowering it.
#include "expect.h"
#include <hmplace.h>
#include <stdio.h>
#include <stdlib.h>
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

int main(int argc, char **argv) {
  setvbuf(stdout, NULL, _IONBF, 0);
  if (argc > 1) {
    hmplace_free(hmplace_malloc(SPLIT, 400 << 10));
    use_up_mappings(atoi(argv[1]));
  }
  enum { N = 300 };
  static char *p[N];
  int placed = 0, heap = 0;
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
