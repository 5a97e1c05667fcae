/* kernels.c - each kernel gets its workspace from the same function. */
#include "alloc.h"

double *kernel_workspace(size_t n) {
  double *w;
  ALLOC_ARRAY(w, n);
  return w;
}
