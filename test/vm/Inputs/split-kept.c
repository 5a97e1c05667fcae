// split-kept.c - for split-kept.test: freed split objects, kept for reuse,
// must not hold the HBM a later placed allocation needs. Four split objects
// of different sizes (no reuse among them), 75% HBM each, are made, written
// and freed (the runtime keeps them: about 600 MiB of HBM pages); then one
// whole HBW block of 600 MiB is written. The HBM node has 1 GiB and HBW
// binds (MPOL_BIND): with the kept objects' pages still there, the block's
// pages do not fit and the kernel kills the process.
#include "pages.h"

#include <hmplace.h>
#include <stdio.h>
#include <string.h>

int main(void) {
  setvbuf(stdout, NULL, _IONBF, 0);
  kept_split_objects(4);
  printf("split objects made and freed\n");
  size_t n = (size_t)600 << 20;
  char *q = hmplace_malloc(HMPLACE_HBW, n);
  memset(q, 2, n);
  long counts[MAXN] = {0}, unknown = 0;
  pages_by_node(q, n, counts, &unknown);
  printf("HBW block written: node1 %ld of %zu pages\n", counts[1], n >> 12);
  hmplace_free(q);
  return 0;
}
