// tiers.c - three 2 MiB arrays live at once, read 6, 3 and 1 times, and a
// 1 MiB array written once: for the advisor's minimal share and slow tier.
#include <stdlib.h>

#define N (2 << 20) / sizeof(double)

static double sweep(const double *a, int passes) {
  double s = 0;
  for (int p = 0; p < passes; ++p)
    for (size_t i = 0; i < N; ++i)
      s += a[i];
  return s;
}

static double *filled(void) {
  double *a = malloc(N * sizeof *a);
  for (size_t i = 0; i < N; ++i)
    a[i] = 1;
  return a;
}

int main(void) {
  double *hot = filled();
  double *warm = filled();
  double *cold = filled();
  volatile char *once = malloc(1 << 20);
  once[0] = 1;
  double s = sweep(hot, 6) + sweep(warm, 3) + sweep(cold, 1) + once[0];
  free(hot);
  free(warm);
  free(cold);
  free((char *)once);
  return s == 10.0 * N + 1 ? 0 : 1;
}
