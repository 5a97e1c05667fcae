/* util.h - allocation helpers of the heat example (a wrapper and a macro, as
 * real codes have them). */
#ifndef HEAT_UTIL_H
#define HEAT_UTIL_H
#include <stddef.h>

void *xmalloc(size_t n);
char *xstrdup(const char *s);
#define TALLOC(T, n) ((T *)xmalloc(sizeof(T) * (size_t)(n)))

#endif
