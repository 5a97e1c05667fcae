/*===- fork.c - the runtime's locks across fork()
 *---------------------------===*
 *
 * A threaded program that forks gives the child a copy of every lock as it
 * was: one held by another thread stays held forever in the child, whose
 * first placed allocation or free would then hang. pthread_atfork handlers
 * take all of the runtime's locks before fork (in the order the code nests
 * them) and release them on both sides. They are registered once memkind
 * (and its jemalloc, whose own handlers must run after ours in the prepare
 * phase: prepare handlers run in reverse order of registration) is in use.
 *
 *===----------------------------------------------------------------------===*/
#include "hmplace_internal.h"

#include <pthread.h>

static void prepare(void) {
  hm_track_fork_lock(1);
  hm_ctx_fork_lock(1);
  hm_slots_fork_lock(1);
  hm_range_fork_lock(1);
  hm_orphans_fork_lock(1);
  hm_counts_fork_lock(1);
}

static void release(void) {
  hm_counts_fork_lock(0);
  hm_orphans_fork_lock(0);
  hm_range_fork_lock(0);
  hm_slots_fork_lock(0);
  hm_ctx_fork_lock(0);
  hm_track_fork_lock(0);
}

static void do_register(void) { pthread_atfork(prepare, release, release); }

void hm_fork_register(void) {
  static pthread_once_t Once = PTHREAD_ONCE_INIT;
  pthread_once(&Once, do_register);
}
