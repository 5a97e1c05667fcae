/*===- startup.c - the runtime's start-up and fork hooks, in one table ----===*
 *
 * Each file that needs something at start-up, or holds a lock that must
 * survive fork(), has a row here (test/runtime/fork-locks.test checks that
 * every lock does); nothing else calls those hooks. At
 * start-up (hm_startup, from the constructor in alloc.c) the init hooks
 * run in table order; around fork the lock hooks are taken in table order
 * (the order the code nests the locks) and released in reverse on both
 * sides.
 *
 * Why fork needs them: a threaded program that forks gives the child a copy
 * of every lock as it was; one held by another thread stays held forever in
 * the child, whose first placed allocation or free would then hang. The
 * handlers are registered once memkind (and its jemalloc, whose own
 * handlers must run after ours in the prepare phase: prepare handlers run
 * in reverse order of registration) is in use.
 *===----------------------------------------------------------------------===*/
#define _GNU_SOURCE
#include "entryfilter.h"
#include "log.h"
#include "placed.h"
#include "split.h"
#include "track.h"

#include <pthread.h>

#if HMPLACE_INTERPOSE
/* The next allocator's functions; under a sanitizer, whose free would call
 * placed blocks "bad frees", the program runs with every planned
 * allocation on its heap. */
static void heap_init(void) {
  hm_heap_init();
  if (hm_sanitizer())
    hm_off_under(hm_sanitizer());
}
#endif

static const struct hook {
  void (*lock)(int take); /* taken (1) before fork, released (0) after */
  void (*init)(void);     /* run once at start-up */
} Hooks[] = {
    {hm_track_fork_lock, NULL},            /* track.c: live-block table */
    {hm_ctx_fork_lock, NULL},              /* context.c: entry tables */
    {hm_split_fork_lock, NULL},            /* split.c: split objects */
    {hm_slots_fork_lock, NULL},            /* slots.c: slots and chunks */
    {hm_range_fork_lock, NULL},            /* range.c: the placed range */
    {hm_orphans_fork_lock, hm_cache_init}, /* cache.c: per-thread caches */
    {hm_counts_fork_lock, hm_counts_init}, /* kinds.c: per-thread counts */
    {NULL, hm_read_off_env},               /* kinds.c: HMPLACE=off */
#if HMPLACE_INTERPOSE
    {NULL, heap_init}, /* heap.c: the next allocator */
#endif
    {NULL, hm_job_init},        /* job.c: MPI rank, ranks/node */
    {NULL, hm_read_budget_env}, /* kinds.c: HMPLACE_BUDGET */
    {NULL, hm_report_init},     /* report.c: HMPLACE_REPORT */
    {NULL, hm_log_init},        /* log.c: HMPLACE_LOG */
    {NULL, hm_filter_init},     /* entryfilter.c: HMPLACE_ENTRIES */
    {NULL, hm_teardown_init},   /* teardown.c: OpenMP at exit */
};
enum { NHOOKS = sizeof Hooks / sizeof *Hooks };

static void prepare(void) {
  for (int i = 0; i < NHOOKS; ++i)
    if (Hooks[i].lock)
      Hooks[i].lock(1);
}

static void release(void) {
  for (int i = NHOOKS - 1; i >= 0; --i)
    if (Hooks[i].lock)
      Hooks[i].lock(0);
}

static void do_register(void) { pthread_atfork(prepare, release, release); }

void hm_fork_register(void) {
  static pthread_once_t Once = PTHREAD_ONCE_INIT;
  pthread_once(&Once, do_register);
}

void hm_startup(void) {
  /* Locks are statically initialised: placed allocations from earlier
   * constructors are fine. */
  for (int i = 0; i < NHOOKS; ++i)
    if (Hooks[i].init)
      Hooks[i].init();
  /* memkind's jemalloc registers its fork handlers when it starts: start it
   * now, so that ours come after and run before its own at fork. */
  memkind_free(MEMKIND_DEFAULT, memkind_malloc(MEMKIND_DEFAULT, 16));
  hm_fork_register();
}
