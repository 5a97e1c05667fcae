// histogram.c - counts N random keys into B bins. The keys are read once,
// in order: a stream that DDR serves well enough. The bins are hit at
// random, over and over: the data that gains from HBM. HBM is small, so a
// plan that places everything lets the keys (allocated first) take the HBM
// budget and pushes the bins out to DDR; plan.yaml places the bins only.
// Self-checking: the bins must add up to N.
//
//   histogram [N_KEYS] [BINS] [PASSES]
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

int main(int argc, char **argv) {
  size_t n = argc > 1 ? strtoul(argv[1], NULL, 10) : 1 << 24;
  size_t nbins = argc > 2 ? strtoul(argv[2], NULL, 10) : 1 << 16;
  int passes = argc > 3 ? atoi(argv[3]) : 4;
  uint32_t *keys = malloc(n * sizeof *keys);
  uint64_t *bins = calloc(nbins, sizeof *bins);
  if (!keys || !bins) {
    fprintf(stderr, "histogram: out of memory\n");
    return 2;
  }
  uint64_t x = 88172645463325252ull; // xorshift64: the same keys every run
  for (size_t i = 0; i < n; ++i) {
    x ^= x << 13;
    x ^= x >> 7;
    x ^= x << 17;
    keys[i] = (uint32_t)x;
  }
  for (int p = 0; p < passes; ++p)
    for (size_t i = 0; i < n; ++i)
      bins[keys[i] % nbins]++;
  uint64_t total = 0;
  for (size_t b = 0; b < nbins; ++b)
    total += bins[b];
  if (total != (uint64_t)n * passes) {
    fprintf(stderr, "histogram: bins add up to %llu, not %llu\n",
            (unsigned long long)total, (unsigned long long)n * passes);
    return 1;
  }
  printf("histogram verified (%zu keys, %zu bins, %d passes)\n", n, nbins,
         passes);
  free(keys);
  free(bins);
  return 0;
}
