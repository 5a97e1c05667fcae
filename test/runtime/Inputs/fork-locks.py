"""fork-locks.py RUNTIME_DIR - every lock of the runtime has a fork row.

startup.c says every lock the runtime holds has a row in its start-up and
fork table (Hooks): a lock another thread holds at fork() stays held in the
child, whose next placed allocation or free then hangs. This reads the
runtime's sources: every pthread_mutex_t declared (at file scope, in a
function or in a struct) must be named in the body of a hm_*_fork_lock
function, and every such function must be in startup.c's table. Prints
what is missing and exits 1, else "N locks, N fork rows".
"""
import os
import re
import sys

root = sys.argv[1]
sources = {}
for name in sorted(os.listdir(root)):
    if name.endswith((".c", ".h")):
        with open(os.path.join(root, name)) as f:
            sources[name] = f.read()

locks = []  # (file, name)
for name, text in sources.items():
    for m in re.finditer(r"\bpthread_mutex_t\s+(\w+)\s*[;=\[]", text):
        locks.append((name, m.group(1)))

bodies = {}  # fork-lock function -> body
for name, text in sources.items():
    for m in re.finditer(r"\bvoid\s+(hm_\w+_fork_lock)\s*\(\s*int\s+\w+\s*\)\s*\{",
                         text):
        depth, i = 1, m.end()
        while depth and i < len(text):
            depth += {"{": 1, "}": -1}.get(text[i], 0)
            i += 1
        bodies[m.group(1)] = text[m.end():i]

table = sources["startup.c"]
table = table[table.index("Hooks[] = {"):]
table = table[:table.index("};")]

missing = []
for file, lock in locks:
    if not any(re.search(r"\b%s\b" % re.escape(lock), b) for b in bodies.values()):
        missing.append("%s: lock '%s' is taken by no hm_*_fork_lock function"
                       % (file, lock))
for fn in sorted(bodies):
    if not re.search(r"\b%s\b" % fn, table):
        missing.append("startup.c: %s has no row in the Hooks table" % fn)
for line in missing:
    print(line)
if missing:
    sys.exit(1)
print("%d locks, %d fork rows" % (len(locks), len(bodies)))
