// cache-node.c - small placed blocks keep to their node through the
// runtime's per-thread caches: a thread on CPU 0 allocates HBW blocks, a
// thread on CPU 1 frees them all (into its cache), then allocates as many:
// every one of its blocks must be on its own socket's HBM node.
#include "pages.h"
#include <hmplace.h>
#include <numaif.h>
#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { N = 2000, SIZE = 256 };
static char *Blocks[N];

static void count(const char *what, char **b) {
  long nodes[8] = {0}, unknown = 0;
  for (int i = 0; i < N; ++i) {
    int node = -1;
    if (get_mempolicy(&node, NULL, 0, b[i], MPOL_F_NODE | MPOL_F_ADDR) ||
        node < 0 || node >= 8)
      ++unknown;
    else
      nodes[node]++;
  }
  printf("%s:", what);
  for (int n = 0; n < 8; ++n)
    if (nodes[n])
      printf(" node%d:%ld", n, nodes[n]);
  if (unknown)
    printf(" unknown:%ld", unknown);
  printf("\n");
}

static void *on_cpu0(void *arg) {
  (void)arg;
  if (pin(0))
    abort();
  for (int i = 0; i < N; ++i) {
    Blocks[i] = hmplace_malloc(HMPLACE_HBW, SIZE);
    memset(Blocks[i], 1, SIZE);
  }
  count("cpu0 allocated", Blocks);
  return NULL;
}

static void *on_cpu1(void *arg) {
  (void)arg;
  if (pin(1))
    abort();
  for (int i = 0; i < N; ++i)
    hmplace_free(Blocks[i]);
  char *mine[N];
  for (int i = 0; i < N; ++i) {
    mine[i] = hmplace_malloc(HMPLACE_HBW, SIZE);
    memset(mine[i], 2, SIZE);
  }
  count("cpu1 allocated after freeing cpu0's", mine);
  for (int i = 0; i < N; ++i)
    hmplace_free(mine[i]);
  return NULL;
}

int main(void) {
  pthread_t t;
  pthread_create(&t, NULL, on_cpu0, NULL);
  pthread_join(t, NULL);
  pthread_create(&t, NULL, on_cpu1, NULL);
  pthread_join(t, NULL);
  return 0;
}
