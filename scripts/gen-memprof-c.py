#!/usr/bin/env python3
"""gen-memprof-c.py - a C program with many allocation contexts, for the
`hmplan advise` benchmark (scripts/bench advise).

  gen-memprof-c.py DIR FILES FUNCS SITES

writes DIR/unitNNN.c (FUNCS x SITES functions of one malloc call each)
and DIR/main.c, which calls every one once through a table, each object
with its own size and number of passes over it: FILES x FUNCS x SITES
contexts, with sizes from 64 B to 64 KiB, eight objects live at a time.
"""
import os
import sys

out, files, funcs, sites = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), int(sys.argv[4])
os.makedirs(out, exist_ok=True)
for f in range(files):
    with open(os.path.join(out, "unit%03d.c" % f), "w") as c:
        c.write("#include <stdlib.h>\n\n")
        for g in range(funcs):
            # One function per call site: identical calls in one function
            # are merged by the optimiser (one site, one context).
            for s in range(sites):
                c.write("double *f%d_%d_%d(size_t n) {\n"
                        "  double *p = malloc(n * sizeof *p);\n"
                        "  for (size_t i = 0; i < n; ++i)\n    p[i] = (double)i;\n"
                        "  return p;\n}\n\n" % (f, g, s))
with open(os.path.join(out, "main.c"), "w") as c:
    c.write("#include <stdlib.h>\n\n")
    names = ["f%d_%d_%d" % (f, g, s) for f in range(files) for g in range(funcs)
             for s in range(sites)]
    for n in names:
        c.write("double *%s(size_t n);\n" % n)
    c.write("\ntypedef double *(*fn)(size_t);\nstatic fn table[] = {\n")
    for n in names:
        c.write("    %s,\n" % n)
    c.write("};\n\nint main(void) {\n  double s = 0;\n  double *live[8] = {0};\n")
    c.write("  for (unsigned k = 0; k < sizeof table / sizeof *table; ++k) {\n")
    c.write("    size_t n = 8 + (k * 2654435761u) % 8192;\n")
    c.write("    double *p = table[k](n);\n")
    c.write("    for (unsigned r = 0; r < k % 5; ++r)\n")
    c.write("      for (size_t i = 0; i < n; ++i)\n        s += p[i];\n")
    c.write("    free(live[k % 8]);\n    live[k % 8] = p;\n  }\n")
    c.write("  for (int i = 0; i < 8; ++i)\n    free(live[i]);\n  return s < 0;\n}\n")
