// tables.c - a small table hit often and a large array hit less, for the
// advisor's cache rule: per byte the table is far hotter, but a table that
// fits in the last-level cache is served by the cache either way.
#include <stdlib.h>

#define SMALL (256 << 10) / sizeof(double)
#define LARGE (8 << 20) / sizeof(double)

int main(void) {
  double *table = malloc(SMALL * sizeof *table);
  double *array = malloc(LARGE * sizeof *array);
  for (size_t i = 0; i < SMALL; ++i)
    table[i] = 1;
  for (size_t i = 0; i < LARGE; ++i)
    array[i] = 1;
  double s = 0;
  for (int p = 0; p < 200; ++p)
    for (size_t i = 0; i < SMALL; ++i)
      s += table[i];
  for (size_t i = 0; i < LARGE; ++i)
    s += array[i];
  free(table);
  free(array);
  return s == 200.0 * SMALL + LARGE ? 0 : 1;
}
