/*===- teardown.c - quiesce OpenMP worker threads before memkind's teardown
 *-===*
 *
 * Measured (test/runtime/threads.c, 3 processes at once on 2 cores): an
 * OpenMP program whose worker threads allocated placed blocks crashed at
 * exit about 1 run in 30. Its workers outlive exit()'s atexit handlers; the
 * OpenMP runtime stops them from its own library destructor, and when that
 * runs after memkind's destructor has torn down memkind's arenas, each
 * worker's thread-exit cleanup in memkind touches freed state and segfaults.
 * With HMPLACE=off (no placed block, so no memkind state in the workers) it
 * never crashed; with the workers stopped before exit returns it never did
 * either (0 of 180).
 *
 * So an exit handler, registered by the runtime's constructor and therefore
 * run after the program's own handlers, asks the OpenMP runtime, if one is
 * loaded, to release its threads (omp_pause_resource_all, OpenMP 5.0; libomp
 * and libgomp have it) while memkind is still whole. Not from inside a
 * parallel region, where the call is not allowed.
 *===----------------------------------------------------------------------===*/
#define _GNU_SOURCE
#include "hmplace_internal.h"

#include <dlfcn.h>
#include <stdlib.h>

static void quiesce_openmp(void) {
  int (*in_parallel)(void) =
      (int (*)(void))dlsym(RTLD_DEFAULT, "omp_in_parallel");
  int (*pause_all)(int) =
      (int (*)(int))dlsym(RTLD_DEFAULT, "omp_pause_resource_all");
  if (!in_parallel || !pause_all || in_parallel())
    return;
  pause_all(2 /* omp_pause_hard */);
}

void hm_teardown_init(void) { atexit(quiesce_openmp); }
