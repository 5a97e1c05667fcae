/* grid.h - the 2-D grid of the heat example. */
#ifndef HEAT_GRID_H
#define HEAT_GRID_H
#include <stddef.h>

typedef struct {
  size_t nx, ny;
  double *u;     /* current temperature: streamed every sweep */
  double *unew;  /* next temperature: streamed every sweep */
  double *coef;  /* per-cell conductivity: streamed every sweep */
  int *mask;     /* boundary flags: read rarely */
  char *name;
} grid_t;

grid_t *grid_create(size_t nx, size_t ny, const char *name);
void grid_destroy(grid_t *g);
#endif
