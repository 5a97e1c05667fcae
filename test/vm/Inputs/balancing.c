// balancing.c - for the VM test of the report under NUMA balancing: a
// placed block of the default policy (which the kernel's NUMA balancing
// watches), written, then left alone while the thread keeps its CPU busy
// (the balancer's scan runs from the scheduler tick and turns the block's
// page table entries into NUMA hinting entries, for which move_pages answers
// -EFAULT). Prints how many pages move_pages could not name just before the
// exit-time report, which must still place them.
#define _GNU_SOURCE
#include <hmplace.h>
#include <numaif.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

int main(int argc, char **argv) {
  size_t n = 64ul << 20;
  long np = (long)(n / 4096);
  char *p = hmplace_malloc(HMPLACE_DEFAULT, n);
  memset(p, 1, n);
  int secs = argc > 1 ? atoi(argv[1]) : 6;
  void **pg = malloc(np * sizeof *pg);
  int *st = malloc(np * sizeof *st);
  // Whole pages of the block only.
  char *b = (char *)(((unsigned long)p + 4095) & ~4095ul);
  np = (long)((p + n - b) / 4096);
  for (long i = 0; i < np; ++i)
    pg[i] = b + i * 4096;
  long efault = 0;
  for (time_t end = time(NULL) + secs; time(NULL) < end;) {
    for (time_t t0 = time(NULL); time(NULL) == t0;)
      ; // busy: the scheduler tick runs the balancer's scan
    efault = 0;
    if (move_pages(0, np, pg, NULL, st, 0) == 0)
      for (long i = 0; i < np; ++i)
        efault += st[i] == -14;
  }
  printf("pages move_pages cannot name at exit: %s\n",
         efault > np / 2 ? "most" : "few");
  fflush(stdout);
  return 0;
}
