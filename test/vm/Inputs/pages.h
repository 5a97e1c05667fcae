// pages.h - for the VM tests: where the pages of a block are, pinning a
// thread to a CPU, a kind as hmplace and memkind name it.
#ifndef HM_TEST_PAGES_H
#define HM_TEST_PAGES_H
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <hmplace.h>
#include <memkind.h>
#include <numaif.h>
#include <pthread.h>
#include <sched.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { PAGE = 4096, MAXN = 8 };

// One kind, as hmplace and as memkind name it.
struct kind_pair {
  const char *name;
  enum hmplace_kind hk;
  memkind_t *mk;
};

// Runs the calling thread on \p cpu only, from now on. 0 on success.
static inline int pin(int cpu) {
  cpu_set_t set;
  CPU_ZERO(&set);
  CPU_SET(cpu, &set);
  if (pthread_setaffinity_np(pthread_self(), sizeof set, &set) != 0)
    return -1;
  sched_yield();
  return 0;
}

// Pages of [p, p + n) by node (counts[MAXN]); pages whose node is unknown
// counted in *unknown. Touches nothing.
static inline void pages_by_node(void *p, size_t n, long counts[MAXN],
                                 long *unknown) {
  size_t np = n / PAGE;
  void **pg = malloc(np * sizeof *pg);
  int *st = malloc(np * sizeof *st);
  for (size_t i = 0; i < np; ++i)
    pg[i] = (char *)p + i * PAGE;
  memset(counts, 0, MAXN * sizeof(long));
  *unknown = 0;
  if (move_pages(0, np, pg, NULL, st, 0) != 0) {
    *unknown = (long)np;
  } else {
    for (size_t i = 0; i < np; ++i)
      if (st[i] >= 0 && st[i] < MAXN)
        counts[st[i]]++;
      else
        ++*unknown;
  }
  free(pg);
  free(st);
}

// "node2:2048" or "node2:1024,node3:1024".
static inline void describe(char *buf, size_t len, const long counts[MAXN],
                            long unknown) {
  buf[0] = 0;
  for (int i = 0; i < MAXN; ++i)
    if (counts[i])
      snprintf(buf + strlen(buf), len - strlen(buf), "%snode%d:%ld",
               buf[0] ? "," : "", i, counts[i]);
  if (unknown)
    snprintf(buf + strlen(buf), len - strlen(buf), "%sunknown:%ld",
             buf[0] ? "," : "", unknown);
}

// Makes, writes and frees \p count 75%-HBW split objects of 200, 208, ...
// MiB (sizes apart, so none reuses another): the runtime keeps them, about
// 150 MiB of HBM pages each.
static inline void kept_split_objects(int count) {
  enum hmplace_kind s = HMPLACE_SPLIT(HMPLACE_HBW, 75, HMPLACE_REGULAR);
  for (int i = 0; i < count; ++i) {
    size_t n = (size_t)(200 + 8 * i) << 20;
    char *p = (char *)hmplace_malloc(s, n);
    memset(p, 1, n);
    hmplace_free(p);
  }
}

// The node sets of two blocks are the same and their shares match within
// 2% of the pages (interleaving may start on another node).
static inline int same_nodes(const long a[MAXN], const long b[MAXN],
                             long pages) {
  for (int i = 0; i < MAXN; ++i) {
    if ((a[i] == 0) != (b[i] == 0))
      return 0;
    long d = a[i] - b[i];
    if (d < 0)
      d = -d;
    if (d * 50 > pages)
      return 0;
  }
  return 1;
}
#endif
