// realloc of a split object: to a size of the same pages it stays where it
// is (before: a new object and a copy of all of it); below the size that
// splits (80 pages) it stays a split object in place, so that growing it
// again makes a split object of the same shares (before: it went whole to
// HBW and grew there, more HBW than the plan's share). The report counts
// two split objects: the first and the grown one, 2 + 4 MiB. Kept in place,
// its usable size is the new request's, in pages (before: the old size).
// RUN: %clang %hmplace_cflags -O1 %s %hmplace_lib -o %t
// RUN: %hbw env HMPLACE_REPORT=1 %t 2>&1 | FileCheck %s
#include "Inputs/expect.h"
#include <hmplace.h>
#include <string.h>

int main(void) {
  setvbuf(stdout, NULL, _IONBF, 0);
  enum hmplace_kind s = HMPLACE_SPLIT(HMPLACE_HBW, 75, HMPLACE_REGULAR);
  size_t n = 2 << 20;
  char *p = hmplace_malloc(s, n);
  EXPECT(p != NULL);
  memset(p, 7, n);
  char *q = hmplace_realloc(p, n - 100);
  printf("same pages: %s, usable %zu\n", q == p ? "in place" : "moved",
         hmplace_malloc_usable_size(q));
  // CHECK: same pages: in place, usable 2097152
  char *r = hmplace_realloc(q, 64 << 10);
  printf("small: %s, owner %d, usable %zu\n", r == q ? "in place" : "moved",
         hmplace_owner(r), hmplace_malloc_usable_size(r));
  // CHECK: small: in place, owner 4, usable 65536
  char *t = hmplace_realloc(r, 4 << 20);
  EXPECT(t != NULL && t[0] == 7 && t[(64 << 10) - 1] == 7);
  printf("grown: owner %d\n", hmplace_owner(t));
  // CHECK: grown: owner 4
  hmplace_free(t);
  // CHECK: MEMKIND_HBW 75% + MEMKIND_REGULAR 25% 2 6.0 MiB
  return 0;
}
