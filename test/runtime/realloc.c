// realloc keeps a block in its heap and kind; realloc(NULL, n) allocates,
// realloc(p, 0) frees (glibc semantics); a planned realloc site
// (hmplace_realloc_to) moves a block from another heap or kind into its kind
// and keeps the contents.
// RUN: %clang %hmplace_cflags %s %hmplace_lib -o %t
// RUN: %hbw env PLACED=1 %t | FileCheck %s
// RUN: %t 2>/dev/null | FileCheck %s
// RUN: %if sanitizers %{ %clang %hmplace_cflags %s %hmplace_asan_lib -o %t.asan %}
// RUN: %if sanitizers %{ %hbw env PLACED=1 %t.asan | FileCheck %s %}
#include "Inputs/expect.h"
#include <hmplace.h>
#include <string.h>

static void fill(char *p, size_t n) {
  for (size_t i = 0; i < n; ++i)
    p[i] = (char)(i * 7);
}
static int same(const char *p, size_t n) {
  for (size_t i = 0; i < n; ++i)
    if (p[i] != (char)(i * 7))
      return 0;
  return 1;
}

int main(void) {
  int hbw = placed_expected() ? HMPLACE_HBW + 1 : 0;
  int reg = HMPLACE_REGULAR + 1; // REGULAR exists on every machine
  // Within the kind: grows, shrinks, keeps contents.
  char *p = hmplace_malloc(HMPLACE_HBW, 100);
  fill(p, 100);
  p = hmplace_realloc(p, 1 << 20);
  EXPECT(hmplace_owner(p) == hbw && same(p, 100));
  p = hmplace_realloc(p, 50);
  EXPECT(hmplace_owner(p) == hbw && same(p, 50));
  EXPECT(hmplace_realloc(p, 0) == NULL); // freed
  // Within the heap.
  char *g = hmplace_realloc(NULL, 64);
  EXPECT(g && hmplace_owner(g) == 0);
  fill(g, 64);
  g = hmplace_realloc(g, 4096);
  EXPECT(hmplace_owner(g) == 0 && same(g, 64));
  // Planned site: heap block moves into the kind.
  g = hmplace_realloc_to(HMPLACE_REGULAR, g, 8192);
  EXPECT(hmplace_owner(g) == reg && same(g, 64));
  // Across kinds: REGULAR -> HBW.
  g = hmplace_realloc_to(HMPLACE_HBW, g, 100);
  EXPECT(hmplace_owner(g) == hbw && same(g, 64));
  // realloc_to(NULL) allocates in the kind; (p, 0) frees.
  char *q = hmplace_realloc_to(HMPLACE_REGULAR, NULL, 10);
  EXPECT(hmplace_owner(q) == reg);
  EXPECT(hmplace_realloc_to(HMPLACE_REGULAR, q, 0) == NULL);
  hmplace_free(g);
  struct hmplace_stats s;
  hmplace_get_stats(HMPLACE_REGULAR, &s);
  EXPECT(s.live == 0 && s.allocs == 2);
  printf("realloc ok\n");
  // CHECK: realloc ok
  return 0;
}
