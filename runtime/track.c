/*===- track.c - live placed blocks, for the report's exact page census ---===*
 *
 * Only with HMPLACE_REPORT_PAGES=live (hm_tracking): a record per placed
 * block under one lock, which the placed paths call into (placed.h) and the
 * report reads at exit. Near the bottom: it calls only the heap (heap.h).
 *===----------------------------------------------------------------------===*/
#define _GNU_SOURCE
#include "track.h"
#include "heap.h"
#include "hmplace_internal.h"

#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>

int hm_tracking;
int hm_reporting;
/* log.c's switch and the entry it logs (HMPLACE_LOG): here with the other
 * switches the placed paths and context.c read. */
int hm_log_on;
__thread const char *hm_log_entry __attribute__((tls_model("initial-exec")));
/* HmPlace.so stores a site entry's key here before its placed call. */
__thread const char *hmplace_log_site
    __attribute__((tls_model("initial-exec")));
/* ... and, for a `files:` entry, the call it placed (its key does not say). */
__thread const char *hmplace_log_call
    __attribute__((tls_model("initial-exec")));
/* entryfilter.c's switch (HMPLACE_ENTRIES), read by context.c below it. */
int hm_filter_on;

struct blk {
  void *p;
  size_t n;
  struct blk *next;
};
enum { NBUCKETS = 4096 };
static struct blk *Buckets[NBUCKETS];
static pthread_mutex_t TrackLock = PTHREAD_MUTEX_INITIALIZER;

void hm_track_fork_lock(int take) { hm_take_lock(&TrackLock, take); }

static size_t bucket(void *p) {
  uintptr_t v = (uintptr_t)p >> 4;
  return (v ^ (v >> 12) ^ (v >> 24)) % NBUCKETS;
}

void hm_track_alloc_slow(void *p, size_t n) {
  struct blk *b = hm_own_malloc(sizeof *b);
  if (!b)
    return;
  b->p = p;
  b->n = n;
  pthread_mutex_lock(&TrackLock);
  size_t h = bucket(p);
  b->next = Buckets[h];
  Buckets[h] = b;
  pthread_mutex_unlock(&TrackLock);
}

void hm_track_free_slow(void *p) {
  pthread_mutex_lock(&TrackLock);
  struct blk **pp = &Buckets[bucket(p)];
  while (*pp && (*pp)->p != p)
    pp = &(*pp)->next;
  struct blk *b = *pp;
  if (b)
    *pp = b->next;
  pthread_mutex_unlock(&TrackLock);
  hm_own_free(b);
}

/* Each tracked block (the caller holds the lock: hm_track_fork_lock). */
void hm_track_each(void (*fn)(void *p, size_t n, void *arg), void *arg) {
  for (size_t h = 0; h < NBUCKETS; ++h)
    for (struct blk *b = Buckets[h]; b; b = b->next)
      fn(b->p, b->n, arg);
}
