/*===- placed.h - the placed-memory core's shared state and hot paths ----===*
 *
 * Shared by the files of the runtime's core, lowest first:
 *   heap.h     the ordinary heap beneath free and realloc, and the
 *              runtime's own memory (heap.c, heap_core.c)
 *   kinds.c    kinds: names, counters, budgets, warnings (kinds.h)
 *   slots.c    slots (a kind under a node policy) and their chunks; slots.h
 *              has what the hot paths read of them, owner_of among it
 *   cache.c    the per-thread cache, placed blocks in and out of slots
 *   alloc.c    the entry points for planned sites, and start-up
 *   dispatch.c free, realloc and usable size of any pointer
 * Each calls only files listed before it (scripts/runtime-layers checks
 * the whole runtime). What a placed allocation or any free runs on every
 * call is inline here and in the headers it includes, so that splitting the
 * files costs the hot paths no call.
 *
 * Ownership design (why a range check):
 *   free() of a non-placed pointer is the hot path of every program we link
 *   into, and it must be safe on any pointer. memkind's own detection
 *   (memkind_free(NULL, p)) segfaults on glibc pointers, its decorator hooks
 *   are not exported by Debian's build, and a registry of placed blocks costs
 *   a hash probe (and a lock or a lock-free table) on every ordinary free.
 *   Instead placed blocks come from chunks of one address range (range.c):
 *   memkind_create_fixed() kinds over memory mbind()-ed with the node policy
 *   memkind itself uses for the static kind, on the allocating thread's CPU
 *   (policy.c). Owning a pointer is then `p - base < span` (two loads, a
 *   subtraction and a compare, no lock, no memory access at p), and only for
 *   pointers inside the range one byte of the region table names the slot.
 *   scripts/bench measures the cost against plain glibc free.
 *
 * Node policy: a slot is one kind under one node policy; each thread's
 *   allocation goes to the slot of the policy memkind gives that kind on the
 *   CPU the thread runs on (HBW on a dual-socket node: the HBM node of the
 *   thread's own socket), so node selection follows memkind's, socket by
 *   socket. If memkind cannot serve the kind (no HBM here), planned sites of
 *   that kind use the ordinary heap (warned once, counted).
 *
 * memkind is used only in slots.c and cache.c (fixed kinds) and in
 * policy.c (static kinds).
 *===----------------------------------------------------------------------===*/
#ifndef HMPLACE_PLACED_H
#define HMPLACE_PLACED_H

#include "heap.h"
#include "hmplace.h"
#include "hmplace_internal.h"
#include "kinds.h"
#include "sizeclass.h"
#include "slots.h"

#include <memkind.h>
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <sys/rseq.h>

/*--- size classes -----------------------------------------------------------*/

/* memkind's jemalloc rounds a request up to its size class (sizeclass.h,
 * the one definition); the cache's class index and its inverse follow. */
enum { NCLS = 40, CACHE_N = 32, MAX_CACHED = 32768 };

/* The cache's class of a request of n <= MAX_CACHED bytes: its size class's
 * index (above 128: four per doubling, 2^lg + k * step for k = 1..4). */
static inline unsigned class_for_request(size_t n) {
  if (n <= 128)
    return (unsigned)(usable_for(n) / 16 - 1);
  unsigned lg = size_lg(n);
  return 8 + (lg - 7) * 4 + (unsigned)((usable_for(n) >> (lg - 2)) - 5);
}

/* The usable size of class i: the inverse of class_for_request. */
static inline size_t class_size(unsigned i) {
  if (i < 8)
    return 16 * (size_t)(i + 1);
  unsigned lg = 7 + (i - 8) / 4, k = (i - 8) % 4 + 1;
  return (size_t)(4 + k) << (lg - 2);
}

/* Class whose size is exactly u, or -1. */
static inline int class_exact(size_t u) {
  if (u > MAX_CACHED || u < 16)
    return -1;
  unsigned c = class_for_request(u);
  return class_size(c) == u ? (int)c : -1;
}

/*--- cache.c ---------------------------------------------------------------*/

/* The thread-exit key of the caches, made at start-up (as hm_counts_init). */
void hm_cache_init(void) HM_HIDDEN;
void *hm_placed_malloc(int k, int idx, size_t n, size_t held) HM_HIDDEN;
void *hm_placed_aligned(int k, int idx, size_t align, size_t n,
                        size_t held) HM_HIDDEN;
void hm_placed_free(int idx, void *p) HM_HIDDEN;

#endif
