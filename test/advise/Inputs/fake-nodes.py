# A sysfs tree of NUMA nodes, for probe.test: node 0 with CPUs and 16 GiB,
# node 1 memory-only with HMAT's read bandwidth of 409600 MB/s (memkind's
# high-bandwidth rule), node 2 memory-only and slow (20000 MB/s), node 3
# with no memory.
#   fake-nodes.py ROOT
import os, sys
root = os.path.join(sys.argv[1], "devices/system/node")
nodes = [(0, "0-1", 16 << 20, None), (1, "", 4 << 20, 409600),
         (2, "", 64 << 20, 20000), (3, "", 0, None)]
os.makedirs(root)
with open(os.path.join(root, "online"), "w") as f:
    f.write("0-3\n")
for n, cpus, kib, bw in nodes:
    d = os.path.join(root, "node%d" % n)
    os.makedirs(d)
    with open(os.path.join(d, "cpulist"), "w") as f:
        f.write(cpus + "\n")
    with open(os.path.join(d, "meminfo"), "w") as f:
        f.write("Node %d MemTotal:       %d kB\nNode %d MemFree:        %d kB\n"
                % (n, kib, n, kib))
    if bw:
        a = os.path.join(d, "access0/initiators")
        os.makedirs(a)
        with open(os.path.join(a, "read_bandwidth"), "w") as f:
            f.write("%d\n" % bw)
