// Stress: eight threads (on however few cores) make placed blocks of two
// kinds and ordinary ones, hand them to each other through a shared table
// (so most are freed or reallocated by another thread than the one that
// made them), and check each block's contents on the way: no block is
// corrupted or lost, and every kind's live bytes are back to 0 at the end.
// 1.6M operations with the shared runtime, fewer under TSan (the runtime's
// own code instrumented; all frees through hmplace_free there).
// RUN: %clang %hmplace_cflags -O1 %s %hmplace_lib -o %t
// RUN: %hbw %t 200000 2>&1 | FileCheck %s
// RUN: %if sanitizers %{ %clang %hmplace_cflags -O1 %s %hmplace_tsan_lib -o %t.tsan %}
// RUN: %if sanitizers %{ %hbw env TSAN_OPTIONS=halt_on_error=1 %t.tsan 10000 2>&1 | FileCheck %s %}
// CHECK: corrupt 0, live HBW 0, live REGULAR 0
#include <hmplace.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { THREADS = 8, SLOTS = 4096 };

struct block {
  uint32_t magic, tag; // the tag is written at both ends
  size_t n;
};
enum { MAGIC = 0x5a5aa5a5 };
static _Atomic(struct block *) Table[SLOTS];
static atomic_long Corrupt;
static long Iters;

static int intact(const struct block *b) {
  uint32_t end;
  memcpy(&end, (const char *)b + b->n - 4, 4);
  return b->magic == MAGIC && end == b->tag;
}

static struct block *seal(struct block *b, size_t n, unsigned *seed) {
  b->n = n;
  b->magic = MAGIC;
  b->tag = (uint32_t)rand_r(seed);
  memcpy((char *)b + n - 4, &b->tag, 4);
  return b;
}

static void *worker(void *arg) {
  unsigned seed = (unsigned)(uintptr_t)arg;
  for (long i = 0; i < Iters; ++i) {
    size_t n = 32 + rand_r(&seed) % (rand_r(&seed) % 16 ? 2048 : 200000);
    int how = rand_r(&seed) % 3;
    struct block *b = how == 0   ? hmplace_malloc(HMPLACE_HBW, n)
                      : how == 1 ? hmplace_malloc(HMPLACE_REGULAR, n)
                                 : malloc(n);
    seal(b, n, &seed);
    // Swap it into the table: the block taken out was made by anyone.
    struct block *old = atomic_exchange(&Table[rand_r(&seed) % SLOTS], b);
    if (!old)
      continue;
    if (!intact(old))
      atomic_fetch_add(&Corrupt, 1);
    if (rand_r(&seed) % 4 == 0) {
      size_t m = 32 + rand_r(&seed) % 100000;
      size_t keep = old->n;
      old->n = 0;
      struct block *r = hmplace_realloc(old, m);
      // The old contents up to the smaller size moved with it.
      r->n = keep;
      if (keep <= m && !intact(r))
        atomic_fetch_add(&Corrupt, 1);
      seal(r, m, &seed);
      old = atomic_exchange(&Table[rand_r(&seed) % SLOTS], r);
      if (old && !intact(old))
        atomic_fetch_add(&Corrupt, 1);
    }
    hmplace_free(old);
  }
  return NULL;
}

int main(int argc, char **argv) {
  Iters = argc > 1 ? atol(argv[1]) : 100000;
  pthread_t t[THREADS];
  for (int i = 0; i < THREADS; ++i)
    pthread_create(&t[i], NULL, worker, (void *)(uintptr_t)(i + 1));
  for (int i = 0; i < THREADS; ++i)
    pthread_join(t[i], NULL);
  for (int i = 0; i < SLOTS; ++i) {
    struct block *b = atomic_load(&Table[i]);
    if (b && !intact(b))
      atomic_fetch_add(&Corrupt, 1);
    hmplace_free(b);
  }
  struct hmplace_stats h, r;
  hmplace_get_stats(HMPLACE_HBW, &h);
  hmplace_get_stats(HMPLACE_REGULAR, &r);
  printf("corrupt %ld, live HBW %llu, live REGULAR %llu\n",
         atomic_load(&Corrupt), (unsigned long long)h.live,
         (unsigned long long)r.live);
  return 0;
}
