// HMPLACE_REPORT=1 prints at exit, per kind: placed allocations, bytes, peak
// and live bytes, fallbacks, and the NUMA nodes of the kind's pages at that
// moment, never a sum over freed blocks. With HMPLACE_REPORT_PAGES=live: the
// pages of the blocks live at exit exactly (p[2] and q, freed, count
// nothing; the untouched block's pages are "untouched"); by default: the
// resident pages of the kind's memory (live blocks and what memkind keeps),
// at least the live blocks' pages. json:PATH writes the same as JSON.
// RUN: %clang %hmplace_cflags %s %hmplace_lib -o %t
// RUN: %hbw env HMPLACE_REPORT=1 HMPLACE_REPORT_PAGES=live %t 2>&1 | FileCheck %s
// RUN: rm -f %t.json && %hbw env HMPLACE_REPORT=json:%t.json HMPLACE_REPORT_PAGES=live %t > %t.expect
// RUN: python3 -c "import json,sys; d=json.load(open(sys.argv[1])); k={x['kind']: x for x in d['kinds']}; h=k['MEMKIND_HBW']; print(h['allocs'], h['live'], h['peak_live'], h['live_blocks'], h['pages_by_node'], h['untouched_pages'])" %t.json > %t.got
// RUN: cat %t.expect %t.got | FileCheck %s --check-prefix=JSON
// RUN: rm -f %t.json && %hbw env HMPLACE_REPORT=json:%t.json %t > %t.expect
// RUN: python3 -c "import json,sys; d=json.load(open(sys.argv[1])); k={x['kind']: x for x in d['kinds']}; h=k['MEMKIND_HBW']; e=int(open(sys.argv[2]).read().split()[1]); n=h['pages_by_node'].get('0', 0); print('resident', 'at least live' if n >= e else 'fewer than live (%%d < %%d)' %% (n, e))" %t.json %t.expect | FileCheck %s --check-prefix=RESIDENT
// RESIDENT: resident at least live
// RUN: env HMPLACE_REPORT=1 %t 2>&1 | FileCheck %s --check-prefix=ABSENT
// RUN: %hbw env HMPLACE_REPORT=1 HMPLACE=off %t 2>&1 | FileCheck %s --check-prefix=OFF
// RUN: %hbw env HMPLACE_REPORT=1 HMPLACE_REPORT_PAGES=all %t 2>&1 | FileCheck %s --check-prefix=BADPAGES
// BADPAGES: hmplace: warning: HMPLACE_REPORT_PAGES='all' not understood; use live or resident
#include "Inputs/expect.h"
#include <hmplace.h>
#include <stdint.h>
#include <string.h>

/* Pages a block spans: large blocks get a random sub-page offset from
 * jemalloc (cache-oblivious mode), so 256 or 257 for 1 MiB. */
static unsigned long pages(void *p, size_t n) {
  uintptr_t a = (uintptr_t)p;
  return (a + n - 1) / 4096 - a / 4096 + 1;
}

int main(void) {
  // 3 blocks of 1 MiB, one freed; each spans 257 pages (not page-aligned).
  char *p[3];
  for (int i = 0; i < 3; ++i) {
    p[i] = hmplace_malloc(HMPLACE_HBW, 1 << 20);
    memset(p[i], 1, 1 << 20);
  }
  // A block reallocated in its kind counts once, with its final pages.
  char *q = hmplace_malloc(HMPLACE_HBW, 1 << 20);
  q = hmplace_realloc(q, 600 << 10);
  memset(q, 2, 600 << 10);
  printf("expect %lu\n", pages(p[0], 1 << 20) + pages(p[1], 1 << 20));
  fflush(stdout); /* before the report, which atexit prints */
  hmplace_free(p[2]);
  hmplace_free(q);
  // An untouched placed block: its pages are reported as not present. 64 KiB
  // is 16 pages, or 17 when memkind starts the block inside a page (its
  // large blocks begin at a random offset).
  void *u = hmplace_malloc(HMPLACE_REGULAR, 64 << 10);
  (void)u;
  return 0;
}
// CHECK: expect [[PAGES:[0-9]+]]
// CHECK-NEXT: hmplace: placement report (pid {{[0-9]+}})
// CHECK-NEXT: hmplace: kind {{ *}}allocs requested peak usable usable now fallbacks  pages by node (4 KiB each)
// CHECK-NEXT: hmplace: MEMKIND_REGULAR {{ *}}1 64.0 KiB {{.*}} 0  untouched:{{1[67]}}{{$}}
// CHECK-NEXT: hmplace:   memory policy bind 0 (pages on these nodes only): 1 thread, CPU node 0
// CHECK-NEXT: hmplace: MEMKIND_HBW {{ *}}4 4.0 MiB {{ *}}4.{{[0-9]}} MiB {{ *}}2.{{[0-9]}} MiB {{ *}}0  node0:[[PAGES]]
// CHECK-NEXT: hmplace:   memory policy bind 0 (pages on these nodes only): 1 thread, CPU node 0
// JSON: expect [[PAGES:[0-9]+]]
// JSON-NEXT: 4 {{[0-9]+}} {{[0-9]+}} 2 {'0': [[PAGES]]} 0
// ABSENT: hmplace: MEMKIND_HBW {{ *}}0 0 B 0 B 0 B 4  -
// OFF: placement report (pid {{[0-9]+}}) [HMPLACE=off: nothing placed]
// OFF: hmplace: MEMKIND_HBW {{ *}}0 0 B 0 B 0 B 4  -
