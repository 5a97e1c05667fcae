// place-blocks.c - places COUNT blocks of MIB MiB of kind KIND (by name),
// touches TOUCH pages of each (all if -1), and prints how many were placed,
// where their touched pages are, and how much commit (Committed_AS) and
// address space (VmSize) grew while doing so.
//   place-blocks KIND COUNT MIB [TOUCH]
#include <hmplace.h>
#include <numaif.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static long meminfo_kb(const char *file, const char *key) {
  FILE *f = fopen(file, "r");
  char line[256];
  long v = -1;
  size_t n = strlen(key);
  while (f && fgets(line, sizeof line, f))
    if (!strncmp(line, key, n) && line[n] == ':')
      v = atol(line + n + 1);
  if (f)
    fclose(f);
  return v;
}

int main(int argc, char **argv) {
  if (argc < 4)
    return 2;
  int kind = -1;
  for (int k = 0; k < HMPLACE_KIND_COUNT; ++k)
    if (!strcmp(hmplace_kind_name((enum hmplace_kind)k) + 8, argv[1]))
      kind = k;
  int count = atoi(argv[2]);
  size_t size = (size_t)atol(argv[3]) << 20;
  long touch = argc > 4 ? atol(argv[4]) : -1;
  long commit0 = meminfo_kb("/proc/meminfo", "Committed_AS");
  long vm0 = meminfo_kb("/proc/self/status", "VmSize");
  int placed = 0, heap = 0, failed = 0;
  long nodes[8] = {0};
  for (int i = 0; i < count; ++i) {
    char *p = hmplace_malloc((enum hmplace_kind)kind, size);
    if (!p) {
      ++failed;
      continue;
    }
    if (hmplace_owner(p) == kind + 1)
      ++placed;
    else
      ++heap;
    size_t pages = size / 4096;
    size_t step = touch < 0 || (size_t)touch >= pages ? 1 : pages / touch;
    for (size_t pg = 0; pg < pages; pg += step) {
      p[pg * 4096] = 1;
      int node = -1;
      if (get_mempolicy(&node, NULL, 0, p + pg * 4096,
                        MPOL_F_NODE | MPOL_F_ADDR) == 0 &&
          node >= 0 && node < 8)
        nodes[node]++;
    }
  }
  printf("%s: placed %d of %d, heap %d, failed %d; touched pages:", argv[1],
         placed, count, heap, failed);
  for (int n = 0; n < 8; ++n)
    if (nodes[n])
      printf(" node%d:%ld", n, nodes[n]);
  long commit1 = meminfo_kb("/proc/meminfo", "Committed_AS");
  long vm1 = meminfo_kb("/proc/self/status", "VmSize");
  long placed_mib = (long)(placed * (size >> 20));
  long heap_mib = (long)(heap * (size >> 20));
  printf("\ncommit grew %ld MiB, address space grew %ld MiB, for %ld MiB "
         "placed\n",
         (commit1 - commit0) / 1024, (vm1 - vm0) / 1024, placed_mib);
  // What the runtime committed beyond the blocks it handed out (and beyond
  // the ordinary heap's blocks, which commit their own size).
  printf("commit overhead %ld MiB\n",
         (commit1 - commit0) / 1024 - placed_mib - heap_mib);
  return 0;
}
