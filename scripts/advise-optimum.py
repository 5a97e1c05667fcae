#!/usr/bin/python3
"""advise-optimum.py - the exact optimum of `hmplan advise`'s own model, for
scripts/bench advise.

  advise-optimum.py MODEL [CAPACITY]
  advise-optimum.py --peak MODEL      the most bytes all candidates hold

MODEL is what `hmplan advise --dump-model` writes: "capacity C cuts N",
then a line per candidate: gain, bytes held, first and last cut of its
lifetime, whether the knapsack chose it whole, and how the final choice
splits it: percent in the tier, an object's pages, the runtime's run, the
objects at once (pages 0: it cannot be split). The problem: choose
candidates of the largest summed gain such that at every cut the bytes of
the chosen ones alive there stay within the capacity (an integer program;
solved exactly by HiGHS through SciPy, Debian's python3-scipy). With
CAPACITY the advisor's choice is not read (only the optimum is printed).

Prints two lines: whole objects (the knapsack's choice against the whole
optimum), then with splits (the advisor's final choice, whole and split,
against the optimum where a splittable item may also hold 10, 15, .. 95 %
of its pages as the runtime lays them out); each with the ratio, and
whether the solver proved optimality (else the ratio is against its best
bound).
"""
import sys

import numpy as np
from scipy.optimize import Bounds, LinearConstraint, milp
from scipy.sparse import csr_matrix


def read(path):
    with open(path) as f:
        head = f.readline().split()
        cap = int(head[1])
        items = [line.split() for line in f if line.strip()]
    gain = np.array([float(i[0]) for i in items])
    weight = np.array([int(i[1]) for i in items], dtype=float)
    lo = [int(i[2]) for i in items]
    hi = [int(i[3]) for i in items]
    chosen = np.array([int(i[4]) for i in items], dtype=bool)
    return cap, gain, weight, lo, hi, chosen


def read_splits(path):
    """Per item: (share chosen, pages, run, objects)."""
    with open(path) as f:
        f.readline()
        return [tuple(int(x) for x in line.split()[5:9])
                for line in f if line.strip()]


def held(weight, split, share):
    """Bytes an item holds with share percent in the tier (Shares.cpp's
    ShareItem::heldAt)."""
    _, pages, run, objects = split
    if share == 0:
        return 0
    if share >= 100 or not pages:
        return weight
    return min(pages, pages * share // 100 + run) * objects


def split_optimum(cap, gain, weight, lo, hi, splits, time_limit=300):
    """The optimum with splits: per item whole (x), or for a splittable one
    a part (y) holding s of its pages, 0.10 <= s <= 0.95, with its gain in
    proportion; the part holds objects x (pages x s + run). s is continuous
    where the runtime takes 5 % steps, so this bounds the optimum over the
    advisor's choices from above (the ratio errs low, never high)."""
    n = len(gain)
    part = [i for i in range(n) if splits[i][1]]
    if n == 0:
        return 0.0, True
    nv = n + 2 * len(part)  # x_i, then (y_j, s_j) per splittable j
    c = np.zeros(nv)
    c[:n] = -gain
    integ = np.zeros(nv)
    integ[:n] = 1
    ub = np.ones(nv)
    for k, j in enumerate(part):
        integ[n + 2 * k] = 1
        c[n + 2 * k + 1] = -gain[j]
        ub[n + 2 * k + 1] = 0.95
    starts = sorted(set(lo))
    rows, cols, vals, lb, ubc = [], [], [], [], []
    def put(r, col, v):
        rows.append(r); cols.append(col); vals.append(v)
    for r, t in enumerate(starts):
        for i in range(n):
            if lo[i] <= t <= hi[i]:
                put(r, i, weight[i])
        for k, j in enumerate(part):
            if lo[j] <= t <= hi[j]:
                _, pages, run, objects = splits[j]
                put(r, n + 2 * k, run * objects)
                put(r, n + 2 * k + 1, pages * objects)
        lb.append(-np.inf)
        ubc.append(cap)
    r = len(starts)
    for k, j in enumerate(part):
        y, sh = n + 2 * k, n + 2 * k + 1
        put(r, j, 1); put(r, y, 1); lb.append(-np.inf); ubc.append(1)
        put(r + 1, sh, 1); put(r + 1, y, -0.95); lb.append(-np.inf); ubc.append(0)
        put(r + 2, sh, 1); put(r + 2, y, -0.10); lb.append(0); ubc.append(np.inf)
        r += 3
    a = csr_matrix((vals, (rows, cols)), shape=(r, nv))
    res = milp(c=c, integrality=integ, bounds=Bounds(0, ub),
               constraints=LinearConstraint(a, lb, ubc),
               options={"time_limit": time_limit, "mip_rel_gap": 0})
    if res.status == 0:
        return -res.fun, True
    bound = getattr(res, "mip_dual_bound", None)
    return (-bound if bound is not None else float("nan")), False


def split_line(path, cap, gain, weight, lo, hi):
    """The advisor's final choice (whole and split) against the optimum
    with splits; exits on a choice over the capacity."""
    splits = read_splits(path)
    lo_a, hi_a = np.array(lo), np.array(hi)
    hold = np.array([held(weight[i], splits[i], splits[i][0])
                     for i in range(len(gain))], dtype=float)
    for t in sorted(set(lo)):
        load = hold[(lo_a <= t) & (t <= hi_a)].sum()
        if load > cap:
            print("with splits: over capacity at cut %d: %d > %d" % (t, load, cap))
            sys.exit(1)
    ours = float(sum(gain[i] * splits[i][0] / 100.0 for i in range(len(gain))))
    best, proven = split_optimum(cap, gain, weight, lo, hi, splits)
    ratio = ours / best if best > 0 else 1.0
    print("with splits: %d candidates, advisor %.6g, optimum %.6g%s, ratio %.4f" % (
        len(gain), ours, best, "" if proven else " (bound: not proven)",
        ratio))


def optimum(cap, gain, weight, lo, hi, time_limit=300):
    """The optimum gain and whether it is proven, else the best bound."""
    n = len(gain)
    if n == 0:
        return 0.0, True
    # The load peaks where some lifetime starts: one row per start.
    starts = np.array(sorted(set(lo)))[:, None]
    alive = (np.array(lo)[None, :] <= starts) & (starts <= np.array(hi)[None, :])
    a = csr_matrix(alive * weight[None, :])
    res = milp(c=-gain, integrality=np.ones(n), bounds=Bounds(0, 1),
               constraints=LinearConstraint(a, -np.inf, cap),
               options={"time_limit": time_limit, "mip_rel_gap": 0})
    if res.status == 0:
        return -res.fun, True
    bound = getattr(res, "mip_dual_bound", None)
    return (-bound if bound is not None else float("nan")), False


def main():
    cap, gain, weight, lo, hi, chosen = read(sys.argv[1])
    if len(sys.argv) > 2:
        cap = int(sys.argv[2])
    best, proven = optimum(cap, gain, weight, lo, hi)
    ours = float(gain[chosen].sum())
    # The advisor's choice must itself fit: checked, not assumed.
    lo_a, hi_a = np.array(lo), np.array(hi)
    for t in sorted(set(lo)):
        load = weight[chosen & (lo_a <= t) & (t <= hi_a)].sum()
        if load > cap:
            print("over capacity at cut %d: %d > %d" % (t, load, cap))
            sys.exit(1)
    ratio = ours / best if best > 0 else 1.0
    print("%d candidates, advisor %.6g, optimum %.6g%s, ratio %.4f" % (
        len(gain), ours, best, "" if proven else " (bound: not proven)",
        ratio))
    if len(sys.argv) <= 2:
        split_line(sys.argv[1], cap, gain, weight, lo, hi)




def peak(path):
    """The most bytes all candidates hold at once: what capacities are
    fractions of."""
    cap, gain, weight, lo, hi, chosen = read(path)
    lo_a, hi_a = np.array(lo), np.array(hi)
    return int(max((weight[(lo_a <= t) & (t <= hi_a)].sum() for t in set(lo)),
                   default=0))


if __name__ == "__main__":
    if sys.argv[1] == "--peak":
        print(peak(sys.argv[2]))
    else:
        main()
