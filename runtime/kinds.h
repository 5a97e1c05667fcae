/*===- kinds.h - kinds: state, counters and budgets ----------------------===*
 *
 * The lowest room of the placed-memory core (placed.h includes it): what
 * the plan asked of each kind, whichever slots served it, counted per thread
 * and per kind, the budgets, the one-time warnings. kinds.c defines them and
 * calls nothing of the rooms above (slots, cache, splits, dispatch).
 *===----------------------------------------------------------------------===*/
#ifndef HMPLACE_KINDS_H
#define HMPLACE_KINDS_H

#include "hmplace.h"
#include "hmplace_internal.h"
#include "sizeclass.h"

#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>

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
/* The thread-exit key of the counts, made at start-up: a pthread_once
 * another thread is inside of when the program forks would never finish in
 * the child (cache.c's hm_cache_init likewise, placed.h). */
void hm_counts_init(void) HM_HIDDEN;

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

#endif
