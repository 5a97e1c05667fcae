/*===- reuse.h - sampled reuse distances of cache lines (SHARDS) ----------===*
 *
 * How many misses a program's accesses make in a last-level cache of any
 * size, from a sample of its cache lines: an access to a line misses an LRU
 * cache of C lines when C or more distinct other lines were touched since
 * that line's last access (its reuse distance), so one histogram of reuse
 * distances gives the misses at every size. Counting them exactly needs
 * every line; SHARDS (Waldspurger et al., FAST'15) keeps only the lines
 * whose address hashes under a threshold (a rate R of them): the distinct
 * sampled lines since an access, divided by R, estimate its distance, and
 * each sampled access stands for 1/R accesses. The sample here is of
 * 128-byte units (two lines, the pair a spatial prefetcher fetches): an
 * access whose unit's other line was touched just before is taken as part
 * of a stream (sequential lines), one whose other line was not, as
 * scattered.
 *
 * Memory is bounded: the table starts small and doubles as lines come, up
 * to its most; when that fills, lines whose last access is deeper than the
 * deepest cache of interest are dropped (their next access counts as a miss
 * at every size, as it would be), and if that is not enough the threshold
 * halves (SHARDS's fixed-size variant): the lines hashing above the new
 * threshold leave and every later access weighs twice as much.
 *
 * The table holds units (a line and its pair: one lookup finds both). Each
 * records, per 16 bytes, the allocation context that owns them (a small
 * number, 0 for none), asked of the caller's resolver at the first access
 * that needs it and forgotten when the block is freed: only units the
 * program touches are held, and allocating a block writes nothing here.
 *
 * Not thread-safe: the caller (misses.c) serialises every call. Plain C,
 * no dependency beyond mmap: test/unit/ReuseTest.cpp checks it against an
 * exact LRU stack.
 *===----------------------------------------------------------------------===*/
#ifndef HMPLACE_REUSE_H
#define HMPLACE_REUSE_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

enum {
  HM_LINE_SHIFT = 6, /* 64-byte cache lines */
  HM_UNIT_SHIFT = 7, /* the sample's unit: two lines */
  /* One unit in 2^HM_RATE_SHIFT is sampled at first, unless the build
   * says otherwise (HMPLACE_MISS_RATE, tool/pass/MissIR.cpp). */
  HM_RATE_SHIFT = 7,
};

/* The hash of a unit (address >> HM_UNIT_SHIFT): its low 32 bits times
 * 2^32 / golden ratio (Fibonacci hashing). HmPlace.so emits it inline
 * before each access (tool/pass/MissIR.cpp): a shift, a multiplication by
 * a constant that fits in the instruction and a compare. Measured on
 * examples/heat, a second round of mixing (a shift, an xor and another
 * multiplication) made the profiled run 1.9x as slow where this one made
 * it 1.4x. The units of an array are then sampled at even spacing, every
 * 2^HM_RATE_SHIFT on average, and so are those of any power-of-two
 * stride; a stride near a Fibonacci number of units (233, 377, ...)
 * samples in runs, still at the same rate over the whole walk. Units 512
 * GiB apart hash alike. */
#define HM_REUSE_K 0x9E3779B9u
static inline uint32_t hm_reuse_hash(uint64_t unit) {
  return (uint32_t)unit * HM_REUSE_K;
}

/* One sampled unit: its two lines. */
struct hm_reuse_unit {
  uint64_t unit;     /* address >> HM_UNIT_SHIFT; 0: an empty slot */
  uint32_t time[2];  /* each line's last access's stamp; 0: none held */
  uint16_t owner[8]; /* per 16 bytes: the owning context, 0: none,
                        HM_REUSE_UNKNOWN: not asked yet */
};

struct hm_reuse {
  struct hm_reuse_unit *slot;     /* open addressing, linear probing */
  uint64_t mask;                  /* slots - 1 */
  uint64_t used, limit;           /* units held, and at most for these slots */
  unsigned slots_log2, most_log2; /* the slots now, and at most */
  int32_t *fen;                   /* Fenwick tree over stamps 1..stamps */
  uint32_t stamps, clock;         /* its size; the last stamp given */
  uint32_t epoch;                 /* counts compactions (stamps renumbered) */
  uint64_t timed;                 /* lines with a stamp */
  uint64_t threshold;             /* units hashing under it are sampled */
  unsigned rate, level;           /* threshold = 2^(32 - rate - level) */
  uint64_t depth;                 /* deepest distance kept, lines */
};

/* Owners are numbers below this. */
enum { HM_REUSE_UNKNOWN = 0xFFFFu };

/* Who owns \p addr: the context's number (0: none; below
 * HM_REUSE_UNKNOWN) and the block it is in, [*lo, *hi) (for none, any
 * range holding \p addr that no block overlaps, or just its 16 bytes). */
typedef uint32_t (*hm_reuse_resolver)(uint64_t addr, uint64_t *lo,
                                      uint64_t *hi);

/* What one sampled access found. */
struct hm_reuse_hit {
  /* Its reuse distance in lines (distinct other lines touched since its
   * last access, estimated), or UINT64_MAX: the first access the sample
   * holds (a cold miss at every size, or deeper than `depth`). */
  uint64_t distance;
  int stream;     /* the unit's other line was touched just before */
  uint32_t owner; /* the context owning the accessed byte, 0: none */
};

/* Map the tables for up to 2^most_log2 slots of units (at most 70% held; 2^12
 * at first, or fewer if that is the most) and a deepest distance of interest of
 * \p depth lines, sampling one unit in 2^rate at first (HM_RATE_SHIFT, as
 * HmPlace.so checks; 0 for every unit). 0, or -1 if the memory cannot be
 * mapped. */
int hm_reuse_init(struct hm_reuse *r, unsigned most_log2, uint64_t depth,
                  unsigned rate);
/* Unmap them. */
void hm_reuse_fini(struct hm_reuse *r);

/* The slot where the unit \p unit is looked for first. */
static inline uint64_t hm_reuse_slot(const struct hm_reuse *r, uint64_t unit) {
  return ((unit * UINT64_C(0xFF51AFD7ED558CCD)) >> 20) & r->mask;
}

/* Start loading the slot of \p addr's unit, before the lock that serialises
 * hm_reuse_access is taken (the load is what an access mostly waits for).
 * Read without the lock: a stale table is harmless to prefetch. */
static inline void hm_reuse_prefetch(const struct hm_reuse *r, uint64_t addr) {
  const struct hm_reuse_unit *slot =
      __atomic_load_n(&r->slot, __ATOMIC_RELAXED);
  uint64_t mask = __atomic_load_n(&r->mask, __ATOMIC_RELAXED);
  uint64_t unit = addr >> HM_UNIT_SHIFT;
  if (slot)
    __builtin_prefetch(
        &slot[((unit * UINT64_C(0xFF51AFD7ED558CCD)) >> 20) & mask]);
}

/* Whether the unit holding \p addr is in the sample now. */
static inline int hm_reuse_sampled(const struct hm_reuse *r, uint64_t addr) {
  return hm_reuse_hash(addr >> HM_UNIT_SHIFT) < r->threshold;
}

/* Each sampled access stands for 2^(rate + level) accesses. */
static inline uint64_t hm_reuse_weight(const struct hm_reuse *r) {
  return UINT64_C(1) << (r->rate + r->level);
}

/* Record an access to \p addr, which must be in the sample; \p resolve
 * tells its owner where the line does not know it yet. */
void hm_reuse_access(struct hm_reuse *r, uint64_t addr,
                     hm_reuse_resolver resolve, struct hm_reuse_hit *out);

/* Forget the owners of the held lines of [lo, hi) (a block freed, or
 * mapped where no block was). */
void hm_reuse_forget(struct hm_reuse *r, uint64_t lo, uint64_t hi);

/* Whether [lo, hi) holds a unit hashing under \p threshold. */
int hm_reuse_any_under(uint64_t threshold, uint64_t lo, uint64_t hi);

#ifdef __cplusplus
}
#endif

#endif
