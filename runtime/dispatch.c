/*===- dispatch.c - free, realloc and usable size of any pointer ----------===*
 *
 * Every free of the program comes here (libhmplace.so defines free):
 * owning a pointer is a range check and one byte of the region table
 * (placed.h, owner_of), so the path of an ordinary block is two loads, a
 * compare and a jump to the next allocator's free.
 *===----------------------------------------------------------------------===*/
#define _GNU_SOURCE
#include "context.h"
#include "log.h"
#include "placed.h"
#include "split.h"
#include "track.h"

#include <string.h>

static inline __attribute__((always_inline)) void dispatch_free(void *p) {
  int k = owner_of(p);
  if (__builtin_expect(k < 0, 1)) {
    heap_free(p);
    return;
  }
  hm_placed_free(k, p);
}

void hmplace_free(void *p) { dispatch_free(p); }
void hm_free(void *p) { dispatch_free(p); }

/* libhmplace.so's operator delete (hmplace_new.cpp): a placed block to its
 * kind, another to the next free; but with placement off for the run (a
 * tool's heap, HMPLACE=off) 0, and the caller hands the block to the next
 * operator delete of its form, which the tool matches with its operator new
 * (the unplaced blocks of operator new with a kind come from there). */
int hm_delete(void *p) {
  int k = owner_of(p);
  if (__builtin_expect(k < 0, 1)) {
    if (__builtin_expect(atomic_load_explicit(&hm_off, memory_order_relaxed),
                         0))
      return 0;
    heap_free(p);
    return 1;
  }
  hm_placed_free(k, p);
  return 1;
}

#if HMPLACE_INTERPOSE
/* The program's free() (interpose.c has realloc and the rest). Defined here,
 * beside the ownership test, so that the test is inlined into the path every
 * free of the program takes. */
/* Aligned to a cache line: on a 64-byte boundary its few instructions
 * are one fetch; placed across one (as another file's growth left it)
 * the program's every free measured 4% slower (scripts/bench runtime 1). */
__attribute__((aligned(64))) void free(void *p) { dispatch_free(p); }
#endif

size_t hmplace_malloc_usable_size(void *p) {
  if (!p)
    return 0;
  int idx = owner_of(p);
  if (idx < 0)
    return hm_heap_usable(p);
  if (idx == SPLIT_IDX)
    return hm_split_usable(p);
  return memkind_malloc_usable_size(slot_kind(idx), p);
}

/* The usable size of a placed block of slot \p idx (or a split object). */
static size_t placed_usable(int idx, void *p) {
  return idx == SPLIT_IDX ? hm_split_usable(p)
                          : memkind_malloc_usable_size(slot_kind(idx), p);
}

/* Move a block of \p old_usable bytes to a fresh one from \p alloc. */
static void *move_block(void *p, size_t old_usable, size_t n, void *fresh) {
  if (!fresh)
    return NULL; /* C: the old block is untouched on failure */
  memcpy(fresh, p, old_usable < n ? old_usable : n);
  hmplace_free(p);
  return fresh;
}

static void *placed_realloc(int idx, void *p, size_t n) {
  int k = hm_slots[idx].kind;
  struct kstate *s = &hm_kinds[k];
  size_t old = memkind_malloc_usable_size(slot_kind(idx), p);
  /* Growth is taken from the budget first, as in may_place. */
  uint64_t b = atomic_load_explicit(&s->budget, memory_order_relaxed);
  size_t want = usable_for(n);
  size_t grow = want > old ? want - old : 0, held = 0;
  int off = atomic_load_explicit(&hm_off, memory_order_relaxed);
  int fits = !off && (!b || !grow || reserve(s, b, grow));
  if (fits && b)
    held = grow;
  if (fits) {
    hm_split_give_back(idx, k, want);
    hm_track_forget(p);
    /* In place, or moved within the slot's current chunk. */
    struct slot *sl = &hm_slots[idx];
    void *q = memkind_realloc(sl->chunk[atomic_load(&sl->cur)], p, n);
    if (q) {
      size_t u = memkind_malloc_usable_size(slot_kind(idx), q);
      /* One change, so that the bytes given back are never briefly free
       * for another thread's reservation before the new size is counted. */
      live_delta(s, (int64_t)u - (int64_t)(old + held));
      hm_track_alloc(q, u);
      return q;
    }
    hm_track_alloc(p, old); /* still ours, unchanged */
    /* That chunk is full: another chunk of the slot, or a new one. The old
     * block stays until the copy is made, so the budget must hold both. */
    if (!b || reserve(s, b, want - held)) {
      held = b ? want : 0;
      if ((q = hm_slot_alloc(idx, n, 0))) {
        size_t u = memkind_malloc_usable_size(slot_kind(idx), q);
        memcpy(q, p, old < n ? old : n);
        live_delta(s, (int64_t)u - (int64_t)held);
        hm_track_alloc(q, u);
        hm_placed_free(idx, p);
        return q;
      }
      placed_failed(k);
    } else {
      atomic_fetch_add_explicit(&s->fallbacks, 1, memory_order_relaxed);
      hm_warn_budget(k);
    }
    account_free(s, held);
  } else {
    atomic_fetch_add_explicit(&s->fallbacks, 1, memory_order_relaxed);
    if (!off)
      hm_warn_budget(k);
  }
  /* Over budget or full: the block leaves the kind for the ordinary heap. */
  return move_block(p, old, n, malloc(n));
}

void *hmplace_realloc(void *p, size_t n) {
  int idx = owner_of(p);
  if (idx < 0)
    return hm_heap_realloc(p, n);
  if (n == 0) { /* glibc: free and return NULL */
    hm_placed_free(idx, p);
    return NULL;
  }
  if (idx == SPLIT_IDX && hm_split_keeps(p, n))
    return p;
  if (idx == SPLIT_IDX) /* a new split object of the same shares */
    return move_block(
        p, hm_split_usable(p), n,
        hmplace_malloc((enum hmplace_kind)hm_split_code_of(p), n));
  return placed_realloc(idx, p, n);
}

/* HMPLACE_LOG: a planned realloc that stays where it is (or on the heap) is
 * a line too, so that each planned call has its own. */
void *hmplace_realloc_to(enum hmplace_kind k, void *p, size_t n) {
  const void *caller = __builtin_return_address(0);
  if (!p)
    return hm_malloc_from(k, n, caller);
  int counted = hm_ctx_account(n);
  int split = (int)k > HMPLACE_KIND_COUNT;
  if (!valid_kind(k) && !split) /* a context site chose the heap */
    return hm_logged(hmplace_realloc(p, n), k, n, caller);
  int owner = owner_of(p);
  if (n == 0) { /* a free: no line, and the site's entry is not the next's */
    hmplace_free(p);
    hmplace_log_site = NULL;
    return NULL;
  }
  if (owner >= 0 && owner != SPLIT_IDX && !split &&
      hm_slots[owner].kind == (int)k) {
    void *q = placed_realloc(owner, p, n);
    /* A planned call, as the entry's row counts it: the kind's too, where
     * the block stays in it (regrown or moved within it). */
    int now = q ? owner_of(q) : -1;
    if (now >= 0 && now != SPLIT_IDX)
      count_alloc(&hm_kinds[k], n);
    else if (q && counted) /* left the kind for the heap */
      hm_ctx_fell_back();
    return hm_logged(q, k, n, caller);
  }
  /* From the heap, another kind or a split object: move it into k (the
   * entry's fallback where it lands on the heap). */
  size_t old = owner < 0 ? hm_heap_usable(p) : placed_usable(owner, p);
  void *q = move_block(p, old, n, hm_malloc_from(k, n, caller));
  if (q && counted && owner_of(q) < 0)
    hm_ctx_fell_back();
  return q;
}
