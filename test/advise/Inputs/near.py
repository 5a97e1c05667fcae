#!/usr/bin/env python3
"""Check rows of an `hmplan misses` table against expected totals.

    near.py TABLE.txt SIZE EXPECTED TOLERANCE [SIZE EXPECTED TOLERANCE]...

SIZE is the cache column as printed ("8.0 MiB"); prints "SIZE: within N%"
or the figures when the total is off by more."""
import sys

rows = {}
for line in open(sys.argv[1]):
    w = line.split()
    if len(w) >= 6 and w[1] in ("KiB", "MiB", "GiB") and w[2].isdigit():
        rows[w[0] + " " + w[1]] = int(w[5])
args = sys.argv[2:]
for i in range(0, len(args), 3):
    size, expected, tol = args[i], int(args[i + 1]), float(args[i + 2])
    got = rows.get(size)
    if got is not None and abs(got / expected - 1) <= tol:
        print(f"{size}: within {round(100 * tol)}%")
    else:
        print(f"{size}: {got} measured, {expected} expected")
