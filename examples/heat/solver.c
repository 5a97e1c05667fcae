/* solver.c - Jacobi sweeps; a posix_memalign'ed halo and a realloc'ed log. */
#include "solver.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

static void record(history_t *h, double r) {
  if (h->len == h->cap) {
    h->cap = h->cap ? 2 * h->cap : 4;
    h->history = realloc(h->history, h->cap * sizeof(double));
  }
  h->history[h->len++] = r;
}

double solve(grid_t *g, int iters, history_t *h) {
  size_t nx = g->nx, ny = g->ny;
  double *halo = NULL;
  if (posix_memalign((void **)&halo, 64, 2 * nx * sizeof(double)) != 0)
    return -1.0;
  double r = 0.0;
  for (int it = 0; it < iters; ++it) {
    r = 0.0;
    memcpy(halo, g->u, nx * sizeof(double));
    memcpy(halo + nx, g->u + (ny - 1) * nx, nx * sizeof(double));
    for (size_t j = 1; j + 1 < ny; ++j)
      for (size_t i = 1; i + 1 < nx; ++i) {
        size_t k = j * nx + i;
        double up = j == 1 ? halo[i] : g->u[k - nx];
        double down = j + 2 == ny ? halo[nx + i] : g->u[k + nx];
        double v = g->u[k] + g->coef[k] * (up + down + g->u[k - 1] +
                                           g->u[k + 1] - 4.0 * g->u[k]);
        g->unew[k] = g->mask[k] ? g->u[k] : v;
        r += fabs(g->unew[k] - g->u[k]);
      }
    for (size_t k = 0; k < nx; ++k) {
      g->unew[k] = g->u[k];
      g->unew[(ny - 1) * nx + k] = g->u[(ny - 1) * nx + k];
    }
    for (size_t j = 0; j < ny; ++j) {
      g->unew[j * nx] = g->u[j * nx];
      g->unew[j * nx + nx - 1] = g->u[j * nx + nx - 1];
    }
    double *t = g->u;
    g->u = g->unew;
    g->unew = t;
    record(h, r);
  }
  free(halo);
  return r;
}
