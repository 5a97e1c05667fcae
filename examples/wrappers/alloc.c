/* alloc.c - aligned allocation through an out-parameter, in its own file. */
#include "alloc.h"

#include <stdlib.h>

void alloc_data(void **p, size_t n) {
  if (posix_memalign(p, 64, n) != 0)
    abort();
}
