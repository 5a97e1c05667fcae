// stream.c - a STREAM-like triad (a = b + s * c) over three arrays that a
// plan puts in different tiers: the two arrays the triad reads in HBM, the
// one it writes in DDR (or any other split; try them). Self-checking: exits
// 1 if a result is wrong. Prints the best of N repetitions in GB/s.
//
//   stream [N_ELEMENTS] [REPETITIONS]
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

static double now(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return t.tv_sec + 1e-9 * t.tv_nsec;
}

int main(int argc, char **argv) {
  size_t n = argc > 1 ? strtoul(argv[1], NULL, 10) : 10000000;
  int reps = argc > 2 ? atoi(argv[2]) : 5;
  double *a = malloc(n * sizeof(double));
  double *b = malloc(n * sizeof(double));
  double *c = malloc(n * sizeof(double));
  if (!a || !b || !c) {
    fprintf(stderr, "stream: out of memory\n");
    return 2;
  }
  for (size_t i = 0; i < n; ++i) {
    a[i] = 0;
    b[i] = (double)(i % 1000);
    c[i] = 2.0;
  }
  const double s = 3.0;
  double best = 1e30;
  for (int r = 0; r < reps; ++r) {
    double t = now();
    for (size_t i = 0; i < n; ++i)
      a[i] = b[i] + s * c[i];
    t = now() - t;
    if (t < best)
      best = t;
  }
  for (size_t i = 0; i < n; ++i)
    if (a[i] != (double)(i % 1000) + 6.0) {
      fprintf(stderr, "stream: wrong result at %zu\n", i);
      return 1;
    }
  printf("triad verified (n=%zu): best %.2f GB/s\n", n,
         3.0 * n * sizeof(double) / best / 1e9);
  free(a);
  free(b);
  free(c);
  return 0;
}
