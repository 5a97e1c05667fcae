/* main.c - a triad a = b + s*c over arrays that all come from one wrapper,
 * plus two kernel workspaces from one function. The advisor wants a, b and
 * the second workspace in HBM, and everything else where it is. */
#include "alloc.h"
#include "mem.h"

#include <stdio.h>
#include <stdlib.h>

static double sweep(double *w, const double *a, size_t n) {
  double s = 0;
  for (size_t i = 0; i < n; ++i)
    s += (w[i] = 0.5 * a[i]);
  return s;
}

int main(int argc, char **argv) {
  size_t n = argc > 1 ? strtoul(argv[1], NULL, 10) : 1000000;
  double *a = TALLOC(double, n);
  double *b = TALLOC(double, n);
  double *c = TALLOC(double, n);
  double *w1 = kernel_workspace(n);
  double *w2 = kernel_workspace(n);
  for (size_t i = 0; i < n; ++i)
    b[i] = 1.0, c[i] = 2.0;
  for (size_t i = 0; i < n; ++i)
    a[i] = b[i] + 3.0 * c[i];
  double s1 = sweep(w1, a, n), s2 = sweep(w2, a, n);
  int ok = s1 == 3.5 * (double)n && s2 == s1;
  printf("triad %s (n=%zu)\n", ok ? "verified" : "WRONG", n);
  free(a);
  free(b);
  free(c);
  free(w1);
  free(w2);
  return ok ? 0 : 1;
}
