// hmrewrite's windowed form, hmplace_malloc(hmplace_in_window(...), n) and
// hmplace_calloc(hmplace_in_window2(...), ...): with GCC and Clang, a call
// outside its window goes to malloc/calloc in hmplace.h's inline forms
// without calling the runtime (as HmPlace.so's does): the log, asked to
// list what an entry keeps on the heap, has no line for it (before: "kept:
// no entry places it", the runtime's call). Inside the window the runtime
// places it. At -O0 and -O2, and by gcc.
// RUN: %clang %hmplace_cflags -O0 %s %hmplace_lib -o %t0
// RUN: %hbw env HMPLACE_LOG=1 HMPLACE_LOG_KEPT=1 %t0 2>&1 | FileCheck %s --implicit-check-not=kept
// RUN: %clang %hmplace_cflags -O2 %s %hmplace_lib -o %t2
// RUN: %hbw env HMPLACE_LOG=1 HMPLACE_LOG_KEPT=1 %t2 2>&1 | FileCheck %s --implicit-check-not=kept
// RUN: gcc %hmplace_cflags -O2 -std=c99 -pedantic -Wall -Wextra -Werror %s %hmplace_lib -o %tg
// RUN: %hbw env HMPLACE_LOG=1 HMPLACE_LOG_KEPT=1 %tg 2>&1 | FileCheck %s --implicit-check-not=kept
// CHECK: hmplace: log: {{.*}} 2097152 B -> MEMKIND_HBW bind 0
// CHECK-NEXT: hmplace: log: {{.*}} 2097152 B -> MEMKIND_HBW bind 0
// CHECK-NEXT: small 0 0 big 1 1
#include <hmplace.h>
#include <stdio.h>
#include <stdlib.h>

int main(int argc, char **argv) {
  size_t sizes[2] = {64, (size_t)2 << 20};
  int owner[4];
  (void)argv;
  for (int i = 0; i < 2; ++i) {
    size_t n = sizes[i] * (size_t)argc;
    char *p = hmplace_malloc(
        hmplace_in_window(HMPLACE_HBW, n, HMPLACE_MiB(1), SIZE_MAX), n);
    char *q = hmplace_calloc(
        hmplace_in_window2(HMPLACE_HBW, n, 1, HMPLACE_MiB(1), SIZE_MAX), n, 1);
    owner[2 * i] = hmplace_owner(p) != 0;
    owner[2 * i + 1] = hmplace_owner(q) != 0;
    free(p);
    free(q);
  }
  printf("small %d %d big %d %d\n", owner[0], owner[1], owner[2], owner[3]);
  return 0;
}
