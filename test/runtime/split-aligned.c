// Split placements with an alignment, and under HMPLACE=off. A split object
// starts a 4 MiB region of the placed range, so posix_memalign and
// aligned_alloc up to 4 MiB are split as asked (before: anything above
// 4 KiB went to the ordinary heap, not counted, owner 0). A larger
// alignment goes to the ordinary heap, counted as a fallback of the largest
// share's kind, said once. Off, a split request builds no split object: the
// ordinary heap, one fallback each, owner 0.
// RUN: %clang %hmplace_cflags -O1 %s %hmplace_lib -o %t
// RUN: %hbw env HMPLACE_REPORT=1 %t 2>&1 | FileCheck %s
// RUN: %hbw env HMPLACE=off HMPLACE_REPORT=1 %t off 2>&1 | FileCheck %s --check-prefix=OFF
#include "Inputs/expect.h"
#include <hmplace.h>
#include <stdint.h>
#include <string.h>

int main(int argc, char **argv) {
  setvbuf(stdout, NULL, _IONBF, 0);
  enum hmplace_kind s = HMPLACE_SPLIT(HMPLACE_HBW, 75, HMPLACE_REGULAR);
  size_t n = 2 << 20;
  size_t aligns[] = {8192, 65536, 2 << 20, 4 << 20};
  for (int i = 0; i < 4; ++i) {
    void *p = NULL;
    EXPECT(hmplace_posix_memalign(s, &p, aligns[i], n) == 0);
    EXPECT((uintptr_t)p % aligns[i] == 0);
    memset(p, 1, n);
    printf("align %zu owner %d\n", aligns[i], hmplace_owner(p));
    hmplace_free(p);
  }
  // CHECK: align 8192 owner 4
  // CHECK: align 65536 owner 4
  // CHECK: align 2097152 owner 4
  // CHECK: align 4194304 owner 4
  // OFF-NOT: warning
  // OFF: align 8192 owner 0
  // OFF: align 4194304 owner 0
  void *q = hmplace_aligned_alloc(s, 64 << 10, n);
  EXPECT(q && (uintptr_t)q % (64 << 10) == 0);
  printf("aligned_alloc owner %d\n", hmplace_owner(q));
  hmplace_free(q);
  // CHECK: aligned_alloc owner 4
  // OFF: aligned_alloc owner 0
  for (int i = 0; i < 2; ++i) {
    void *big = NULL;
    EXPECT(hmplace_posix_memalign(s, &big, 8 << 20, n) == 0);
    EXPECT((uintptr_t)big % (8 << 20) == 0);
    printf("align 8 MiB owner %d\n", hmplace_owner(big));
    hmplace_free(big);
  }
  // CHECK: hmplace: warning: a split placement was asked for a block aligned to 8388608 bytes; split objects are aligned to 4194304: it and any later such blocks go to the ordinary heap (fallbacks of MEMKIND_HBW)
  // CHECK-NOT: warning
  // CHECK: align 8 MiB owner 0
  // CHECK: align 8 MiB owner 0
  // The report: two fallbacks of HBW, five split objects.
  // CHECK: hmplace: MEMKIND_HBW {{.*}} 2 {{.*}}
  // CHECK: MEMKIND_HBW 75% + MEMKIND_REGULAR 25% 5 10.0 MiB
  // Off: seven fallbacks of HBW, no split object.
  // OFF: hmplace: MEMKIND_HBW 0 0 B 0 B 0 B 7 -
  // OFF-NOT: MEMKIND_HBW 75%
  (void)argc, (void)argv;
  return 0;
}
