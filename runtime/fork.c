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
#include <stdatomic.h>

/* The lock functions, in the order the code nests the locks (added by the
 * constructor, alloc.c): fork.c calls into no other file itself. */
static void (*Locks[16])(int take);
static _Atomic int NumLocks;

void hm_fork_add(void (*lock)(int take)) {
  int n = atomic_load(&NumLocks);
  if (n < (int)(sizeof Locks / sizeof *Locks)) {
    Locks[n] = lock;
    atomic_store(&NumLocks, n + 1);
  }
}

static void prepare(void) {
  int n = atomic_load(&NumLocks);
  for (int i = 0; i < n; ++i)
    Locks[i](1);
}

static void release(void) {
  for (int i = atomic_load(&NumLocks) - 1; i >= 0; --i)
    Locks[i](0);
}

static void do_register(void) { pthread_atfork(prepare, release, release); }

void hm_fork_register(void) {
  static pthread_once_t Once = PTHREAD_ONCE_INIT;
  pthread_once(&Once, do_register);
}
