/*===- report_bench.c - what HMPLACE_REPORT costs a running program -------===*
 *
 * Two shapes, run by scripts/bench report with and without the report:
 *   small N   N small placed blocks and N ordinary ones, allocated and freed
 *             in turn through a window of 64 (allocation-heavy code);
 *   amr STEPS an adaptive-mesh-like code: each step refines into a few
 *             hundred patches of 16-256 KiB (placed), computes on them and
 *             frees the previous step's, with small ordinary allocations
 *             for the bookkeeping.
 *===----------------------------------------------------------------------===*/
#include <hmplace.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int small(long n) {
  void *placed[64] = {0}, *heap[64] = {0};
  for (long i = 0; i < n; ++i) {
    int s = (int)(i & 63);
    hmplace_free(placed[s]);
    free(heap[s]);
    size_t size = 64 + (size_t)(i & 7) * 16;
    placed[s] = hmplace_malloc(HMPLACE_HBW, size);
    heap[s] = malloc(size);
    memset(placed[s], 1, 64);
    memset(heap[s], 1, 64);
  }
  for (int s = 0; s < 64; ++s) {
    hmplace_free(placed[s]);
    free(heap[s]);
  }
  return 0;
}

static int amr(int steps) {
  enum { MAXP = 512 };
  double *patch[MAXP] = {0};
  size_t len[MAXP] = {0};
  unsigned x = 12345;
  double sum = 0;
  for (int t = 0; t < steps; ++t) {
    int np = 256 + (int)(x % 256);
    for (int p = 0; p < MAXP; ++p) {
      hmplace_free(patch[p]);
      patch[p] = NULL;
    }
    for (int p = 0; p < np; ++p) {
      x = x * 1103515245u + 12345u;
      len[p] = (16384 + (x % 245760)) / sizeof(double);
      patch[p] = hmplace_malloc(HMPLACE_HBW, len[p] * sizeof(double));
      int *meta = malloc(32 + x % 96); /* the patch's bookkeeping */
      meta[0] = p;
      for (size_t i = 0; i < len[p]; ++i)
        patch[p][i] = (double)(i + (size_t)meta[0]);
      free(meta);
    }
    for (int p = 0; p < np; ++p)
      for (size_t i = 0; i < len[p]; i += 8)
        sum += patch[p][i];
  }
  for (int p = 0; p < MAXP; ++p)
    hmplace_free(patch[p]);
  return sum > 0 ? 0 : 1;
}

int main(int argc, char **argv) {
  if (argc == 3 && !strcmp(argv[1], "small"))
    return small(atol(argv[2]));
  if (argc == 3 && !strcmp(argv[1], "amr"))
    return amr(atoi(argv[2]));
  fprintf(stderr, "usage: report_bench small N | amr STEPS\n");
  return 2;
}
