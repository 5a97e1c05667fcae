/* io.c - report results and release what other files allocated. */
#include "grid.h"
#include "solver.h"

#include <stdio.h>
#include <stdlib.h>

void report(grid_t *g, history_t *h, double r) {
  double sum = 0.0;
  for (size_t k = 0; k < g->nx * g->ny; ++k)
    sum += g->u[k];
  printf("grid %s %zux%zu: checksum %.6f, final residual %.6e, %zu iterations\n",
         g->name, g->nx, g->ny, sum, r, h->len);
  /* Freed here, allocated in grid.c and solver.c. */
  free(g->coef);
  free(g->mask);
  free(h->history);
}
