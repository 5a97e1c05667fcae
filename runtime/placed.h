/*===- placed.h - the placed-memory core's shared state and hot paths ----===*
 *
 * Shared by the files of the runtime's core, lowest first:
 *   heap.c     the ordinary heap beneath free and realloc
 *   kinds.c    kinds: names, counters, budgets, warnings (kinds.h)
 *   slots.c    slots (a kind under a node policy) and their chunks
 *   cache.c    the per-thread cache, placed blocks in and out of slots
 *   alloc.c    the entry points for planned sites, and start-up
 *   dispatch.c free, realloc and usable size of any pointer
 * Each calls only into files above it (and the helpers of
 * hmplace_internal.h). What a placed allocation or any free runs on every
 * call is inline here, so that splitting the files costs the hot paths no
 * call.
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

#include "hmplace.h"
#include "hmplace_internal.h"
#include "kinds.h"
#include "sizeclass.h"

#include <memkind.h>
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <sys/rseq.h>

/*--- heap.c ----------------------------------------------------------------*/

#if HMPLACE_INTERPOSE
/* The next free (glibc's, or a sanitizer's); a load and a jump, no test. */
/* A load and a jump, no test (hm_fp: one cache line with the range). */
static inline void heap_free(void *p) {
  __atomic_load_n(&hm_fp.next_free, __ATOMIC_ACQUIRE)(p);
}
#else
static inline void heap_free(void *p) { free(p); }
#endif
void *hm_heap_realloc(void *p, size_t n) HM_HIDDEN;
size_t hm_heap_usable(void *p) HM_HIDDEN;
/* Look up the next free/realloc (and whether a sanitizer owns the heap). */
void hm_heap_init(void) HM_HIDDEN;

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

/*--- slots.c ---------------------------------------------------------------*/

/* A slot: the blocks of one kind under one node policy. A kind has one slot
 * per distinct policy memkind gives it on the CPUs that used it (HBW on a
 * dual-socket node: bind{2} for threads on socket 0, bind{3} on socket 1).
 * Its memory is a list of chunks from range.c, each a memkind fixed kind
 * mbind()-ed with the slot's policy; blocks are taken from the newest chunk
 * that has room. */
enum { MAX_SLOTS = 64, MAX_CHUNKS = 32, MAX_NODE = 1024, MAX_CPUS = 2048 };
#define MASK_WORDS (MAX_NODE / (8 * sizeof(unsigned long)))

struct slot {
  int kind, mode; /* kind and chunk[0] on the free path's first line */
  memkind_t chunk[MAX_CHUNKS];
  unsigned long mask[MASK_WORDS];
  _Atomic int nchunks, cur;
  uint64_t held; /* bytes mapped, under lock */
  _Atomic uint64_t threads, cpu_nodes;
  pthread_mutex_t lock;
};

extern struct slot hm_slots[MAX_SLOTS] HM_HIDDEN;
extern _Atomic int hm_nslots HM_HIDDEN;
/* Slot of kind k for threads on CPU c: 0 unknown, s + 1, or -1 none. Read
 * with acquire: the slot's fields are written before its index is. */
extern _Atomic int8_t hm_slot_of[HMPLACE_KIND_COUNT][MAX_CPUS] HM_HIDDEN;

/* The slot for kind k on this CPU, made on first use. */
int hm_slot_resolve(int k, int cpu) HM_HIDDEN;
/* A block of n bytes (aligned to align unless 0) from slot idx's chunks. */
void *hm_slot_alloc(int idx, size_t n, size_t align) HM_HIDDEN;

/* The CPU the thread runs on: glibc (2.35+) keeps the kernel's rseq area in
 * the thread's TLS, so reading it inline spares sched_getcpu's call. */
static inline int current_cpu(void) {
  if (__builtin_expect(__rseq_size != 0, 1)) {
    const struct rseq *r =
        (const struct rseq *)((char *)__builtin_thread_pointer() +
                              __rseq_offset);
    int cpu = (int)__atomic_load_n(&r->cpu_id, __ATOMIC_RELAXED);
    if (__builtin_expect(cpu >= 0, 1))
      return cpu;
  }
  return sched_getcpu();
}

/* Slot of kind k for the calling thread, or -1: threads that move to another
 * socket get that socket's slot from their next allocation on, as with
 * memkind's extents. */
static inline int slot_for(int k) {
  int cpu = current_cpu();
  if (__builtin_expect((unsigned)cpu < MAX_CPUS, 1)) {
    int v = atomic_load_explicit(&hm_slot_of[k][cpu], memory_order_acquire);
    if (__builtin_expect(v > 0, 1))
      return v - 1;
    if (v < 0)
      return -1;
  }
  return hm_slot_resolve(k, cpu);
}

/* Slot of a placed pointer, or -1. Safe on any value: pointers outside the
 * range fail the first compare; inside it, regions that are not ours read 0. */
static inline int owner_of(const void *p) {
  /* The window is always HM_SPAN bytes (a shift, not a second load): the
   * range itself may end a region short of it, and before it exists the
   * base is 0; the table answers 0 (not ours) for any region of the window
   * the runtime never mapped. */
  uintptr_t off =
      (uintptr_t)p - atomic_load_explicit(&hm_range_base, memory_order_relaxed);
  if (__builtin_expect(!(off >> 43), 0))
    return (int)atomic_load_explicit(&hm_region_owner[off >> HM_REGION_SHIFT],
                                     memory_order_relaxed) -
           1;
  return -1;
}
_Static_assert(HM_SPAN == (uint64_t)1 << 43, "owner_of's window is HM_SPAN");

/* Any chunk's handle frees and measures any block of the slot: jemalloc
 * finds the arena from the pointer (fixed kinds have no memkind tcache). */
static inline memkind_t slot_kind(int idx) { return hm_slots[idx].chunk[0]; }

/*--- cache.c ---------------------------------------------------------------*/

/* The thread-exit key of the caches, made at start-up (as hm_counts_init). */
void hm_cache_init(void) HM_HIDDEN;
void *hm_placed_malloc(int k, int idx, size_t n, size_t held) HM_HIDDEN;
void *hm_placed_aligned(int k, int idx, size_t align, size_t n,
                        size_t held) HM_HIDDEN;
void hm_placed_free(int idx, void *p) HM_HIDDEN;

#endif
