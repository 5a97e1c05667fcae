// The runtime's rounding, as `hmplan advise` counts a tier's capacity in
// it: runtime/sizeclass.h predicts the usable size memkind hands out for
// every request, plain and aligned (64 bytes, a page), at and just above
// every size-class boundary from 1 byte to 96 MiB. A model that guessed
// (requested bytes, or classes off by one step) fails here.
// RUN: %clang %hmplace_cflags -I%hmplace_src/runtime -O1 %s %hmplace_lib -o %t
// RUN: %hbw %t | FileCheck %s
#include "Inputs/expect.h"
#include <hmplace.h>
#include <sizeclass.h>
#include <stdio.h>

static unsigned Checked;

static void check(size_t n, size_t align) {
  void *p = NULL;
  if (align)
    EXPECT(hmplace_posix_memalign(HMPLACE_HBW, &p, align, n) == 0);
  else
    p = hmplace_malloc(HMPLACE_HBW, n);
  EXPECT(p && hmplace_owner(p) == HMPLACE_HBW + 1);
  size_t got = hmplace_malloc_usable_size(p), want = usable_aligned(n, align);
  if (got != want)
    printf("request %zu aligned %zu: usable %zu, model %zu\n", n, align, got,
           want);
  EXPECT(got == want);
  hmplace_free(p);
  ++Checked;
}

int main(void) {
  static const size_t aligns[] = {0, 64, 4096};
  for (unsigned a = 0; a < 3; ++a) {
    for (size_t n = 1; n <= 4096; ++n)
      check(n, aligns[a]);
    // Every class boundary above: the class, one byte more, one less.
    for (size_t c = 4096; c <= (96u << 20); c += size_step(c + 1)) {
      check(c, aligns[a]);
      check(c + 1, aligns[a]);
      check(c - 1, aligns[a]);
    }
  }
  printf("usable sizes match the model: %u requests\n", Checked);
  // CHECK: usable sizes match the model: {{[0-9]+}} requests
  return 0;
}
