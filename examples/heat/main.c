/* main.c - heat: 2-D Jacobi heat diffusion, the HmPlace example program.
 * Usage: heat [nx ny iters] */
#include "grid.h"
#include "solver.h"

#include <stdlib.h>

void report(grid_t *g, history_t *h, double r);

int main(int argc, char **argv) {
  size_t nx = argc > 1 ? strtoul(argv[1], NULL, 10) : 512;
  size_t ny = argc > 2 ? strtoul(argv[2], NULL, 10) : 512;
  int iters = argc > 3 ? atoi(argv[3]) : 50;
  grid_t *g = grid_create(nx, ny, "plate");
  history_t h = {NULL, 0, 0};
  double r = solve(g, iters, &h);
  report(g, &h, r);
  grid_destroy(g);
  return 0;
}
