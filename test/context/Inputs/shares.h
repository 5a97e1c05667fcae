/* shares.h - how an object's pages are split across kinds, for the split
 * tests: the kernel's policy of each page (get_mempolicy on the address;
 * HBW_PREFERRED's pages are MPOL_PREFERRED, REGULAR's MPOL_BIND, so on one
 * node the parts are still told apart). Link -lnuma. */
#ifndef SHARES_H
#define SHARES_H
#include <numaif.h>
#include <stdio.h>

/* Percent of the pages of [p, p+n) with policy mode \p mode. */
static int pages_with(const char *p, size_t n, int mode) {
  size_t in = 0, all = 0;
  for (size_t off = 0; off < n; off += 4096, ++all) {
    int m = -1;
    if (get_mempolicy(&m, NULL, 0, (void *)(p + off), MPOL_F_ADDR) != 0)
      return -1;
    in += (m & 0xff) == mode;
  }
  return all ? (int)(100 * in / all) : 0;
}

/* "name: preferred 75% (every eighth within 10 points)": the share of
 * MPOL_PREFERRED pages, rounded to 5, and whether each eighth holds it. */
static void print_split(const char *name, const void *obj, size_t n) {
  const char *p = (const char *)obj;
  int all = pages_with(p, n, MPOL_PREFERRED), ok = 1;
  for (int e = 0; e < 8; ++e) {
    int s = pages_with(p + e * (n / 8), n / 8, MPOL_PREFERRED);
    ok &= s >= all - 10 && s <= all + 10;
  }
  printf("%s: preferred %d%% (%s)\n", name, (all + 2) / 5 * 5,
         ok ? "every eighth within 10 points" : "uneven");
}
#endif
