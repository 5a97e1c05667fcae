/* hbw.c - hbwmalloc calls whose blocks report their NUMA node (vm tests). */
#include <hbwmalloc.h>
#include <numaif.h>
#include <stdio.h>
#include <string.h>

static int node_of(void *p, size_t n) {
  memset(p, 1, n);
  int node = -1;
  get_mempolicy(&node, NULL, 0, p, MPOL_F_NODE | MPOL_F_ADDR);
  return node;
}

int main(void) {
  size_t n = 8 << 20;
  void *aligned, *kept_aligned;
  char *kept = hbw_malloc(n);
  char *moved = hbw_malloc(n);
  char *zeroed = hbw_calloc(n, 1);
  hbw_posix_memalign(&kept_aligned, 64, n);
  hbw_posix_memalign(&aligned, 64, n);
  printf("kept node %d\nmoved node %d\nzeroed node %d\nkept-aligned node %d\n"
         "aligned node %d\n",
         node_of(kept, n), node_of(moved, n), node_of(zeroed, n),
         node_of(kept_aligned, n), node_of(aligned, n));
  hbw_free(kept);
  hbw_free(moved);
  hbw_free(zeroed);
  hbw_free(kept_aligned);
  hbw_free(aligned);
  return 0;
}
