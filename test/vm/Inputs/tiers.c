// tiers.c - for the VM placement tests: an ordinary program (plain malloc,
// calloc, realloc, a wrapper) whose arrays a plan sends to different tiers,
// built by hmrewrite or by HmPlace.so. Each array is written (first touch),
// then its pages are looked up one by one: counts by node, and the node of
// its first, middle and last page.
#include <numaif.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { PAGE = 4096, MAXN = 8 };
#define MiB (1ul << 20)

static void where(const char *name, void *p, size_t n) {
  memset(p, 1, n);
  // Whole pages inside the block only: its ends may share a page with
  // other blocks of the heap.
  char *b = (char *)(((unsigned long)p + PAGE - 1) & ~(unsigned long)(PAGE - 1));
  size_t np = ((char *)p + n - b) / PAGE;
  void **pg = malloc(np * sizeof *pg);
  int *st = malloc(np * sizeof *st);
  for (size_t i = 0; i < np; ++i)
    pg[i] = b + i * PAGE;
  long counts[MAXN] = {0}, unknown = 0;
  if (move_pages(0, np, pg, NULL, st, 0) != 0) {
    perror("move_pages");
    exit(2);
  }
  for (size_t i = 0; i < np; ++i)
    if (st[i] >= 0 && st[i] < MAXN)
      counts[st[i]]++;
    else
      unknown++;
  printf("%s:", name);
  for (int i = 0; i < MAXN; ++i)
    if (counts[i])
      printf(" node%d=%ld", i, counts[i]);
  printf(" unknown=%ld first=%d middle=%d last=%d\n", unknown, st[0],
         st[np / 2], st[np - 1]);
  free(pg);
  free(st);
}

// The advisor names the object allocated here through main's call at
// line 62 (a call-stack entry); the wrapper's other caller stays in DDR.
static void *xmalloc(size_t n) {
  void *p = malloc(n);
  if (!p)
    abort();
  return p;
}

int main(void) {
  size_t n = 8 * MiB;
  double *hot = malloc(n);
  double *pref = calloc(n / sizeof(double), sizeof(double));
  double *reg = malloc(n);
  double *cold = malloc(n);
  double *grown = realloc(NULL, n / 2);
  grown = realloc(grown, n);
  double *slow = malloc(n);
  double *viaw = xmalloc(n);
  double *other = xmalloc(n);
  where("hot", hot, n);
  where("pref", pref, n);
  where("reg", reg, n);
  where("cold", cold, n);
  where("grown", grown, n);
  where("slow", slow, n);
  where("viaw", viaw, n);
  where("other", other, n);
  free(hot);
  free(pref);
  free(reg);
  free(cold);
  free(grown);
  free(slow);
  free(viaw);
  free(other);
  return 0;
}
