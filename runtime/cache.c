/*===- cache.c - the per-thread cache; placed blocks in and out of slots --===*
 *
 * memkind gives jemalloc thread caches to its static kinds only; a kind made
 * with memkind_create_fixed takes the arena lock on every malloc and free
 * (measured here: 130 ns per malloc+free pair against 34 ns for MEMKIND_HBW).
 * So small placed blocks go through a small per-thread, per-kind cache.
 * Classes follow jemalloc's (16-byte steps to 128, then four per doubling)
 * up to 32 KiB, so a fresh block of class c has usable size exactly c; only
 * blocks whose usable size is exactly a class are cached, which keeps the
 * live-byte accounting exact. A thread's caches are returned to memkind when
 * it exits.
 *===----------------------------------------------------------------------===*/
#define _GNU_SOURCE
#include "placed.h"
#include "split.h"
#include "track.h"

#include <string.h>

/* At most CACHE_BYTES of free placed memory per thread and kind: cached
 * blocks still occupy the tier (and are not counted against its budget). */
enum { CACHE_BYTES = 1 << 20 };

struct kcache {
  size_t bytes;
  unsigned count[NCLS];
  void *slot[NCLS][CACHE_N];
};

/* Per slot, so a cache hands out blocks of its thread's node only. */
static __thread struct kcache *TCache[MAX_SLOTS]
    __attribute__((tls_model("initial-exec")));
/* Slots this thread allocated from, for the report's thread counts. */
static __thread uint64_t UsedSlots __attribute__((tls_model("initial-exec")));
static pthread_key_t CacheKey;
static pthread_once_t CacheKeyOnce = PTHREAD_ONCE_INIT;

/* A thread's caches outlive it: memkind's jemalloc may already have torn
 * down its own thread state when our destructor runs, so no memkind call is
 * made there. The caches go to an orphan list per slot, and the next thread
 * that needs one adopts it, blocks included. */
static struct kcache *Orphans[MAX_SLOTS][64];
static unsigned NumOrphans[MAX_SLOTS];
static pthread_mutex_t OrphanLock = PTHREAD_MUTEX_INITIALIZER;

static void release_thread_caches(void *unused) {
  (void)unused;
  pthread_mutex_lock(&OrphanLock);
  for (int k = 0; k < MAX_SLOTS; ++k) {
    struct kcache *c = TCache[k];
    if (!c)
      continue;
    TCache[k] = NULL;
    if (NumOrphans[k] < 64)
      Orphans[k][NumOrphans[k]++] = c;
    /* else: more dead threads' caches than anyone will adopt; their blocks
     * stay allocated (at most 64 x 40 x 32 small blocks per slot). */
  }
  pthread_mutex_unlock(&OrphanLock);
}

void hm_orphans_fork_lock(int take) { hm_take_lock(&OrphanLock, take); }

static void make_cache_key(void) {
  pthread_key_create(&CacheKey, release_thread_caches);
}

void hm_cache_init(void) { pthread_once(&CacheKeyOnce, make_cache_key); }

static struct kcache *cache_for(int k) {
  struct kcache *c = TCache[k];
  if (__builtin_expect(c != NULL, 1))
    return c;
  pthread_once(&CacheKeyOnce, make_cache_key);
  pthread_mutex_lock(&OrphanLock);
  if (NumOrphans[k])
    c = Orphans[k][--NumOrphans[k]];
  pthread_mutex_unlock(&OrphanLock);
  if (!c && !(c = hm_own_calloc(1, sizeof(*c))))
    return NULL;
  TCache[k] = c;
  pthread_setspecific(CacheKey, c); /* any non-NULL value: run the release */
  return c;
}

static void note_thread(int idx) {
  uint64_t bit = (uint64_t)1 << idx;
  if (__builtin_expect(!(UsedSlots & bit), 0)) {
    UsedSlots |= bit;
    atomic_fetch_add_explicit(&hm_slots[idx].threads, 1, memory_order_relaxed);
  }
}

void *hm_placed_malloc(int k, int idx, size_t n, size_t held) {
  struct kstate *s = &hm_kinds[k];
  void *p;
  size_t u;
  if (n <= MAX_CACHED) {
    unsigned cls = class_for_request(n);
    u = class_size(cls);
    struct kcache *c = cache_for(idx);
    if (c && c->count[cls]) {
      p = c->slot[cls][--c->count[cls]];
      c->bytes -= u;
    } else if (!(p = hm_slot_alloc(idx, u, 0)))
      return NULL;
  } else {
    if (!(p = hm_slot_alloc(idx, n, 0)))
      return NULL;
    u = memkind_malloc_usable_size(slot_kind(idx), p);
  }
  note_thread(idx);
  account_alloc(s, n, u, held);
  hm_track_alloc(p, u);
  return p;
}

void *hm_placed_aligned(int k, int idx, size_t align, size_t n, size_t held) {
  struct kstate *s = &hm_kinds[k];
  void *p = hm_slot_alloc(idx, n, align);
  if (!p)
    return NULL;
  size_t u = memkind_malloc_usable_size(slot_kind(idx), p);
  note_thread(idx);
  account_alloc(s, n, u, held);
  hm_track_alloc(p, u);
  return p;
}

void hm_placed_free(int idx, void *p) {
  if (__builtin_expect(idx == SPLIT_IDX, 0)) {
    hm_split_free(p);
    return;
  }
  struct kstate *s = &hm_kinds[hm_slots[idx].kind];
  size_t u = memkind_malloc_usable_size(slot_kind(idx), p);
  account_free(s, u);
  hm_track_free(p);
  int cls = class_exact(u);
  if (cls >= 0) {
    struct kcache *c = cache_for(idx);
    if (c && c->count[cls] < CACHE_N && c->bytes + u <= CACHE_BYTES) {
      c->slot[cls][c->count[cls]++] = p;
      c->bytes += u;
      return;
    }
  }
  memkind_free(slot_kind(idx), p);
}
