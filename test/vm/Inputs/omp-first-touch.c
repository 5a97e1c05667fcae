// omp-first-touch.c - the main thread (pinned to the CPU given) allocates one
// block per kind with memkind and one with hmplace_malloc; two OpenMP
// threads pinned to CPU 0 and CPU 1 first-touch one half each. Prints where
// each half's pages are, and whether hmplace's agree with memkind's.
#define _GNU_SOURCE
#include "pages.h"
#include <hmplace.h>
#include <memkind.h>
#include <omp.h>
#include <pthread.h>
#include <sched.h>
#include <sys/mman.h>

enum { SIZE = 8 << 20 };

static const struct kind_pair Kinds[] = {
    {"HBW", HMPLACE_HBW, &MEMKIND_HBW},
    {"HBW_PREFERRED", HMPLACE_HBW_PREFERRED, &MEMKIND_HBW_PREFERRED},
    {"HBW_INTERLEAVE", HMPLACE_HBW_INTERLEAVE, &MEMKIND_HBW_INTERLEAVE},
    {"REGULAR", HMPLACE_REGULAR, &MEMKIND_REGULAR},
};

static char *page_up(char *p) {
  return (char *)(((uintptr_t)p + PAGE - 1) & ~(uintptr_t)(PAGE - 1));
}
static char *page_down(char *p) {
  return (char *)((uintptr_t)p & ~(uintptr_t)(PAGE - 1));
}
// Pages by node of the whole pages in [from, to).
static void pages_in(char *from, char *to, long counts[MAXN], long *unknown) {
  pages_by_node(from, (size_t)(to - from), counts, unknown);
}

int main(int argc, char **argv) {
  if (pin(atoi(argv[1])))
    abort();
  int failures = 0;
  for (unsigned k = 0; k < sizeof Kinds / sizeof *Kinds; ++k) {
    char *m = memkind_malloc(*Kinds[k].mk, SIZE);
    char *h = hmplace_malloc(Kinds[k].hk, SIZE);
    if (!m || hmplace_owner(h) != (int)Kinds[k].hk + 1) {
      printf("%s: not allocated\n", Kinds[k].name);
      return 1;
    }
    // Transparent huge pages are on in the VM's kernel: a 2 MiB page that
    // straddles the halves goes to whichever thread touches it first, a race
    // for memkind's block as for ours. Whole 4 KiB pages make it exact.
    madvise((void *)((uintptr_t)m & ~(uintptr_t)4095), SIZE + 4096,
            MADV_NOHUGEPAGE);
    madvise((void *)((uintptr_t)h & ~(uintptr_t)4095), SIZE + 4096,
            MADV_NOHUGEPAGE);
#pragma omp parallel num_threads(2)
    {
      // Halves split at a page boundary: jemalloc starts a large block at a
      // random offset in its first page, so the middle page would be
      // touched by both threads.
      int t = omp_get_thread_num();
      if (pin(t))
        abort();
      char *blocks[2] = {m, h};
      for (int b = 0; b < 2; ++b) {
        char *mid = page_up(blocks[b] + SIZE / 2);
        if (t == 0)
          memset(blocks[b], 1, (size_t)(mid - blocks[b]));
        else
          memset(mid, 1, (size_t)(blocks[b] + SIZE - mid));
      }
    }
    for (int half = 0; half < 2; ++half) {
      long a[MAXN], b[MAXN], ua, ub;
      char *mm = page_up(m + SIZE / 2), *hm = page_up(h + SIZE / 2);
      // Whole pages of the half only.
      if (half == 0) {
        pages_in(page_up(m), mm, a, &ua);
        pages_in(page_up(h), hm, b, &ub);
      } else {
        pages_in(mm, page_down(m + SIZE), a, &ua);
        pages_in(hm, page_down(h + SIZE), b, &ub);
      }
      char da[128], db[128];
      describe(da, sizeof da, a, ua);
      describe(db, sizeof db, b, ub);
      int same = !ua && !ub && same_nodes(a, b, SIZE / 2 / PAGE);
      printf("%s half %d: memkind %s hmplace %s %s\n", Kinds[k].name, half, da,
             db, same ? "same" : "DIFFERENT");
      failures += !same;
    }
  }
  printf("%d failures\n", failures);
  return failures != 0;
}
