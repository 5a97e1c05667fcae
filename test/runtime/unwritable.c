// A report or a log that cannot be written (a full disk: /dev/full) is
// said, not lost without a word: the report's error names the path and
// why; the log's warning comes once, however many lines are lost.
// RUN: %clang %hmplace_cflags %s %hmplace_lib -o %t
// RUN: %hbw env HMPLACE_REPORT=json:/dev/full %t 2>&1 | FileCheck %s
// CHECK: hmplace: error: cannot write report to '/dev/full': No space left on device
// RUN: %hbw env HMPLACE_LOG=/dev/full %t 2>&1 | FileCheck %s --check-prefix=LOG
// LOG-COUNT-1: hmplace: warning: cannot write to HMPLACE_LOG: No space left on device; its lines are lost
// LOG-NOT: HMPLACE_LOG
// LOG: done
#include <hmplace.h>
#include <stdio.h>

int main(void) {
  for (int i = 0; i < 3; ++i)
    hmplace_free(hmplace_malloc(HMPLACE_HBW, 4096));
  fprintf(stderr, "done\n");
  return 0;
}
