/*===- misses.c - the misses each allocation context makes in a cache -----===*
 *
 * MemProf counts every access, cached or not: that cannot tell an array
 * streamed again and again from one whose reads stay in a small window.
 * HmPlace.so (profile mode, tool/pass/MissIR.cpp) makes each load and store
 * of the program check whether its 128-byte unit is in a sample of about
 * one in 128 (a hash of the address, reuse.h), and call here when it is.
 * This keeps the reuse distances of the sampled lines (reuse.c) and, per
 * allocation context, a histogram of them: the misses an LRU cache of any
 * size would take, and which of them stream (the unit's other line touched
 * just before) or are writes. At exit it writes the histograms beside the
 * raw MemProf profile, as `<profile>.misses`, which `hmplan advise` reads
 * with it (tool/hmplan/Misses.h has the format).
 *
 * The allocation context is MemProf's own: its allocator keeps, in a 32-byte
 * header before each block, the id of the block's call stack, which is the
 * id of the context's record in the raw profile (compiler-rt
 * memprof_allocator.cpp, LLVM 19 and 22). A sampled line's owner is asked
 * of the allocator (__sanitizer_get_allocated_begin) at its first sampled
 * access, and forgotten when the allocator's free hook says the block is
 * freed (sanitizer/allocator_interface.h): allocating a block costs
 * nothing here. The header's requested size is checked against the
 * allocator's: where they differ the layout is not the one known here,
 * nothing is attributed to contexts, and the file says so.
 *
 * Lines no live block owns (the stack, globals, freed blocks) are counted
 * as context 0: they take cache space too.
 *
 * Built without instrumentation (its own accesses are not the program's)
 * and without debug info, as profile.c.
 *===----------------------------------------------------------------------===*/
#define _GNU_SOURCE
#include "reuse.h"

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <sanitizer/allocator_interface.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

const char *__sanitizer_get_report_path(void);

/* The histogram's buckets of reuse distance, in lines: [0, HM_NEAR) (a
 * hit in any last-level cache), then HM_PER_OCTAVE per doubling up to
 * 2^HM_TOP_LG lines (64 GiB), then one for deeper and first accesses. */
enum {
  HM_NEAR_LG = 10,
  HM_PER_OCTAVE = 8,
  HM_TOP_LG = 30,
  HM_BUCKETS = 2 + HM_PER_OCTAVE * (HM_TOP_LG - HM_NEAR_LG),
};

enum { HM_ALL, HM_STREAM, HM_WRITE, HM_SERIES };

/* Contexts with a histogram; the rest count together, and the file says
 * how many there were. */
enum { HM_CONTEXTS = 16384, HM_IDS = 2 * HM_CONTEXTS };

struct histogram {
  uint64_t count[HM_SERIES][HM_BUCKETS];
};

static pthread_mutex_t Lock = PTHREAD_MUTEX_INITIALIZER;
static __thread int Inside __attribute__((tls_model("initial-exec")));
static int Ready, Failed, LayoutBad;
static struct hm_reuse R;
static struct histogram *Hist; /* slot 0: no context; 1..: contexts */
static uint32_t *SlotId;       /* slot -> MemProf context id */
static struct {
  uint32_t id, slot;
} *Ids; /* id -> slot, open addressing */
static uint32_t Slots = 1;
static uint64_t Unslotted, Samples;

static unsigned bucket(uint64_t d) {
  if (d == UINT64_MAX || d >> HM_TOP_LG)
    return HM_BUCKETS - 1;
  if (d < (UINT64_C(1) << HM_NEAR_LG))
    return 0;
  unsigned e = 63 - (unsigned)__builtin_clzll(d);
  unsigned sub = (unsigned)(d >> (e - 3)) & 7;
  return 1 + HM_PER_OCTAVE * (e - HM_NEAR_LG) + sub;
}

static void write_file(void);

/* Defined by every module HmPlace.so samples (tool/pass/MissIR.cpp), to
 * the rate it samples at (one unit in 2^rate): a program of none
 * (HMPLACE_MISSES=0) made only the copies' samples, which are no measure
 * of its misses. */
extern const unsigned char __hmplace_misses_sampled __attribute__((weak));

static unsigned rate(void) {
  return &__hmplace_misses_sampled && __hmplace_misses_sampled <= 16
             ? __hmplace_misses_sampled
             : HM_RATE_SHIFT;
}

/* The tables, on the first sample or block (under Lock). */
static int ready(void) {
  if (Ready)
    return 1;
  if (Failed)
    return 0;
  unsigned lg = 19;
  const char *v = getenv("HMPLACE_MISS_TABLE");
  if (v && atoi(v) >= 12 && atoi(v) <= 28)
    lg = (unsigned)atoi(v);
  size_t hb = (size_t)HM_CONTEXTS * sizeof *Hist;
  Hist = mmap(0, hb, PROT_READ | PROT_WRITE,
              MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
  size_t ib = HM_IDS * sizeof *Ids + HM_CONTEXTS * sizeof *SlotId;
  void *ids = mmap(0, ib, PROT_READ | PROT_WRITE,
                   MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
  /* The deepest distance kept: 4 GiB of lines (larger caches are not). */
  if (Hist == MAP_FAILED || ids == MAP_FAILED ||
      hm_reuse_init(&R, lg, UINT64_C(1) << 26, rate())) {
    Failed = 1;
    return 0;
  }
  Ids = ids;
  SlotId = (uint32_t *)((char *)ids + HM_IDS * sizeof *Ids);
  Ready = 1;
  atexit(write_file);
  return 1;
}

static uint32_t slot_of(uint32_t id) {
  if (!id)
    return 0;
  for (uint32_t i = (id * 2654435761u) & (HM_IDS - 1);;
       i = (i + 1) & (HM_IDS - 1)) {
    if (Ids[i].id == id)
      return Ids[i].slot;
    if (!Ids[i].id) {
      if (Slots == HM_CONTEXTS) {
        ++Unslotted;
        return 0;
      }
      Ids[i].id = id;
      Ids[i].slot = Slots;
      SlotId[Slots] = id;
      return Slots++;
    }
  }
}

/* Recently resolved large blocks: MemProf's allocator finds a large block
 * by scanning every one under a lock, and a sweep over an array resolves
 * each of its sampled lines in turn. */
enum { HM_BLOCKS = 64 };
static struct {
  uint64_t lo, hi;
  uint32_t slot;
} Blocks[HM_BLOCKS];
static unsigned NextBlock;

static void forget_blocks(uint64_t lo, uint64_t hi) {
  for (unsigned i = 0; i < HM_BLOCKS; ++i)
    if (Blocks[i].lo < hi && Blocks[i].hi > lo)
      Blocks[i].lo = Blocks[i].hi = 0;
}

/* Who owns \p addr (reuse.h's resolver): the block MemProf's allocator has
 * there, and its context from the block's header: {u32 context, u32 cpu,
 * u32 time, u32 memalign, u64 size, u64 type} before the block. */
static uint32_t resolve(uint64_t addr, uint64_t *lo, uint64_t *hi) {
  for (unsigned i = 0; i < HM_BLOCKS; ++i)
    if (Blocks[i].lo <= addr && addr < Blocks[i].hi) {
      *lo = Blocks[i].lo;
      *hi = Blocks[i].hi;
      return Blocks[i].slot;
    }
  const char *b = __sanitizer_get_allocated_begin((const void *)addr);
  if (!b)
    return 0;
  const volatile uint64_t *h = (const volatile uint64_t *)(b - 32);
  uint64_t n = __sanitizer_get_allocated_size(b);
  if (h[2] != n) {
    LayoutBad = 1;
    return 0;
  }
  *lo = (uint64_t)b;
  *hi = (uint64_t)b + n > addr ? (uint64_t)b + n : (addr | 15) + 1;
  uint32_t slot = slot_of((uint32_t)h[0]);
  if (n >= (64 << 10)) {
    unsigned i = NextBlock++ % HM_BLOCKS;
    Blocks[i].lo = *lo;
    Blocks[i].hi = *hi;
    Blocks[i].slot = slot;
  }
  return slot;
}

static void record(const struct hm_reuse_hit *hit, int write) {
  struct histogram *h = &Hist[hit->owner];
  unsigned b = bucket(hit->distance);
  uint64_t w = hm_reuse_weight(&R);
  h->count[HM_ALL][b] += w;
  if (hit->stream)
    h->count[HM_STREAM][b] += w;
  if (write)
    h->count[HM_WRITE][b] += w;
  Samples += w;
}

static int enter(void) {
  if (Inside)
    return 0; /* a signal handler, or this file's own work */
  Inside = 1;
  pthread_mutex_lock(&Lock);
  if (ready())
    return 1;
  pthread_mutex_unlock(&Lock);
  Inside = 0;
  return 0;
}

static void leave(void) {
  pthread_mutex_unlock(&Lock);
  Inside = 0;
}

/* The threshold now (read without the lock: it only falls). */
static uint64_t threshold(void) {
  return Ready ? __atomic_load_n(&R.threshold, __ATOMIC_RELAXED)
               : UINT64_C(1) << (32 - rate());
}

static int any_sampled(uint64_t lo, uint64_t hi) {
  return hm_reuse_any_under(threshold(), lo, hi);
}

/* What a thread keeps between its samples: the line it touched last, the
 * stamp that access got and its owner, so that the next touches of the
 * same line while few other sampled lines are touched (the rest of the
 * line's elements) count without the lock, as the near hits they are:
 * their distance is under (stamps since) x weight lines, below the first
 * bucket's edge. Those counts wait in the thread's record until its next
 * sample under the lock, or the end (write_file adds every record's). */
struct recent {
  uint64_t line, weight;
  uint32_t clock, epoch, owner;
  uint64_t near, near_writes;
};

enum { HM_RECENT = 4096 };
static struct recent Recents[HM_RECENT];
static uint32_t RecentsUsed;
static __thread struct recent *Recent
    __attribute__((tls_model("initial-exec")));

static struct recent *recent(void) {
  if (!Recent) {
    uint32_t i = __atomic_fetch_add(&RecentsUsed, 1, __ATOMIC_RELAXED);
    if (i >= HM_RECENT)
      return 0; /* every sample of this thread takes the lock */
    Recent = &Recents[i];
  }
  return Recent;
}

/* The near hits \p t counted without the lock, into the histograms (under
 * Lock). */
static void settle(struct recent *t) {
  if (!t || !t->near)
    return;
  Hist[t->owner].count[HM_ALL][0] += t->near;
  Hist[t->owner].count[HM_WRITE][0] += t->near_writes;
  Samples += t->near;
  t->near = t->near_writes = 0;
}

static int near_again(const struct recent *t, uint64_t line) {
  return t && t->line == line &&
         t->epoch == __atomic_load_n(&R.epoch, __ATOMIC_RELAXED) &&
         (uint64_t)(__atomic_load_n(&R.clock, __ATOMIC_RELAXED) - t->clock) *
                 t->weight <
             (UINT64_C(1) << HM_NEAR_LG);
}

/* An access, and \p more near hits on the same line that it stands for
 * (HmPlace.so checks one of several accesses a line apart). */
static void access_one(uint64_t addr, int write, uint64_t more,
                       struct recent *t) {
  if (!hm_reuse_sampled(&R, addr)) {
    if (t)
      t->line = 0;
    return; /* the rate fell since the check */
  }
  struct hm_reuse_hit hit;
  hm_reuse_access(&R, addr, resolve, &hit);
  record(&hit, write);
  Hist[hit.owner].count[HM_ALL][0] += more * hm_reuse_weight(&R);
  Samples += more * hm_reuse_weight(&R);
  if (t) {
    t->line = addr >> HM_LINE_SHIFT;
    t->weight = hm_reuse_weight(&R);
    t->clock = R.clock;
    t->epoch = R.epoch;
    t->owner = hit.owner;
  }
}

/* Called by HmPlace.so's check when \p addr's unit hashed under its
 * threshold (2^(32 - rate)); bit 0 of \p flags: a write; bits 1..8: how many
 * other accesses the check stands for. */
__attribute__((preserve_most)) void __hmplace_miss_v1(uint64_t addr,
                                                      uint64_t flags) {
  if (hm_reuse_hash(addr >> HM_UNIT_SHIFT) >= threshold())
    return;
  struct recent *t = recent();
  uint64_t more = (flags >> 1) & 0xff;
  if (near_again(t, addr >> HM_LINE_SHIFT)) {
    t->near += t->weight * (1 + more);
    t->near_writes += (flags & 1) ? t->weight : 0;
    return;
  }
  if (Ready)
    hm_reuse_prefetch(&R, addr);
  if (!enter())
    return;
  settle(t);
  access_one(addr, flags & 1, more, t);
  leave();
}

/* memset, memcpy, memmove: each line of [addr, addr + len) once. HmPlace.so
 * calls it before each of an instrumented module (which MemProf turns into
 * calls of its own runtime); the wrappers below see those of code that is
 * not instrumented. */
void __hmplace_miss_range_v1(uint64_t addr, uint64_t len, uint64_t flags) {
  if (!len || !any_sampled(addr, addr + len))
    return;
  if (!enter())
    return;
  struct recent *t = recent();
  settle(t);
  uint64_t end = addr + len;
  for (uint64_t a = addr; a < end;
       a = ((a >> HM_LINE_SHIFT) + 1) << HM_LINE_SHIFT)
    access_one(a, flags & 1, 0, t);
  leave();
}

/* A block freed: the lines it held belong to nobody until asked again.
 * A large block made: lines of its range may be known as no block's (a
 * thread's stack was mapped there before). */
static void forget(uint64_t lo, uint64_t hi) {
  if (Inside || !Ready || (hi - lo < (64 << 10) && !any_sampled(lo, hi)))
    return;
  if (!enter())
    return;
  hm_reuse_forget(&R, lo, hi);
  forget_blocks(lo, hi);
  leave();
}

/* The calls of memcpy, memmove and memset that the profiled program
 * links (hmcc wraps them, -Wl,--wrap): those of the libraries it links
 * statically (flang's runtime copies the arrays of PACK, array assignments,
 * temporaries), whose loads and stores are not sampled. The real ones are
 * MemProf's interceptors, which count the same accesses. */
void *__real_memcpy(void *, const void *, size_t);
void *__real_memmove(void *, const void *, size_t);
void *__real_memset(void *, int, size_t);

void *__wrap_memcpy(void *to, const void *from, size_t n) {
  __hmplace_miss_range_v1((uint64_t)from, n, 0);
  __hmplace_miss_range_v1((uint64_t)to, n, 1);
  return __real_memcpy(to, from, n);
}

void *__wrap_memmove(void *to, const void *from, size_t n) {
  __hmplace_miss_range_v1((uint64_t)from, n, 0);
  __hmplace_miss_range_v1((uint64_t)to, n, 1);
  return __real_memmove(to, from, n);
}

void *__wrap_memset(void *to, int c, size_t n) {
  __hmplace_miss_range_v1((uint64_t)to, n, 1);
  return __real_memset(to, c, n);
}

static void on_malloc(const volatile void *p, size_t n) {
  if (n >= (128 << 10) - 32)
    forget((uint64_t)p, (uint64_t)p + n);
}

static void on_free(const volatile void *p) {
  if (Ready && p)
    forget((uint64_t)p,
           (uint64_t)p + __sanitizer_get_allocated_size_fast((const void *)p));
}

static void install(void) {
  static int done;
  if (!done++)
    __sanitizer_install_malloc_and_free_hooks(on_malloc, on_free);
}

/* Before any constructor allocates; the constructor stands in where the
 * library is not linked into an executable. */
__attribute__((section(".preinit_array"),
               used)) static void (*Preinit)(void) = install;
__attribute__((constructor)) static void construct(void) { install(); }

/* ---- the file ---- */

struct out {
  int fd, bad;
  size_t n;
  char buf[8192];
};

static void flush(struct out *o) {
  for (size_t off = 0; off < o->n && !o->bad;) {
    ssize_t w = write(o->fd, o->buf + off, o->n - off);
    if (w < 0 && errno == EINTR)
      continue;
    if (w <= 0)
      o->bad = 1;
    else
      off += (size_t)w;
  }
  o->n = 0;
}

__attribute__((format(printf, 2, 3))) static void put(struct out *o,
                                                      const char *fmt, ...) {
  if (o->n > sizeof o->buf - 256)
    flush(o);
  va_list ap;
  va_start(ap, fmt);
  int k = vsnprintf(o->buf + o->n, sizeof o->buf - o->n, fmt, ap);
  va_end(ap);
  if (k > 0)
    o->n += (size_t)k < sizeof o->buf - o->n ? (size_t)k : 0;
}

static void put_series(struct out *o, uint32_t slot, int s, const char *name) {
  const uint64_t *c = Hist[slot].count[s];
  int any = 0;
  for (unsigned b = 0; b < HM_BUCKETS; ++b)
    any |= c[b] != 0;
  if (!any)
    return;
  put(o, "ctx %u %s", slot ? SlotId[slot] : 0, name);
  for (unsigned b = 0; b < HM_BUCKETS; ++b)
    if (c[b])
      put(o, " %u:%llu", b, (unsigned long long)c[b]);
  put(o, "\n");
}

static void say(const char *what) {
  char m[512];
  int k = snprintf(m, sizeof m, "hmplace: misses not written: %s\n", what);
  if (k > 0 && write(2, m, (size_t)k) < 0)
    m[0] = 0;
}

static void write_file(void) {
  if (!&__hmplace_misses_sampled)
    return;
  Inside = 1;
  pthread_mutex_lock(&Lock);
  const char *prof = __sanitizer_get_report_path();
  char path[4096], tmp[4200];
  if (!prof || !*prof || !strcmp(prof, "stderr") || !strcmp(prof, "stdout")) {
    say("the MemProf profile goes to no file (set "
        "MEMPROF_OPTIONS=log_path=PATH)");
    pthread_mutex_unlock(&Lock);
    return;
  }
  snprintf(path, sizeof path, "%s.misses", prof);
  snprintf(tmp, sizeof tmp, "%s.tmp", path);
  uint32_t used = __atomic_load_n(&RecentsUsed, __ATOMIC_RELAXED);
  for (uint32_t i = 0; i < used && i < HM_RECENT; ++i)
    settle(&Recents[i]);
  struct out o = {
      .fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644)};
  if (o.fd < 0) {
    say(path);
    pthread_mutex_unlock(&Lock);
    return;
  }
  const char *slash = strrchr(prof, '/');
  put(&o, "hmplace-misses 1\n");
  put(&o, "profile %s\n", slash ? slash + 1 : prof);
  put(&o, "pid %ld\n", (long)getpid());
  put(&o, "line %d\n", 1 << HM_LINE_SHIFT);
  put(&o, "sample 1/%llu\n", (unsigned long long)hm_reuse_weight(&R));
  put(&o, "buckets %d %d %d\n", 1 << HM_NEAR_LG, HM_PER_OCTAVE, HM_BUCKETS - 2);
  put(&o, "accesses %llu\n", (unsigned long long)Samples);
  put(&o, "contexts %u %llu\n", Slots - 1, (unsigned long long)Unslotted);
  put(&o, "layout %s\n", LayoutBad ? "unknown" : "memprof");
  static const char *const Names[HM_SERIES] = {"all", "stream", "write"};
  for (uint32_t s = 0; s < Slots; ++s)
    for (int k = 0; k < HM_SERIES; ++k)
      put_series(&o, s, k, Names[k]);
  put(&o, "end\n");
  flush(&o);
  if (close(o.fd) || o.bad || rename(tmp, path)) {
    unlink(tmp);
    say(path);
  }
  pthread_mutex_unlock(&Lock);
}
