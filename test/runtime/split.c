// Split objects (HMPLACE_SPLIT): one object's pages across two or three
// kinds in shares. The kernel's view of each page's policy (get_mempolicy
// on the address) shows the runs: HBW_PREFERRED's pages are MPOL_PREFERRED,
// REGULAR's MPOL_BIND, INTERLEAVE's MPOL_INTERLEAVE, so on one node the
// parts are still told apart. Checked: every eighth of a 32 MiB object
// holds its share within 10 points, also when a freed object's mapping is
// reused for the next of the same placement and size; each part counts
// against its kind
// (allocations, live bytes, and budgets: a part over budget falls back to
// the default policy and is counted); free and realloc (still split, same
// shares, contents kept), calloc (zero), a three-way split, an object too
// small to split (whole to the largest share), the owner (the largest
// share's kind), a kind that is unavailable (HBW without
// MEMKIND_HBW_NODES: its part falls back, counted and warned, the other
// part placed), a forked child freeing an inherited split object, and the
// report's line for the split.
// RUN: %clang %hmplace_cflags -O1 %s %hmplace_lib -lnuma -o %t
// RUN: %hbw env HMPLACE_REPORT=1 %t 2>&1 | FileCheck %s
// RUN: %t nohbw 2>&1 | FileCheck %s --check-prefix=NOHBW
#include "Inputs/expect.h"
#include <hmplace.h>
#include <numaif.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

enum { PAGE = 4096 };

/* Percent of the pages of [p, p+n) whose policy mode is \p mode. */
static int share(const char *p, size_t n, int mode) {
  size_t in = 0, all = 0;
  for (size_t off = 0; off < n; off += PAGE, ++all) {
    int m = -1;
    EXPECT(get_mempolicy(&m, NULL, 0, (void *)(p + off), MPOL_F_ADDR) == 0);
    in += (m & 0xff) == mode;
  }
  return (int)(100 * in / all);
}

/* The share of \p mode in each eighth of the object, and whether every one
 * is within 10 points of \p want. */
static void eighths(const char *name, const char *p, size_t n, int mode,
                    int want) {
  int ok = 1;
  printf("%s:", name);
  for (int e = 0; e < 8; ++e) {
    int s = share(p + e * (n / 8), n / 8, mode);
    printf(" %d", s);
    ok &= s >= want - 10 && s <= want + 10;
  }
  printf(" -> %s\n", ok ? "within 10 points" : "OFF");
}

static uint64_t live(enum hmplace_kind k) {
  struct hmplace_stats s;
  hmplace_get_stats(k, &s);
  return s.live;
}

static uint64_t fallbacks(enum hmplace_kind k) {
  struct hmplace_stats s;
  hmplace_get_stats(k, &s);
  return s.fallbacks;
}

int main(int argc, char **argv) {
  setvbuf(stdout, NULL, _IONBF, 0); /* in order with the runtime's stderr */
  const size_t n = 32u << 20;
  enum hmplace_kind k75 =
      HMPLACE_SPLIT(HMPLACE_HBW_PREFERRED, 75, HMPLACE_REGULAR);
  if (argc > 1) { /* no HBW here: its part falls back, the other is placed */
    char *p = hmplace_malloc(HMPLACE_SPLIT(HMPLACE_HBW, 75, HMPLACE_REGULAR), n);
    printf("nohbw: hbw live %llu fallbacks %llu, regular live %llu\n",
           (unsigned long long)live(HMPLACE_HBW),
           (unsigned long long)fallbacks(HMPLACE_HBW),
           (unsigned long long)live(HMPLACE_REGULAR));
    // NOHBW: hmplace: warning: MEMKIND_HBW is unavailable
    // NOHBW: nohbw: hbw live 0 fallbacks 1, regular live 8388608
    free(p);
    return 0;
  }
  char *p = hmplace_malloc(k75, n);
  memset(p, 7, n);
  eighths("75/25", p, n, MPOL_PREFERRED, 75);
  // CHECK: 75/25: {{[0-9 ]+}} -> within 10 points
  printf("owner %s usable %zu, live hbw-preferred %llu regular %llu\n",
         hmplace_owner(p) == 1 + HMPLACE_HBW_PREFERRED ? "hbw-preferred" : "?",
         hmplace_malloc_usable_size(p),
         (unsigned long long)live(HMPLACE_HBW_PREFERRED),
         (unsigned long long)live(HMPLACE_REGULAR));
  // CHECK: owner hbw-preferred usable 33554432, live hbw-preferred 25165824 regular 8388608

  p = realloc(p, 2 * n);
  EXPECT(p[n - 1] == 7 && p[0] == 7);
  eighths("realloc", p, 2 * n, MPOL_PREFERRED, 75);
  // CHECK: realloc: {{[0-9 ]+}} -> within 10 points
  uintptr_t was = (uintptr_t)p;
  free(p);
  printf("freed: live %llu %llu\n",
         (unsigned long long)live(HMPLACE_HBW_PREFERRED),
         (unsigned long long)live(HMPLACE_REGULAR));
  // CHECK: freed: live 0 0
  /* The same placement and size again: the freed object's mapping, kept
   * with its pages where they are, serves it. */
  p = hmplace_malloc(k75, 2 * n);
  printf("again: %s, live %llu %llu\n",
         (uintptr_t)p == was ? "reused" : "fresh",
         (unsigned long long)live(HMPLACE_HBW_PREFERRED),
         (unsigned long long)live(HMPLACE_REGULAR));
  // CHECK: again: reused, live 50331648 16777216
  eighths("reused", p, 2 * n, MPOL_PREFERRED, 75);
  // CHECK: reused: {{[0-9 ]+}} -> within 10 points
  free(p);

  char *z = hmplace_calloc(HMPLACE_SPLIT(HMPLACE_REGULAR, 60,
                                         HMPLACE_HBW_PREFERRED),
                           n / 8, 8);
  for (size_t i = 0; i < n; i += 4093)
    EXPECT(z[i] == 0);
  eighths("60/40 regular", z, n, MPOL_BIND, 60);
  // CHECK: 60/40 regular: {{[0-9 ]+}} -> within 10 points
  free(z);

  char *t = hmplace_malloc(HMPLACE_SPLIT3(HMPLACE_HBW_PREFERRED, 50,
                                          HMPLACE_REGULAR, 30,
                                          HMPLACE_INTERLEAVE),
                           n);
  memset(t, 1, n);
  eighths("3-way preferred", t, n, MPOL_PREFERRED, 50);
  eighths("3-way bind", t, n, MPOL_BIND, 30);
  eighths("3-way interleave", t, n, MPOL_INTERLEAVE, 20);
  // CHECK: 3-way preferred: {{[0-9 ]+}} -> within 10 points
  // CHECK: 3-way bind: {{[0-9 ]+}} -> within 10 points
  // CHECK: 3-way interleave: {{[0-9 ]+}} -> within 10 points
  free(t);

  char *small = hmplace_malloc(k75, 1000);
  printf("small: owner %d (hbw-preferred %d), whole\n", hmplace_owner(small),
         1 + HMPLACE_HBW_PREFERRED);
  // CHECK: small: owner 6 (hbw-preferred 6), whole
  free(small);

  /* A budget: the 24 MiB part of HBW_PREFERRED does not fit in 16 MiB; it
   * falls back (default policy), the REGULAR part is placed. */
  hmplace_set_budget(HMPLACE_HBW_PREFERRED, 16u << 20);
  char *b = hmplace_malloc(k75, n);
  memset(b, 1, n);
  printf("budget: preferred pages %d%%, fallbacks %llu, live %llu %llu\n",
         share(b, n, MPOL_PREFERRED),
         (unsigned long long)fallbacks(HMPLACE_HBW_PREFERRED),
         (unsigned long long)live(HMPLACE_HBW_PREFERRED),
         (unsigned long long)live(HMPLACE_REGULAR));
  // CHECK: hmplace: warning: MEMKIND_HBW_PREFERRED budget exhausted
  // CHECK: budget: preferred pages 0%, fallbacks 1, live 0 8388608

  /* Inherited by a child, which frees it; the parent's copy stays. */
  pid_t pid = fork();
  if (pid == 0) {
    free(b);
    _exit(live(HMPLACE_REGULAR) == 0 ? 0 : 3);
  }
  int st;
  waitpid(pid, &st, 0);
  printf("child freed its copy: exit %d; parent still has %llu\n",
         WEXITSTATUS(st), (unsigned long long)live(HMPLACE_REGULAR));
  // CHECK: child freed its copy: exit 0; parent still has 8388608
  EXPECT(b[n - 1] == 1);
  free(b);
  return 0;
}
// CHECK: hmplace: split placement objects requested pages by node (live objects, 4 KiB each)
// CHECK: hmplace: MEMKIND_HBW_PREFERRED 75% + MEMKIND_REGULAR 25% 4 {{.*}} - (none live)
