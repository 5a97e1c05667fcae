// Fallback: an unavailable kind (HBW without MEMKIND_HBW_NODES on this
// machine) serves from the ordinary heap, warns once per kind on stderr and
// counts; with HBW "present" (MEMKIND_HBW_NODES=0) memkind serves it and the
// pages land on the node memkind chose.
// RUN: %clang %hmplace_cflags %s %hmplace_lib -lnuma -o %t
// RUN: %t 2> %t.err | FileCheck %s --check-prefix=ABSENT
// RUN: FileCheck %s --check-prefix=WARN < %t.err
// RUN: %hbw %t 2>&1 | FileCheck %s --check-prefix=PRESENT
#include "Inputs/expect.h"
#include <hmplace.h>
#include <numaif.h>
#include <string.h>

int main(void) {
  void *p[100];
  for (int i = 0; i < 100; ++i) {
    p[i] = hmplace_malloc(HMPLACE_HBW, 4096);
    EXPECT(p[i] != NULL); // never NULL where malloc would have succeeded
    memset(p[i], 1, 4096);
  }
  void *d = hmplace_malloc(HMPLACE_DAX_KMEM_PREFERRED, 10);
  EXPECT(d);
  int node = -1;
  EXPECT(get_mempolicy(&node, NULL, 0, p[0], MPOL_F_NODE | MPOL_F_ADDR) == 0);
  struct hmplace_stats s;
  hmplace_get_stats(HMPLACE_HBW, &s);
  printf("owner %d node %d allocs %llu fallbacks %llu available %d\n",
         hmplace_owner(p[0]), node, (unsigned long long)s.allocs,
         (unsigned long long)s.fallbacks, s.available);
  // ABSENT: owner 0 node 0 allocs 0 fallbacks 100 available -1
  // PRESENT: owner 4 node 0 allocs 100 fallbacks 0 available 1
  // PRESENT-NOT: warning
  for (int i = 0; i < 100; ++i)
    hmplace_free(p[i]);
  hmplace_free(d);
  return 0;
}
// WARN: hmplace: warning: MEMKIND_HBW is unavailable (memkind reports it unavailable on this machine); its planned allocations use the ordinary heap
// WARN-NEXT: hmplace: warning: MEMKIND_DAX_KMEM_PREFERRED is unavailable
// WARN-NOT: warning
