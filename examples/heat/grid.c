/* grid.c - grid allocation: malloc, calloc, aligned_alloc and a wrapper. */
#include "grid.h"
#include "util.h"

#include <stdlib.h>

grid_t *grid_create(size_t nx, size_t ny, const char *name) {
  grid_t *g = malloc(sizeof *g);
  size_t n = nx * ny;
  g->nx = nx;
  g->ny = ny;
  g->u = (double *)malloc(n * sizeof(double));
  g->unew = calloc(n, sizeof(double));
  g->coef = aligned_alloc(64, ((n * sizeof(double) + 63) / 64) * 64);
  g->mask = TALLOC(int, n);
  g->name = xstrdup(name);
  for (size_t j = 0; j < ny; ++j)
    for (size_t i = 0; i < nx; ++i) {
      size_t k = j * nx + i;
      int edge = i == 0 || j == 0 || i == nx - 1 || j == ny - 1;
      g->mask[k] = edge;
      g->u[k] = edge ? 100.0 : 0.0;
      g->coef[k] = 0.2 + 0.05 * (double)((i * 7 + j * 3) % 5) / 4.0;
    }
  return g;
}

/* The arrays u/unew were swapped by the solver; coef and mask are freed in
 * io.c after the report, as codes often do. */
void grid_destroy(grid_t *g) {
  free(g->u);
  free(g->unew);
  free(g->name);
  free(g);
}
