// hmplace_kind_name names every value a placement code can take: a kind,
// the ordinary heap (HMPLACE_HEAP, what a table's fallback or a size window
// outside its range gives), a split, and nothing else.
// RUN: %clang %hmplace_cflags -O1 %s %hmplace_lib -o %t
// RUN: %t | FileCheck %s
#include <hmplace.h>
#include <stdio.h>

int main(void) {
  printf("%s\n", hmplace_kind_name(HMPLACE_HBW));
  // CHECK: MEMKIND_HBW
  printf("%s\n", hmplace_kind_name(HMPLACE_HEAP));
  // CHECK-NEXT: ordinary heap
  printf("%s\n", hmplace_kind_name(
                     HMPLACE_SPLIT(HMPLACE_HBW, 75, HMPLACE_REGULAR)));
  // CHECK-NEXT: MEMKIND_HBW 75% + MEMKIND_REGULAR 25%
  printf("%s\n", hmplace_kind_name((enum hmplace_kind)12345));
  // CHECK-NEXT: invalid
  return 0;
}
