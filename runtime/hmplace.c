/*===- hmplace.c - HmPlace runtime core: slots, dispatch, fallback --------===*
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
 * memkind is used only here (fixed kinds) and in policy.c (static kinds).
 *===----------------------------------------------------------------------===*/
#define _GNU_SOURCE
#include "hmplace.h"
#include "hmplace_internal.h"

#include <dlfcn.h>
#include <errno.h>
#include <malloc.h>
#include <memkind.h>
#include <numa.h>
#include <numaif.h>
#include <pthread.h>
#include <sched.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/rseq.h>
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

/* A sanitizer that owns the heap (its runtime defines malloc and free ahead
 * of every library: in the executable for clang, first in the search order
 * for gcc), or NULL. Its free, not this library's, then receives every
 * pointer the program frees, and it cannot release memkind's blocks. */
static const char *Sanitizer;

static const char *find_sanitizer(void) {
  static const struct {
    const char *init, *name;
  } San[] = {{"__asan_init", "AddressSanitizer"},
             {"__hwasan_init", "HWAddressSanitizer"},
             {"__tsan_init", "ThreadSanitizer"},
             {"__msan_init", "MemorySanitizer"},
             {"__lsan_init", "LeakSanitizer"}};
  for (size_t i = 0; i < sizeof San / sizeof *San; ++i)
    if (dlsym(RTLD_DEFAULT, San[i].init))
      return San[i].name;
  return NULL;
}

static int ours(void *fn) {
  Dl_info a, b;
  return fn && dladdr(fn, &a) && dladdr((void *)&find_sanitizer, &b) &&
         a.dli_fbase == b.dli_fbase;
}

static void resolve_next(void) {
  if (atomic_exchange(&next_resolving, 1))
    return;
  /* Under a sanitizer the heap's functions are its, wherever they are in
   * the search order: RTLD_NEXT would skip them (they come before). */
  Sanitizer = find_sanitizer();
  void *where = Sanitizer ? RTLD_DEFAULT : RTLD_NEXT;
  void *f = dlsym(where, "free");
  void *r = dlsym(where, "realloc");
  void *u = dlsym(where, "malloc_usable_size");
  /* Never our own (a sanitizer that leaves one of them alone): compared by
   * the object that holds it, since this library's own references to free
   * resolve to whichever definition comes first. */
  if (ours(f))
    f = NULL;
  if (ours(r))
    r = NULL;
  if (ours(u))
    u = Sanitizer ? dlsym(RTLD_NEXT, "malloc_usable_size") : NULL;
  if (u)
    __atomic_store_n(&next_usable, (size_t (*)(void *))u, __ATOMIC_RELEASE);
  if (r)
    __atomic_store_n(&next_realloc, (void *(*)(void *, size_t))r,
                     __ATOMIC_RELEASE);
  if (f)
    __atomic_store_n(&next_free, (void (*)(void *))f, __ATOMIC_RELEASE);
}

/* Until the constructor has asked dlsym (or if it cannot answer), glibc's
 * own free. Never dlsym from here: a free before the constructor may come
 * from inside dlsym itself (UBSan's start-up calls dlsym, whose error path
 * frees its message), and a nested dlsym there frees that message twice. */
static void bootstrap_free(void *p) { __libc_free(p); }

static inline void heap_free(void *p) {
  __atomic_load_n(&next_free, __ATOMIC_ACQUIRE)(p);
}
static void *heap_realloc(void *p, size_t n) {
  void *(*f)(void *, size_t) = __atomic_load_n(&next_realloc, __ATOMIC_ACQUIRE);
  return f ? f(p, n) : __libc_realloc(p, n); /* as bootstrap_free */
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

/*--- kinds and slots -------------------------------------------------------*/

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

const char *hm_sanitizer(void) {
#if HMPLACE_INTERPOSE
  return Sanitizer;
#else
  return NULL;
#endif
}

const char *hmplace_kind_name(enum hmplace_kind k) {
  return (unsigned)k < HMPLACE_KIND_COUNT ? KindNames[k] : "invalid";
}

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

static struct kstate Kinds[HMPLACE_KIND_COUNT];

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

static struct slot SlotTab[MAX_SLOTS];
static _Atomic int NumSlots;
static pthread_mutex_t SlotsLock = PTHREAD_MUTEX_INITIALIZER;
/* Slot of kind k for threads on CPU c: 0 unknown, s + 1, or -1 none. Read
 * with acquire: the slot's fields are written before its index is. */
static _Atomic int8_t SlotOf[HMPLACE_KIND_COUNT][MAX_CPUS];

static _Atomic int Off; /* HMPLACE=off */

void hm_warn(const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  fprintf(stderr, "hmplace: warning: ");
  vfprintf(stderr, fmt, ap);
  fputc('\n', stderr);
  va_end(ap);
}

static void kind_unavailable(int k, const char *why) {
  if (!atomic_exchange(&Kinds[k].warned_unavailable, 1))
    hm_warn("%s is unavailable (%s); its planned allocations use the ordinary "
            "heap",
            KindNames[k], why);
}

/* The slot could not give a block: no chunk has room and no new one could
 * be mapped. */
static void kind_full(int k, const char *why) {
  if (!atomic_exchange(&Kinds[k].warned_full, 1))
    hm_warn(
        "%s could not satisfy an allocation (%s); it and later ones that do "
        "not fit use the ordinary heap",
        KindNames[k], why);
}

/* Add a chunk of at least \p need bytes to slot \p s (its lock held). */
static int slot_grow(int idx, size_t need, char *why, size_t whylen) {
  struct slot *s = &SlotTab[idx];
  int n = atomic_load(&s->nchunks);
  if (n == MAX_CHUNKS) {
    snprintf(why, whylen, "its %d chunks are full", MAX_CHUNKS);
    return -1;
  }
  /* jemalloc takes an extent of the request's size class (four per doubling)
   * plus a page of random offset, and its metadata blocks (2 MiB) come from
   * the same chunk. */
  uint64_t size, want = need;
  if (need > 16384) {
    uint64_t step = (uint64_t)1 << (61 - __builtin_clzll(need - 1));
    want = (need + step - 1) & ~(step - 1);
  }
  want += 4096 + ((uint64_t)2 << 20);
  /* Few chunks: each is a memkind kind, and there are 512 in all. */
  if (n >= MAX_CHUNKS / 2 && want < s->held)
    want = s->held;
  uintptr_t at = hm_range_map_chunk(idx, want, s->held, &size, why, whylen);
  if (!at)
    return -1;
  memkind_t mk;
  if (s->mode != MPOL_DEFAULT &&
      mbind((void *)at, size, s->mode, s->mask, MAX_NODE, 0) != 0) {
    snprintf(why, whylen, "mbind of its memory failed: %s", strerror(errno));
  } else {
    if (strstr(KindNames[s->kind], "HUGETLB"))
      madvise((void *)at, size, MADV_HUGEPAGE); /* THP, not hugetlbfs */
    else if ((s->mode & 0xff) == MPOL_INTERLEAVE)
      /* As memkind's interleave kinds do: 4 KiB pages spread over the
       * nodes, where THP would put a block's 2 MiB pieces on a few. */
      madvise((void *)at, size, MADV_NOHUGEPAGE);
    if (memkind_create_fixed((void *)at, size, &mk) == MEMKIND_SUCCESS) {
      s->chunk[n] = mk;
      s->held += size;
      atomic_store_explicit(&s->nchunks, n + 1, memory_order_release);
      atomic_store_explicit(&s->cur, n, memory_order_release);
      return 0;
    }
    snprintf(why, whylen, "memkind_create_fixed failed");
  }
  hm_range_unmap_chunk(at, size);
  return -1;
}

/* The slot for kind k on this thread's CPU, made on first use (under
 * SlotsLock): memkind's policy for the CPU, shared by every CPU that gets
 * the same policy. */
static int slot_resolve(int k, int cpu) {
  pthread_mutex_lock(&SlotsLock);
  int v = (unsigned)cpu < MAX_CPUS ? atomic_load(&SlotOf[k][cpu]) : 0;
  if (v) {
    pthread_mutex_unlock(&SlotsLock);
    return v - 1;
  }
  int mode = MPOL_DEFAULT, idx = -1;
  unsigned long mask[MASK_WORDS];
  char why[200] = "memkind reports it unavailable on this machine";
  if (hm_policy_now(k, &mode, mask, MAX_NODE, why, sizeof why) == 0) {
    hm_fork_register(); /* memkind's jemalloc has registered its own */
    int n = atomic_load(&NumSlots);
    for (int i = 0; i < n && idx < 0; ++i)
      if (SlotTab[i].kind == k && SlotTab[i].mode == mode &&
          !memcmp(SlotTab[i].mask, mask, sizeof mask))
        idx = i;
    if (idx < 0 && n == MAX_SLOTS) {
      snprintf(why, sizeof why, "all %d kind and node-set slots are in use",
               MAX_SLOTS);
    } else if (idx < 0) {
      struct slot *s = &SlotTab[n];
      s->kind = k;
      s->mode = mode;
      memcpy(s->mask, mask, sizeof mask);
      pthread_mutex_init(&s->lock, NULL);
      /* The first chunk comes with the first block, sized for it. */
      idx = n;
      atomic_store(&NumSlots, n + 1);
    }
  }
  if (idx >= 0) {
    int node = cpu >= 0 ? numa_node_of_cpu(cpu) : -1;
    if (node >= 0 && node < 64)
      atomic_fetch_or(&SlotTab[idx].cpu_nodes, (uint64_t)1 << node);
    atomic_store(&Kinds[k].state, KIND_READY);
  } else if (atomic_load(&Kinds[k].state) != KIND_READY) {
    atomic_store(&Kinds[k].state, KIND_UNAVAILABLE);
    kind_unavailable(k, why);
  } else {
    kind_full(k, why);
  }
  if ((unsigned)cpu < MAX_CPUS)
    atomic_store_explicit(&SlotOf[k][cpu], (int8_t)(idx >= 0 ? idx + 1 : -1),
                          memory_order_release);
  pthread_mutex_unlock(&SlotsLock);
  return idx;
}

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
    int v = atomic_load_explicit(&SlotOf[k][cpu], memory_order_acquire);
    if (__builtin_expect(v > 0, 1))
      return v - 1;
    if (v < 0)
      return -1;
  }
  return slot_resolve(k, cpu);
}

/* Slot of a placed pointer, or -1. Safe on any value: pointers outside the
 * range fail the first compare; inside it, regions that are not ours read 0. */
static inline int owner_of(const void *p) {
  uintptr_t off =
      (uintptr_t)p - atomic_load_explicit(&hm_range_base, memory_order_relaxed);
  if (__builtin_expect(
          off < atomic_load_explicit(&hm_range_span, memory_order_relaxed), 0))
    return (int)atomic_load_explicit(&hm_region_owner[off >> HM_REGION_SHIFT],
                                     memory_order_relaxed) -
           1;
  return -1;
}

int hmplace_owner(const void *p) {
  if (!p)
    return 0;
  int s = owner_of(p);
  return s < 0 ? 0 : SlotTab[s].kind + 1;
}

/* A block of \p n bytes (aligned to \p align unless 0) from slot \p idx:
 * from the current chunk, else from any chunk with room, else a new chunk. */
static inline void *chunk_alloc(memkind_t mk, size_t n, size_t align) {
  void *p = NULL;
  if (!align)
    return memkind_malloc(mk, n);
  return memkind_posix_memalign(mk, &p, align, n) == 0 ? p : NULL;
}

/* For the report's page census: the regions memkind has handed out
 * blocks in (a slot's chunk may span 64 GiB of which little is used). */
static void mark_used(void *p, size_t n) {
  uintptr_t base = atomic_load_explicit(&hm_range_base, memory_order_relaxed);
  uintptr_t first = ((uintptr_t)p - base) >> HM_REGION_SHIFT;
  uintptr_t last = ((uintptr_t)p + (n ? n - 1 : 0) - base) >> HM_REGION_SHIFT;
  for (uintptr_t r = first; r <= last && r < (HM_SPAN >> HM_REGION_SHIFT); ++r)
    if (!atomic_load_explicit(&hm_region_used[r], memory_order_relaxed)) {
      atomic_store_explicit(&hm_region_used[r], 1, memory_order_relaxed);
      uintptr_t top = atomic_load(&hm_region_used_end);
      while (r + 1 > top &&
             !atomic_compare_exchange_weak(&hm_region_used_end, &top, r + 1))
        ;
    }
}

static void *slot_alloc_chunks(int idx, size_t n, size_t align);

static void *slot_alloc(int idx, size_t n, size_t align) {
  void *p = slot_alloc_chunks(idx, n, align);
  if (__builtin_expect(hm_reporting, 0) && p)
    mark_used(p, n);
  return p;
}

static void *slot_alloc_chunks(int idx, size_t n, size_t align) {
  struct slot *s = &SlotTab[idx];
  int c = atomic_load_explicit(&s->cur, memory_order_acquire);
  void *p;
  if (__builtin_expect(
          atomic_load_explicit(&s->nchunks, memory_order_acquire) > 0, 1) &&
      (p = chunk_alloc(s->chunk[c], n, align)))
    return p;
  pthread_mutex_lock(&s->lock);
  int nc = atomic_load(&s->nchunks);
  for (int i = nc - 1; i >= 0; --i)
    if (i != c && (p = chunk_alloc(s->chunk[i], n, align))) {
      atomic_store(&s->cur, i);
      pthread_mutex_unlock(&s->lock);
      return p;
    }
  char why[200];
  p = NULL;
  if (slot_grow(idx, n + align, why, sizeof why) == 0)
    p = chunk_alloc(s->chunk[atomic_load(&s->cur)], n, align);
  else
    kind_full(s->kind, why);
  pthread_mutex_unlock(&s->lock);
  return p;
}

/* Any chunk's handle frees and measures any block of the slot: jemalloc
 * finds the arena from the pointer (fixed kinds have no memkind tcache). */
static inline memkind_t slot_kind(int idx) { return SlotTab[idx].chunk[0]; }

/*--- accounting -------------------------------------------------------------*/

/* Add \p usable live bytes and raise the peak if they set a new one. */
static void add_live(struct kstate *s, size_t usable) {
  uint64_t live =
      atomic_fetch_add_explicit(&s->live, usable, memory_order_relaxed) +
      usable;
  uint64_t peak = atomic_load_explicit(&s->peak, memory_order_relaxed);
  while (live > peak &&
         !atomic_compare_exchange_weak_explicit(
             &s->peak, &peak, live, memory_order_relaxed, memory_order_relaxed))
    ;
}

/* Allocations and requested bytes are counted per thread, without a locked
 * instruction (a load and a store of the thread's own counter): two locked
 * adds per placed allocation cost more than the per-thread cache saves on
 * some machines (AMD EPYC VMs: 1.07-1.48x a direct memkind malloc+free).
 * hmplace_get_stats adds the threads' counts up; a thread's counts go to
 * the kind's shared counters when it exits, and its block is reused. Live
 * bytes stay shared: budgets and the peak need them at once. */
struct tcount {
  _Atomic uint64_t allocs[HMPLACE_KIND_COUNT], bytes[HMPLACE_KIND_COUNT];
  struct tcount *next;
  int in_use;
};
static __thread struct tcount *TCount __attribute__((tls_model("initial-exec")));
static struct tcount *CountList; /* under CountLock */
static pthread_mutex_t CountLock = PTHREAD_MUTEX_INITIALIZER;
static pthread_key_t CountKey;
static pthread_once_t CountKeyOnce = PTHREAD_ONCE_INIT;

void hm_counts_fork_lock(int take) {
  if (take)
    pthread_mutex_lock(&CountLock);
  else
    pthread_mutex_unlock(&CountLock);
}

static void release_counts(void *c) {
  struct tcount *t = c;
  pthread_mutex_lock(&CountLock);
  for (int k = 0; k < HMPLACE_KIND_COUNT; ++k) {
    atomic_fetch_add(&Kinds[k].allocs, atomic_load(&t->allocs[k]));
    atomic_fetch_add(&Kinds[k].bytes, atomic_load(&t->bytes[k]));
    atomic_store(&t->allocs[k], 0);
    atomic_store(&t->bytes[k], 0);
  }
  t->in_use = 0;
  pthread_mutex_unlock(&CountLock);
  TCount = NULL;
}

static void make_count_key(void) {
  pthread_key_create(&CountKey, release_counts);
}

static struct tcount *new_counts(void) {
  pthread_once(&CountKeyOnce, make_count_key);
  pthread_mutex_lock(&CountLock);
  struct tcount *t = CountList;
  while (t && t->in_use)
    t = t->next;
  if (!t && (t = calloc(1, sizeof *t))) {
    t->next = CountList;
    CountList = t;
  }
  if (t)
    t->in_use = 1;
  pthread_mutex_unlock(&CountLock);
  if (t)
    pthread_setspecific(CountKey, t);
  return TCount = t;
}

static inline void count_alloc(struct kstate *s, size_t req) {
  struct tcount *t = TCount;
  if (__builtin_expect(!t, 0) && !(t = new_counts())) {
    atomic_fetch_add_explicit(&s->allocs, 1, memory_order_relaxed);
    atomic_fetch_add_explicit(&s->bytes, req, memory_order_relaxed);
    return;
  }
  size_t k = (size_t)(s - Kinds);
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
static void account_alloc(struct kstate *s, size_t req, size_t usable,
                          size_t held) {
  count_alloc(s, req);
  if (usable >= held)
    add_live(s, usable - held);
  else
    atomic_fetch_sub_explicit(&s->live, held - usable, memory_order_relaxed);
}

static inline void account_free(struct kstate *s, size_t usable) {
  atomic_fetch_sub_explicit(&s->live, usable, memory_order_relaxed);
}

/* The usable size memkind's jemalloc gives a request of n bytes: its size
 * class (16-byte steps to 128, then four classes per doubling). */
static size_t usable_for(size_t n) {
  if (n <= 128)
    return n ? (n + 15) & ~(size_t)15 : 16;
  unsigned lg = 63 - (unsigned)__builtin_clzll(n - 1); /* 2^lg < n */
  size_t delta = (size_t)1 << (lg - 2);
  return (n + delta - 1) & ~(delta - 1);
}

/* Take \p u bytes of kind \p s's budget \p b (counted live) if they fit. */
static int reserve(struct kstate *s, uint64_t b, size_t u) {
  uint64_t cur = atomic_load_explicit(&s->live, memory_order_relaxed);
  do
    if (cur + u > b)
      return 0;
  while (!atomic_compare_exchange_weak_explicit(
      &s->live, &cur, cur + u, memory_order_relaxed, memory_order_relaxed));
  return 1;
}

static void warn_budget(struct kstate *s, int k) {
  if (!atomic_exchange(&s->warned_budget, 1))
    hm_warn("%s budget exhausted; further planned allocations that do not "
            "fit use the ordinary heap",
            KindNames[k]);
}

/* Whether a placed request of n bytes may go to kind k now; counts and warns
 * when it may not. The bytes it will use are taken from the budget here, in
 * one compare-and-swap on the kind's live bytes, so that threads racing for
 * the last bytes of a budget cannot all pass a check and then overshoot
 * together; *held says how many (the caller settles the difference with the
 * block's real usable size, or gives them back if no block comes). */
static int may_place(enum hmplace_kind k, size_t n, size_t *held) {
  struct kstate *s = &Kinds[k];
  *held = 0;
  if (atomic_load_explicit(&Off, memory_order_relaxed)) {
    atomic_fetch_add_explicit(&s->fallbacks, 1, memory_order_relaxed);
    static _Atomic int warned;
    if (hm_sanitizer() && !atomic_exchange(&warned, 1))
      hm_warn("placement is off: the program runs under %s, whose free "
              "cannot release memkind's blocks; planned allocations use "
              "the ordinary heap",
              hm_sanitizer());
    return 0;
  }
  uint64_t b = atomic_load_explicit(&s->budget, memory_order_relaxed);
  if (!b)
    return 1;
  size_t u = usable_for(n);
  if (!reserve(s, b, u)) {
    atomic_fetch_add_explicit(&s->fallbacks, 1, memory_order_relaxed);
    warn_budget(s, k);
    return 0;
  }
  *held = u;
  return 1;
}

/* The kind could not serve a request it was allowed to take (unavailable on
 * this CPU, or full: warned where that was found). */
static void placed_failed(int k) {
  atomic_fetch_add_explicit(&Kinds[k].fallbacks, 1, memory_order_relaxed);
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

/* Per slot, so a cache hands out blocks of its thread's node only. */
static __thread struct kcache *TCache[MAX_SLOTS]
    __attribute__((tls_model("initial-exec")));
/* Slots this thread allocated from, for the report's thread counts. */
static __thread uint64_t UsedSlots __attribute__((tls_model("initial-exec")));
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

void hm_orphans_fork_lock(int take) {
  if (take)
    pthread_mutex_lock(&OrphanLock);
  else
    pthread_mutex_unlock(&OrphanLock);
}

/* SlotsLock, then every slot's lock: slots are only added under SlotsLock,
 * so the set cannot change in between. */
void hm_slots_fork_lock(int take) {
  if (take) {
    pthread_mutex_lock(&SlotsLock);
    for (int i = 0; i < atomic_load(&NumSlots); ++i)
      pthread_mutex_lock(&SlotTab[i].lock);
  } else {
    for (int i = atomic_load(&NumSlots) - 1; i >= 0; --i)
      pthread_mutex_unlock(&SlotTab[i].lock);
    pthread_mutex_unlock(&SlotsLock);
  }
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

static void note_thread(int idx) {
  uint64_t bit = (uint64_t)1 << idx;
  if (__builtin_expect(!(UsedSlots & bit), 0)) {
    UsedSlots |= bit;
    atomic_fetch_add_explicit(&SlotTab[idx].threads, 1, memory_order_relaxed);
  }
}

static void *placed_malloc(int k, int idx, size_t n, size_t held) {
  struct kstate *s = &Kinds[k];
  void *p;
  size_t u;
  if (n <= MAX_CACHED) {
    unsigned cls = class_for_request(n);
    u = class_size(cls);
    struct kcache *c = cache_for(idx);
    if (c && c->count[cls]) {
      p = c->slot[cls][--c->count[cls]];
      c->bytes -= u;
    } else if (!(p = slot_alloc(idx, u, 0)))
      return NULL;
  } else {
    if (!(p = slot_alloc(idx, n, 0)))
      return NULL;
    u = memkind_malloc_usable_size(slot_kind(idx), p);
  }
  note_thread(idx);
  account_alloc(s, n, u, held);
  hm_track_alloc(p, u);
  return p;
}

static void *placed_aligned(int k, int idx, size_t align, size_t n,
                            size_t held) {
  struct kstate *s = &Kinds[k];
  void *p = slot_alloc(idx, n, align);
  if (!p)
    return NULL;
  size_t u = memkind_malloc_usable_size(slot_kind(idx), p);
  note_thread(idx);
  account_alloc(s, n, u, held);
  hm_track_alloc(p, u);
  return p;
}

static void placed_free(int idx, void *p) {
  struct kstate *s = &Kinds[SlotTab[idx].kind];
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

static inline int valid_kind(enum hmplace_kind k) {
  return (unsigned)k < HMPLACE_KIND_COUNT;
}

/*--- entry points for planned sites ---------------------------------------*/

/* A block of \p req bytes (aligned to \p align unless 0) from kind \p k, or
 * NULL when the kind may not or cannot serve it: counted, and the caller
 * falls back to the ordinary heap with C's own call. */
static void *try_place(enum hmplace_kind k, size_t align, size_t req) {
  hm_ctx_account(req);
  size_t held;
  if (!valid_kind(k) || !may_place(k, req, &held))
    return NULL;
  int idx = slot_for(k);
  void *p = NULL;
  if (idx >= 0)
    p = align ? placed_aligned(k, idx, align, req, held)
              : placed_malloc(k, idx, req, held);
  if (!p) {
    atomic_fetch_sub_explicit(&Kinds[k].live, held, memory_order_relaxed);
    placed_failed(k);
  }
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
  int idx = owner_of(p);
  if (idx < 0)
    return heap_usable(p);
  return memkind_malloc_usable_size(slot_kind(idx), p);
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
  int k = SlotTab[idx].kind;
  struct kstate *s = &Kinds[k];
  size_t old = memkind_malloc_usable_size(slot_kind(idx), p);
  /* Growth is taken from the budget first, as in may_place. */
  uint64_t b = atomic_load_explicit(&s->budget, memory_order_relaxed);
  size_t want = usable_for(n);
  size_t grow = want > old ? want - old : 0, held = 0;
  int off = atomic_load_explicit(&Off, memory_order_relaxed);
  int fits = !off && (!b || !grow || reserve(s, b, grow));
  if (fits && b)
    held = grow;
  if (fits) {
    hm_track_forget(p);
    /* In place, or moved within the slot's current chunk. */
    struct slot *sl = &SlotTab[idx];
    void *q = memkind_realloc(sl->chunk[atomic_load(&sl->cur)], p, n);
    if (q) {
      size_t u = memkind_malloc_usable_size(slot_kind(idx), q);
      account_free(s, old + held);
      add_live(s, u);
      hm_track_alloc(q, u);
      return q;
    }
    hm_track_alloc(p, old); /* still ours, unchanged */
    /* That chunk is full: another chunk of the slot, or a new one. The old
     * block stays until the copy is made, so the budget must hold both. */
    if (!b || reserve(s, b, want - held)) {
      held = b ? want : 0;
      if ((q = slot_alloc(idx, n, 0))) {
        size_t u = memkind_malloc_usable_size(slot_kind(idx), q);
        memcpy(q, p, old < n ? old : n);
        account_free(s, held);
        add_live(s, u);
        hm_track_alloc(q, u);
        placed_free(idx, p);
        return q;
      }
      placed_failed(k);
    } else {
      atomic_fetch_add_explicit(&s->fallbacks, 1, memory_order_relaxed);
      warn_budget(s, k);
    }
    account_free(s, held);
  } else {
    atomic_fetch_add_explicit(&s->fallbacks, 1, memory_order_relaxed);
    if (!off)
      warn_budget(s, k);
  }
  /* Over budget or full: the block leaves the kind for the ordinary heap. */
  return move_block(p, old, n, malloc(n));
}

void *hmplace_realloc(void *p, size_t n) {
  int idx = owner_of(p);
  if (idx < 0)
    return heap_realloc(p, n);
  if (n == 0) { /* glibc: free and return NULL */
    placed_free(idx, p);
    return NULL;
  }
  return placed_realloc(idx, p, n);
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
  if (owner >= 0 && SlotTab[owner].kind == (int)k)
    return placed_realloc(owner, p, n);
  /* From the heap or another kind: move it into k. */
  size_t old = owner < 0 ? heap_usable(p)
                         : memkind_malloc_usable_size(slot_kind(owner), p);
  return move_block(p, old, n, hmplace_malloc(k, n));
}

/*--- budgets, stats, start-up ---------------------------------------------*/

int hm_slot_info(int i, int *kind, char *policy, size_t n, uint64_t *threads,
                 uint64_t *cpu_nodes) {
  if (i < 0 || i >= atomic_load(&NumSlots))
    return -1;
  struct slot *s = &SlotTab[i];
  *kind = s->kind;
  *threads = atomic_load(&s->threads);
  *cpu_nodes = atomic_load(&s->cpu_nodes);
  int m = s->mode & 0xff; /* without the MPOL_F_* mode flags */
  const char *name = m == MPOL_BIND         ? "bind"
                     : m == MPOL_PREFERRED  ? "preferred"
                     : m == MPOL_INTERLEAVE ? "interleave"
                     : m == MPOL_DEFAULT    ? "first touch"
                                            : "policy";
  int len = snprintf(policy, n, "%s", name);
  int sep = ' ';
  for (int node = 0; node < MAX_NODE && len > 0 && (size_t)len < n; ++node)
    if (s->mask[node / (8 * sizeof(unsigned long))] >>
            (node % (8 * sizeof(unsigned long))) &
        1) {
      len += snprintf(policy + len, n - (size_t)len, "%c%d", sep, node);
      sep = ',';
    }
  return 0;
}

void hmplace_set_budget(enum hmplace_kind k, uint64_t bytes) {
  if (valid_kind(k) && !hm_budget_from_env(k))
    atomic_store(&Kinds[k].budget, bytes);
}

void hmplace_get_stats(enum hmplace_kind k, struct hmplace_stats *o) {
  memset(o, 0, sizeof(*o));
  if (!valid_kind(k))
    return;
  struct kstate *s = &Kinds[k];
  o->allocs = atomic_load(&s->allocs);
  o->bytes = atomic_load(&s->bytes);
  pthread_mutex_lock(&CountLock);
  for (struct tcount *t = CountList; t; t = t->next) {
    o->allocs += atomic_load_explicit(&t->allocs[k], memory_order_relaxed);
    o->bytes += atomic_load_explicit(&t->bytes[k], memory_order_relaxed);
  }
  pthread_mutex_unlock(&CountLock);
  o->live = atomic_load(&s->live);
  o->peak = atomic_load(&s->peak);
  o->fallbacks = atomic_load(&s->fallbacks);
  int st = atomic_load(&s->state);
  o->available = st == KIND_READY ? 1 : st == KIND_UNAVAILABLE ? -1 : 0;
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

uint64_t hm_load_budget(int k) { return atomic_load(&Kinds[k].budget); }

void hm_store_budget(int k, uint64_t bytes) {
  atomic_store(&Kinds[k].budget, bytes);
}

__attribute__((constructor)) static void hmplace_init(void) {
  /* Locks are statically initialised: placed allocations from earlier
   * constructors are fine. */
  const char *off = getenv("HMPLACE");
  if (off && (!strcmp(off, "off") || !strcmp(off, "0")))
    atomic_store(&Off, 1);
#if HMPLACE_INTERPOSE
  resolve_next();
  /* Placed blocks freed through the sanitizer's free would be "bad frees":
   * the program runs with every planned allocation on its heap. */
  if (Sanitizer)
    atomic_store(&Off, 1);
#endif
  hm_job_init();
  hm_read_budget_env();
  hm_report_init();
  hm_teardown_init();
  /* memkind's jemalloc registers its fork handlers when it starts: start it
   * now, so that ours come after and run before its own at fork (fork.c). */
  memkind_free(MEMKIND_DEFAULT, memkind_malloc(MEMKIND_DEFAULT, 16));
  hm_fork_register();
}
