// Live bytes are added up per thread in batches (placed.h, LIVE_BATCH):
// hmplace_get_stats still reports them exactly at any moment - small blocks
// a thread holds in its batch, blocks of a thread that exited, blocks freed
// by another thread than their allocator's - and the peak is at least what
// was live (exact to one batch per thread).
// RUN: %clang %hmplace_cflags -pthread %s %hmplace_lib -o %t
// RUN: %hbw %t | FileCheck %s
// CHECK: small live 10240
// CHECK-NEXT: thread's blocks live 18432
// CHECK-NEXT: freed here live 0
// CHECK-NEXT: big live 204800 peak ok
// CHECK-NEXT: all freed live 0 peak ok
#include <hmplace.h>
#include <pthread.h>
#include <stdio.h>

static void *Blocks[8];

static void *alloc_and_exit(void *arg) {
  (void)arg;
  for (int i = 0; i < 8; ++i)
    Blocks[i] = hmplace_malloc(HMPLACE_HBW, 1024);
  return NULL;
}

static unsigned long long live(void) {
  struct hmplace_stats s;
  hmplace_get_stats(HMPLACE_HBW, &s);
  return (unsigned long long)s.live;
}

static unsigned long long peak(void) {
  struct hmplace_stats s;
  hmplace_get_stats(HMPLACE_HBW, &s);
  return (unsigned long long)s.peak;
}

int main(void) {
  void *small[10], *big[200];
  for (int i = 0; i < 10; ++i)
    small[i] = hmplace_malloc(HMPLACE_HBW, 1000); /* 1024 usable */
  printf("small live %llu\n", live());
  pthread_t t;
  pthread_create(&t, NULL, alloc_and_exit, NULL);
  pthread_join(t, NULL);
  printf("thread's blocks live %llu\n", live());
  for (int i = 0; i < 8; ++i)
    hmplace_free(Blocks[i]);
  for (int i = 0; i < 10; ++i)
    hmplace_free(small[i]);
  printf("freed here live %llu\n", live());
  for (int i = 0; i < 200; ++i)
    big[i] = hmplace_malloc(HMPLACE_HBW, 1024);
  unsigned long long l = live();
  printf("big live %llu peak %s\n", l, peak() >= l ? "ok" : "low");
  for (int i = 0; i < 200; ++i)
    hmplace_free(big[i]);
  printf("all freed live %llu peak %s\n", live(),
         peak() + 65536 >= l ? "ok" : "low");
  return 0;
}
