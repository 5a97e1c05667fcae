// HMPLACE=off sends every planned site to the ordinary heap (A/B without a
// rebuild): nothing comes from memkind, no warnings, fallbacks counted. Off
// is off, 0, false or no in any case; on, 1, true, yes or empty leave it
// on; anything else leaves it on and says so once.
// RUN: %clang %hmplace_cflags %s %hmplace_lib -o %t
// RUN: %hbw env HMPLACE=off %t 2>&1 | FileCheck %s --check-prefix=OFF
// RUN: %hbw env HMPLACE=OFF %t 2>&1 | FileCheck %s --check-prefix=OFF
// RUN: %hbw env HMPLACE=False %t 2>&1 | FileCheck %s --check-prefix=OFF
// RUN: %hbw env HMPLACE=no %t 2>&1 | FileCheck %s --check-prefix=OFF
// RUN: %hbw env HMPLACE=0 %t 2>&1 | FileCheck %s --check-prefix=OFF
// RUN: %hbw %t 2>&1 | FileCheck %s --check-prefix=ON
// RUN: %hbw env HMPLACE=YES %t 2>&1 | FileCheck %s --check-prefix=ON
// RUN: %hbw env HMPLACE=disabled %t 2>&1 | FileCheck %s --check-prefixes=WHAT,ON
// WHAT: hmplace: warning: HMPLACE='disabled' is not off, 0, false or no (nor on, 1, true or yes): placement stays on
// WHAT-NOT: HMPLACE=
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
  // ON-NOT: warning
  // ON: owners 4 1 4
  hmplace_free(p), hmplace_free(q), hmplace_free(r);
  return 0;
}
