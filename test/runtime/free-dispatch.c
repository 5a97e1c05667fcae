// free, realloc and malloc_usable_size accept glibc, placed and NULL pointers,
// through the runtime's entry points and through the replaced libc functions.
// RUN: %clang %hmplace_cflags %s %hmplace_lib -o %t
// RUN: %hbw env PLACED=1 %t | FileCheck %s
// RUN: %t 2>&1 | FileCheck %s --check-prefixes=CHECK,ABSENT
// RUN: %clang %hmplace_cflags -DCORE %s %hmplace_core_lib -o %t.core
// RUN: %hbw env PLACED=1 %t.core | FileCheck %s
// RUN: %if sanitizers %{ %clang %hmplace_cflags -DCORE %s %hmplace_asan_lib -o %t.asan %}
// RUN: %if sanitizers %{ %hbw env PLACED=1 %t.asan | FileCheck %s %}
#include "Inputs/expect.h"
#include <hmplace.h>
#include <malloc.h>
#include <memkind.h>
#include <string.h>

int main(void) {
  setvbuf(stdout, NULL, _IONBF, 0);
  int placed = placed_expected();
  char *g = malloc(100);
  char *p = hmplace_malloc(HMPLACE_HBW, 100);
  // ABSENT: hmplace: warning: MEMKIND_HBW is unavailable (memkind reports it unavailable on this machine); its planned allocations use the ordinary heap
  // ABSENT-NOT: warning
  EXPECT(g && p);
  EXPECT(hmplace_owner(g) == 0);
  EXPECT(hmplace_owner(NULL) == 0);
  EXPECT(hmplace_owner(p) == (placed ? HMPLACE_HBW + 1 : 0));
  EXPECT(hmplace_malloc_usable_size(p) >= 100);
  EXPECT(hmplace_malloc_usable_size(g) >= 100);
  EXPECT(hmplace_malloc_usable_size(NULL) == 0);
  memset(p, 7, 100);
  // A block from memkind's own heap (not placed by us) must not be taken
  // for ours; it is freed by memkind_free as its owner wrote.
  void *mk = memkind_malloc(MEMKIND_DEFAULT, 64);
  EXPECT(hmplace_owner(mk) == 0);
  memkind_free(MEMKIND_DEFAULT, mk);
  hmplace_free(NULL);
  hmplace_free(g);
  hmplace_free(p);
  printf("entry points ok\n");
  // CHECK: entry points ok
#ifndef CORE
  g = malloc(10);
  p = hmplace_malloc(HMPLACE_HBW, 10);
  EXPECT(malloc_usable_size(p) >= 10);
  free(NULL);
  free(g);
  free(p); // glibc's free would abort on a memkind block
  p = hmplace_calloc(HMPLACE_HBW, 4, 4);
  p = reallocarray(p, 100, 10);
  EXPECT(hmplace_owner(p) == (placed ? HMPLACE_HBW + 1 : 0));
  free(p);
#endif
  struct hmplace_stats s;
  hmplace_get_stats(HMPLACE_HBW, &s);
  EXPECT(s.live == 0);
  printf("placed %d live %llu\n", placed, (unsigned long long)s.live);
  // CHECK: placed {{[01]}} live 0
  return 0;
}
