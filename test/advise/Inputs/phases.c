// phases.c - arrays with known lifetimes, sizes and access counts for the
// advisor's capacity rule. Phase 1 and phase 2 each use one 3 MiB array,
// the first freed before the second is made; phase 3 uses two 3 MiB
// arrays at once, "hot" read three times as often as "warm". Sleeps keep
// the phases apart on MemProf's millisecond clock.
#include <stdlib.h>
#include <unistd.h>

#define N (3 << 20) / sizeof(double)

__attribute__((noinline)) static double sweep(double *a, int passes) {
  double s = 0;
  for (int p = 0; p < passes; ++p)
    for (size_t i = 0; i < N; ++i)
      s += a[i];
  return s;
}

static double *make(void) {
  double *a = malloc(N * sizeof *a);
  for (size_t i = 0; i < N; ++i)
    a[i] = 1;
  return a;
}

int main(void) {
  double s = 0;
  double *first = malloc(N * sizeof *first);
  for (size_t i = 0; i < N; ++i)
    first[i] = 1;
  s += sweep(first, 2);
  free(first);
  usleep(30000);
  double *second = calloc(N, sizeof *second);
  s += sweep(second, 2);
  free(second);
  usleep(30000);
  double *warm = make();
  double *hot = make();
  s += sweep(warm, 1) + sweep(hot, 3);
  free(warm);
  free(hot);
  return s == 6.0 * N ? 0 : 1;
}

/* sweep is not inlined: inlined, an optimizer may see that the calloc'ed
 * array is only read, fold its loads to 0 and drop the allocation (clang 22
 * does). Keep the lines above where they are: the tests name them. */
