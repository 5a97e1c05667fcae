/*===- slots.h - slots: a kind under a node policy, and owner_of ----------===*
 *
 * What the placed paths read inline of slots.c's state: the slots, the slot
 * of a kind for the calling thread's CPU, and the slot that owns a pointer.
 *===----------------------------------------------------------------------===*/
#ifndef HMPLACE_SLOTS_H
#define HMPLACE_SLOTS_H

#include "hmplace.h"
#include "hmplace_internal.h"

#include <memkind.h>
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/rseq.h>

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

extern struct slot hm_slots[MAX_SLOTS] HM_HIDDEN;
extern _Atomic int hm_nslots HM_HIDDEN;
/* Per slot, the slots whose pages can land on a node of its (bit j: slot j;
 * its own bit set; a slot of no node mask meets every one), written before
 * the slot is published. What kept split pages must give way to
 * (split.h). */
extern _Atomic uint64_t hm_slot_meets[MAX_SLOTS] HM_HIDDEN;
/* Slot of kind k for threads on CPU c: 0 unknown, s + 1, or -1 none. Read
 * with acquire: the slot's fields are written before its index is. */
extern _Atomic int8_t hm_slot_of[HMPLACE_KIND_COUNT][MAX_CPUS] HM_HIDDEN;

/* The slot for kind k on this CPU, made on first use. */
int hm_slot_resolve(int k, int cpu) HM_HIDDEN;
/* A block of n bytes (aligned to align unless 0) from slot idx's chunks. */
void *hm_slot_alloc(int idx, size_t n, size_t align) HM_HIDDEN;

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
    int v = atomic_load_explicit(&hm_slot_of[k][cpu], memory_order_acquire);
    if (__builtin_expect(v > 0, 1))
      return v - 1;
    if (v < 0)
      return -1;
  }
  return hm_slot_resolve(k, cpu);
}

/* Slot of a placed pointer, or -1. Safe on any value: pointers outside the
 * range fail the first compare; inside it, regions that are not ours read 0. */
static inline int owner_of(const void *p) {
  /* The window is always HM_SPAN bytes (a shift, not a second load): the
   * range itself may end a region short of it, and before it exists the
   * base is 0; the table answers 0 (not ours) for any region of the window
   * the runtime never mapped. */
  uintptr_t off =
      (uintptr_t)p - atomic_load_explicit(&hm_range_base, memory_order_relaxed);
  if (__builtin_expect(!(off >> 43), 0))
    return (int)atomic_load_explicit(&hm_region_owner[off >> HM_REGION_SHIFT],
                                     memory_order_relaxed) -
           1;
  return -1;
}
_Static_assert(HM_SPAN == (uint64_t)1 << 43, "owner_of's window is HM_SPAN");

/* Any chunk's handle frees and measures any block of the slot: jemalloc
 * finds the arena from the pointer (fixed kinds have no memkind tcache). */
static inline memkind_t slot_kind(int idx) { return hm_slots[idx].chunk[0]; }

#endif
