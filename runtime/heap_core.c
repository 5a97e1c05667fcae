/*===- heap_core.c - the ordinary heap beneath libhmplace-core.a ----------===*
 *
 * The core library replaces none of malloc's family: the heap beneath it,
 * and the runtime's own memory, are the program's malloc and free (a
 * sanitizer's, in the sanitized copies of the library). heap.c is
 * libhmplace.so's.
 *===----------------------------------------------------------------------===*/
#define _GNU_SOURCE
#include "heap.h"

#include <malloc.h>
#include <stdlib.h>

/* The range (range.c sets it) and the heap's free. */
struct hm_free_path hm_fp = {0, 0, free};

void hm_heap_init(void) {}
void *hm_heap_realloc(void *p, size_t n) { return realloc(p, n); }
size_t hm_heap_usable(void *p) { return malloc_usable_size(p); }

void *hm_own_malloc(size_t n) { return malloc(n); }
void *hm_own_calloc(size_t nmemb, size_t size) { return calloc(nmemb, size); }
void *hm_own_realloc(void *p, size_t n) { return realloc(p, n); }
void hm_own_free(void *p) { free(p); }

const char *hm_sanitizer(void) { return NULL; }
