/*===- reuse.c - sampled reuse distances of cache lines (SHARDS) ----------===*
 *
 * The units held are an open-addressing table keyed by unit address (one
 * probe finds a line and its pair, which the stream test asks about); each
 * held line's last access has a stamp, and a Fenwick tree over the stamps
 * counts the lines touched since any stamp, so a reuse distance costs an
 * O(log n) walk (none where few stamps were given since: a near hit).
 * Stamps run out after `stamps` accesses: the compaction then numbers the
 * stamps held 1..n again (in order), drops the lines deeper than `depth`,
 * and rebuilds the tree. The probes into the table are what a sampled
 * access mostly costs (measured with perf on examples/fortran: 57% of the
 * time in the table's lookups when a line and its pair were two).
 *===----------------------------------------------------------------------===*/
#include "reuse.h"

#include <string.h>
#include <sys/mman.h>

/* How many other lines (estimated) may have been touched between the
 * unit's other line and this one for the access to count as part of a
 * stream: 16 KiB, as 32 arrays swept together touch. An access nearer than
 * HM_NEAR_LINES hits any last-level cache: whether it streams is not
 * asked. */
enum { HM_STREAM_LINES = 256, HM_NEAR_LINES = 1024 };

static uint64_t slot_of(const struct hm_reuse *r, uint64_t unit) {
  return hm_reuse_slot(r, unit);
}

static void *map(size_t bytes) {
  void *p = mmap(0, bytes, PROT_READ | PROT_WRITE,
                 MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
  return p == MAP_FAILED ? 0 : p;
}

/* The slots and the tree for 2^lg slots, into \p slot and \p fen; 0, or -1
 * if they cannot be mapped (then nothing is). A unit holds two lines, each
 * with a stamp. */
static int map_tables(unsigned lg, struct hm_reuse_unit **slot, int32_t **fen,
                      uint64_t *limit, uint32_t *stamps) {
  uint64_t slots = UINT64_C(1) << lg;
  *limit = slots / 10 * 7;
  *stamps = (uint32_t)(4 * *limit);
  *slot = map(slots * sizeof **slot);
  *fen = map(((size_t)*stamps + 1) * sizeof **fen);
  if (*slot && *fen)
    return 0;
  if (*slot)
    munmap(*slot, slots * sizeof **slot);
  if (*fen)
    munmap(*fen, ((size_t)*stamps + 1) * sizeof **fen);
  return -1;
}

static void unmap_tables(struct hm_reuse *r) {
  if (r->slot)
    munmap(r->slot, (r->mask + 1) * sizeof *r->slot);
  if (r->fen)
    munmap(r->fen, ((size_t)r->stamps + 1) * sizeof *r->fen);
}

int hm_reuse_init(struct hm_reuse *r, unsigned most_log2, uint64_t depth,
                  unsigned rate) {
  memset(r, 0, sizeof *r);
  r->most_log2 = most_log2;
  r->slots_log2 = most_log2 < 12 ? most_log2 : 12;
  if (map_tables(r->slots_log2, &r->slot, &r->fen, &r->limit, &r->stamps))
    return -1;
  r->mask = (UINT64_C(1) << r->slots_log2) - 1;
  r->rate = rate;
  r->threshold = UINT64_C(1) << (32 - rate);
  r->depth = depth;
  return 0;
}

void hm_reuse_fini(struct hm_reuse *r) {
  unmap_tables(r);
  memset(r, 0, sizeof *r);
}

/* ---- the Fenwick tree over stamps ---- */

static void fen_add(struct hm_reuse *r, uint32_t i, int32_t v) {
  for (; i <= r->stamps; i += i & -i)
    r->fen[i] += v;
}

static uint64_t fen_prefix(const struct hm_reuse *r, uint32_t i) {
  int64_t s = 0;
  for (; i; i -= i & -i)
    s += r->fen[i];
  return (uint64_t)s;
}

/* Lines touched after stamp \p t. */
static uint64_t since(const struct hm_reuse *r, uint32_t t) {
  return r->timed - fen_prefix(r, t);
}

/* ---- the table ---- */

static struct hm_reuse_unit *find(const struct hm_reuse *r, uint64_t unit) {
  for (uint64_t i = slot_of(r, unit);; i = (i + 1) & r->mask) {
    struct hm_reuse_unit *e = &r->slot[i];
    if (e->unit == unit)
      return e;
    if (!e->unit)
      return 0;
  }
}

static struct hm_reuse_unit *insert(struct hm_reuse *r, uint64_t unit) {
  uint64_t i = slot_of(r, unit);
  while (r->slot[i].unit)
    i = (i + 1) & r->mask;
  struct hm_reuse_unit *e = &r->slot[i];
  e->unit = unit;
  e->time[0] = e->time[1] = 0;
  for (unsigned q = 0; q < 8; ++q)
    e->owner[q] = HM_REUSE_UNKNOWN;
  ++r->used;
  return e;
}

/* Empty slot \p i, moving later units of its probe run back (so that no
 * lookup stops early). Its stamps, if any, stay counted: the caller
 * renumbers (compact()). */
static void erase(struct hm_reuse *r, uint64_t i) {
  uint64_t j = i;
  for (;;) {
    r->slot[i].unit = 0;
    for (;;) {
      j = (j + 1) & r->mask;
      if (!r->slot[j].unit) {
        --r->used;
        return;
      }
      uint64_t home = slot_of(r, r->slot[j].unit);
      /* Movable to i when its home is not in (i, j] cyclically. */
      if (i <= j ? (home <= i || home > j) : (home <= i && home > j))
        break;
    }
    r->slot[i] = r->slot[j];
    i = j;
  }
}

/* Drop every unit without a stamp, and, with \p resampled, every unit that
 * left the sample (stamps must be renumbered after: compact()). */
static void sweep(struct hm_reuse *r, int resampled) {
  for (uint64_t i = 0; i <= r->mask;) {
    struct hm_reuse_unit *e = &r->slot[i];
    int out = e->unit && resampled && hm_reuse_hash(e->unit) >= r->threshold;
    if (e->unit && (out || !(e->time[0] | e->time[1]))) {
      erase(r, i); /* slot i holds the next unit now: look again */
      continue;
    }
    ++i;
  }
}

/* Number the stamps held 1..n in their order, keep stamps only for the
 * lines within `depth` of the newest, and rebuild the tree. */
static void compact(struct hm_reuse *r) {
  int32_t *order = r->fen; /* the tree's memory as scratch */
  memset(order, 0, ((size_t)r->stamps + 1) * sizeof *order);
  for (uint64_t i = 0; i <= r->mask; ++i)
    for (unsigned h = 0; h < 2; ++h)
      if (r->slot[i].unit && r->slot[i].time[h])
        order[r->slot[i].time[h]] = 1;
  int32_t n = 0;
  for (uint32_t t = 1; t <= r->stamps; ++t)
    if (order[t])
      order[t] = ++n;
  uint64_t keep = r->depth >> (r->rate + r->level);
  int32_t cut = (uint64_t)n > keep ? n - (int32_t)keep : 0;
  for (uint64_t i = 0; i <= r->mask; ++i)
    for (unsigned h = 0; h < 2; ++h) {
      uint32_t *t = &r->slot[i].time[h];
      if (r->slot[i].unit && *t)
        *t = order[*t] > cut ? (uint32_t)(order[*t] - cut) : 0;
    }
  r->clock = (uint32_t)(n - cut);
  r->timed = r->clock;
  ++r->epoch;
  memset(order, 0, ((size_t)r->stamps + 1) * sizeof *order);
  for (uint32_t t = 1; t <= r->clock; ++t)
    r->fen[t] = 1;
  for (uint32_t t = 1; t <= r->stamps; ++t) { /* linear-time build */
    uint32_t up = t + (t & -t);
    if (up <= r->stamps)
      r->fen[up] += r->fen[t];
  }
  if (cut)
    sweep(r, 0);
}

/* Twice the slots, the units moved over; -1 if there is no more room. */
static int grow(struct hm_reuse *r) {
  struct hm_reuse old = *r;
  struct hm_reuse_unit *slot;
  int32_t *fen;
  if (r->slots_log2 >= r->most_log2 ||
      map_tables(r->slots_log2 + 1, &slot, &fen, &r->limit, &r->stamps))
    return -1;
  r->slot = slot;
  r->fen = fen;
  ++r->slots_log2;
  r->mask = (UINT64_C(1) << r->slots_log2) - 1;
  r->used = 0;
  for (uint64_t i = 0; i <= old.mask; ++i)
    if (old.slot[i].unit) {
      struct hm_reuse_unit *e = insert(r, old.slot[i].unit);
      *e = old.slot[i];
    }
  unmap_tables(&old);
  compact(r); /* the tree, for the new stamps */
  return 0;
}

/* Make room for one more unit: more slots while there may be, else drop
 * the deep lines, then halve the rate until at most 7/8 of the limit is
 * held. */
static void make_room(struct hm_reuse *r) {
  if (!grow(r))
    return;
  compact(r);
  while (r->used >= r->limit / 8 * 7 && r->rate + r->level < 32) {
    r->threshold >>= 1;
    ++r->level;
    sweep(r, 1);
    compact(r);
  }
}

static struct hm_reuse_unit *held(struct hm_reuse *r, uint64_t unit) {
  struct hm_reuse_unit *e = find(r, unit);
  if (e)
    return e;
  if (r->used >= r->limit)
    make_room(r);
  if (hm_reuse_hash(unit) >= r->threshold)
    return 0; /* the rate fell below it */
  return insert(r, unit);
}

/* Ask \p resolve who owns \p addr and set the sixteenths of \p e that the
 * block (or the ownerless range) covers. */
static uint32_t resolve_owner(struct hm_reuse_unit *e, uint64_t addr,
                              hm_reuse_resolver resolve) {
  uint64_t lo = addr & ~UINT64_C(15), hi = lo + 16;
  uint32_t owner = resolve(addr, &lo, &hi);
  if (owner >= HM_REUSE_UNKNOWN)
    owner = 0;
  uint64_t base = e->unit << HM_UNIT_SHIFT;
  for (unsigned q = 0; q < 8; ++q) {
    uint64_t qlo = base + 16 * q;
    if (qlo < hi && qlo + 16 > lo)
      e->owner[q] = (uint16_t)owner;
  }
  return owner;
}

/* The distance, in lines, of a line last touched at stamp \p t (0: none
 * held, UINT64_MAX); one of fewer than \p near lines for certain (few
 * stamps given since) is not walked for: an upper bound under \p near. */
static uint64_t distance_of(const struct hm_reuse *r, uint32_t t,
                            uint64_t near) {
  unsigned shift = r->rate + r->level;
  if (!t)
    return UINT64_MAX;
  if ((uint64_t)(r->clock - t) << shift < near)
    return (uint64_t)(r->clock - t) << shift;
  return since(r, t) << shift;
}

void hm_reuse_access(struct hm_reuse *r, uint64_t addr,
                     hm_reuse_resolver resolve, struct hm_reuse_hit *out) {
  out->distance = UINT64_MAX;
  out->stream = 0;
  out->owner = 0;
  if (r->clock >= r->stamps)
    compact(r);
  struct hm_reuse_unit *e = held(r, addr >> HM_UNIT_SHIFT);
  if (!e)
    return;
  unsigned h = (addr >> HM_LINE_SHIFT) & 1;
  uint32_t mine = e->time[h], other = e->time[h ^ 1];
  out->distance = distance_of(r, mine, HM_NEAR_LINES);
  if (out->distance >= HM_NEAR_LINES && other) {
    /* A miss in some cache: was the other line touched just before? This
     * line, if touched after it, is not in between. */
    uint64_t between = distance_of(r, other, HM_STREAM_LINES + 1);
    if (mine > other)
      between -= (uint64_t)1 << (r->rate + r->level);
    out->stream = between <= HM_STREAM_LINES;
  }
  out->owner = e->owner[(addr >> 4) & 7];
  if (out->owner == HM_REUSE_UNKNOWN)
    out->owner = resolve_owner(e, addr, resolve);
  if (mine)
    fen_add(r, mine, -1);
  else
    ++r->timed;
  e->time[h] = ++r->clock;
  fen_add(r, e->time[h], 1);
}

int hm_reuse_any_under(uint64_t threshold, uint64_t lo, uint64_t hi) {
  for (uint64_t u = lo >> HM_UNIT_SHIFT; u << HM_UNIT_SHIFT < hi; ++u)
    if (hm_reuse_hash(u) < threshold)
      return 1;
  return 0;
}

void hm_reuse_forget(struct hm_reuse *r, uint64_t lo, uint64_t hi) {
  for (uint64_t u = lo >> HM_UNIT_SHIFT; u << HM_UNIT_SHIFT < hi; ++u) {
    if (hm_reuse_hash(u) >= r->threshold)
      continue;
    struct hm_reuse_unit *e = find(r, u);
    uint64_t base = u << HM_UNIT_SHIFT;
    for (unsigned q = 0; e && q < 8; ++q)
      if (base + 16 * q < hi && base + 16 * q + 16 > lo)
        e->owner[q] = HM_REUSE_UNKNOWN;
  }
}
