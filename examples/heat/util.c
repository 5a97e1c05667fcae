/* util.c - checked allocation wrappers. */
#include "util.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void *xmalloc(size_t n) {
  void *p = malloc(n);
  if (!p && n) {
    fprintf(stderr, "out of memory (%zu bytes)\n", n);
    exit(1);
  }
  return p;
}

char *xstrdup(const char *s) {
  char *d = strdup(s);
  if (!d) {
    fprintf(stderr, "out of memory\n");
    exit(1);
  }
  return d;
}
