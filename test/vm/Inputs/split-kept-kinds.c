// split-kept-kinds.c - for split-kept-kinds.test: freed split objects of one
// kind, kept for reuse, must not hold the memory a placed allocation of
// another kind bound to the same node needs. Usage: split-kept-kinds SPLIT
// BLOCK NODE: four split objects, 75% SPLIT (the rest REGULAR), made,
// written and freed (about 600 MiB of pages on NODE, kept), then one whole
// 600 MiB block of kind BLOCK written; prints how many of its pages are on
// NODE. The node has 1 GiB and both kinds bind to it: with the kept pages
// still there, the block does not fit and the kernel kills the process.
#include "pages.h"

#include <hmplace.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static enum hmplace_kind kind(const char *name) {
  static const struct {
    const char *name;
    enum hmplace_kind k;
  } kinds[] = {{"HBW", HMPLACE_HBW},
               {"HBW_ALL", HMPLACE_HBW_ALL},
               {"HIGHEST_BANDWIDTH_LOCAL", HMPLACE_HIGHEST_BANDWIDTH_LOCAL},
               {"DAX_KMEM", HMPLACE_DAX_KMEM},
               {"DAX_KMEM_ALL", HMPLACE_DAX_KMEM_ALL}};
  for (size_t i = 0; i < sizeof kinds / sizeof *kinds; ++i)
    if (!strcmp(kinds[i].name, name))
      return kinds[i].k;
  fprintf(stderr, "unknown kind %s\n", name);
  exit(2);
}

int main(int argc, char **argv) {
  if (argc != 4)
    return 2;
  setvbuf(stdout, NULL, _IONBF, 0);
  enum hmplace_kind s = HMPLACE_SPLIT(kind(argv[1]), 75, HMPLACE_REGULAR);
  int node = atoi(argv[3]);
  for (int i = 0; i < 4; ++i) {
    size_t n = (size_t)(200 + 8 * i) << 20;
    char *p = (char *)hmplace_malloc(s, n);
    memset(p, 1, n);
    hmplace_free(p);
  }
  size_t n = (size_t)600 << 20;
  char *q = hmplace_malloc(kind(argv[2]), n);
  memset(q, 2, n);
  long counts[MAXN] = {0}, unknown = 0;
  pages_by_node(q, n, counts, &unknown);
  printf("%s kept, %s block written: node%d %ld of %zu pages\n", argv[1],
         argv[2], node, counts[node], n >> 12);
  hmplace_free(q);
  return 0;
}
