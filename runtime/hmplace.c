/*===- hmplace.c - HmPlace runtime core: slots, dispatch, fallback --------===*
 *
 * Ownership design (why a range check):
 *   free() of a non-placed pointer is the hot path of every program we link
 *   into, and it must be safe on any pointer. memkind's own detection
 *   (memkind_free(NULL, p)) segfaults on glibc pointers, its decorator hooks
 *   are not exported by Debian's build, and a registry of placed blocks costs
 *   a hash probe (and a lock or a lock-free table) on every ordinary free.
 *   Instead every placed kind allocates from its own slot of one reserved
 *   address range: slot k is a memkind_create_fixed() kind over
 *   [base + k*slot, base + (k+1)*slot), mapped MAP_NORESERVE and mbind()-ed
 *   with the node policy memkind itself uses for the static kind k. Owning
 *   a pointer is then `p - base < span`, its kind `(p - base) >> shift`: two
 *   loads, a subtraction and a compare, no lock, no memory access at p.
 *   scripts/bench measures the cost against plain glibc free.
 *
 * Node policy: rather than re-deriving memkind's node selection (HMAT,
 *   MEMKIND_HBW_NODES, capacity and latency rules), the runtime allocates one
 *   small block from the static kind and reads its policy back with
 *   get_mempolicy(MPOL_F_ADDR): memkind mbind()s its chunks with the kind's
 *   mode and node mask. So env variables and HMAT detection behave exactly
 *   as with memkind, through its public API only. If the static kind is
 *   unavailable (no HBM here), the slot is unavailable and planned sites of
 *   that kind use the ordinary heap (warned once, counted).
 *
 * memkind is used only through this file's slot_* functions.
 *===----------------------------------------------------------------------===*/
#define _GNU_SOURCE
#include "hmplace.h"
#include "hmplace_internal.h"

#include <dlfcn.h>
#include <errno.h>
#include <malloc.h>
#include <memkind.h>
#include <numaif.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

/*--- the ordinary heap ---------------------------------------------------*/

#if HMPLACE_INTERPOSE
/* This library defines free/realloc/malloc_usable_size itself, so the next
 * definitions are looked up (glibc's, or a preloaded allocator's). glibc's
 * __libc_* serve until then: dlsym may itself allocate and free. */
extern void __libc_free(void *);
extern void *__libc_realloc(void *, size_t);
static void bootstrap_free(void *p);
/* Starts as bootstrap_free, so the hot path is a load and a jump, no test. */
static void (*next_free)(void *) = bootstrap_free;
static void *(*next_realloc)(void *, size_t);
static size_t (*next_usable)(void *);
static _Atomic int next_resolving;

static void resolve_next(void) {
  if (atomic_exchange(&next_resolving, 1))
    return;
  void *f = dlsym(RTLD_NEXT, "free");
  void *r = dlsym(RTLD_NEXT, "realloc");
  void *u = dlsym(RTLD_NEXT, "malloc_usable_size");
  if (u)
    __atomic_store_n(&next_usable, (size_t(*)(void *))u, __ATOMIC_RELEASE);
  if (r)
    __atomic_store_n(&next_realloc, (void *(*)(void *, size_t))r,
                     __ATOMIC_RELEASE);
  if (f)
    __atomic_store_n(&next_free, (void (*)(void *))f, __ATOMIC_RELEASE);
}

/* Until dlsym has answered (or if it cannot), glibc's own free. */
static void bootstrap_free(void *p) {
  resolve_next();
  __libc_free(p);
}

static inline void heap_free(void *p) {
  __atomic_load_n(&next_free, __ATOMIC_ACQUIRE)(p);
}
static void *heap_realloc(void *p, size_t n) {
  void *(*f)(void *, size_t) = __atomic_load_n(&next_realloc, __ATOMIC_ACQUIRE);
  if (f)
    return f(p, n);
  resolve_next();
  return __libc_realloc(p, n);
}
static size_t heap_usable(void *p) {
  size_t (*f)(void *) = __atomic_load_n(&next_usable, __ATOMIC_ACQUIRE);
  if (!f) {
    resolve_next();
    f = __atomic_load_n(&next_usable, __ATOMIC_ACQUIRE);
  }
  return f ? f(p) : 0;
}
#else
static inline void heap_free(void *p) { free(p); }
static void *heap_realloc(void *p, size_t n) { return realloc(p, n); }
static size_t heap_usable(void *p) { return malloc_usable_size(p); }
#endif

/*--- slots ----------------------------------------------------------------*/

static memkind_t *const StaticKinds[HMPLACE_KIND_COUNT] = {
    &MEMKIND_REGULAR,
    &MEMKIND_DEFAULT,
    &MEMKIND_HUGETLB,
    &MEMKIND_HBW,
    &MEMKIND_HBW_ALL,
    &MEMKIND_HBW_PREFERRED,
    &MEMKIND_HBW_HUGETLB,
    &MEMKIND_HBW_ALL_HUGETLB,
    &MEMKIND_HBW_PREFERRED_HUGETLB,
    &MEMKIND_HBW_INTERLEAVE,
    &MEMKIND_INTERLEAVE,
    &MEMKIND_DAX_KMEM,
    &MEMKIND_DAX_KMEM_ALL,
    &MEMKIND_DAX_KMEM_PREFERRED,
    &MEMKIND_DAX_KMEM_INTERLEAVE,
    &MEMKIND_HIGHEST_CAPACITY,
    &MEMKIND_HIGHEST_CAPACITY_PREFERRED,
    &MEMKIND_HIGHEST_CAPACITY_LOCAL,
    &MEMKIND_HIGHEST_CAPACITY_LOCAL_PREFERRED,
    &MEMKIND_LOWEST_LATENCY_LOCAL,
    &MEMKIND_LOWEST_LATENCY_LOCAL_PREFERRED,
    &MEMKIND_HIGHEST_BANDWIDTH_LOCAL,
    &MEMKIND_HIGHEST_BANDWIDTH_LOCAL_PREFERRED,
};

static const char *const KindNames[HMPLACE_KIND_COUNT] = {
    "MEMKIND_REGULAR",
    "MEMKIND_DEFAULT",
    "MEMKIND_HUGETLB",
    "MEMKIND_HBW",
    "MEMKIND_HBW_ALL",
    "MEMKIND_HBW_PREFERRED",
    "MEMKIND_HBW_HUGETLB",
    "MEMKIND_HBW_ALL_HUGETLB",
    "MEMKIND_HBW_PREFERRED_HUGETLB",
    "MEMKIND_HBW_INTERLEAVE",
    "MEMKIND_INTERLEAVE",
    "MEMKIND_DAX_KMEM",
    "MEMKIND_DAX_KMEM_ALL",
    "MEMKIND_DAX_KMEM_PREFERRED",
    "MEMKIND_DAX_KMEM_INTERLEAVE",
    "MEMKIND_HIGHEST_CAPACITY",
    "MEMKIND_HIGHEST_CAPACITY_PREFERRED",
    "MEMKIND_HIGHEST_CAPACITY_LOCAL",
    "MEMKIND_HIGHEST_CAPACITY_LOCAL_PREFERRED",
    "MEMKIND_LOWEST_LATENCY_LOCAL",
    "MEMKIND_LOWEST_LATENCY_LOCAL_PREFERRED",
    "MEMKIND_HIGHEST_BANDWIDTH_LOCAL",
    "MEMKIND_HIGHEST_BANDWIDTH_LOCAL_PREFERRED",
};

const char *hmplace_kind_name(enum hmplace_kind k) {
  return (unsigned)k < HMPLACE_KIND_COUNT ? KindNames[k] : "invalid";
}

enum { SLOT_UNINIT = 0, SLOT_READY = 1, SLOT_UNAVAILABLE = -1 };

/* One cache line of hot counters per kind; placed allocations of different
 * kinds do not share lines. */
struct slot {
  _Atomic int state;
  memkind_t kind;
  _Atomic uint64_t allocs, bytes, live, peak, fallbacks;
  _Atomic uint64_t budget;
  _Atomic int warned_unavailable, warned_budget, warned_full;
  pthread_mutex_t init_lock;
} __attribute__((aligned(64)));

static struct slot Slots[HMPLACE_KIND_COUNT];

/* Address layout: kind k owns [Base + k 2^36, Base + (k+1) 2^36). It is
 * fixed so that the ownership test on every free is one load, a subtraction
 * and a compare with a constant; HMPLACE_SLOT_SIZE only limits how much of
 * each 64 GiB slot is mapped. Until the range exists Base is 0 - SPAN, so no
 * user pointer p has p - Base < SPAN (it would have to lie in the top SPAN
 * bytes of the address space, which is the kernel's). Base is written once,
 * under RangeLock, before any pointer from the range exists. */
enum { SLOT_SHIFT = 36 };
#define SPAN ((uintptr_t)HMPLACE_KIND_COUNT << SLOT_SHIFT)
static _Atomic uintptr_t RangeBase = (uintptr_t)0 - SPAN;
static size_t SlotBytes = (size_t)1 << SLOT_SHIFT;
static pthread_mutex_t RangeLock = PTHREAD_MUTEX_INITIALIZER;
static int RangeReady, RangeFailed;

static _Atomic int Off; /* HMPLACE=off */

static void warn(const char *fmt, const char *a, const char *b) {
  fprintf(stderr, "hmplace: warning: ");
  fprintf(stderr, fmt, a, b);
  fputc('\n', stderr);
}

/* Reserve the whole span once: PROT_NONE costs no memory and no commit. */
static int reserve_range(void) {
  pthread_mutex_lock(&RangeLock);
  if (!RangeReady && !RangeFailed) {
    const char *s = getenv("HMPLACE_SLOT_SIZE");
    if (s && *s) {
      uint64_t v;
      if (hm_parse_size(s, &v) == 0 && v >= (1ULL << 30) &&
          v <= ((uint64_t)1 << SLOT_SHIFT))
        SlotBytes = (size_t)v & ~(((size_t)1 << 21) - 1);
      else
        warn("ignoring HMPLACE_SLOT_SIZE='%s'%s: need 1GiB to 64GiB", s, "");
    }
    void *p = mmap(NULL, SPAN, PROT_NONE,
                   MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
    if (p == MAP_FAILED) {
      RangeFailed = 1;
      warn("cannot reserve %s of address space for placed kinds (%s); all "
           "planned sites use the ordinary heap",
           "the", strerror(errno));
    } else {
      atomic_store(&RangeBase, (uintptr_t)p);
      RangeReady = 1;
    }
  }
  int ok = RangeReady;
  pthread_mutex_unlock(&RangeLock);
  return ok ? 0 : -1;
}

/* Read the node policy memkind uses for static kind k from one of its
 * blocks. Returns 0 and fills mode/mask, or -1 if memkind cannot serve k. */
static int probe_policy(enum hmplace_kind k, int *mode, unsigned long *mask,
                        unsigned long maxnode) {
  memkind_t sk = *StaticKinds[k];
  if (memkind_check_available(sk) != MEMKIND_SUCCESS)
    return -1;
  void *p = memkind_malloc(sk, 64);
  if (!p)
    return -1;
  memset(mask, 0, maxnode / 8);
  long r = get_mempolicy(mode, mask, maxnode, p, MPOL_F_ADDR);
  memkind_free(sk, p);
  return r == 0 ? 0 : -1;
}

static int slot_init(enum hmplace_kind k) {
  struct slot *s = &Slots[k];
  pthread_mutex_lock(&s->init_lock);
  if (atomic_load(&s->state) != SLOT_UNINIT) {
    pthread_mutex_unlock(&s->init_lock);
    return atomic_load(&s->state);
  }
  int state = SLOT_UNAVAILABLE;
  enum { MaxNode = 1024 };
  unsigned long mask[MaxNode / (8 * sizeof(unsigned long))];
  int mode = MPOL_DEFAULT;
  const char *why = "memkind reports it unavailable on this machine";
  if (probe_policy(k, &mode, mask, MaxNode) != 0) {
    /* why stays */
  } else if (reserve_range() != 0) {
    why = "no address range could be reserved";
  } else {
    size_t size = SlotBytes;
    char *base = (char *)atomic_load(&RangeBase) + ((size_t)k << SLOT_SHIFT);
    void *m =
        mmap(base, size, PROT_READ | PROT_WRITE,
             MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE | MAP_FIXED, -1, 0);
    if (m == MAP_FAILED) {
      why = "its address range could not be mapped";
    } else if (mode != MPOL_DEFAULT &&
               mbind(base, size, mode, mask, MaxNode, 0) != 0) {
      why = "mbind of its address range failed";
      mmap(base, size, PROT_NONE,
           MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE | MAP_FIXED, -1, 0);
    } else {
      if (strstr(KindNames[k], "HUGETLB"))
        madvise(base, size, MADV_HUGEPAGE); /* THP, not hugetlbfs */
      if (memkind_create_fixed(base, size, &s->kind) == MEMKIND_SUCCESS)
        state = SLOT_READY;
      else
        why = "memkind_create_fixed failed";
    }
  }
  if (state != SLOT_READY && !atomic_exchange(&s->warned_unavailable, 1))
    warn("%s is unavailable (%s); its planned allocations use the ordinary "
         "heap",
         KindNames[k], why);
  atomic_store_explicit(&s->state, state, memory_order_release);
  pthread_mutex_unlock(&s->init_lock);
  return state;
}

static inline int slot_ready(enum hmplace_kind k) {
  int st = atomic_load_explicit(&Slots[k].state, memory_order_acquire);
  if (__builtin_expect(st == SLOT_UNINIT, 0))
    st = slot_init(k);
  return st == SLOT_READY;
}

/* Kind of a placed pointer, or -1. Safe on any value. */
static inline int owner_of(const void *p) {
  uintptr_t off =
      (uintptr_t)p - atomic_load_explicit(&RangeBase, memory_order_relaxed);
  if (__builtin_expect(off < SPAN, 0))
    return (int)(off >> SLOT_SHIFT);
  return -1;
}

int hmplace_owner(const void *p) {
  if (!p)
    return 0;
  return owner_of(p) + 1;
}

/*--- accounting -------------------------------------------------------------*/

/* Add \p usable live bytes and raise the peak if they set a new one. */
static void add_live(struct slot *s, size_t usable) {
  uint64_t live =
      atomic_fetch_add_explicit(&s->live, usable, memory_order_relaxed) +
      usable;
  uint64_t peak = atomic_load_explicit(&s->peak, memory_order_relaxed);
  while (live > peak &&
         !atomic_compare_exchange_weak_explicit(
             &s->peak, &peak, live, memory_order_relaxed, memory_order_relaxed))
    ;
}

static void account_alloc(struct slot *s, size_t req, size_t usable) {
  atomic_fetch_add_explicit(&s->allocs, 1, memory_order_relaxed);
  atomic_fetch_add_explicit(&s->bytes, req, memory_order_relaxed);
  add_live(s, usable);
}

static inline void account_free(struct slot *s, size_t usable) {
  atomic_fetch_sub_explicit(&s->live, usable, memory_order_relaxed);
}

/* Whether a placed request of n bytes may go to kind k now; counts and warns
 * when it may not. */
static int may_place(enum hmplace_kind k, size_t n) {
  struct slot *s = &Slots[k];
  if (atomic_load_explicit(&Off, memory_order_relaxed) || !slot_ready(k)) {
    atomic_fetch_add_explicit(&s->fallbacks, 1, memory_order_relaxed);
    return 0;
  }
  uint64_t b = atomic_load_explicit(&s->budget, memory_order_relaxed);
  if (b && atomic_load_explicit(&s->live, memory_order_relaxed) + n > b) {
    atomic_fetch_add_explicit(&s->fallbacks, 1, memory_order_relaxed);
    if (!atomic_exchange(&s->warned_budget, 1))
      warn("%s budget exhausted%s; further planned allocations that do not "
           "fit use the ordinary heap",
           KindNames[k], "");
    return 0;
  }
  return 1;
}

/* The kind could not serve a request it was allowed to take (full). */
static void placed_failed(enum hmplace_kind k) {
  struct slot *s = &Slots[k];
  atomic_fetch_add_explicit(&s->fallbacks, 1, memory_order_relaxed);
  if (!atomic_exchange(&s->warned_full, 1))
    warn("%s could not satisfy an allocation%s; using the ordinary heap",
         KindNames[k], "");
}

/*--- per-thread cache of placed blocks -------------------------------------*
 * memkind gives jemalloc thread caches to its static kinds only; a kind made
 * with memkind_create_fixed takes the arena lock on every malloc and free
 * (measured here: 130 ns per malloc+free pair against 34 ns for MEMKIND_HBW).
 * So small placed blocks go through a small per-thread, per-kind cache.
 * Classes follow jemalloc's (16-byte steps to 128, then four per doubling)
 * up to 32 KiB, so a fresh block of class c has usable size exactly c; only
 * blocks whose usable size is exactly a class are cached, which keeps the
 * live-byte accounting exact. A thread's caches are returned to memkind when
 * it exits. */
enum { NCLS = 40, CACHE_N = 32, MAX_CACHED = 32768 };

/* At most CACHE_BYTES of free placed memory per thread and kind: cached
 * blocks still occupy the tier (and are not counted against its budget). */
enum { CACHE_BYTES = 1 << 20 };

struct kcache {
  size_t bytes;
  unsigned count[NCLS];
  void *slot[NCLS][CACHE_N];
};

static __thread struct kcache *TCache[HMPLACE_KIND_COUNT]
    __attribute__((tls_model("initial-exec")));
static pthread_key_t CacheKey;
static pthread_once_t CacheKeyOnce = PTHREAD_ONCE_INIT;

static size_t class_size(unsigned i) {
  if (i < 8)
    return 16 * (size_t)(i + 1);
  unsigned lg = 7 + (i - 8) / 4, k = (i - 8) % 4 + 1;
  return ((size_t)1 << lg) + (size_t)k * ((size_t)1 << (lg - 2));
}

/* Smallest class >= n (n <= MAX_CACHED). */
static inline unsigned class_for_request(size_t n) {
  if (n <= 128)
    return n ? (unsigned)((n + 15) / 16 - 1) : 0;
  unsigned lg = 63 - (unsigned)__builtin_clzll(n - 1); /* 2^lg < n */
  size_t delta = (size_t)1 << (lg - 2);
  unsigned k = (unsigned)((n - ((size_t)1 << lg) + delta - 1) / delta);
  return 8 + (lg - 7) * 4 + (k - 1);
}

/* Class whose size is exactly u, or -1. */
static inline int class_exact(size_t u) {
  if (u > MAX_CACHED || u < 16)
    return -1;
  unsigned c = class_for_request(u);
  return class_size(c) == u ? (int)c : -1;
}

/* A thread's caches outlive it: memkind's jemalloc may already have torn
 * down its own thread state when our destructor runs, so no memkind call is
 * made there. The caches go to an orphan list per kind, and the next thread
 * that needs one adopts it, blocks included. */
static struct kcache *Orphans[HMPLACE_KIND_COUNT][64];
static unsigned NumOrphans[HMPLACE_KIND_COUNT];
static pthread_mutex_t OrphanLock = PTHREAD_MUTEX_INITIALIZER;

static void release_thread_caches(void *unused) {
  (void)unused;
  pthread_mutex_lock(&OrphanLock);
  for (int k = 0; k < HMPLACE_KIND_COUNT; ++k) {
    struct kcache *c = TCache[k];
    if (!c)
      continue;
    TCache[k] = NULL;
    if (NumOrphans[k] < 64)
      Orphans[k][NumOrphans[k]++] = c;
    /* else: more dead threads' caches than anyone will adopt; their blocks
     * stay allocated (at most 64 x 40 x 32 small blocks per kind). */
  }
  pthread_mutex_unlock(&OrphanLock);
}

static void make_cache_key(void) {
  pthread_key_create(&CacheKey, release_thread_caches);
}

static struct kcache *cache_for(int k) {
  struct kcache *c = TCache[k];
  if (__builtin_expect(c != NULL, 1))
    return c;
  pthread_once(&CacheKeyOnce, make_cache_key);
  pthread_mutex_lock(&OrphanLock);
  if (NumOrphans[k])
    c = Orphans[k][--NumOrphans[k]];
  pthread_mutex_unlock(&OrphanLock);
  if (!c && !(c = calloc(1, sizeof(*c))))
    return NULL;
  TCache[k] = c;
  pthread_setspecific(CacheKey, c); /* any non-NULL value: run the release */
  return c;
}

static void *placed_malloc(enum hmplace_kind k, size_t n) {
  struct slot *s = &Slots[k];
  void *p;
  size_t u;
  if (n <= MAX_CACHED) {
    unsigned cls = class_for_request(n);
    u = class_size(cls);
    struct kcache *c = cache_for(k);
    if (c && c->count[cls]) {
      p = c->slot[cls][--c->count[cls]];
      c->bytes -= u;
    } else if (!(p = memkind_malloc(s->kind, u)))
      return NULL;
  } else {
    if (!(p = memkind_malloc(s->kind, n)))
      return NULL;
    u = memkind_malloc_usable_size(s->kind, p);
  }
  account_alloc(s, n, u);
  hm_track_alloc(p, u);
  return p;
}

static void *placed_aligned(enum hmplace_kind k, size_t align, size_t n) {
  struct slot *s = &Slots[k];
  void *p = NULL;
  if (memkind_posix_memalign(s->kind, &p, align, n) != 0)
    return NULL;
  size_t u = memkind_malloc_usable_size(s->kind, p);
  account_alloc(s, n, u);
  hm_track_alloc(p, u);
  return p;
}

static void placed_free(int k, void *p) {
  struct slot *s = &Slots[k];
  size_t u = memkind_malloc_usable_size(s->kind, p);
  account_free(s, u);
  hm_track_free(p);
  int cls = class_exact(u);
  if (cls >= 0) {
    struct kcache *c = cache_for(k);
    if (c && c->count[cls] < CACHE_N && c->bytes + u <= CACHE_BYTES) {
      c->slot[cls][c->count[cls]++] = p;
      c->bytes += u;
      return;
    }
  }
  memkind_free(s->kind, p);
}

static inline int valid_kind(enum hmplace_kind k) {
  return (unsigned)k < HMPLACE_KIND_COUNT;
}

/*--- entry points for planned sites ---------------------------------------*/

/* A block of \p req bytes (aligned to \p align unless 0) from kind \p k, or
 * NULL when the kind may not or cannot serve it: counted, and the caller
 * falls back to the ordinary heap with C's own call. */
static void *try_place(enum hmplace_kind k, size_t align, size_t req) {
  hm_ctx_account(req);
  if (!valid_kind(k) || !may_place(k, req))
    return NULL;
  void *p = align ? placed_aligned(k, align, req) : placed_malloc(k, req);
  if (!p)
    placed_failed(k);
  return p;
}

void *hmplace_malloc(enum hmplace_kind k, size_t n) {
  /* malloc(0) returns a unique pointer; memkind's returns NULL. */
  void *p = try_place(k, 0, n ? n : 1);
  return p ? p : malloc(n);
}

void *hmplace_calloc(enum hmplace_kind k, size_t nmemb, size_t size) {
  size_t n;
  /* memkind_calloc does not check the product for overflow. */
  if (__builtin_mul_overflow(nmemb, size, &n)) {
    errno = ENOMEM;
    return NULL;
  }
  void *p = try_place(k, 0, n ? n : 1);
  if (!p)
    return calloc(nmemb, size);
  /* Cached blocks are dirty and fresh ones are zero only sometimes. */
  memset(p, 0, n);
  return p;
}

static int good_alignment(size_t align) {
  return align && (align & (align - 1)) == 0;
}

int hmplace_posix_memalign(enum hmplace_kind k, void **out, size_t align,
                           size_t n) {
  /* POSIX: a power of two multiple of sizeof(void *), else EINVAL and *out
   * untouched. Returns the error; errno is left alone. */
  if (!good_alignment(align) || align % sizeof(void *) != 0)
    return EINVAL;
  void *p = try_place(k, align, n ? n : 1);
  if (p) {
    *out = p;
    return 0;
  }
  int saved = errno;
  int r = posix_memalign(out, align, n);
  errno = saved;
  return r;
}

void *hmplace_aligned_alloc(enum hmplace_kind k, size_t align, size_t n) {
  /* glibc accepts any power of two (even below sizeof(void *)). */
  if (!good_alignment(align)) {
    errno = EINVAL;
    return NULL;
  }
  size_t a = align < sizeof(void *) ? sizeof(void *) : align;
  void *p = try_place(k, a, n ? n : 1);
  return p ? p : aligned_alloc(align, n);
}

void *hmplace_memalign(enum hmplace_kind k, size_t align, size_t n) {
  /* glibc's memalign rounds a non-power-of-two alignment up. */
  if (align > ((size_t)1 << (sizeof(size_t) * 8 - 1))) {
    errno = EINVAL;
    return NULL;
  }
  size_t a = sizeof(void *);
  while (a < align)
    a <<= 1;
  void *p = try_place(k, a, n ? n : 1);
  return p ? p : memalign(align, n);
}

void *hmplace_valloc(enum hmplace_kind k, size_t n) {
  return hmplace_memalign(k, (size_t)sysconf(_SC_PAGESIZE), n);
}

char *hmplace_strdup(enum hmplace_kind k, const char *s) {
  size_t n = strlen(s) + 1;
  char *d = hmplace_malloc(k, n);
  if (d)
    memcpy(d, s, n);
  return d;
}

char *hmplace_strndup(enum hmplace_kind k, const char *s, size_t max) {
  size_t n = strnlen(s, max);
  char *d = hmplace_malloc(k, n + 1);
  if (d) {
    memcpy(d, s, n);
    d[n] = 0;
  }
  return d;
}

/*--- dispatch for any pointer --------------------------------------------*/

static inline __attribute__((always_inline)) void dispatch_free(void *p) {
  int k = owner_of(p);
  if (__builtin_expect(k < 0, 1)) {
    heap_free(p);
    return;
  }
  placed_free(k, p);
}

void hmplace_free(void *p) { dispatch_free(p); }
void hm_free(void *p) { dispatch_free(p); }

#if HMPLACE_INTERPOSE
/* The program's free() (interpose.c has realloc and the rest). Defined here,
 * beside the ownership test, so that the test is inlined into the path every
 * free of the program takes. */
void free(void *p) { dispatch_free(p); }
#endif

size_t hmplace_malloc_usable_size(void *p) {
  if (!p)
    return 0;
  int k = owner_of(p);
  if (k < 0)
    return heap_usable(p);
  return memkind_malloc_usable_size(Slots[k].kind, p);
}

/* Move a block of \p old_usable bytes to a fresh one from \p alloc. */
static void *move_block(void *p, size_t old_usable, size_t n, void *fresh) {
  if (!fresh)
    return NULL; /* C: the old block is untouched on failure */
  memcpy(fresh, p, old_usable < n ? old_usable : n);
  hmplace_free(p);
  return fresh;
}

static void *placed_realloc(int k, void *p, size_t n) {
  struct slot *s = &Slots[k];
  size_t old = memkind_malloc_usable_size(s->kind, p);
  uint64_t b = atomic_load_explicit(&s->budget, memory_order_relaxed);
  int fits =
      !b || n <= old ||
      atomic_load_explicit(&s->live, memory_order_relaxed) + n - old <= b;
  if (fits && !atomic_load_explicit(&Off, memory_order_relaxed)) {
    hm_track_forget(p);
    void *q = memkind_realloc(s->kind, p, n);
    if (q) {
      size_t u = memkind_malloc_usable_size(s->kind, q);
      account_free(s, old);
      add_live(s, u);
      hm_track_alloc(q, u);
      return q;
    }
    hm_track_alloc(p, old); /* still ours, unchanged */
    placed_failed(k);
  } else {
    atomic_fetch_add_explicit(&s->fallbacks, 1, memory_order_relaxed);
  }
  /* Over budget or full: the block leaves the kind for the ordinary heap. */
  return move_block(p, old, n, malloc(n));
}

void *hmplace_realloc(void *p, size_t n) {
  int k = owner_of(p);
  if (k < 0)
    return heap_realloc(p, n);
  if (n == 0) { /* glibc: free and return NULL */
    placed_free(k, p);
    return NULL;
  }
  return placed_realloc(k, p, n);
}

void *hmplace_realloc_to(enum hmplace_kind k, void *p, size_t n) {
  if (!p)
    return hmplace_malloc(k, n);
  hm_ctx_account(n);
  if (!valid_kind(k)) /* a context site chose the ordinary heap */
    return hmplace_realloc(p, n);
  int owner = owner_of(p);
  if (n == 0) {
    hmplace_free(p);
    return NULL;
  }
  if (owner == (int)k)
    return placed_realloc(owner, p, n);
  /* From the heap or another kind: move it into k. */
  size_t old = owner < 0 ? heap_usable(p)
                         : memkind_malloc_usable_size(Slots[owner].kind, p);
  return move_block(p, old, n, hmplace_malloc(k, n));
}

/*--- budgets, stats, start-up ---------------------------------------------*/

void hmplace_set_budget(enum hmplace_kind k, uint64_t bytes) {
  if (valid_kind(k) && !hm_budget_from_env(k))
    atomic_store(&Slots[k].budget, bytes);
}

void hmplace_get_stats(enum hmplace_kind k, struct hmplace_stats *o) {
  memset(o, 0, sizeof(*o));
  if (!valid_kind(k))
    return;
  struct slot *s = &Slots[k];
  o->allocs = atomic_load(&s->allocs);
  o->bytes = atomic_load(&s->bytes);
  o->live = atomic_load(&s->live);
  o->peak = atomic_load(&s->peak);
  o->fallbacks = atomic_load(&s->fallbacks);
  int st = atomic_load(&s->state);
  o->available = st == SLOT_READY ? 1 : st == SLOT_UNAVAILABLE ? -1 : 0;
}

int hm_kind_by_name(const char *name, size_t len) {
  for (int k = 0; k < HMPLACE_KIND_COUNT; ++k) {
    const char *n = KindNames[k];
    if (strlen(n) == len && !strncmp(n, name, len))
      return k;
    /* Also without the MEMKIND_ prefix: HMPLACE_BUDGET=HBW=16GiB. */
    if (strlen(n + 8) == len && !strncmp(n + 8, name, len))
      return k;
  }
  return -1;
}

void hm_store_budget(int k, uint64_t bytes) {
  atomic_store(&Slots[k].budget, bytes);
}

__attribute__((constructor)) static void hmplace_init(void) {
  /* Slots' mutexes are zero-initialised, which is PTHREAD_MUTEX_INITIALIZER
   * on glibc: placed allocations from earlier constructors are fine. */
  const char *off = getenv("HMPLACE");
  if (off && (!strcmp(off, "off") || !strcmp(off, "0")))
    atomic_store(&Off, 1);
#if HMPLACE_INTERPOSE
  resolve_next();
#endif
  hm_read_budget_env();
  hm_report_init();
  hm_teardown_init();
}
