// Many threads allocate placed and heap blocks and free each other's
// (cross-thread frees), while others set budgets and read stats. Run under
// TSan with the instrumented runtime; checks the accounting at the end.
// RUN: %clang %hmplace_cflags -fopenmp %s %hmplace_lib -o %t
// RUN: %hbw env OMP_NUM_THREADS=4 %t | FileCheck %s
// RUN: %if sanitizers %{ %clang %hmplace_cflags -pthread -DNO_OMP %s %hmplace_tsan_lib -o %t.tsan %}
// RUN: %if sanitizers %{ %hbw env TSAN_OPTIONS=halt_on_error=1 %t.tsan 2>&1 | FileCheck %s %}
// RUN: %if sanitizers %{ %clang %hmplace_cflags -pthread -DNO_OMP %s %hmplace_asan_lib -o %t.asan %}
// RUN: %if sanitizers %{ %hbw %t.asan 2>&1 | FileCheck %s %}
#include "Inputs/expect.h"
#include <hmplace.h>
#include <pthread.h>

enum { THREADS = 4, ROUNDS = 20000 };
static void *slots[THREADS][64];

static void work(int t) {
  for (int i = 0; i < ROUNDS; ++i) {
    int s = i % 64;
    // Free what a neighbour allocated earlier in this slot, if anything.
    void *old = __atomic_exchange_n(&slots[(t + 1) % THREADS][s], NULL,
                                    __ATOMIC_ACQ_REL);
    if (old)
      hmplace_free(old);
    void *p = (i & 1) ? hmplace_malloc(HMPLACE_HBW, 16 + (size_t)(i % 500))
                      : hmplace_realloc(NULL, 32);
    if (i % 7 == 0)
      p = hmplace_realloc(p, 1000);
    old = __atomic_exchange_n(&slots[t][s], p, __ATOMIC_ACQ_REL);
    if (old)
      hmplace_free(old);
    if (i % 1000 == 0) {
      struct hmplace_stats st;
      hmplace_get_stats(HMPLACE_HBW, &st);
    }
  }
}

#ifdef NO_OMP
static void *run(void *a) {
  work((int)(long)a);
  return NULL;
}
#endif

int main(void) {
#ifdef NO_OMP
  pthread_t th[THREADS];
  for (long t = 0; t < THREADS; ++t)
    pthread_create(&th[t], NULL, run, (void *)t);
  for (int t = 0; t < THREADS; ++t)
    pthread_join(th[t], NULL);
#else
#pragma omp parallel for num_threads(THREADS)
  for (int t = 0; t < THREADS; ++t)
    work(t);
#endif
  for (int t = 0; t < THREADS; ++t)
    for (int s = 0; s < 64; ++s)
      hmplace_free(slots[t][s]);
  struct hmplace_stats st;
  hmplace_get_stats(HMPLACE_HBW, &st);
  printf("threads ok: allocs %llu live %llu\n",
         (unsigned long long)st.allocs, (unsigned long long)st.live);
  // CHECK: threads ok: allocs 40000 live 0
  // CHECK-NOT: ThreadSanitizer
  return 0;
}
