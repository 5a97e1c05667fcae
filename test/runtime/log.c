// HMPLACE_LOG: a line per planned allocation, as AutoHBW's AUTO_HBW_LOG
// gives one per moved allocation: where it was asked for (the call-stack
// entry chosen; else the calling code as module+offset and function, for
// addr2line), its bytes, and where it went (the kind and the nodes of its
// memory policy; the ordinary heap, kept by a table or as a fallback, and
// why). HMPLACE_LOG=PATH (%p: the pid) writes to a file; at most
// HMPLACE_LOG_RATE lines a second, the rest counted and said. Allocations an
// entry keeps on the heap (a table's fallback, out of a window) are counted
// and said at exit, each logged only with HMPLACE_LOG_KEPT=1. Off, nothing.
// RUN: %clang %hmplace_cflags -O1 %s %hmplace_lib -o %t
// RUN: %hbw env HMPLACE_LOG=1 HMPLACE_BUDGET=HBW=1MiB %t 2>&1 | FileCheck %s
// CHECK: hmplace: log: {{.*}}.tmp+0x{{[0-9a-f]+}} 8192 B -> MEMKIND_HBW bind 0
// CHECK: hmplace: log: {{.*}}.tmp+0x{{[0-9a-f]+}} 2097152 B -> ordinary heap (fallback from MEMKIND_HBW: the kind is unavailable, full or over its budget)
// CHECK: hmplace: log: log.c:30:10 > log.c:42 4096 B -> MEMKIND_REGULAR bind 0
// CHECK-NOT: kept by its entry
// CHECK: hmplace: log: 1 allocations their entry kept on the ordinary heap (out of a size window, or callers its table leaves there) not logged (HMPLACE_LOG_KEPT=1 logs them)
// RUN: %hbw env HMPLACE_LOG=1 HMPLACE_LOG_KEPT=1 HMPLACE_BUDGET=HBW=1MiB %t 2>&1 | FileCheck %s --check-prefix=KEPT
// KEPT: hmplace: log: log.c:30:10 4096 B -> ordinary heap (kept by its entry: out of its size window, or callers its table leaves there)
// KEPT-NOT: not logged
// A planned allocation that nothing can serve says so.
// RUN: %hbw env HMPLACE_LOG=1 %t huge 2>&1 | FileCheck %s --check-prefix=FAILED
// FAILED: hmplace: log: {{.*}}.tmp+0x{{[0-9a-f]+}} 4611686018427387904 B -> failed (out of memory)
// RUN: rm -rf %t.dir && mkdir -p %t.dir
// RUN: %hbw env HMPLACE_LOG=%t.dir/log.%%p HMPLACE_LOG_RATE=3 %t many > /dev/null 2>&1
// RUN: cat %t.dir/log.* | FileCheck %s --check-prefix=RATE
// RATE-COUNT-3: hmplace: log: {{.*}} -> MEMKIND_HBW bind 0
// RATE-NEXT: hmplace: log: 997 lines left out (HMPLACE_LOG_RATE=3 lines a second)
// RUN: %hbw %t 2>&1 | FileCheck %s --check-prefix=OFF --allow-empty
// OFF-NOT: hmplace: log
#include <hmplace.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

__attribute__((noinline)) static void *grid(size_t n) {
  return hmplace_malloc(HMPLACE_HBW, n);
}
__attribute__((noinline)) static void *get(size_t n) {
  return hmplace_malloc(
      HMPLACE_BY_CALLERS("log.c:30:10", (HMPLACE_REGULAR, "log.c:42"),
                         HMPLACE_HEAP),
      n);
}

int main(int argc, char **argv) {
  if (argc > 1 && !strcmp(argv[1], "huge"))
    return grid((size_t)1 << 62) != NULL;
  if (argc > 1) {
    for (int i = 0; i < 1000; ++i)
      free(grid(64));
    return 0;
  }
  void *a = grid(8192), *b = grid(2 << 20);
  uint32_t depth = hmplace_ctx_push(HMPLACE_FRAME("log.c", 42, 0));
  void *c = get(4096);
  hmplace_ctx_restore(depth);
  void *d = get(4096);
  free(a), free(b), free(c), free(d);
  return 0;
}
