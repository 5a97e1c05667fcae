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
#include <unistd.h>

enum { SIZE = 8 << 20 };

static const struct kind_pair Kinds[] = {
    {"HBW", HMPLACE_HBW, &MEMKIND_HBW},
    {"HBW_ALL", HMPLACE_HBW_ALL, &MEMKIND_HBW_ALL},
    {"HBW_PREFERRED", HMPLACE_HBW_PREFERRED, &MEMKIND_HBW_PREFERRED},
    {"HBW_INTERLEAVE", HMPLACE_HBW_INTERLEAVE, &MEMKIND_HBW_INTERLEAVE},
    {"HIGHEST_BANDWIDTH_LOCAL", HMPLACE_HIGHEST_BANDWIDTH_LOCAL,
     &MEMKIND_HIGHEST_BANDWIDTH_LOCAL},
    {"REGULAR", HMPLACE_REGULAR, &MEMKIND_REGULAR},
    {"LOWEST_LATENCY_LOCAL", HMPLACE_LOWEST_LATENCY_LOCAL,
     &MEMKIND_LOWEST_LATENCY_LOCAL},
    // The other kinds: same node, or unavailable for both.
    {"DEFAULT", HMPLACE_DEFAULT, &MEMKIND_DEFAULT},
    {"HUGETLB", HMPLACE_HUGETLB, &MEMKIND_HUGETLB},
    {"HBW_HUGETLB", HMPLACE_HBW_HUGETLB, &MEMKIND_HBW_HUGETLB},
    {"HBW_ALL_HUGETLB", HMPLACE_HBW_ALL_HUGETLB, &MEMKIND_HBW_ALL_HUGETLB},
    {"HBW_PREFERRED_HUGETLB", HMPLACE_HBW_PREFERRED_HUGETLB,
     &MEMKIND_HBW_PREFERRED_HUGETLB},
    {"INTERLEAVE", HMPLACE_INTERLEAVE, &MEMKIND_INTERLEAVE},
    {"DAX_KMEM", HMPLACE_DAX_KMEM, &MEMKIND_DAX_KMEM},
    {"DAX_KMEM_ALL", HMPLACE_DAX_KMEM_ALL, &MEMKIND_DAX_KMEM_ALL},
    {"DAX_KMEM_PREFERRED", HMPLACE_DAX_KMEM_PREFERRED,
     &MEMKIND_DAX_KMEM_PREFERRED},
    {"DAX_KMEM_INTERLEAVE", HMPLACE_DAX_KMEM_INTERLEAVE,
     &MEMKIND_DAX_KMEM_INTERLEAVE},
    {"HIGHEST_CAPACITY", HMPLACE_HIGHEST_CAPACITY, &MEMKIND_HIGHEST_CAPACITY},
    {"HIGHEST_CAPACITY_PREFERRED", HMPLACE_HIGHEST_CAPACITY_PREFERRED,
     &MEMKIND_HIGHEST_CAPACITY_PREFERRED},
    {"HIGHEST_CAPACITY_LOCAL", HMPLACE_HIGHEST_CAPACITY_LOCAL,
     &MEMKIND_HIGHEST_CAPACITY_LOCAL},
    {"HIGHEST_CAPACITY_LOCAL_PREFERRED",
     HMPLACE_HIGHEST_CAPACITY_LOCAL_PREFERRED,
     &MEMKIND_HIGHEST_CAPACITY_LOCAL_PREFERRED},
    {"LOWEST_LATENCY_LOCAL_PREFERRED", HMPLACE_LOWEST_LATENCY_LOCAL_PREFERRED,
     &MEMKIND_LOWEST_LATENCY_LOCAL_PREFERRED},
    {"HIGHEST_BANDWIDTH_LOCAL_PREFERRED",
     HMPLACE_HIGHEST_BANDWIDTH_LOCAL_PREFERRED,
     &MEMKIND_HIGHEST_BANDWIDTH_LOCAL_PREFERRED},
};

static int Failures;

struct job {
  int cpu;
  unsigned k;
};

static void *run(void *arg) {
  struct job *j = arg;
  if (pin(j->cpu)) {
    printf("cannot pin to cpu %d\n", j->cpu);
    Failures++;
    return NULL;
  }
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
  setvbuf(stdout, NULL, _IOLBF, 0); // lines in order if the program dies
  for (unsigned k = 0; k < sizeof Kinds / sizeof *Kinds; ++k)
    for (int i = 1; i < argc; ++i) {
      // One thread at a time, so the order of first use is the argument's.
      struct job j = {atoi(argv[i]), k};
      pthread_t t;
      pthread_create(&t, NULL, run, &j);
      pthread_join(t, NULL);
    }
  printf("%d failures\n", Failures);
  fflush(stdout);
  // memkind 1.14's destructor frees a NUMA bitmask twice after all 23 kinds
  // were used on the 4-socket shape, and aborts (with HMPLACE=off too).
  _exit(Failures != 0);
}
