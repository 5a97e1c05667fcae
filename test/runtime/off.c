// HMPLACE=off sends every planned site to the ordinary heap (A/B without a
// rebuild): nothing comes from memkind, no warnings, fallbacks counted.
// RUN: %clang %hmplace_cflags %s %hmplace_lib -o %t
// RUN: %hbw env HMPLACE=off %t 2>&1 | FileCheck %s --check-prefix=OFF
// RUN: %hbw %t 2>&1 | FileCheck %s --check-prefix=ON
#include "Inputs/expect.h"
#include <hmplace.h>

int main(void) {
  void *p = hmplace_malloc(HMPLACE_HBW, 100);
  void *q = hmplace_calloc(HMPLACE_REGULAR, 10, 10);
  void *r = NULL;
  EXPECT(hmplace_posix_memalign(HMPLACE_HBW, &r, 64, 100) == 0);
  printf("owners %d %d %d\n", hmplace_owner(p), hmplace_owner(q),
         hmplace_owner(r));
  // OFF-NOT: warning
  // OFF: owners 0 0 0
  // ON: owners 4 1 4
  hmplace_free(p), hmplace_free(q), hmplace_free(r);
  return 0;
}
