#!/usr/bin/python3
"""advise-dhat.py - an advised plan measured against valgrind's DHAT, for
scripts/bench advise.

  advise-dhat.py PLAN DHAT.json CAPACITY LLC

DHAT (valgrind --tool=dhat, an independent measure) gives, per allocation
point, the bytes read and written and the most bytes live at once. This
finds which allocation points the plan's HBM entries place (by the first
frames of the program's own code, file name and line, as the entries name
them), and prints the share of DHAT's accessed bytes they hold against
DHAT's own optimum: the knapsack of allocation points (weight: their most
bytes live, in the runtime's usable bytes as any plan is held; value:
their bytes accessed) under the same capacity, lifetimes left out (which
favours the optimum: it may count points that never live together). Both
unweighted, and weighted as the advisor weighs accesses (each point's
accesses times the chance they miss an LLC of LLC bytes, from its bytes
live at once), since the advisor maximises the latter.

A split entry (`kind: {hbm: 75%, ddr: 25%}`) holds its share of the
point's bytes in the fast tier and is credited that share of its accesses
(pages accessed alike). The plan is measured against the optimum where
points whose objects the runtime splits (80 pages or more) may also go in
part (a fraction of their bytes and accesses), beside the optimum of whole
points.
"""
import json
import os
import re
import sys

import numpy as np
from scipy.optimize import Bounds, LinearConstraint, milp


# Kinds that are not the fast tier the capacity is for.
SLOW = ("posix", "heap", "ddr", "regular", "pmem", "cxl")


def fast_share(kind):
    """The fraction of an entry's bytes its kind puts in the fast tier:
    1 or 0 for a kind, the fast parts' shares for a split ({hbm: 75%,
    ddr: 25%})."""
    if not kind.startswith("{"):
        return 0.0 if kind.lower() in SLOW else 1.0
    share = 0.0
    for name, pct in re.findall(r"(\w+)\s*:\s*([\d.]+)\s*%", kind):
        if name.lower() not in SLOW:
            share += float(pct) / 100
    return share


def plan_entries(path):
    """[(frames, fast share)]: frames as (file name, line), innermost
    first; None for the standard allocator's frame."""
    entries, frames = [], None
    for line in open(path):
        m = re.match(r"\s*- (site|stack): (.*)", line)
        if m:
            text = m.group(2).strip()
            items = ([text.strip('"')] if m.group(1) == "site" else
                     [t.strip().strip('"') for t in text.strip("[]").split(",")])
            frames = []
            for t in items:
                if t == "std::allocator":
                    frames.append(None)
                    continue
                # file:line[:col], or file:0 (function): a merged call,
                # which DHAT shows at line 0 of the file.
                m = re.match(r"(.*?):(\d+)(?::\d+)?(?: \(.*\))?$", t)
                frames.append((os.path.basename(m.group(1)), int(m.group(2))))
            continue
        m = re.match(r"\s*kind: (\{[^}]*\}|\S+)", line)
        if m and frames is not None:
            entries.append((frames, fast_share(m.group(1))))
            frames = None
    return entries


# Frames of the allocator itself (valgrind's replacement, code without
# debug info) and of the C++ library's headers, as DHAT names them.
ALLOCATOR = re.compile(r"vg_replace|vgpreload|\(in /")
STDLIB = re.compile(r"\((?:[a-z_]+\.tcc|new_allocator\.h|alloc_traits\.h|"
                    r"allocator\.h|stl_[a-z_]+\.h|unique_ptr\.h|"
                    r"shared_ptr[a-z_]*\.h|hashtable[a-z_]*\.h|"
                    r"basic_string\.h|vector|memory|string):\d+\)$")


def user_frames(pp, ftbl):
    """The allocation point's frames in the program's own code, innermost
    first, as (file name, line); and whether the C++ library's headers
    allocated it (a container's buffer: the plan's `std::allocator`)."""
    out, container = [], False
    for f in pp["fs"]:
        text = ftbl[f]
        m = re.search(r"\(([^()]*):(\d+)\)$", text)
        if not m or ALLOCATOR.search(text):
            continue
        if STDLIB.search(text):
            container = container or not out
            continue
        out.append((os.path.basename(m.group(1)), int(m.group(2))))
    return out, container


# The smallest object the runtime splits (runtime/split.c: 80 pages).
SPLIT_MIN = 80 * 4096


def usable(n):
    """The runtime's usable size for a request of n bytes
    (runtime/sizeclass.h): 16-byte steps to 128, then four classes per
    doubling."""
    if n <= 128:
        return max(16, (n + 15) // 16 * 16)
    step = 1 << ((n - 1).bit_length() - 3)
    return (n + step - 1) // step * step


def placed(pp_frames, container, entries):
    """The share of the point's bytes the most specific matching entry
    sends to the fast tier (0 when none matches)."""
    best, share = -1, 0.0
    for frames, s in entries:
        want = [f for f in frames if f is not None]
        if (frames[0] is None) != container:
            continue
        if pp_frames[:len(want)] == want and len(want) > best:
            best, share = len(want), s
    return share


def knapsack(values, weights, cap, splittable=None):
    """The most value within cap: whole points, or with \p splittable
    points also in part."""
    n = len(values)
    if n == 0:
        return 0.0
    whole = np.ones(n) if splittable is None else \
        np.array([0 if s else 1 for s in splittable])
    res = milp(c=-np.array(values), integrality=whole, bounds=Bounds(0, 1),
               constraints=LinearConstraint(np.array([weights]), -np.inf, cap),
               options={"mip_rel_gap": 0})
    return -res.fun


def main():
    plan, dhat, cap, llc = sys.argv[1], sys.argv[2], int(sys.argv[3]), int(sys.argv[4])
    d = json.load(open(dhat))
    entries = plan_entries(plan)
    acc, mb, hit, split = [], [], [], []
    for pp in d["pps"]:
        frames, container = user_frames(pp, d["ftbl"])
        if not frames:
            continue
        acc.append(pp["rb"] + pp["wb"])
        blocks = max(pp["mbk"], 1)
        mb.append(usable(-(-pp["mb"] // blocks)) * blocks)
        hit.append(placed(frames, container, entries))
        split.append(-(-pp["mb"] // blocks) >= SPLIT_MIN)
    weighted = [a * m / (m + llc) for a, m in zip(acc, mb)]
    for name, val in (("accesses", acc), ("weighted", weighted)):
        total = sum(val) or 1
        ours = sum(v * h for v, h in zip(val, hit))
        best = knapsack(val, mb, cap)
        best_split = knapsack(val, mb, cap, split)
        print("  %-8s plan %5.1f%%, DHAT optimum %5.1f%% (whole), %5.1f%% "
              "(with splits), ratio %.3f" % (
                  name, 100 * ours / total, 100 * best / total,
                  100 * best_split / total,
                  ours / best_split if best_split else 1.0))


if __name__ == "__main__":
    main()
