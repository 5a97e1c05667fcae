// split.c - for the VM split test: a 32 MiB array (site 1, split 75% HBM /
// 25% DDR by the plan), a 32 MiB array the plan leaves alone; each filled,
// then where its pages are, as a whole and in each eighth. The split one is
// left live for the report at exit.
#include "pages.h"

static void show(const char *name, char *p, size_t n) {
  memset(p, 1, n);
  long c[MAXN], unknown;
  pages_by_node(p, n, c, &unknown);
  long pages = (long)(n / PAGE);
  printf("%s: node1 %ld%% of %ld pages, unknown %ld; eighths:", name,
         (100 * c[1] + pages / 2) / pages, pages, unknown);
  int ok = 1;
  for (int e = 0; e < 8; ++e) {
    long ce[MAXN], ue;
    pages_by_node(p + e * (n / 8), n / 8, ce, &ue);
    long pe = (long)(n / 8 / PAGE), s = (100 * ce[1] + pe / 2) / pe;
    printf(" %ld", s);
    ok &= labs(s * pages - 100 * c[1]) <= 10 * pages;
  }
  printf(" (%s)\n", ok ? "each within 10 points" : "UNEVEN");
}

int main(void) {
  size_t n = 32u << 20;
  char *split = malloc(n);
  char *plain = malloc(n);
  show("split", split, n);
  show("plain", plain, n);
  free(plain);
  return 0; /* split stays live: the report at exit counts its pages */
}
