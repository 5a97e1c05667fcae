/*===- split.c - one object's pages across several kinds ------------------===*
 *
 * A split placement (hmplace.h's HMPLACE_SPLIT: `kind: {hbm: 75%, ddr:
 * 25%}` in a plan) gives an object's pages to kinds in shares, so that a
 * bandwidth-bound array uses both memories at once. Why this mechanism:
 *  - memkind serves a block from one kind; Linux's weighted interleave
 *    (MPOL_WEIGHTED_INTERLEAVE, 6.9) takes its weights from sysfs, for the
 *    whole system, so per-object shares need their own mechanism;
 *  - so a split object is a mapping of its own (whole 4 MiB regions of the
 *    placed range, owner byte SPLIT_OWNER: free finds it with the same
 *    range check as any placed block) cut into *runs*, each mbind()-ed with
 *    the node policy memkind gives the run's kind on the allocating thread's
 *    CPU (policy.c; the kind's slot for that CPU keeps it, slots.c, as for
 *    whole blocks). Runs go to the kinds in the order that keeps every
 *    prefix of the object closest to the shares (the kind furthest behind
 *    its share takes the next run), so every eighth of the object holds the
 *    shares to within a run's share of the eighth.
 *  - Run size: a power of two, at most an 80th of the object (so an eighth
 *    holds ten runs or more: within 10 points), at least a page, and at most
 *    2 MiB (a huge page, aligned: the mapping starts at a region boundary)
 *    up to objects of 8 GiB; past that doubled until an object has at most
 *    4096 runs (each change of policy is a kernel VMA; vm.max_map_count is
 *    65530 by default). Objects under 80 pages are not split: they go whole
 *    to the kind of the largest share.
 *  - Each part counts against its kind: allocations, bytes, live bytes,
 *    budget. A part whose kind is unavailable here, over its budget, or off
 *    (HMPLACE=off) keeps the default policy (first touch) and is counted as
 *    that kind's fallback, warned once as any fallback is.
 * Split objects are few and large: a table under one lock records them.
 *===----------------------------------------------------------------------===*/
#define _GNU_SOURCE
#include "split.h"
#include "placed.h"
#include "room.h"
#include "track.h"

#include <errno.h>
#include <numaif.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

enum { PAGE = HM_PAGE, MAX_PARTS = 3 };
_Static_assert(SPLIT_IDX == MAX_SLOTS,
               "split objects own the index past the slots");

/* A split placement code, decoded. */
struct split_code {
  int n;
  int kind[MAX_PARTS];
  unsigned pct[MAX_PARTS];
};

int hm_split_decode(int code, int *kinds, unsigned *pcts) {
  if (code <= 0 || !(code & HMPLACE_SPLIT_FLAG))
    return 0;
  int k2 = code >> 10 & 31;
  unsigned p0 = (unsigned)code >> 15 & 127, p1 = (unsigned)code >> 22 & 127;
  int n = k2 == 31 ? 2 : 3;
  kinds[0] = code & 31;
  kinds[1] = code >> 5 & 31;
  kinds[2] = k2;
  pcts[0] = p0;
  pcts[1] = p1;
  if (n == 2 && p0 + p1 != 100)
    return 0;
  if (n == 3) {
    if (p0 + p1 >= 100)
      return 0;
    pcts[2] = 100 - p0 - p1;
  }
  for (int i = 0; i < n; ++i)
    if (kinds[i] >= HMPLACE_KIND_COUNT || !pcts[i])
      return 0;
  return n;
}

static int decode(int code, struct split_code *c) {
  return (c->n = hm_split_decode(code, c->kind, c->pct)) > 0;
}

/* The part with the largest share (the first of equals). */
static int largest(const struct split_code *c) {
  int best = 0;
  for (int i = 1; i < c->n; ++i)
    if (c->pct[i] > c->pct[best])
      best = i;
  return best;
}

size_t hm_split_run(size_t n) { return split_run(n); }

/*--- the table of split objects ---------------------------------------------*/

struct split_obj {
  uintptr_t base;  /* 0: a free entry */
  size_t size;     /* requested: the object's shape (runs, parts, reuse) */
  size_t asked;    /* what the program asks of it now (a realloc in place) */
  uint64_t mapped; /* whole regions */
  int code;
  size_t part[MAX_PARTS];          /* bytes of each part */
  unsigned char placed[MAX_PARTS]; /* the part went to its kind */
  /* Each placed part's slot (slots.c: its kind under the node policy
   * memkind gives it on the CPU that allocated it): the runs are bound
   * with the slot's policy, and a freed object is reused only under the
   * same slots. */
  signed char slot[MAX_PARTS];
  /* Kept, its pages lazily freed (release_where). */
  unsigned char lazy;
};

/* Open addressing by base address: split objects are few and large, but
 * free() of one must not scan them all. Base 1 marks a freed slot. */
static struct split_obj *Objs;
/* UsedObjs counts live entries and freed slots, LiveObjs the live ones. */
static size_t CapObjs, UsedObjs, LiveObjs;
static pthread_mutex_t SplitLock = PTHREAD_MUTEX_INITIALIZER;
/* Placement codes seen, for the report. */
enum { MAX_CODES = 32 };
static struct {
  int code;
  uint64_t objects, bytes;
} Codes[MAX_CODES];
/* Objects of placements past the first MAX_CODES: counted, not listed. */
static uint64_t UnlistedObjects, UnlistedBytes;

/* The names of split placements (hm_split_name), made once each. */
static pthread_mutex_t NameLock = PTHREAD_MUTEX_INITIALIZER;

/* SplitLock, then NameLock (the report names placements with neither
 * held; nothing takes them the other way round). */
void hm_split_fork_lock(int take) {
  if (take) {
    hm_take_lock(&SplitLock, 1);
    hm_take_lock(&NameLock, 1);
  } else {
    hm_take_lock(&NameLock, 0);
    hm_take_lock(&SplitLock, 0);
  }
}

static size_t home(uintptr_t base) {
  uintptr_t v = base >> HM_REGION_SHIFT;
  return (size_t)(v * 0x9e3779b97f4a7c15ull >> 20) & (CapObjs - 1);
}

/* The entry of the object at \p base (lock held), or NULL. */
static struct split_obj *find(uintptr_t base) {
  if (!CapObjs)
    return NULL;
  for (size_t i = home(base), n = 0; n < CapObjs;
       i = (i + 1) & (CapObjs - 1), ++n) {
    if (Objs[i].base == base)
      return &Objs[i];
    if (!Objs[i].base)
      return NULL;
  }
  return NULL;
}

/* The table rebuilt for its live objects (lock held): freed slots dropped,
 * a quarter full at most, so that its memory follows the live objects
 * whatever the churn (doubling at every fill, it grew with each freed
 * object of a new address: 126 MB after 262 k cycles of 16 live objects);
 * -1 without memory. */
static int rehash(void) {
  size_t cap = 64;
  while (cap < 4 * (LiveObjs + 1))
    cap *= 2;
  struct split_obj *n = hm_own_calloc(cap, sizeof *n), *old = Objs;
  if (!n)
    return -1;
  size_t oldcap = CapObjs;
  Objs = n;
  CapObjs = cap;
  UsedObjs = 0;
  for (size_t i = 0; i < oldcap; ++i)
    if (old[i].base > 1) {
      size_t j = home(old[i].base);
      while (Objs[j].base)
        j = (j + 1) & (cap - 1);
      Objs[j] = old[i];
      ++UsedObjs;
    }
  hm_own_free(old);
  return 0;
}

static int record(const struct split_obj *o) {
  pthread_mutex_lock(&SplitLock);
  if ((UsedObjs + 1) * 2 > CapObjs && rehash() != 0) {
    pthread_mutex_unlock(&SplitLock);
    return -1;
  }
  size_t i = home(o->base);
  while (Objs[i].base > 1)
    i = (i + 1) & (CapObjs - 1);
  if (!Objs[i].base)
    ++UsedObjs;
  ++LiveObjs;
  Objs[i] = *o;
  int c = 0;
  while (c < MAX_CODES && Codes[c].code && Codes[c].code != o->code)
    ++c;
  if (c < MAX_CODES) {
    Codes[c].code = o->code;
    Codes[c].objects++;
    Codes[c].bytes += o->size;
  } else {
    ++UnlistedObjects;
    UnlistedBytes += o->size;
  }
  pthread_mutex_unlock(&SplitLock);
  return 0;
}

/* Take the object at \p p out of the table into \p out; -1 if unknown. */
static int forget(void *p, struct split_obj *out) {
  pthread_mutex_lock(&SplitLock);
  struct split_obj *e = (uintptr_t)p > 1 ? find((uintptr_t)p) : NULL;
  if (e) {
    *out = *e;
    e->base = 1;
    --LiveObjs;
  }
  pthread_mutex_unlock(&SplitLock);
  return e ? 0 : -1;
}

static int lookup(const void *p, struct split_obj *out) {
  pthread_mutex_lock(&SplitLock);
  struct split_obj *e = (uintptr_t)p > 1 ? find((uintptr_t)p) : NULL;
  if (e)
    *out = *e;
  pthread_mutex_unlock(&SplitLock);
  return e ? 0 : -1;
}

/*--- freed objects kept for reuse ------------------------------------------*/

/* A freed split object stays mapped, its pages where they are, for the next
 * split allocation of the same placement and size under the same node
 * policies: HPC codes allocate the same arrays step after step, and a fresh
 * mapping costs a page fault per page again (measured here: 20x the
 * allocation, first touch and free of a whole placed 32 MiB block, whose
 * pages jemalloc keeps). At most CACHE_SLOTS objects and CACHE_BYTES, the
 * longest kept making room for a newer one; like the per-thread caches'
 * blocks, their pages are not counted live.
 *
 * Those pages are the kinds' memory (a bound HBM part's pages stay on HBM),
 * so a kept object must never hold what a placed allocation needs (measured
 * before: an HBW allocation that fitted once they were released was
 * OOM-killed under MPOL_BIND, and so was one of another kind bound to the
 * same node: HBW_ALL after HBW, DAX_KMEM_ALL after DAX_KMEM). Before a
 * placed allocation of a kind a kept object holds, or of any kind whose
 * slot can put pages on a node a kept part's slot can (slots.c,
 * hm_slot_meets), the object's pages are lazily freed (MADV_FREE,
 * release_where) where they could be needed: where the kind has a
 * budget and its live bytes with its kept parts' exceed it (kept pages
 * count against the budget, which divides a node's HBM among MPI ranks),
 * or where the slot's nodes would keep less than a margin free after the
 * request, the kept parts that can be on them counted (room.c). The kernel
 * takes lazily freed pages back, without swap, as soon as an allocation on
 * their node is short of memory, and a reuse finds them where it did not; the
 * object stays kept. Not at every free, nor at every placed allocation: a page
 * lazily freed costs its next write (measured here: a step that makes a whole
 * block, then reuses a 1 MiB split object and writes it, 2.3-2.8x the time of
 * the same step with two whole blocks when every such allocation gave the pages
 * back, scripts/bench runtime 6b). Another process's allocations do not make
 * this one give its pages back unless a budget divides the node. */
enum { CACHE_SLOTS = 8 };
#define CACHE_BYTES ((uint64_t)1 << 30)
static struct split_obj Cache[CACHE_SLOTS]; /* base 0: empty */
static uint64_t CachedBytes;
/* When each was kept: the longest kept makes room first (a code's sizes
 * change; objects of sizes no longer asked for must not hold every slot). */
static uint64_t KeptAt[CACHE_SLOTS], KeptCount;
/* Kept objects whose pages are not yet lazily freed: the kinds and the
 * slots their placed parts are of (bit k, bit j: what a placed allocation
 * loads, hm_split_give_back), and those parts' bytes per kind and per
 * slot; KeptParts counts the parts per slot (lock held). */
_Atomic uint64_t hm_split_kept_kinds, hm_split_kept_slots;
_Atomic uint64_t hm_split_kept_bytes[HMPLACE_KIND_COUNT];
_Atomic uint64_t hm_split_kept_slot_bytes[SPLIT_IDX];
static int KeptKindParts[HMPLACE_KIND_COUNT], KeptParts[SPLIT_IDX];

/* Bit \p bit of \p mask set while \p *count is not 0, after adding
 * \p delta to it (lock held). */
static void count_bit(int *count, int delta, _Atomic uint64_t *mask, int bit) {
  *count += delta;
  if (*count)
    atomic_fetch_or(mask, (uint64_t)1 << bit);
  else
    atomic_fetch_and(mask, ~((uint64_t)1 << bit));
}

static void count_kept(const struct split_obj *o, int delta) {
  struct split_code c;
  if (o->lazy || !decode(o->code, &c))
    return;
  for (int i = 0; i < c.n; ++i)
    if (o->placed[i]) {
      int k = c.kind[i], sl = o->slot[i];
      uint64_t bytes = (uint64_t)delta * o->part[i];
      atomic_fetch_add_explicit(&hm_split_kept_bytes[k], bytes,
                                memory_order_relaxed);
      atomic_fetch_add_explicit(&hm_split_kept_slot_bytes[sl], bytes,
                                memory_order_relaxed);
      count_bit(&KeptKindParts[k], delta, &hm_split_kept_kinds, k);
      count_bit(&KeptParts[sl], delta, &hm_split_kept_slots, sl);
    }
}

/* Take kept object \p i out of the cache (lock held). */
static struct split_obj take_kept(int i) {
  struct split_obj o = Cache[i];
  CachedBytes -= o.mapped;
  count_kept(&o, -1);
  Cache[i].base = 0;
  return o;
}

/* Keep \p o for reuse (lock held), making room by taking out the objects
 * kept longest (into \p out, \p nout of them: the caller unmaps them); 0
 * if \p o is over the cache's bytes on its own. */
static int keep(const struct split_obj *o, struct split_obj *out, int *nout) {
  if (o->mapped > CACHE_BYTES)
    return 0;
  for (;;) {
    int empty = -1, oldest = -1;
    for (int i = 0; i < CACHE_SLOTS; ++i)
      if (!Cache[i].base)
        empty = empty < 0 ? i : empty;
      else if (oldest < 0 || KeptAt[i] < KeptAt[oldest])
        oldest = i;
    if (empty >= 0 && CachedBytes + o->mapped <= CACHE_BYTES) {
      Cache[empty] = *o;
      KeptAt[empty] = ++KeptCount;
      CachedBytes += o->mapped;
      count_kept(o, 1);
      return 1;
    }
    out[(*nout)++] = take_kept(oldest);
  }
}

/* Keep \p o, or unmap it; unmap what made room for it. */
static void keep_or_unmap(struct split_obj *o) {
  struct split_obj out[CACHE_SLOTS];
  int nout = 0;
  pthread_mutex_lock(&SplitLock);
  int kept = keep(o, out, &nout);
  pthread_mutex_unlock(&SplitLock);
  if (!kept)
    hm_range_unmap_chunk(o->base, o->mapped);
  for (int i = 0; i < nout; ++i)
    hm_range_unmap_chunk(out[i].base, out[i].mapped);
}

/* Whether kept object \p o has a placed part of kind \p k, or on one of
 * \p slots. */
static int holds(const struct split_obj *o, int k, uint64_t slots) {
  struct split_code c;
  if (!decode(o->code, &c))
    return 0;
  for (int i = 0; i < c.n; ++i)
    if (o->placed[i] && (c.kind[i] == k || (slots >> o->slot[i] & 1)))
      return 1;
  return 0;
}

/* Lazily free (MADV_FREE) the pages of the kept objects with a placed part
 * of kind \p k or on one of \p slots; they stay kept for reuse. */
static void release_where(int k, uint64_t slots) {
  struct split_obj out[CACHE_SLOTS];
  int n = 0;
  /* Out of the cache while their pages are lazily freed: a reuse meanwhile
   * would write pages the kernel may then drop. */
  pthread_mutex_lock(&SplitLock);
  for (int i = 0; i < CACHE_SLOTS; ++i)
    if (Cache[i].base && !Cache[i].lazy && holds(&Cache[i], k, slots))
      out[n++] = take_kept(i);
  pthread_mutex_unlock(&SplitLock);
  for (int i = 0; i < n; ++i) {
    if (madvise((void *)out[i].base, out[i].mapped, MADV_FREE) != 0) {
      hm_range_unmap_chunk(out[i].base, out[i].mapped);
      continue;
    }
    out[i].lazy = 1;
    keep_or_unmap(&out[i]);
  }
}

void hm_split_make_room(int idx, int k, size_t req) {
  struct kstate *s = &hm_kinds[k];
  int64_t live = (int64_t)atomic_load_explicit(&s->live, memory_order_relaxed);
  /* The kind's budget (the request taken from it already): its kept parts
   * count against it. */
  uint64_t b = atomic_load_explicit(&s->budget, memory_order_relaxed);
  int64_t kept = (int64_t)atomic_load_explicit(&hm_split_kept_bytes[k],
                                               memory_order_relaxed);
  if (b && live + kept > (int64_t)b)
    release_where(k, 0);
  /* The slot's nodes: the kept parts of any kind that can be on them. */
  uint64_t near =
      atomic_load_explicit(&hm_slot_meets[idx], memory_order_relaxed) &
      atomic_load_explicit(&hm_split_kept_slots, memory_order_relaxed);
  if (!near)
    return;
  int64_t used = live;
  for (int j = 0; j < SPLIT_IDX; ++j)
    if (near >> j & 1)
      used += (int64_t)atomic_load_explicit(&hm_split_kept_slot_bytes[j],
                                            memory_order_relaxed);
  if (!hm_room_for(idx, used, req))
    release_where(-1, near);
}

static int same_binding(const struct split_obj *a, const struct split_obj *b,
                        int parts) {
  for (int i = 0; i < parts; ++i)
    if (a->placed[i] != b->placed[i] ||
        (a->placed[i] && a->slot[i] != b->slot[i]))
      return 0;
  return 1;
}

/* A kept object for \p want (its code, size and bindings), taken out of the
 * cache into want->base and want->mapped; 0 if none. */
static int reuse(struct split_obj *want, int parts) {
  pthread_mutex_lock(&SplitLock);
  int got = 0;
  for (int i = 0; i < CACHE_SLOTS && !got; ++i) {
    struct split_obj *c = &Cache[i];
    if (c->base && c->code == want->code &&
        (c->size + PAGE - 1) / PAGE == (want->size + PAGE - 1) / PAGE &&
        same_binding(c, want, parts)) {
      struct split_obj o = take_kept(i);
      want->base = o.base;
      want->mapped = o.mapped;
      got = 1;
    }
  }
  pthread_mutex_unlock(&SplitLock);
  return got;
}

/*--- allocation -------------------------------------------------------------*/

/* Which part each run goes to: the part furthest behind its share of the
 * bytes so far (in hundredths of a byte: integers, exact). Calls \p fn for
 * each maximal stretch of one part. */
static void assign_runs(const struct split_code *c, uint64_t size, size_t run,
                        void (*fn)(int part, uint64_t off, uint64_t len,
                                   void *arg),
                        void *arg) {
  uint64_t got[MAX_PARTS] = {0};
  int cur = -1;
  uint64_t start = 0;
  for (uint64_t off = 0; off < size; off += run) {
    uint64_t len = size - off < run ? size - off : run, total = off + len;
    int best = 0;
    int64_t behind = INT64_MIN;
    for (int i = 0; i < c->n; ++i) {
      int64_t b = (int64_t)(c->pct[i] * total) - (int64_t)(100 * got[i]);
      if (b > behind) {
        behind = b;
        best = i;
      }
    }
    got[best] += len;
    if (best != cur) {
      if (cur >= 0)
        fn(cur, start, off - start, arg);
      cur = best;
      start = off;
    }
  }
  if (cur >= 0)
    fn(cur, start, size - start, arg);
}

static void add_part(int part, uint64_t off, uint64_t len, void *arg) {
  (void)off;
  ((size_t *)arg)[part] += len;
}

/* The bytes of each part of an object of \p size bytes in runs of \p run,
 * remembered per thread for the last shape asked: HPC codes allocate the
 * same arrays step after step, and an object of a few hundred KiB has a
 * hundred runs to walk. */
static void parts_of(const struct split_code *c, int code, uint64_t size,
                     size_t run, size_t *part) {
  static __thread struct {
    int code;
    uint64_t size;
    size_t run, part[MAX_PARTS];
  } Last __attribute__((tls_model("initial-exec")));
  if (Last.code != code || Last.size != size || Last.run != run) {
    memset(Last.part, 0, sizeof Last.part);
    assign_runs(c, size, run, add_part, Last.part);
    Last.code = code;
    Last.size = size;
    Last.run = run;
  }
  memcpy(part, Last.part, sizeof Last.part);
}

/* Whether a part of kind \p k may take \p bytes: not off, the kind has a
 * slot for this CPU (into \p slot: its node policy, cached per CPU as for
 * whole blocks; slots.c warns when the kind is unavailable), its budget not
 * exceeded (the bytes are then taken from it). Counts and warns when not. */
static int part_may_place(int k, size_t bytes, signed char *slot) {
  struct kstate *s = &hm_kinds[k];
  if (atomic_load_explicit(&hm_off, memory_order_relaxed)) {
    atomic_fetch_add_explicit(&s->fallbacks, 1, memory_order_relaxed);
    hm_warn_off();
    return 0;
  }
  int idx = slot_for(k);
  if (idx < 0) {
    atomic_fetch_add_explicit(&s->fallbacks, 1, memory_order_relaxed);
    return 0;
  }
  uint64_t b = atomic_load_explicit(&s->budget, memory_order_relaxed);
  if (b && !reserve(s, b, bytes)) {
    atomic_fetch_add_explicit(&s->fallbacks, 1, memory_order_relaxed);
    hm_warn_budget(k);
    return 0;
  }
  *slot = (signed char)idx;
  return 1;
}

struct binding {
  uintptr_t base;
  const struct split_obj *o;
  int failed;
};

static void bind_part(int part, uint64_t off, uint64_t len, void *arg) {
  struct binding *b = arg;
  if (!b->o->placed[part])
    return;
  const struct slot *sl = &hm_slots[b->o->slot[part]];
  if (sl->mode == MPOL_DEFAULT)
    return;
  if (mbind((void *)(b->base + off), len, sl->mode, sl->mask, MAX_NODE, 0) != 0)
    b->failed = errno;
}

/* Map and bind a fresh split object for \p o (its parts decided); 0 when
 * it cannot be mapped. */
static uintptr_t map_fresh(const struct split_code *c, struct split_obj *o,
                           uint64_t size, size_t run) {
  char why[200];
  uintptr_t at =
      hm_range_map_for(SPLIT_OWNER, size, &o->mapped, why, sizeof why);
  if (!at) {
    hm_kind_full(c->kind[largest(c)], why);
    return 0;
  }
  struct binding b = {at, o, 0};
  assign_runs(c, size, run, bind_part, &b);
  if (b.failed) { /* not placed as planned: the heap's, counted */
    static _Atomic int warned;
    if (!atomic_exchange(&warned, 1))
      hm_warn("cannot bind a split object's runs (%s%s): it and later split "
              "objects that cannot be bound use the ordinary heap",
              strerror(b.failed),
              b.failed == ENOMEM ? "; each run is a kernel mapping, and "
                                   "vm.max_map_count limits them"
                                 : "");
    hm_range_unmap_chunk(at, o->mapped);
    return 0;
  }
  return at;
}

/* A split object of \p n bytes: its parts taken from their kinds, then a
 * kept object of the same shape, or a fresh mapping; NULL when none can be
 * had (the caller falls back to the heap). */
static void *split_map(const struct split_code *c, int code, size_t n) {
  struct split_obj o;
  memset(&o, 0, sizeof o);
  o.code = code;
  o.size = o.asked = n;
  uint64_t size = ((uint64_t)n + PAGE - 1) & ~(uint64_t)(PAGE - 1);
  size_t run = hm_split_run(n);
  parts_of(c, code, size, run, o.part);
  for (int i = 0; i < c->n; ++i)
    o.placed[i] =
        o.part[i] && part_may_place(c->kind[i], o.part[i], &o.slot[i]);
  if (!reuse(&o, c->n)) {
    for (int i = 0; i < c->n; ++i)
      if (o.placed[i])
        hm_split_give_back(o.slot[i], c->kind[i], o.part[i]);
    o.base = map_fresh(c, &o, size, run);
  }
  if (!o.base || record(&o) != 0) {
    placed_failed(c->kind[largest(c)]); /* a fallback, as any */
    for (int i = 0; i < c->n; ++i)
      if (o.placed[i] && atomic_load(&hm_kinds[c->kind[i]].budget))
        atomic_fetch_sub(&hm_kinds[c->kind[i]].live, o.part[i]);
    if (o.base)
      hm_range_unmap_chunk(o.base, o.mapped);
    return NULL;
  }
  for (int i = 0; i < c->n; ++i)
    if (o.placed[i]) {
      int budgeted = atomic_load(&hm_kinds[c->kind[i]].budget) != 0;
      account_alloc(&hm_kinds[c->kind[i]], o.part[i], o.part[i],
                    budgeted ? o.part[i] : 0);
    }
  hm_track_alloc((void *)o.base, size);
  return (void *)o.base;
}

int hm_split_whole_kind(int code, size_t n) {
  struct split_code c;
  if (!decode(code, &c))
    return -1;
  return split_splits(n) ? -2 : c.kind[largest(&c)];
}

int hm_split_largest_kind(int code) {
  struct split_code c;
  return decode(code, &c) ? c.kind[largest(&c)] : -1;
}

void *hm_split_alloc(int code, size_t n) {
  struct split_code c;
  if (!decode(code, &c))
    return NULL;
  return split_map(&c, code, n);
}

/*--- free, size, owner, realloc -------------------------------------------*/

void hm_split_free(void *p) {
  struct split_obj o;
  if (forget(p, &o) != 0)
    return; /* not an object's start: not ours to free */
  struct split_code c;
  decode(o.code, &c);
  for (int i = 0; i < c.n; ++i)
    if (o.placed[i])
      account_free(&hm_kinds[c.kind[i]], o.part[i]);
  hm_track_free(p);
  o.lazy = 0; /* its pages as the program left them */
  keep_or_unmap(&o);
}

int hm_split_keeps(const void *p, size_t n) {
  size_t have = hm_split_usable(p);
  size_t pages = ((uint64_t)n + PAGE - 1) & ~(uint64_t)(PAGE - 1);
  if (!n || n > have || (pages != have && split_splits(n)))
    return 0;
  /* In place: its usable size is the new request's (its shape and pages
   * stay, for a reuse once it is freed). */
  pthread_mutex_lock(&SplitLock);
  struct split_obj *e = find((uintptr_t)p);
  if (e)
    e->asked = n;
  pthread_mutex_unlock(&SplitLock);
  return 1;
}

size_t hm_split_usable(const void *p) {
  struct split_obj o;
  if (lookup(p, &o) != 0)
    return 0;
  return (o.asked + PAGE - 1) & ~(size_t)(PAGE - 1);
}

int hm_split_owner(const void *p) {
  struct split_obj o;
  struct split_code c;
  if (lookup(p, &o) != 0 || !decode(o.code, &c))
    return 0;
  return c.kind[largest(&c)] + 1;
}

int hm_split_code_of(const void *p) {
  struct split_obj o;
  return lookup(p, &o) == 0 ? o.code : 0;
}

/*--- names ------------------------------------------------------------------*/

const char *hm_split_name(int code) {
  enum { NAMES = 64 };
  static struct {
    _Atomic int code;
    char text[112];
  } Names[NAMES];
  struct split_code c;
  if (!decode(code, &c))
    return NULL;
  for (int i = 0; i < NAMES; ++i)
    if (atomic_load_explicit(&Names[i].code, memory_order_acquire) == code)
      return Names[i].text;
  const char *out = "a split placement";
  pthread_mutex_lock(&NameLock);
  for (int i = 0; i < NAMES; ++i) {
    int have = atomic_load(&Names[i].code);
    if (have == code) {
      out = Names[i].text;
      break;
    }
    if (have)
      continue;
    size_t len = 0;
    for (int p = 0; p < c.n && len < sizeof Names[i].text; ++p)
      len += (size_t)snprintf(Names[i].text + len, sizeof Names[i].text - len,
                              "%s%s %u%%", p ? " + " : "",
                              hm_kind_names[c.kind[p]], c.pct[p]);
    atomic_store_explicit(&Names[i].code, code, memory_order_release);
    out = Names[i].text;
    break;
  }
  pthread_mutex_unlock(&NameLock);
  return out;
}

/* The name of any placement code: a kind (kinds.c's names), the ordinary
 * heap, or a split placement (above). Here, not in kinds.c, so that the
 * kinds' room calls nothing above it. */
const char *hmplace_kind_name(enum hmplace_kind k) {
  if ((unsigned)k < HMPLACE_KIND_COUNT)
    return hm_kind_names[k];
  if (k == HMPLACE_HEAP)
    return "ordinary heap";
  const char *split = hm_split_name((int)k);
  return split ? split : "invalid";
}

/*--- report ----------------------------------------------------------------*/

int hm_split_codes(int i, int *code, uint64_t *objects, uint64_t *bytes) {
  pthread_mutex_lock(&SplitLock);
  int ok = i >= 0 && i < MAX_CODES && Codes[i].code;
  if (ok) {
    *code = Codes[i].code;
    *objects = Codes[i].objects;
    *bytes = Codes[i].bytes;
  }
  pthread_mutex_unlock(&SplitLock);
  return ok ? 0 : -1;
}

void hm_split_unlisted(uint64_t *objects, uint64_t *bytes) {
  pthread_mutex_lock(&SplitLock);
  *objects = UnlistedObjects;
  *bytes = UnlistedBytes;
  pthread_mutex_unlock(&SplitLock);
}

void hm_split_each(int code, void (*fn)(void *p, size_t n, void *arg),
                   void *arg) {
  pthread_mutex_lock(&SplitLock);
  for (size_t i = 0; i < CapObjs; ++i)
    if (Objs[i].base > 1 && Objs[i].code == code)
      fn((void *)Objs[i].base, Objs[i].size, arg);
  pthread_mutex_unlock(&SplitLock);
}
