/* mem.h - the application's allocation wrapper and macro, as many HPC codes
 * have them: every array of the program comes from this one malloc. */
#ifndef MEM_H
#define MEM_H
#include <stdio.h>
#include <stdlib.h>

static void *xmalloc(size_t n) {
  void *p = malloc(n);
  if (!p) {
    fprintf(stderr, "out of memory (%zu bytes)\n", n);
    exit(1);
  }
  return p;
}
#define TALLOC(T, n) ((T *)xmalloc(sizeof(T) * (size_t)(n)))
#endif
