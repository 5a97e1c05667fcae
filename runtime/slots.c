/*===- slots.c - slots: a kind under one node policy, and its chunks -----===*
 *
 * A kind has one slot per distinct node policy memkind gives it on the CPUs
 * that used it; a slot's memory is a list of chunks from range.c, each a
 * memkind fixed kind bound with the slot's policy (policy.c says which).
 *===----------------------------------------------------------------------===*/
#define _GNU_SOURCE
#include "placed.h"
#include "split.h"
#include "track.h"

#include <errno.h>
#include <numa.h>
#include <numaif.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>

struct slot hm_slots[MAX_SLOTS];
_Atomic int hm_nslots;
_Atomic uint64_t hm_slot_meets[MAX_SLOTS];
_Atomic int8_t hm_slot_of[HMPLACE_KIND_COUNT][MAX_CPUS];
static pthread_mutex_t SlotsLock = PTHREAD_MUTEX_INITIALIZER;

/* Add a chunk of at least \p need bytes to slot \p s (its lock held). */
static int slot_grow(int idx, size_t need, char *why, size_t whylen) {
  struct slot *s = &hm_slots[idx];
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
    if (strstr(hm_kind_names[s->kind], "HUGETLB"))
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

/* Whether slots \p a and \p b can put pages on one node (a slot of no node
 * mask can put them anywhere). */
static int nodes_meet(const struct slot *a, const struct slot *b) {
  int any_a = 0, any_b = 0;
  for (size_t w = 0; w < MASK_WORDS; ++w) {
    if (a->mask[w] & b->mask[w])
      return 1;
    any_a |= a->mask[w] != 0;
    any_b |= b->mask[w] != 0;
  }
  return !any_a || !any_b;
}

/* Slot \p n, about to be published, in the node-sharing masks. */
static void note_meets(int n) {
  uint64_t meets = (uint64_t)1 << n;
  for (int i = 0; i < n; ++i)
    if (nodes_meet(&hm_slots[i], &hm_slots[n])) {
      meets |= (uint64_t)1 << i;
      atomic_fetch_or(&hm_slot_meets[i], (uint64_t)1 << n);
    }
  atomic_store(&hm_slot_meets[n], meets);
}

/* The slot for kind k on this thread's CPU, made on first use (under
 * SlotsLock): memkind's policy for the CPU, shared by every CPU that gets
 * the same policy. */
int hm_slot_resolve(int k, int cpu) {
  pthread_mutex_lock(&SlotsLock);
  int v = (unsigned)cpu < MAX_CPUS ? atomic_load(&hm_slot_of[k][cpu]) : 0;
  if (v) {
    pthread_mutex_unlock(&SlotsLock);
    return v - 1;
  }
  int mode = MPOL_DEFAULT, idx = -1;
  unsigned long mask[MASK_WORDS];
  char why[200] = "memkind reports it unavailable on this machine";
  if (hm_policy_now(k, &mode, mask, MAX_NODE, why, sizeof why) == 0) {
    hm_fork_register(); /* memkind's jemalloc has registered its own */
    int n = atomic_load(&hm_nslots);
    for (int i = 0; i < n && idx < 0; ++i)
      if (hm_slots[i].kind == k && hm_slots[i].mode == mode &&
          !memcmp(hm_slots[i].mask, mask, sizeof mask))
        idx = i;
    if (idx < 0 && n == MAX_SLOTS) {
      snprintf(why, sizeof why, "all %d kind and node-set slots are in use",
               MAX_SLOTS);
    } else if (idx < 0) {
      struct slot *s = &hm_slots[n];
      s->kind = k;
      s->mode = mode;
      memcpy(s->mask, mask, sizeof mask);
      pthread_mutex_init(&s->lock, NULL);
      note_meets(n);
      /* The first chunk comes with the first block, sized for it. */
      idx = n;
      atomic_store(&hm_nslots, n + 1);
    }
  }
  if (idx >= 0) {
    int node = cpu >= 0 ? numa_node_of_cpu(cpu) : -1;
    if (node >= 0 && node < 64)
      atomic_fetch_or(&hm_slots[idx].cpu_nodes, (uint64_t)1 << node);
    atomic_store(&hm_kinds[k].state, KIND_READY);
  } else if (atomic_load(&hm_kinds[k].state) != KIND_READY) {
    atomic_store(&hm_kinds[k].state, KIND_UNAVAILABLE);
    hm_kind_unavailable(k, why);
  } else {
    hm_kind_full(k, why);
  }
  if ((unsigned)cpu < MAX_CPUS)
    atomic_store_explicit(&hm_slot_of[k][cpu],
                          (int8_t)(idx >= 0 ? idx + 1 : -1),
                          memory_order_release);
  pthread_mutex_unlock(&SlotsLock);
  return idx;
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

void *hm_slot_alloc(int idx, size_t n, size_t align) {
  void *p = slot_alloc_chunks(idx, n, align);
  if (__builtin_expect(hm_reporting, 0) && p)
    mark_used(p, n);
  return p;
}

static void *slot_alloc_chunks(int idx, size_t n, size_t align) {
  struct slot *s = &hm_slots[idx];
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
    hm_kind_full(s->kind, why);
  pthread_mutex_unlock(&s->lock);
  return p;
}

/* SlotsLock, then every slot's lock: slots are only added under SlotsLock,
 * so the set cannot change in between. */
void hm_slots_fork_lock(int take) {
  if (take) {
    pthread_mutex_lock(&SlotsLock);
    for (int i = 0; i < atomic_load(&hm_nslots); ++i)
      pthread_mutex_lock(&hm_slots[i].lock);
  } else {
    for (int i = atomic_load(&hm_nslots) - 1; i >= 0; --i)
      pthread_mutex_unlock(&hm_slots[i].lock);
    pthread_mutex_unlock(&SlotsLock);
  }
}

int hm_slot_info(int i, int *kind, char *policy, size_t n, uint64_t *threads,
                 uint64_t *cpu_nodes) {
  if (i < 0 || i >= atomic_load(&hm_nslots))
    return -1;
  struct slot *s = &hm_slots[i];
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
