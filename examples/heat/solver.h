/* solver.h - Jacobi heat solver of the example. */
#ifndef HEAT_SOLVER_H
#define HEAT_SOLVER_H
#include "grid.h"

typedef struct {
  double *history; /* residual per iteration, grown with realloc */
  size_t len, cap;
} history_t;

double solve(grid_t *g, int iters, history_t *h);
#endif
