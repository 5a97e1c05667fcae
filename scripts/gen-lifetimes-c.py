#!/usr/bin/env python3
"""gen-lifetimes-c.py - a C program whose allocation contexts live in
phases, for the quality benchmark of `hmplan advise` (scripts/bench advise).

  gen-lifetimes-c.py DIR CONTEXTS SEED

writes DIR/ctx.c (one function and one malloc call per context, so that
every context is its own) and DIR/main.c, which runs 40 phases of about
2 ms each (MemProf's timestamps are milliseconds): each context allocates
its objects (1 to 4 live together, 512 B to 1 MiB each, log-uniform) in
its first phase, sweeps them a heavy-tailed number of times in every phase
it lives, and frees them after its last. The same seed gives the same
program.
"""
import os
import random
import sys

out, n, seed = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
rng = random.Random(seed)
PHASES = 40
os.makedirs(out, exist_ok=True)
ctx = []
for i in range(n):
    first = rng.randrange(PHASES)
    last = min(PHASES - 1, first + int(rng.expovariate(1 / 8)))
    size = int(2 ** rng.uniform(9, 20))
    objects = rng.choice([1, 1, 1, 2, 4])
    passes = min(40, int(rng.paretovariate(1.2)) - 1)
    ctx.append((first, last, size, objects, passes))

with open(os.path.join(out, "ctx.c"), "w") as c:
    c.write("#include <stdlib.h>\n\n")
    for i in range(n):
        c.write("char *ctx%d(size_t n) { return malloc(n); }\n" % i)

with open(os.path.join(out, "main.c"), "w") as c:
    c.write("#include <stdlib.h>\n#include <time.h>\n\n")
    for i in range(n):
        c.write("char *ctx%d(size_t n);\n" % i)
    c.write("\ntypedef char *(*fn)(size_t);\nstatic const fn table[] = {\n")
    for i in range(n):
        c.write("    ctx%d,\n" % i)
    c.write("};\n\nstruct spec { int first, last, size, objects, passes; };\n")
    c.write("static const struct spec specs[] = {\n")
    for s in ctx:
        c.write("    {%d, %d, %d, %d, %d},\n" % s)
    c.write("};\n")
    c.write("""
enum { N = sizeof specs / sizeof *specs, PHASES = %d };
static char *live[N][4];
static volatile unsigned long sink;

static void spin_ms(long ms) {
  struct timespec a, b;
  clock_gettime(CLOCK_MONOTONIC, &a);
  do
    clock_gettime(CLOCK_MONOTONIC, &b);
  while ((b.tv_sec - a.tv_sec) * 1000 + (b.tv_nsec - a.tv_nsec) / 1000000 < ms);
}

int main(void) {
  for (int p = 0; p < PHASES; ++p) {
    for (int i = 0; i < N; ++i)
      if (specs[i].first == p)
        for (int o = 0; o < specs[i].objects; ++o)
          live[i][o] = table[i](specs[i].size);
    for (int i = 0; i < N; ++i) {
      if (p < specs[i].first || p > specs[i].last)
        continue;
      for (int o = 0; o < specs[i].objects; ++o) {
        char *b = live[i][o];
        unsigned long s = 0;
        for (int r = 0; r <= specs[i].passes; ++r)
          for (int k = 0; k < specs[i].size; k += 8)
            s += (unsigned char)(b[k] = (char)(k + r));
        sink += s;
      }
    }
    for (int i = 0; i < N; ++i)
      if (specs[i].last == p)
        for (int o = 0; o < specs[i].objects; ++o)
          free(live[i][o]);
    spin_ms(2);
  }
  return 0;
}
""" % PHASES)
