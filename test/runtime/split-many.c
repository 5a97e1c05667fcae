// The report lists the first 32 split placements and counts the rest
// (before, objects of placements past the 32nd were missing from it with
// no word): 40 placements of one 1 MiB object each, HBW 11..50 % + REGULAR.
// RUN: %clang %hmplace_cflags -O1 %s %hmplace_lib -o %t
// RUN: %hbw env HMPLACE_REPORT=1 %t 2>&1 | FileCheck %s
// RUN: %hbw env HMPLACE_REPORT=json:%t.json %t
// RUN: %python -c "import json; d = json.load(open('%t.json')); print(len(d['splits']), d['splits_unlisted'])" | FileCheck %s --check-prefix=JSON
// CHECK: split placement
// CHECK-COUNT-32: hmplace: MEMKIND_{{HBW|REGULAR}} {{[0-9]+}}% + MEMKIND_{{[A-Z_]+}} {{[0-9]+}}% 1 1.0 MiB
// CHECK-NEXT: hmplace: other split placements 8 8.0 MiB (not listed: placements past the first 32)
// JSON: 32 {'objects': 8, 'bytes': 8388608}
#include "Inputs/expect.h"
#include <hmplace.h>

int main(void) {
  enum { N = 40, SIZE = 1 << 20 };
  void *p[N];
  for (int i = 0; i < N; ++i) {
    p[i] = hmplace_malloc(
        HMPLACE_SPLIT(HMPLACE_HBW, 11 + i, HMPLACE_REGULAR), SIZE);
    EXPECT(p[i] != NULL);
  }
  for (int i = 0; i < N; ++i)
    hmplace_free(p[i]);
  return 0;
}
