/*===- interpose.c - process-wide free/realloc replacement -----------------===*
 *
 * Linked into libhmplace.so (the default): the program's free (defined in
 * dispatch.c beside the ownership test it inlines), realloc,
 * reallocarray and malloc_usable_size resolve here before glibc, so a placed
 * block freed by code that was never rewritten (another file, a library) is
 * returned to its kind, and everything else goes on to the next allocator.
 * malloc/calloc are not replaced: unplanned allocation stays exactly as fast
 * as before (libhmplace-fortran.so, scope.c, replaces malloc for programs
 * whose Fortran ALLOCATEs are placed inside flang's runtime). reallocarray
 * is here because glibc's calls its internal realloc directly, which would
 * crash on a placed block.
 *===----------------------------------------------------------------------===*/
#define _GNU_SOURCE
#include "hmplace.h"
#include "hmplace_internal.h"

#include <errno.h>
#include <stdlib.h>

void *realloc(void *p, size_t n) { return hmplace_realloc(p, n); }

void *reallocarray(void *p, size_t nmemb, size_t size) {
  size_t n;
  if (__builtin_mul_overflow(nmemb, size, &n)) {
    errno = ENOMEM;
    return NULL;
  }
  return hmplace_realloc(p, n);
}

size_t malloc_usable_size(void *p) { return hmplace_malloc_usable_size(p); }

/* Old glibc alias some Fortran and C runtimes still call. */
void cfree(void *p) { hm_free(p); }
