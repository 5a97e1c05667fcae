// kinds-vs-memkind.c - for each kind, a thread pinned to each CPU (in the
// order given) allocates one block with memkind and one with hmplace_malloc,
// touches both and prints where their pages are, and whether they agree.
// Blocks are not freed (8 MiB each, 2 per kind and CPU).
//   kinds-vs-memkind CPU CPU...
#define _GNU_SOURCE
#include "pages.h"
#include <hmplace.h>
#include <memkind.h>
#include <pthread.h>
#include <sched.h>

enum { SIZE = 8 << 20 };

static const struct {
  const char *name;
  enum hmplace_kind hk;
  memkind_t *mk;
} Kinds[] = {
    {"HBW", HMPLACE_HBW, &MEMKIND_HBW},
    {"HBW_ALL", HMPLACE_HBW_ALL, &MEMKIND_HBW_ALL},
    {"HBW_PREFERRED", HMPLACE_HBW_PREFERRED, &MEMKIND_HBW_PREFERRED},
    {"HBW_INTERLEAVE", HMPLACE_HBW_INTERLEAVE, &MEMKIND_HBW_INTERLEAVE},
    {"HIGHEST_BANDWIDTH_LOCAL", HMPLACE_HIGHEST_BANDWIDTH_LOCAL,
     &MEMKIND_HIGHEST_BANDWIDTH_LOCAL},
    {"REGULAR", HMPLACE_REGULAR, &MEMKIND_REGULAR},
    {"LOWEST_LATENCY_LOCAL", HMPLACE_LOWEST_LATENCY_LOCAL,
     &MEMKIND_LOWEST_LATENCY_LOCAL},
};

static int Failures;

struct job {
  int cpu;
  unsigned k;
};

static void *run(void *arg) {
  struct job *j = arg;
  cpu_set_t set;
  CPU_ZERO(&set);
  CPU_SET(j->cpu, &set);
  if (pthread_setaffinity_np(pthread_self(), sizeof set, &set) != 0) {
    printf("cannot pin to cpu %d\n", j->cpu);
    Failures++;
    return NULL;
  }
  sched_yield();
  memkind_t mk = *Kinds[j->k].mk;
  void *m = memkind_malloc(mk, SIZE);
  void *h = hmplace_malloc(Kinds[j->k].hk, SIZE);
  if (!m && h && hmplace_owner(h) == 0) {
    // memkind cannot serve the kind here (HBW_PREFERRED with two nearest
    // HBM nodes): neither places it.
    printf("%s cpu%d: memkind unavailable hmplace heap same\n",
           Kinds[j->k].name, j->cpu);
    return NULL;
  }
  if (!m || !h || hmplace_owner(h) != (int)Kinds[j->k].hk + 1) {
    printf("%s cpu%d: memkind %p hmplace %p owner %d\n", Kinds[j->k].name,
           j->cpu, m, h, hmplace_owner(h));
    Failures++;
    return NULL;
  }
  memset(m, 1, SIZE);
  memset(h, 1, SIZE);
  long a[MAXN], b[MAXN], ua, ub;
  pages_by_node(m, SIZE, a, &ua);
  pages_by_node(h, SIZE, b, &ub);
  char da[128], db[128];
  describe(da, sizeof da, a, ua);
  describe(db, sizeof db, b, ub);
  int same = !ua && !ub && same_nodes(a, b, SIZE / PAGE);
  printf("%s cpu%d: memkind %s hmplace %s %s\n", Kinds[j->k].name, j->cpu, da,
         db, same ? "same" : "DIFFERENT");
  Failures += !same;
  // Both blocks stay live: a freed block would be reused by the next thread
  // with the pages where they are, for memkind as for hmplace.
  return NULL;
}

int main(int argc, char **argv) {
  for (unsigned k = 0; k < sizeof Kinds / sizeof *Kinds; ++k)
    for (int i = 1; i < argc; ++i) {
      // One thread at a time, so the order of first use is the argument's.
      struct job j = {atoi(argv[i]), k};
      pthread_t t;
      pthread_create(&t, NULL, run, &j);
      pthread_join(t, NULL);
    }
  printf("%d failures\n", Failures);
  return Failures != 0;
}
