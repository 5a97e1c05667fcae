/*===- heap.h - the ordinary heap, beneath everything the runtime places --===*
 *
 * The bottom of the runtime: the heap a block goes back to when it is not
 * placed, and the heap the runtime's own tables (contexts, the split table,
 * the report's buffers) come from. It calls nothing of the runtime above it.
 * Two implementations of this one interface: heap.c in libhmplace.so, which
 * defines free/realloc/malloc_usable_size itself (interpose.c, dispatch.c)
 * and so looks up the next ones; heap_core.c in libhmplace-core.a, which
 * calls libc's.
 *===----------------------------------------------------------------------===*/
#ifndef HMPLACE_HEAP_H
#define HMPLACE_HEAP_H

#include "hmplace_internal.h"

#include <stddef.h>
#include <string.h>

/* A block that is not placed, to the next allocator's free (glibc's, a
 * preloaded allocator's, or a sanitizer's; in libhmplace-core.a the
 * program's free): a load and a jump, no test (hm_fp: one cache line with
 * the range). */
static inline void heap_free(void *p) {
  __atomic_load_n(&hm_fp.next_free, __ATOMIC_ACQUIRE)(p);
}
void *hm_heap_realloc(void *p, size_t n) HM_HIDDEN;
size_t hm_heap_usable(void *p) HM_HIDDEN;
/* Look up the next free/realloc (and whether a sanitizer owns the heap). */
void hm_heap_init(void) HM_HIDDEN;

/* The runtime's own memory. In libhmplace.so it is glibc's (__libc_malloc
 * and friends): never placed by an open Fortran scope (libhmplace-fortran.so
 * replaces malloc), never through the runtime's own free; freed only with
 * hm_own_free. Memory that libc allocated for the runtime (open_memstream's
 * buffer) is the program's malloc's, and goes to free(). */
void *hm_own_malloc(size_t n) HM_HIDDEN;
void *hm_own_calloc(size_t nmemb, size_t size) HM_HIDDEN;
void *hm_own_realloc(void *p, size_t n) HM_HIDDEN;
void hm_own_free(void *p) HM_HIDDEN;

/* The first \p n bytes of \p s (fewer if it ends before), in own memory. */
static inline char *hm_own_strndup(const char *s, size_t n) {
  size_t len = strnlen(s, n);
  char *d = (char *)hm_own_malloc(len + 1);
  if (d) {
    memcpy(d, s, len);
    d[len] = 0;
  }
  return d;
}

#endif
