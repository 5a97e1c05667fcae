/*===- range.c - the address range placed blocks live in, mapped on demand -===*
 *
 * Why regions: free() of any pointer decides ownership with
 *   `p - hm_range_base < hm_range_span` (the hot test, false for ordinary
 *   heap pointers) and, only for pointers inside, one byte of
 *   hm_region_owner[] per 4 MiB region (a 2 MiB table for 8 TiB). Memory is
 *mapped in *chunks* of whole regions as placed data grows, so the runtime never
 *holds more address space or commit than the placed data needs plus one chunk
 *of growth: placement keeps working under RLIMIT_AS (batch systems' vmem
 *   limits) and strict overcommit (vm.overcommit_memory=2), where the old
 *   design's 1.5 TiB reservation and 64 GiB writable slots failed outright.
 *
 * Two ways to find addresses:
 *   reserved   RLIMIT_AS unlimited: one PROT_NONE reservation (free: not
 *              counted as commit, no pages); chunks are carved from it in
 *              order, so no foreign mapping ever lies inside the range and
 *              heap pointers never reach the region table.
 *   on demand  RLIMIT_AS finite (or the reservation was refused): nothing
 *              is reserved, each chunk is a fresh mapping aligned to a
 *              region, and the range is a window of HM_SPAN bytes around the
 *              first one. Foreign mappings may lie in the window; their
 *              regions stay 0 in the table, so they are never taken for ours.
 *
 * Chunk sizes: where mappings cost nothing until touched (heuristic
 *   overcommit, no address-space limit) one chunk of HMPLACE_SLOT_SIZE
 *   (default 64 GiB, MAP_NORESERVE) per slot, as before. Otherwise chunks
 *   grow with the slot (a quarter of what it holds, from 64 MiB to 1 GiB)
 *   and never take more than half of the remaining address space or commit,
 *   so the ordinary heap keeps room.
 *===----------------------------------------------------------------------===*/
#define _GNU_SOURCE
#include "hmplace_internal.h"

#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <unistd.h>

/* hm_fp (heap.c or heap_core.c defines it): range_span is 0 until the range
 * exists. */
_Atomic uint8_t hm_region_owner[HM_SPAN >> HM_REGION_SHIFT];
_Atomic uint8_t hm_region_used[HM_SPAN >> HM_REGION_SHIFT];
_Atomic uintptr_t hm_region_used_end;

static pthread_mutex_t Lock = PTHREAD_MUTEX_INITIALIZER;

void hm_range_fork_lock(int take) { hm_take_lock(&Lock, take); }
static int Ready;
static int Reserved;       /* the reserved way */
static uintptr_t NextFree; /* reserved way: first unused byte */
static int Strict;         /* vm.overcommit_memory=2 */
static uint64_t AsLimit;   /* RLIMIT_AS, or 0 */
static uint64_t MaxChunk;  /* HMPLACE_SLOT_SIZE */
static int MaxChunkSet;

enum { MiB = 1 << 20 };
#define REGION ((uint64_t)1 << HM_REGION_SHIFT)
#define GiB ((uint64_t)1 << 30)

static uint64_t round_region(uint64_t n) {
  return (n + REGION - 1) & ~(REGION - 1);
}

/* Bytes of address space the process maps now. */
static uint64_t vm_size(void) {
  FILE *f = fopen("/proc/self/statm", "r");
  unsigned long long pages = 0;
  if (f) {
    if (fscanf(f, "%llu", &pages) != 1)
      pages = 0;
    fclose(f);
  }
  return pages * (uint64_t)sysconf(_SC_PAGESIZE);
}

/* CommitLimit - Committed_AS, or UINT64_MAX if unknown. */
static uint64_t commit_headroom(void) {
  FILE *f = fopen("/proc/meminfo", "r");
  if (!f)
    return UINT64_MAX;
  char line[128];
  unsigned long long limit = 0, used = 0, v;
  int have = 0;
  while (fgets(line, sizeof line, f)) {
    if (sscanf(line, "CommitLimit: %llu kB", &v) == 1)
      limit = v, have |= 1;
    else if (sscanf(line, "Committed_AS: %llu kB", &v) == 1)
      used = v, have |= 2;
  }
  fclose(f);
  if (have != 3)
    return UINT64_MAX;
  return limit > used ? (limit - used) * 1024 : 0;
}

static void init_locked(void) {
  FILE *f = fopen("/proc/sys/vm/overcommit_memory", "r");
  if (f) {
    Strict = fgetc(f) == '2';
    fclose(f);
  }
  struct rlimit rl;
  if (getrlimit(RLIMIT_AS, &rl) == 0 && rl.rlim_cur != RLIM_INFINITY)
    AsLimit = rl.rlim_cur;
  MaxChunk = (uint64_t)64 * GiB;
  const char *s = getenv("HMPLACE_SLOT_SIZE");
  if (s && *s) {
    uint64_t v;
    if (hm_parse_size(s, &v) == 0 && v >= REGION && v <= (uint64_t)64 * GiB) {
      MaxChunk = round_region(v);
      MaxChunkSet = 1;
    } else {
      hm_warn("ignoring HMPLACE_SLOT_SIZE='%s': need 4MiB to 64GiB", s);
    }
  }
  if (!AsLimit) {
    void *p = mmap(NULL, HM_SPAN, PROT_NONE,
                   MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
    if (p != MAP_FAILED) {
      /* Regions are aligned, so the table index never straddles. */
      uintptr_t b = ((uintptr_t)p + REGION - 1) & ~(uintptr_t)(REGION - 1);
      atomic_store(&hm_range_base, b);
      NextFree = b;
      Reserved = 1;
      atomic_store(&hm_range_span, (uintptr_t)p + HM_SPAN - b);
    }
  }
  Ready = 1;
}

/* Where chunks cost nothing until touched, one big chunk; else growth by a
 * quarter of what the slot holds. A request of half that or more gets a
 * chunk of its own size: a larger one would leave a hole no other block of
 * that size fits in. */
static uint64_t wanted(uint64_t need, uint64_t held) {
  uint64_t w;
  if (!Strict && !AsLimit)
    w = MaxChunk;
  else {
    w = held / 4 > 64 * (uint64_t)MiB ? round_region(held / 4) : 64 * MiB;
    /* Committed but not handed out: at most one step of this. */
    if (w > (MaxChunkSet ? MaxChunk : GiB))
      w = MaxChunkSet ? MaxChunk : GiB;
    if (need >= w / 2)
      w = need;
  }
  return w > need ? w : need;
}

/* Map \p size bytes RW at a region boundary; 0 on failure. */
static uintptr_t map_at(uintptr_t where, uint64_t size) {
  int flags = MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE;
  if (where) {
    void *m = mmap((void *)where, size, PROT_READ | PROT_WRITE,
                   flags | MAP_FIXED, -1, 0);
    return m == MAP_FAILED ? 0 : (uintptr_t)m;
  }
  /* On demand: over-map by one region and trim to alignment. */
  void *m = mmap(NULL, size + REGION, PROT_READ | PROT_WRITE, flags, -1, 0);
  if (m == MAP_FAILED)
    return 0;
  uintptr_t a = (uintptr_t)m, b = (a + REGION - 1) & ~(uintptr_t)(REGION - 1);
  if (b > a)
    munmap(m, b - a);
  if (a + REGION > b)
    munmap((void *)(b + size), a + REGION - b);
  return b;
}

static void fmt(char *buf, size_t n, uint64_t b) {
  if (b >= GiB)
    snprintf(buf, n, "%.1f GiB", (double)b / (double)GiB);
  else
    snprintf(buf, n, "%.1f MiB", (double)b / (double)MiB);
}

/* Bytes that may still be mapped under RLIMIT_AS and the commit limit
 * (UINT64_MAX if neither applies), and the tighter limit described with its
 * numbers. Lock held. */
static uint64_t room_left(char *limit, size_t n) {
  uint64_t room = UINT64_MAX;
  char a[32], b[32];
  limit[0] = 0;
  if (AsLimit) {
    uint64_t used = vm_size();
    room = AsLimit > used ? AsLimit - used : 0;
    fmt(a, sizeof a, AsLimit);
    fmt(b, sizeof b, used);
    snprintf(limit, n, "address-space limit (RLIMIT_AS) %s, %s in use", a, b);
  }
  if (Strict) {
    uint64_t c = commit_headroom();
    if (c < room) {
      room = c;
      fmt(a, sizeof a, c);
      snprintf(limit, n, "commit limit (vm.overcommit_memory=2) leaves %s", a);
    }
  }
  return room;
}

/* Map \p size bytes (at least the \p n needed; whole regions) for owner byte
 * \p owner. Lock held. */
static uintptr_t map_locked(uint8_t owner, uint64_t n, uint64_t size,
                            const char *limit, uint64_t room, uint64_t *got,
                            char *why, size_t whylen) {
  uintptr_t at = 0;
  char a[32];
  why[0] = 0;
  if (room != UINT64_MAX && n + REGION > room) {
    fmt(a, sizeof a, n);
    snprintf(why, whylen, "cannot map %s more: %s", a, limit);
  } else if (Reserved) {
    uintptr_t end = atomic_load(&hm_range_base) + atomic_load(&hm_range_span);
    if (end - NextFree < size)
      size = end - NextFree >= n ? n : 0;
    if (!size)
      snprintf(why, whylen, "the reserved range is used up");
    else if ((at = map_at(NextFree, size)))
      NextFree += size;
    else
      snprintf(why, whylen, "mmap of %llu bytes failed: %s",
               (unsigned long long)size, strerror(errno));
  } else {
    at = map_at(0, size);
    if (!at && size > n) /* the rest of the room may be fragmented */
      at = map_at(0, size = n);
    if (!at) {
      fmt(a, sizeof a, n);
      snprintf(why, whylen, "cannot map %s more: %s", a, strerror(errno));
    } else if (!atomic_load(&hm_range_span)) {
      /* A window around the first chunk: the mmap area lies within it. */
      uintptr_t lo = at > HM_SPAN / 2 ? at - HM_SPAN / 2 : REGION;
      atomic_store(&hm_range_base, lo);
      atomic_store(&hm_range_span, (uintptr_t)HM_SPAN);
    } else if (at - atomic_load(&hm_range_base) + size >
               atomic_load(&hm_range_span)) {
      munmap((void *)at, size);
      at = 0;
      snprintf(why, whylen, "the kernel mapped it outside the placed range");
    }
  }
  if (at) {
    uintptr_t first = (at - atomic_load(&hm_range_base)) >> HM_REGION_SHIFT;
    for (uint64_t i = 0; i < size >> HM_REGION_SHIFT; ++i)
      atomic_store_explicit(&hm_region_owner[first + i], owner,
                            memory_order_release);
    *got = size;
  }
  return at;
}

uintptr_t hm_range_map_chunk(int idx, uint64_t need, uint64_t held,
                             uint64_t *got, char *why, size_t whylen) {
  pthread_mutex_lock(&Lock);
  if (!Ready)
    init_locked();
  uint64_t n = round_region(need);
  uint64_t size = wanted(n, held);
  /* Leave half of what remains to the rest of the program. */
  char limit[128];
  uint64_t room = room_left(limit, sizeof limit);
  if (room != UINT64_MAX && size > room / 2)
    size = n > room / 2 ? n : (room / 2) & ~(REGION - 1);
  if (size < n)
    size = n;
  uintptr_t at =
      map_locked((uint8_t)(idx + 1), n, size, limit, room, got, why, whylen);
  pthread_mutex_unlock(&Lock);
  return at;
}

uintptr_t hm_range_map_for(int owner, uint64_t need, uint64_t *got, char *why,
                           size_t whylen) {
  pthread_mutex_lock(&Lock);
  if (!Ready)
    init_locked();
  uint64_t n = round_region(need);
  char limit[128];
  uint64_t room = room_left(limit, sizeof limit);
  uintptr_t at =
      map_locked((uint8_t)owner, n, n, limit, room, got, why, whylen);
  pthread_mutex_unlock(&Lock);
  return at;
}

void hm_range_unmap_chunk(uintptr_t at, uint64_t size) {
  pthread_mutex_lock(&Lock);
  uintptr_t first = (at - atomic_load(&hm_range_base)) >> HM_REGION_SHIFT;
  for (uint64_t i = 0; i < size >> HM_REGION_SHIFT; ++i)
    atomic_store(&hm_region_owner[first + i], 0);
  if (Reserved) /* give the addresses back to the reservation, not to mmap */
    mmap((void *)at, size, PROT_NONE,
         MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE | MAP_FIXED, -1, 0);
  else
    munmap((void *)at, size);
  pthread_mutex_unlock(&Lock);
}

int hm_range_room(uint64_t bytes, char *why, size_t whylen) {
  pthread_mutex_lock(&Lock);
  if (!Ready)
    init_locked();
  char limit[128], a[32];
  int ok = room_left(limit, sizeof limit) >= bytes;
  if (!ok) {
    fmt(a, sizeof a, bytes);
    snprintf(why, whylen, "memkind needs about %s to set it up: %s", a, limit);
  }
  pthread_mutex_unlock(&Lock);
  return ok ? 0 : -1;
}

const char *hm_range_mode(char *buf, size_t n) {
  pthread_mutex_lock(&Lock);
  if (!Ready)
    snprintf(buf, n, "not mapped");
  else {
    char a[32];
    fmt(a, sizeof a, AsLimit);
    snprintf(buf, n, "%s%s%s%s",
             Reserved ? "one reserved range" : "mapped on demand",
             AsLimit ? ", RLIMIT_AS " : "", AsLimit ? a : "",
             Strict ? ", strict overcommit" : "");
  }
  pthread_mutex_unlock(&Lock);
  return buf;
}

void hm_range_each_used(int (*mine)(uint8_t owner, void *arg),
                        void (*run)(char *at, uint64_t regions, void *arg),
                        uint64_t most, void *arg) {
  uintptr_t base = atomic_load(&hm_range_base);
  uint64_t regions = atomic_load(&hm_region_used_end);
  if (!base)
    return;
  for (uint64_t i = 0; i < regions;) {
    if (!atomic_load(&hm_region_used[i]) ||
        !mine(atomic_load(&hm_region_owner[i]), arg)) {
      ++i;
      continue;
    }
    uint64_t n = 1;
    while (n < most && i + n < regions && atomic_load(&hm_region_used[i + n]) &&
           mine(atomic_load(&hm_region_owner[i + n]), arg))
      ++n;
    run((char *)(base + (i << HM_REGION_SHIFT)), n, arg);
    i += n;
  }
}
