#!/usr/bin/env python3
"""Compare the misses a profiled run measured (`hmplan misses` output) with
valgrind cachegrind's last-level data misses for the same cache sizes.

    cachegrind-compare.py TOLERANCE RUNS MISSES.txt SIZE=RUN.out:IDLE.out...

MISSES.txt is `hmplan misses --cache ...`'s table of RUNS runs' profiles
(divided by RUNS: one run's misses); RUN.out is cachegrind's
stderr for the run with an LL of SIZE bytes (its "LLd misses" line), IDLE.out
the same for a run that does next to nothing (the start-up, which the
profiled build does not instrument), subtracted. Prints a line per size
(measured, cachegrind, ratio) and, last, whether every ratio is within
TOLERANCE (0.10: within 10%)."""
import re
import sys


def size_bytes(text):
    m = re.fullmatch(r"([0-9.]+)\s*(KiB|MiB|GiB|B)?", text.strip())
    if not m:
        sys.exit(f"cachegrind-compare: bad size '{text}'")
    scale = {"B": 1, None: 1, "KiB": 1 << 10, "MiB": 1 << 20, "GiB": 1 << 30}
    return int(float(m.group(1)) * scale[m.group(2)])


def measured(path):
    """Total misses by cache size (bytes) from `hmplan misses`."""
    out = {}
    for line in open(path):
        m = re.match(r"\s*([0-9.]+ [KMG]iB)\s+(\d+)\s+(\d+)\s+(\d+)\s+(\d+)",
                     line)
        if m:
            out[size_bytes(m.group(1))] = int(m.group(5))
    return out


def cachegrind(path):
    for line in open(path):
        m = re.search(r"LLd misses:\s+([0-9,]+)", line)
        if m:
            return int(m.group(1).replace(",", ""))
    sys.exit(f"cachegrind-compare: {path}: no 'LLd misses' line")


def main():
    tolerance = float(sys.argv[1])
    runs = int(sys.argv[2])
    ours = {size: n / runs for size, n in measured(sys.argv[3]).items()}
    ok = True
    for arg in sys.argv[4:]:
        size, paths = arg.split("=", 1)
        run, idle = paths.split(":", 1)
        size = int(size)
        if size not in ours:
            sys.exit(f"cachegrind-compare: no measured row for {size} bytes")
        theirs = cachegrind(run) - cachegrind(idle)
        ratio = ours[size] / theirs if theirs else float("inf")
        within = abs(ratio - 1) <= tolerance
        ok &= within
        print(f"{size >> 10} KiB: measured {ours[size]:.0f} cachegrind {theirs} "
              f"ratio {ratio:.3f}{'' if within else '  <- off'}")
    print("every size within %d%%" % round(100 * tolerance) if ok else
          "some size off by more than %d%%" % round(100 * tolerance))
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
