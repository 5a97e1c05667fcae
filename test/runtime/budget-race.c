// Budgets are exact under concurrency: eight threads race for the last
// bytes of a 16 MiB HBW budget, round after round (a barrier starts each
// round), each taking 1 MiB blocks until the kind refuses; the kind's live
// bytes never exceed the budget (checked after every placed block), the
// budget is filled exactly in every round, and everything is given back.
// Growing reallocs race the same way. Also under TSan.
// RUN: %clang %hmplace_cflags -O1 %s %hmplace_lib -o %t
// RUN: %hbw %t 2>&1 | FileCheck %s
// RUN: %if sanitizers %{ %clang %hmplace_cflags -O1 %s %hmplace_tsan_lib -o %t.tsan %}
// RUN: %if sanitizers %{ %hbw env TSAN_OPTIONS=halt_on_error=1 %t.tsan 2>&1 | FileCheck %s %}
// CHECK: over budget 0, rounds not full 0, realloc over budget 0, live at end 0
#include <hmplace.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>

enum { THREADS = 8, ROUNDS = 200, MIB = 1 << 20, BUDGET = 16 * MIB };

static pthread_barrier_t Start, Done;
static atomic_int Over, NotFull, ReallocOver, PlacedThisRound;

static void check_live(atomic_int *bad) {
  struct hmplace_stats s;
  hmplace_get_stats(HMPLACE_HBW, &s);
  if (s.live > BUDGET)
    atomic_fetch_add(bad, 1);
}

static void *worker(void *arg) {
  (void)arg;
  void *mine[16];
  for (int r = 0; r < ROUNDS; ++r) {
    pthread_barrier_wait(&Start);
    int n = 0;
    while (n < 16) {
      void *p = hmplace_malloc(HMPLACE_HBW, MIB);
      if (!hmplace_owner(p)) {
        hmplace_free(p);
        break;
      }
      mine[n++] = p;
      atomic_fetch_add(&PlacedThisRound, 1);
      check_live(&Over);
    }
    pthread_barrier_wait(&Done);
    // Then grow half of them: placed reallocs race for the budget too.
    for (int i = 0; i < n; i += 2) {
      mine[i] = hmplace_realloc(mine[i], 2 * MIB);
      check_live(&ReallocOver);
    }
    pthread_barrier_wait(&Done);
    for (int i = 0; i < n; ++i)
      hmplace_free(mine[i]);
    pthread_barrier_wait(&Done);
  }
  return NULL;
}

int main(void) {
  hmplace_set_budget(HMPLACE_HBW, BUDGET);
  pthread_barrier_init(&Start, NULL, THREADS + 1);
  pthread_barrier_init(&Done, NULL, THREADS + 1);
  pthread_t t[THREADS];
  for (int i = 0; i < THREADS; ++i)
    pthread_create(&t[i], NULL, worker, NULL);
  for (int r = 0; r < ROUNDS; ++r) {
    atomic_store(&PlacedThisRound, 0);
    pthread_barrier_wait(&Start);
    pthread_barrier_wait(&Done);
    if (atomic_load(&PlacedThisRound) != BUDGET / MIB)
      atomic_fetch_add(&NotFull, 1);
    pthread_barrier_wait(&Done);
    pthread_barrier_wait(&Done);
  }
  for (int i = 0; i < THREADS; ++i)
    pthread_join(t[i], NULL);
  struct hmplace_stats s;
  hmplace_get_stats(HMPLACE_HBW, &s);
  printf("over budget %d, rounds not full %d, realloc over budget %d, live at "
         "end %llu\n",
         atomic_load(&Over), atomic_load(&NotFull), atomic_load(&ReallocOver),
         (unsigned long long)s.live);
  return 0;
}
