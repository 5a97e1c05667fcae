#!/usr/bin/env python3
"""Write malformed variants of a good misses file (runtime/profile/misses.c's
format) into a directory, one problem each, named in the order
misses-errors.test checks them.

    misses-variants.py GOOD.misses OUTDIR"""
import os
import sys

good = open(sys.argv[1]).read().split("\n")
out = sys.argv[2]
os.makedirs(out, exist_ok=True)
ctx = next(i for i, l in enumerate(good) if l.startswith("ctx "))
buckets = next(i for i, l in enumerate(good) if l.startswith("buckets "))


def variant(name, lines):
    with open(os.path.join(out, name + ".misses"), "w") as f:
        f.write("\n".join(lines))


def at(i, line):
    return good[:i] + [line] + good[i + 1:]


variant("01-not", ["bogus 1"] + good[1:])
variant("02-version", ["hmplace-misses 2"] + good[1:])
variant("03-number", at(2, "pid abc"))
variant("04-bucket", good[:ctx] + ["ctx 1 all 999:5"] + good[ctx:])
variant("05-series", good[:ctx] + ["ctx 1 most 1:5"] + good[ctx:])
variant("06-unknown", at(2, "speed fast"))
variant("07-early", good[:buckets] + ["ctx 1 all 1:5"] + good[buckets:])
variant("08-empty", at(2, ""))
variant("09-after", good[:-1] + ["ctx 1 all 1:5", ""])
variant("10-cut", good[:ctx + 1])
