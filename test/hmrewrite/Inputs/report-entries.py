#!/usr/bin/env python3
"""report-entries.py - the runtime's JSON reports, as lines to compare.

Prints each call-stack entry (name, kind, objects) and each kind's placed
allocations of the first report; with several reports, also whether they
all say the same ("the same in all N") or how they differ.
"""
import json
import sys


def lines(path):
    with open(path) as f:
        rep = json.load(f)
    out = ["%s %s %d" % (e["entry"], e["kind"], e["objects"])
           for e in sorted(rep["entries"], key=lambda e: e["entry"])]
    out += ["%s allocs %d" % (k["kind"], k["allocs"])
            for k in sorted(rep["kinds"], key=lambda k: k["kind"])
            if k["allocs"]]
    return out


reports = [lines(p) for p in sys.argv[1:]]
print("\n".join(reports[0]))
if len(reports) > 1:
    if all(r == reports[0] for r in reports):
        print("the same in all %d" % len(reports))
    else:
        for p, r in zip(sys.argv[1:], reports):
            print("== %s\n%s" % (p, "\n".join(r)))
        sys.exit(1)
