/*===- room.c - whether a slot's nodes have room for more pages ----------===*
 *
 * Kept split objects hold their pages (split.c): giving them back before
 * every placed allocation of their kinds is safe, but a page given back
 * (MADV_FREE) costs its next write when the object is reused (about 350 ns
 * a page on a VM whose hypervisor tracks the accessed and dirty bits). They
 * need giving back only where the allocation could need their memory: its
 * nodes have less free than it asks and a margin. The kernel says what a
 * node has free in sysfs (about 20 us to read); a reading serves 10 ms
 * (requests under HM_ROOM_SMALL trust it longer), and what the process has
 * come to use more of the kind since (its live bytes and the pages it
 * keeps, which a placed allocation counts whichever thread makes it) is
 * taken off it, so the process's own allocations never find a reading
 * optimistic. No lock: a reading is published under a sequence count, and
 * two threads that read at once each use their own.
 *===----------------------------------------------------------------------===*/
#define _GNU_SOURCE
#include "room.h"
#include "room_limit.h"

#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

enum { REREAD_NS = 10 * 1000 * 1000 };

struct reading {
  _Atomic uint64_t seq; /* odd while being written */
  _Atomic uint64_t at;  /* when read (ns); 0: never */
  _Atomic int64_t free, total, used; /* used: what the process used */
};
static struct reading Readings[MAX_SLOTS];
_Atomic int64_t hm_room_limit[MAX_SLOTS];

static uint64_t now_ns(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC_COARSE, &t);
  return (uint64_t)t.tv_sec * 1000000000u + (uint64_t)t.tv_nsec;
}

/* The value after \p key in \p text, in kB, as bytes; -1 if absent. */
static int64_t field(const char *text, const char *key) {
  const char *at = strstr(text, key);
  return at ? strtoll(at + strlen(key), NULL, 10) * 1024 : -1;
}

/* Node \p n's total and free memory; 0 on success. No stdio: this runs
 * inside allocation calls. */
static int node_meminfo(int n, int64_t *total, int64_t *free) {
  char path[64], text[1024];
  snprintf(path, sizeof path, "/sys/devices/system/node/node%d/meminfo", n);
  int fd = open(path, O_RDONLY | O_CLOEXEC);
  if (fd < 0)
    return -1;
  ssize_t got = read(fd, text, sizeof text - 1);
  close(fd);
  if (got <= 0)
    return -1;
  text[got] = 0;
  *total = field(text, "MemTotal:");
  *free = field(text, "MemFree:");
  return *total < 0 || *free < 0 ? -1 : 0;
}

/* The nodes of slot \p sl's mask, added up; 0 on success (-1: no node, or
 * one that cannot be read). */
static int read_nodes(const struct slot *sl, int64_t *total, int64_t *free) {
  int any = 0;
  *total = *free = 0;
  for (int n = 0; n < MAX_NODE; ++n) {
    unsigned long w = sl->mask[n / (8 * sizeof(unsigned long))];
    if (!(w >> (n % (8 * sizeof(unsigned long))) & 1))
      continue;
    int64_t t, f;
    if (node_meminfo(n, &t, &f) != 0)
      return -1;
    *total += t;
    *free += f;
    any = 1;
  }
  return any ? 0 : -1;
}

/* The reading of \p r if it is whole and younger than REREAD_NS at \p now;
 * 0 if there is none. */
static int recent(struct reading *r, uint64_t now, int64_t *free,
                  int64_t *total, int64_t *used) {
  uint64_t q = atomic_load_explicit(&r->seq, memory_order_acquire);
  if (q & 1)
    return 0;
  uint64_t at = atomic_load_explicit(&r->at, memory_order_relaxed);
  *free = atomic_load_explicit(&r->free, memory_order_relaxed);
  *total = atomic_load_explicit(&r->total, memory_order_relaxed);
  *used = atomic_load_explicit(&r->used, memory_order_relaxed);
  atomic_thread_fence(memory_order_acquire);
  if (atomic_load_explicit(&r->seq, memory_order_relaxed) != q)
    return 0;
  return at && now - at < REREAD_NS;
}

/* Publish a reading, unless another thread is publishing one. */
static void publish(struct reading *r, uint64_t now, int64_t free,
                    int64_t total, int64_t used) {
  uint64_t q = atomic_load_explicit(&r->seq, memory_order_relaxed);
  if ((q & 1) || !atomic_compare_exchange_strong(&r->seq, &q, q + 1))
    return;
  /* The reader's acquire fence pairs with this one: a reader that sees any
   * store below sees the odd count too (the CAS alone orders nothing for
   * relaxed stores on a weakly ordered CPU). */
  atomic_thread_fence(memory_order_release);
  atomic_store_explicit(&r->at, now, memory_order_relaxed);
  atomic_store_explicit(&r->free, free, memory_order_relaxed);
  atomic_store_explicit(&r->total, total, memory_order_relaxed);
  atomic_store_explicit(&r->used, used, memory_order_relaxed);
  atomic_store_explicit(&r->seq, q + 2, memory_order_release);
}

int hm_room_read(int idx, int64_t used, size_t req) {
  const struct slot *sl = &hm_slots[idx];
  struct reading *r = &Readings[idx];
  uint64_t now = now_ns();
  int64_t free, total, used0;
  if (!recent(r, now, &free, &total, &used0)) {
    used0 = used;
    if (read_nodes(sl, &total, &free) != 0) {
      atomic_store_explicit(&hm_room_limit[idx], 0, memory_order_relaxed);
      return 0;
    }
    publish(r, now, free, total, used0);
  }
  /* used - used0 + req <= free - margin, for this request and (the limit)
   * the small ones after it. */
  int64_t limit = hm_room_limit_of(used0, free, total);
  atomic_store_explicit(&hm_room_limit[idx], limit, memory_order_relaxed);
  return limit > 0 && used + (int64_t)req <= limit;
}
