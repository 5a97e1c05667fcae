#!/usr/bin/env python3
"""gen-big-plan.py OUT N [FILES] - write an N-entry plan shaped like a
profile-driven advisor's for a large application: entries over FILES source
files in nested directories, three in four single sites (some with columns),
one in four call stacks of two to four frames, a few tiers. Deterministic.
"""
import random
import sys

out, n = sys.argv[1], int(sys.argv[2])
files = int(sys.argv[3]) if len(sys.argv) > 3 else 2000
rng = random.Random(42)
paths = ["src/mod%03d/sub%d/file%04d.c" % (i % 97, i % 7, i) for i in range(files)]
kinds = ["hbm", "hbm", "hbm", "ddr", "fast", "slow"]
with open(out, "w") as f:
    f.write("version: 1\n")
    f.write("tiers:\n")
    f.write("  fast: {kind: MEMKIND_HBW_PREFERRED, capacity: 16GiB}\n")
    f.write("  slow: {kind: MEMKIND_DAX_KMEM, capacity: 512GiB}\n")
    f.write("sites:\n")
    seen = set()
    while len(seen) < n:
        p = rng.choice(paths)
        line = rng.randint(1, 20000)
        kind = rng.choice(kinds)
        if rng.random() < 0.75:
            col = ":%d" % rng.randint(1, 60) if rng.random() < 0.3 else ""
            key = "%s:%d%s" % (p, line, col)
            if key in seen:
                continue
            seen.add(key)
            f.write("  - {site: %s, kind: %s}\n" % (key, kind))
        else:
            frames = ["%s:%d" % (p, line)]
            for _ in range(rng.randint(1, 3)):
                frames.append("%s:%d" % (rng.choice(paths), rng.randint(1, 20000)))
            key = ", ".join(frames)
            if key in seen:
                continue
            seen.add(key)
            f.write("  - {stack: [%s], kind: %s}\n" % (key, kind))
