/* alloc.h - aligned allocation of arrays. */
#include <stddef.h>
void alloc_data(void **p, size_t n);
#define ALLOC_ARRAY(p, n) alloc_data((void **)&(p), (size_t)(n) * sizeof(*(p)))
double *kernel_workspace(size_t n);
