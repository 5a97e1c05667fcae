/* alloc_cost.c - scripts/bench alloc: what a placed allocation and its free
 * cost more than glibc's, by object size: the curve `hmplan advise` weighs
 * against what HBM saves a context (tool/hmplan/PlacedCost.h). For each
 * size, malloc/free and hmplace_malloc(HBW)/hmplace_free in a loop, side by
 * side, the best of 5 rounds each; printed as nanoseconds a pair and the
 * placed path's extra. Run with MEMKIND_HBW_NODES=0 on a machine without
 * HBM. With an argument, every page of each object is written too. */
#include <hmplace.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

static double now(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

/* Nanoseconds a pair, the best of 5 rounds. */
static double pair_ns(size_t n, long iters, int placed, int touch) {
  double best = 1e30;
  for (int round = 0; round < 5; ++round) {
    double t0 = now();
    for (long i = 0; i < iters; ++i) {
      char *p = placed ? hmplace_malloc(HMPLACE_HBW, n) : malloc(n);
      if (touch)
        for (size_t o = 0; o < n; o += 4096)
          p[o] = 1;
      __asm__ volatile("" : : "r"(p) : "memory");
      if (placed)
        hmplace_free(p);
      else
        free(p);
    }
    double t = (now() - t0) / (double)iters * 1e9;
    if (t < best)
      best = t;
  }
  return best;
}

int main(int argc, char **argv) {
  static const size_t Sizes[] = {64, 1024, 16384, 262144, 1048576};
  int touch = argc > 1;
  for (size_t s = 0; s < sizeof Sizes / sizeof *Sizes; ++s) {
    size_t n = Sizes[s];
    long iters = n >= 262144 ? 20000 : 1000000;
    double heap = pair_ns(n, iters, 0, touch);
    double placed = pair_ns(n, iters, 1, touch);
    printf("%8zu B: glibc %7.1f ns, placed %7.1f ns, extra %6.1f ns\n", n, heap,
           placed, placed - heap);
  }
  return 0;
}
