// A freed split object stays kept for reuse when a placed allocation of a
// kind it holds comes first (a whole HBW block, as a time step allocates
// beside its split arrays): its pages are lazily freed (MADV_FREE), not
// unmapped; nor do objects of sizes no longer asked for keep a new one out.
// Eight split objects of other sizes are made and freed first (as many as
// are kept); then the object is written, freed, a whole HBW block is made
// and written, and a split object of the same placement and size is asked
// for again: it is the kept one, its pages still holding what was written
// (no memory pressure here to make the kernel take them). Before, the whole
// block's allocation unmapped every kept object holding HBW, and earlier, a
// full cache kept no new object: either way the second split object was a
// fresh mapping of zero pages (checked with each fix undone).
// RUN: %clang %hmplace_cflags -O1 %s %hmplace_lib -o %t
// RUN: %hbw %t | FileCheck %s
// CHECK: reused with its pages
#include <hmplace.h>
#include <stdio.h>
#include <string.h>

int main(void) {
  enum { N = 32 << 20 };
  enum hmplace_kind s = HMPLACE_SPLIT(HMPLACE_HBW, 75, HMPLACE_REGULAR);
  for (int i = 1; i <= 8; ++i)
    hmplace_free(hmplace_malloc(s, (size_t)i << 20));
  char *p = hmplace_malloc(s, N);
  memset(p, 7, N);
  hmplace_free(p);
  char *w = hmplace_malloc(HMPLACE_HBW, N);
  memset(w, 1, N);
  char *q = hmplace_malloc(s, N);
  size_t same = 0;
  for (size_t i = 0; i < N; i += 4096)
    same += q[i] == 7;
  printf("%s: %zu of %d pages as written\n",
         q == p && same == N / 4096 ? "reused with its pages" : "not reused",
         same, N / 4096);
  hmplace_free(q);
  hmplace_free(w);
  return 0;
}
