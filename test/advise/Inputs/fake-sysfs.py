# A sysfs tree describing CPU caches, for llc.test: four CPUs, private L1s
# and L2s, two L3s of 16 MiB (CPUs 0-1 and 2-3).
#   fake-sysfs.py ROOT
import os, sys
root = sys.argv[1]
for cpu in range(4):
    caches = [(1, "Data", "48K", str(cpu)), (1, "Instruction", "32K", str(cpu)),
              (2, "Unified", "1024K", str(cpu)),
              (3, "Unified", "16384K", "0-1" if cpu < 2 else "2-3")]
    for i, (level, kind, size, shared) in enumerate(caches):
        d = os.path.join(root, "devices/system/cpu/cpu%d/cache/index%d" % (cpu, i))
        os.makedirs(d)
        for name, value in [("level", level), ("type", kind), ("size", size),
                            ("shared_cpu_list", shared)]:
            with open(os.path.join(d, name), "w") as f:
                f.write("%s\n" % value)
