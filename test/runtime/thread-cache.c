// The per-thread cache serves a freed placed block to the next allocation
// of its class without asking memkind: memkind_malloc and memkind_free are
// counted (this program's definitions come before libmemkind's for the
// runtime too). A block of another class is not handed out for it; past
// the cache's bound (1 MiB per thread and slot) blocks go back to memkind.
// RUN: %clang %hmplace_cflags -O1 %s %hmplace_lib -ldl -o %t
// RUN: %hbw %t | FileCheck %s
// CHECK: cache ok
#define _GNU_SOURCE
#include "Inputs/expect.h"
#include <dlfcn.h>
#include <hmplace.h>
#include <memkind.h>

static unsigned long Mallocs, Frees;

void *memkind_malloc(memkind_t kind, size_t size) {
  static void *(*next)(memkind_t, size_t);
  if (!next)
    next = (void *(*)(memkind_t, size_t))dlsym(RTLD_NEXT, "memkind_malloc");
  ++Mallocs;
  return next(kind, size);
}

void memkind_free(memkind_t kind, void *p) {
  static void (*next)(memkind_t, void *);
  if (!next)
    next = (void (*)(memkind_t, void *))dlsym(RTLD_NEXT, "memkind_free");
  ++Frees;
  next(kind, p);
}

int main(void) {
  // Warm up: the slot exists, its chunk is mapped.
  hmplace_free(hmplace_malloc(HMPLACE_HBW, 24));
  char *p = hmplace_malloc(HMPLACE_HBW, 100);
  EXPECT(p && hmplace_owner(p) == HMPLACE_HBW + 1);
  unsigned long m = Mallocs, f = Frees;
  hmplace_free(p);
  EXPECT(Frees == f); // kept in the cache
  char *q = hmplace_malloc(HMPLACE_HBW, 110); // same class (112 bytes)
  EXPECT(q == p);
  EXPECT(Mallocs == m); // served by the cache
  // Another class: not served by that block.
  hmplace_free(q);
  char *r = hmplace_malloc(HMPLACE_HBW, 1000);
  EXPECT(r != p && Mallocs == m + 1);
  hmplace_free(r);
  // The bound: 64 blocks of 32 KiB are 2 MiB, twice what a cache holds.
  char *b[64];
  for (int i = 0; i < 64; ++i)
    b[i] = hmplace_malloc(HMPLACE_HBW, 32768);
  f = Frees;
  for (int i = 0; i < 64; ++i)
    hmplace_free(b[i]);
  EXPECT(Frees - f >= 32);
  printf("cache ok\n");
  return 0;
}
