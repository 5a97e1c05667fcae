#!/usr/bin/python3
"""advise-optimum.py - the exact optimum of `hmplan advise`'s own model, for
scripts/bench advise.

  advise-optimum.py MODEL [CAPACITY]
  advise-optimum.py --peak MODEL      the most bytes all candidates hold

MODEL is what `hmplan advise --dump-model` writes: "capacity C cuts N",
then a line per candidate: gain, bytes held, first and last cut of its
lifetime, and whether the advisor chose it. The problem: choose candidates
of the largest summed gain such that at every cut the bytes of the chosen
ones alive there stay within the capacity (an integer program; solved
exactly by HiGHS through SciPy, Debian's python3-scipy). With CAPACITY the
advisor's choice is not read (only the optimum is printed).

Prints: advisor gain, optimum, their ratio, and whether the solver proved
optimality (else the ratio is against its best bound).
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
