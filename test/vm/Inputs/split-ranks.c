// split-ranks.c - for split-kept-ranks.test: two "ranks" on one node share
// its HBM through a per-node budget; what one keeps of freed split objects
// must not hold what the other places.
//   split-ranks keep READY DONE   makes, writes and frees three split
//       objects (75% HBW, about 470 MiB of HBM pages in all, kept), then
//       writes a whole 100 MiB HBW block, creates READY and waits for DONE
//   split-ranks take              writes a whole 500 MiB HBW block
#include "pages.h"

#include <hmplace.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

static void written(const char *who, char *p, size_t n) {
  long counts[MAXN] = {0}, unknown = 0;
  pages_by_node(p, n, counts, &unknown);
  printf("%s: HBW block written: node1 %ld of %zu pages\n", who, counts[1],
         n >> 12);
}

static int keep(const char *ready, const char *done) {
  kept_split_objects(3);
  size_t n = (size_t)100 << 20;
  char *q = hmplace_malloc(HMPLACE_HBW, n);
  memset(q, 2, n);
  fclose(fopen(ready, "w"));
  for (int t = 0; t < 1200 && access(done, F_OK) != 0; ++t)
    usleep(100000);
  written("keeper", q, n);
  hmplace_free(q);
  return 0;
}

static int take(void) {
  size_t n = (size_t)500 << 20;
  char *q = hmplace_malloc(HMPLACE_HBW, n);
  memset(q, 3, n);
  written("taker", q, n);
  hmplace_free(q);
  return 0;
}

int main(int argc, char **argv) {
  setvbuf(stdout, NULL, _IONBF, 0);
  if (argc == 4 && strcmp(argv[1], "keep") == 0)
    return keep(argv[2], argv[3]);
  if (argc == 2 && strcmp(argv[1], "take") == 0)
    return take();
  fprintf(stderr, "usage: split-ranks keep READY DONE | take\n");
  return 2;
}
