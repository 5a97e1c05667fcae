// A kind's capacity budget (from the plan via hmplace_set_budget, or
// HMPLACE_BUDGET, which wins) sends allocations that would exceed it to the
// ordinary heap, with one warning; freeing makes room again.
// RUN: %clang %hmplace_cflags %s %hmplace_lib -o %t
// RUN: %hbw %t 2>&1 | FileCheck %s --check-prefix=PLAN
// RUN: %hbw env HMPLACE_BUDGET=HBW=3MiB %t 2>&1 | FileCheck %s --check-prefix=ENV
// RUN: %hbw env HMPLACE_BUDGET=MEMKIND_HBW=3MiB,BOGUS=1 %t 2>&1 | FileCheck %s --check-prefix=BADENV
// RUN: %if sanitizers %{ %clang %hmplace_cflags %s %hmplace_asan_lib -o %t.asan %}
// RUN: %if sanitizers %{ %hbw %t.asan 2>&1 | FileCheck %s --check-prefix=PLAN %}
#include "Inputs/expect.h"
#include <hmplace.h>

int main(void) {
  hmplace_set_budget(HMPLACE_HBW, 2u << 20); // 2 MiB, as a plan tier says
  void *p[4];
  for (int i = 0; i < 4; ++i)
    p[i] = hmplace_malloc(HMPLACE_HBW, 900 << 10);
  int placed = 0;
  for (int i = 0; i < 4; ++i)
    placed += hmplace_owner(p[i]) != 0;
  struct hmplace_stats s;
  hmplace_get_stats(HMPLACE_HBW, &s);
  printf("placed %d fallbacks %llu\n", placed,
         (unsigned long long)s.fallbacks);
  // PLAN: hmplace: warning: MEMKIND_HBW budget exhausted; further planned allocations that do not fit use the ordinary heap
  // PLAN: placed 2 fallbacks 2
  // ENV: placed 3 fallbacks 1
  // BADENV: hmplace: warning: ignoring 'BOGUS=1' in HMPLACE_BUDGET; expected KIND=SIZE or KIND=SIZE/node, e.g. HBW=16GiB
  // BADENV: placed 3 fallbacks 1
  hmplace_free(p[0]);
  void *q = hmplace_malloc(HMPLACE_HBW, 900 << 10);
  printf("after free: placed %d\n", hmplace_owner(q) != 0);
  // PLAN: after free: placed 1
  hmplace_free(q);
  for (int i = 1; i < 4; ++i)
    hmplace_free(p[i]);
  return 0;
}
