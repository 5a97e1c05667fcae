#!/usr/bin/env python3
"""gen-large-c.py DIR [FILES] [FUNCS] [EVERY] - write a large synthetic C code
base for scripts/bench: FILES translation units of FUNCS functions each,
mixing the allocation styles of real HPC codes (malloc/calloc/realloc/
aligned_alloc/posix_memalign/strdup, casts, wrappers, macros, frees far from
allocations) with ordinary arithmetic (13 allocation or free calls per 37
lines), plus a plan that places three sites of every EVERY-th function
(default 3)."""
import os
import sys

out = sys.argv[1]
files = int(sys.argv[2]) if len(sys.argv) > 2 else 24
funcs = int(sys.argv[3]) if len(sys.argv) > 3 else 400
every = int(sys.argv[4]) if len(sys.argv) > 4 else 3
os.makedirs(out, exist_ok=True)

HEADER = """#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define ALLOC_ARRAY(T, n) ((T *)malloc(sizeof(T) * (size_t)(n)))
typedef struct {{ double *a, *b; size_t n; char *tag; }} blk_{f}_t;
"""

BODY = """
blk_{f}_t *make_{f}_{i}(size_t n, const char *tag) {{
  blk_{f}_t *b = malloc(sizeof *b);
  b->a = (double *)calloc(n, sizeof(double));
  b->b = aligned_alloc(64, ((n * sizeof(double) + 63) / 64) * 64);
  b->tag = strdup(tag);
  b->n = n;
  for (size_t k = 0; k < n; ++k) {{
    b->a[k] = sin((double)k * {i}.5) + {f};
    b->b[k] = b->a[k] * b->a[k] - 0.5 * (double)k;
  }}
  return b;
}}

double use_{f}_{i}(blk_{f}_t *b) {{
  double s = 0.0, *tmp = NULL;
  if (posix_memalign((void **)&tmp, 64, b->n * sizeof(double)) != 0)
    return -1.0;
  int *idx = ALLOC_ARRAY(int, b->n);
  for (size_t k = 0; k < b->n; ++k) {{
    idx[k] = (int)((k * 7 + {i}) % b->n);
    tmp[k] = b->a[idx[k]] + b->b[k];
    s += tmp[k] > 0 ? sqrt(tmp[k]) : -tmp[k];
  }}
  b->a = realloc(b->a, 2 * b->n * sizeof(double));
  free(idx);
  free(tmp);
  return s;
}}

void drop_{f}_{i}(blk_{f}_t *b) {{
  free(b->a), free(b->b), free(b->tag), free(b);
}}
"""

plan = ["version: 1", "sites:"]
for f in range(files):
    path = os.path.join(out, "unit%03d.c" % f)
    with open(path, "w") as fh:
        fh.write(HEADER.format(f=f))
        line = HEADER.count("\n") + 1
        for i in range(funcs):
            text = BODY.format(f=f, i=i)
            for n, l in enumerate(text.split("\n")):
                if ("calloc(" in l or "aligned_alloc(" in l or
                        "posix_memalign(" in l) and (i % every == 0):
                    plan.append("  - {site: unit%03d.c:%d, kind: hbm}" % (f, line + n))
            fh.write(text)
            line += text.count("\n")
with open(os.path.join(out, "plan.yaml"), "w") as fh:
    fh.write("\n".join(plan) + "\n")
