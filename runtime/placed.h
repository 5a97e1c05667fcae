/*===- placed.h - the placed-memory core's shared state and hot paths ----===*
 *
 * Shared by the files of the runtime's core, lowest first:
 *   heap.c     the ordinary heap beneath free and realloc
 *   kinds.c    kinds: names, counters, budgets, warnings
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

/*--- kinds.c ---------------------------------------------------------------*/

extern const char *const hm_kind_names[HMPLACE_KIND_COUNT] HM_HIDDEN;
extern _Atomic int hm_off HM_HIDDEN; /* HMPLACE=off, or a sanitizer */

enum { KIND_UNINIT = 0, KIND_READY = 1, KIND_UNAVAILABLE = -1 };

/* What the plan asked of a kind, whichever nodes served it: one cache line of
 * hot counters per kind, so placed allocations of different kinds do not
 * share lines. */
struct kstate {
  _Atomic int state;
  _Atomic uint64_t allocs, bytes, live, peak, fallbacks;
  _Atomic uint64_t budget;
  _Atomic int warned_unavailable, warned_budget, warned_full;
} __attribute__((aligned(64)));

extern struct kstate hm_kinds[HMPLACE_KIND_COUNT] HM_HIDDEN;

static inline int valid_kind(enum hmplace_kind k) {
  return (unsigned)k < HMPLACE_KIND_COUNT;
}

/* Warned once per kind (or once per process: hm_warn_off). */
void hm_kind_unavailable(int k, const char *why) HM_HIDDEN;
void hm_kind_full(int k, const char *why) HM_HIDDEN;
void hm_warn_budget(int k) HM_HIDDEN;
void hm_warn_off(void) HM_HIDDEN;
/* Placement off for the whole run: the program runs under \p sanitizer
 * (startup.c asks heap.c; kinds.c only keeps the name for the warning). */
void hm_off_under(const char *sanitizer) HM_HIDDEN;

/* Allocations and requested bytes are counted per thread, without a locked
 * instruction (a load and a store of the thread's own counter): two locked
 * adds per placed allocation cost more than the per-thread cache saves on
 * some machines (AMD EPYC VMs: 1.07-1.48x a direct memkind malloc+free).
 * hmplace_get_stats adds the threads' counts up; a thread's counts go to
 * the kind's shared counters when it exits, and its block is reused. Live
 * bytes likewise, in batches: a thread's change reaches the kind's shared
 * count (and its peak) once it passes LIVE_BATCH either way, which made a
 * placed malloc+free 25 -> 20 ns here (the two locked updates per pair were
 * a fifth of it). The peak is then exact to LIVE_BATCH per thread. A kind
 * with a budget keeps them exact: its check needs them at once. The shared
 * count is signed in effect: a block freed by another thread than the one
 * that allocated it may take it below zero until the other thread's batch
 * arrives. */
enum { LIVE_BATCH = 64 << 10 };
struct tcount {
  _Atomic uint64_t allocs[HMPLACE_KIND_COUNT], bytes[HMPLACE_KIND_COUNT];
  _Atomic int64_t live[HMPLACE_KIND_COUNT]; /* not yet in the kind's live */
  struct tcount *next;
  int in_use;
};
extern __thread struct tcount *hm_tcount HM_HIDDEN
    __attribute__((tls_model("initial-exec")));
struct tcount *hm_new_counts(void) HM_HIDDEN;
/* The thread-exit keys of the counts and the cache, made at start-up: a
 * pthread_once another thread is inside of when the program forks would
 * never finish in the child. */
void hm_counts_init(void) HM_HIDDEN;
void hm_cache_init(void) HM_HIDDEN;

/* Add \p d (signed) to the kind's shared live bytes; raise the peak if
 * they set a new one. */
static inline void add_live(struct kstate *s, int64_t d) {
  int64_t live = (int64_t)atomic_fetch_add_explicit(&s->live, (uint64_t)d,
                                                    memory_order_relaxed) +
                 d;
  if (d < 0) /* 0: a budget's reservation became a block; check the peak */
    return;
  uint64_t peak = atomic_load_explicit(&s->peak, memory_order_relaxed);
  while (live > (int64_t)peak &&
         !atomic_compare_exchange_weak_explicit(&s->peak, &peak, (uint64_t)live,
                                                memory_order_relaxed,
                                                memory_order_relaxed))
    ;
}

/* A change of the kind's live bytes by this thread: batched (above). */
static inline void live_delta(struct kstate *s, int64_t d) {
  struct tcount *t = hm_tcount;
  if (__builtin_expect(!t, 0)) {
    add_live(s, d);
    return;
  }
  size_t k = (size_t)(s - hm_kinds);
  /* Only this thread writes its entry: a load and a store, no lock. */
  int64_t v = atomic_load_explicit(&t->live[k], memory_order_relaxed) + d;
  if (__builtin_expect(v > LIVE_BATCH || v < -LIVE_BATCH, 0) ||
      atomic_load_explicit(&s->budget, memory_order_relaxed)) {
    atomic_store_explicit(&t->live[k], 0, memory_order_relaxed);
    add_live(s, v);
    return;
  }
  atomic_store_explicit(&t->live[k], v, memory_order_relaxed);
}

static inline void count_alloc(struct kstate *s, size_t req) {
  struct tcount *t = hm_tcount;
  if (__builtin_expect(!t, 0) && !(t = hm_new_counts())) {
    atomic_fetch_add_explicit(&s->allocs, 1, memory_order_relaxed);
    atomic_fetch_add_explicit(&s->bytes, req, memory_order_relaxed);
    return;
  }
  size_t k = (size_t)(s - hm_kinds);
  atomic_store_explicit(
      &t->allocs[k],
      atomic_load_explicit(&t->allocs[k], memory_order_relaxed) + 1,
      memory_order_relaxed);
  atomic_store_explicit(
      &t->bytes[k],
      atomic_load_explicit(&t->bytes[k], memory_order_relaxed) + req,
      memory_order_relaxed);
}

/* A block of \p usable bytes for a request of \p req, of which \p held
 * were already counted live by may_place. */
static inline void account_alloc(struct kstate *s, size_t req, size_t usable,
                                 size_t held) {
  count_alloc(s, req);
  if (held) /* a budget: may_place took them from the shared count */
    add_live(s, (int64_t)usable - (int64_t)held);
  else
    live_delta(s, (int64_t)usable);
}

static inline void account_free(struct kstate *s, size_t usable) {
  live_delta(s, -(int64_t)usable);
}

/* Take \p u bytes of kind \p s's budget \p b (counted live) if they fit. */
static inline int reserve(struct kstate *s, uint64_t b, size_t u) {
  uint64_t cur = atomic_load_explicit(&s->live, memory_order_relaxed);
  do
    if ((int64_t)cur + (int64_t)u > (int64_t)b)
      return 0;
  while (!atomic_compare_exchange_weak_explicit(
      &s->live, &cur, cur + u, memory_order_relaxed, memory_order_relaxed));
  return 1;
}

/* Whether a placed request of n bytes may go to kind k now; counts and warns
 * when it may not. The bytes it will use are taken from the budget here, in
 * one compare-and-swap on the kind's live bytes, so that threads racing for
 * the last bytes of a budget cannot all pass a check and then overshoot
 * together; *held says how many (the caller settles the difference with the
 * block's real usable size, or gives them back if no block comes). */
static inline int may_place(enum hmplace_kind k, size_t n, size_t *held) {
  struct kstate *s = &hm_kinds[k];
  *held = 0;
  if (atomic_load_explicit(&hm_off, memory_order_relaxed)) {
    atomic_fetch_add_explicit(&s->fallbacks, 1, memory_order_relaxed);
    hm_warn_off();
    return 0;
  }
  uint64_t b = atomic_load_explicit(&s->budget, memory_order_relaxed);
  if (!b)
    return 1;
  size_t u = usable_for(n);
  if (!reserve(s, b, u)) {
    atomic_fetch_add_explicit(&s->fallbacks, 1, memory_order_relaxed);
    hm_warn_budget(k);
    return 0;
  }
  *held = u;
  return 1;
}

/* The kind could not serve a request it was allowed to take (unavailable on
 * this CPU, or full: warned where that was found). */
static inline void placed_failed(int k) {
  atomic_fetch_add_explicit(&hm_kinds[k].fallbacks, 1, memory_order_relaxed);
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

void *hm_placed_malloc(int k, int idx, size_t n, size_t held) HM_HIDDEN;
void *hm_placed_aligned(int k, int idx, size_t align, size_t n,
                        size_t held) HM_HIDDEN;
void hm_placed_free(int idx, void *p) HM_HIDDEN;

#endif
