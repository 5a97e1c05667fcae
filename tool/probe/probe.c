/*===- probe.c - measure each NUMA node's bandwidth and name the tiers ---===*
 *
 * `hmplan probe` (which runs this, libexec/hmplace/hmplace-probe): users of
 * a tiered machine learn their tiers' bandwidth by hand today (numactl
 * --membind + STREAM). For every NUMA node with memory this measures a
 * STREAM-like triad (a = b + s*c) with the three arrays bound to that node,
 * run by a thread on each CPU of the node's socket (the CPUs of the nodes
 * nearest it by the firmware's distances, as `numactl --cpunodebind=S
 * --membind=N` STREAM is run; a memory-only HBM node's CPUs are its
 * socket's), reads the node's capacity, its CPUs and
 * what the firmware says of it (ACPI HMAT's read bandwidth in sysfs), names
 * its tier, and writes a machine description that `hmplan advise
 * --machine` reads:
 *
 *   - hbm:  memkind's high-bandwidth nodes (MEMKIND_HBW_NODES, else HMAT's
 *     read bandwidth at least MEMKIND_HBW_THRESHOLD, 204800 MB/s by
 *     default: memkind's own rule), or a memory-only node measured 20%
 *     faster than the fastest node with CPUs;
 *   - ddr:  nodes with CPUs;
 *   - slow: other memory-only nodes (PMem, CXL).
 *
 * A tier's bandwidth is what a process using all its nodes gets: nodes
 * nearest the same CPUs measured together (interleaved), those groups
 * summed (the sockets work at once); its capacity is their summed memory.
 *Bounded: each node is measured for at most --seconds (default 1), with arrays
 *of --size bytes each (default 64 MiB, at most an eighth of the node's free
 *memory). The best of the repetitions is the figure, as STREAM reports.
 *===----------------------------------------------------------------------===*/
#define _GNU_SOURCE
#include "tier.h"

#include <errno.h>
#include <numaif.h>
#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

enum { MAX_NODES = 64, MAX_CPUS = 1024 };

struct node {
  int id, has_cpus;
  char cpus[256];
  char from[256];                 /* the CPUs the triad ran on */
  unsigned long long total, free; /* bytes */
  double hmat_mbs;                /* HMAT read bandwidth, MB/s; 0 unknown */
  double measured;                /* bytes/s; 0 not measured */
  int memkind_hbw;
  const char *tier;
};

static const char *Root = "/sys";
static const char *Me = "hmplan probe";

static void die(const char *fmt, const char *arg) {
  fprintf(stderr, "%s: error: ", Me);
  fprintf(stderr, fmt, arg);
  fputc('\n', stderr);
  exit(1);
}

/* The contents of the sysfs file Root + \p rel (without the trailing
 * newline), or NULL. */
static char *read_sys(const char *rel) {
  static char buf[4096];
  char path[512];
  snprintf(path, sizeof path, "%s%s", Root, rel);
  FILE *f = fopen(path, "r");
  if (!f)
    return NULL;
  size_t n = fread(buf, 1, sizeof buf - 1, f);
  fclose(f);
  buf[n] = 0;
  buf[strcspn(buf, "\n")] = 0;
  return buf;
}

/* The same for a file of node \p id's directory. */
static char *read_node(int id, const char *file) {
  char rel[256];
  snprintf(rel, sizeof rel, "/devices/system/node/node%d/%s", id, file);
  return read_sys(rel);
}

/* Whether node \p id is in the list \p list ("0-1,4"). */
static int in_list(const char *list, int id) {
  const char *p = list;
  while (p && *p) {
    char *end;
    long a = strtol(p, &end, 10), b = a;
    if (end == p)
      return 0;
    if (*end == '-')
      b = strtol(end + 1, &end, 10);
    if (id >= a && id <= b)
      return 1;
    p = *end == ',' ? end + 1 : NULL;
  }
  return 0;
}

/* Whether \p list is a node list ("1", "0-1,4"): numbers and rising
 * ranges, separated by commas. */
static int valid_list(const char *list) {
  const char *p = list;
  for (;;) {
    char *end;
    if (*p < '0' || *p > '9')
      return 0;
    long a = strtol(p, &end, 10), b = a;
    if (*end == '-') {
      if (end[1] < '0' || end[1] > '9')
        return 0;
      b = strtol(end + 1, &end, 10);
    }
    if (b < a)
      return 0;
    if (!*end)
      return 1;
    if (*end != ',')
      return 0;
    p = end + 1;
  }
}

/* memkind's variables that name the HBM nodes: values memkind would not
 * take stop the probe (it would name the tiers by them). */
static void check_memkind_env(void) {
  const char *nodes = getenv("MEMKIND_HBW_NODES");
  if (nodes && *nodes && !valid_list(nodes))
    die("MEMKIND_HBW_NODES='%s' is not a list of nodes (e.g. 1 or 2-3,6)",
        nodes);
  const char *th = getenv("MEMKIND_HBW_THRESHOLD");
  char *end;
  if (th && *th && (strtod(th, &end) <= 0 || *end))
    die("MEMKIND_HBW_THRESHOLD='%s' is not a bandwidth in MB/s", th);
}

static unsigned long long meminfo(int id, const char *key) {
  char path[512], line[256];
  snprintf(path, sizeof path, "%s/devices/system/node/node%d/meminfo", Root,
           id);
  FILE *f = fopen(path, "r");
  unsigned long long v = 0;
  if (!f)
    return 0;
  while (fgets(line, sizeof line, f)) {
    char *k = strstr(line, key);
    if (k && sscanf(k + strlen(key), " %llu", &v) == 1)
      break;
  }
  fclose(f);
  return v * 1024;
}

/* What sysfs and memkind's rules say of node \p id. */
static void describe(struct node *n, int id) {
  memset(n, 0, sizeof *n);
  n->id = id;
  const char *c = read_node(id, "cpulist");
  snprintf(n->cpus, sizeof n->cpus, "%s", c ? c : "");
  n->has_cpus = n->cpus[0] != 0;
  n->total = meminfo(id, "MemTotal:");
  n->free = meminfo(id, "MemFree:");
  const char *bw = read_node(id, "access0/initiators/read_bandwidth");
  n->hmat_mbs = bw ? atof(bw) : 0;
  const char *nodes = getenv("MEMKIND_HBW_NODES");
  const char *th = getenv("MEMKIND_HBW_THRESHOLD");
  double threshold = th && *th ? atof(th) : 204800;
  n->memkind_hbw =
      nodes && *nodes ? in_list(nodes, id) : n->hmat_mbs >= threshold;
}

/*--- the triad --------------------------------------------------------------*/

struct job {
  double *a, *b, *c;
  size_t lo, hi;
  int cpu, init;
};

static void *triad(void *arg) {
  struct job *j = arg;
  if (j->cpu >= 0) {
    cpu_set_t set;
    CPU_ZERO(&set);
    CPU_SET(j->cpu, &set);
    pthread_setaffinity_np(pthread_self(), sizeof set, &set);
  }
  if (j->init) /* first touch by the thread that sweeps it */
    for (size_t i = j->lo; i < j->hi; ++i)
      j->a[i] = 0, j->b[i] = 1, j->c[i] = 2;
  else
    for (size_t i = j->lo; i < j->hi; ++i)
      j->a[i] = j->b[i] + 3.0 * j->c[i];
  return NULL;
}

static double now(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

/* One parallel pass over the arrays (init or triad); its time. */
static double pass(double *a, double *b, double *c, size_t n, int *cpus,
                   int ncpu, int init) {
  pthread_t th[MAX_CPUS];
  struct job jobs[MAX_CPUS];
  double t = now();
  for (int i = 0; i < ncpu; ++i) {
    jobs[i] = (struct job){a,
                           b,
                           c,
                           n * (size_t)i / (size_t)ncpu,
                           n * (size_t)(i + 1) / (size_t)ncpu,
                           cpus[i],
                           init};
    pthread_create(&th[i], NULL, triad, &jobs[i]);
  }
  for (int i = 0; i < ncpu; ++i)
    pthread_join(th[i], NULL);
  return now() - t;
}

/* The best triad bandwidth (bytes/s) with arrays of \p bytes bound to the
 * node \p ids[0] (interleaved over the \p nids nodes when several), run by
 * a thread on each of \p cpus, for at most \p seconds; 0 and why on
 * failure. */
static double measure(const int *ids, int nids, size_t bytes, double seconds,
                      int *cpus, int ncpu, char *why, size_t whylen) {
  size_t n = bytes / sizeof(double);
  double *arr[3] = {0};
  unsigned long mask[MAX_NODES / (8 * sizeof(unsigned long)) + 1] = {0};
  for (int i = 0; i < nids; ++i)
    mask[ids[i] / (8 * sizeof(unsigned long))] |=
        1ul << (ids[i] % (8 * sizeof(long)));
  int mode = nids > 1 ? MPOL_INTERLEAVE : MPOL_BIND;
  double best = 0;
  for (int k = 0; k < 3; ++k) {
    arr[k] = mmap(NULL, bytes, PROT_READ | PROT_WRITE,
                  MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (arr[k] == MAP_FAILED) {
      snprintf(why, whylen, "cannot map %zu bytes: %s", bytes, strerror(errno));
      arr[k] = NULL;
      goto out;
    }
    if (mbind(arr[k], bytes, mode, mask, MAX_NODES, MPOL_MF_STRICT)) {
      snprintf(why, whylen, "cannot bind memory to it: %s", strerror(errno));
      goto out;
    }
  }
  pass(arr[0], arr[1], arr[2], n, cpus, ncpu, 1);
  double start = now();
  for (int rep = 0; rep < 3 || now() - start < seconds; ++rep) {
    double t = pass(arr[0], arr[1], arr[2], n, cpus, ncpu, 0);
    double bw = 3.0 * (double)bytes / t;
    if (bw > best)
      best = bw;
    if (rep >= 2 && now() - start >= seconds)
      break;
  }
out:
  for (int k = 0; k < 3; ++k)
    if (arr[k])
      munmap(arr[k], bytes);
  return best;
}

/* The CPUs nearest node \p id: those of the nodes with CPUs at the least
 * distance from it (node \p id's own, when it has CPUs), among the \p
 * nall allowed ones; into \p out, their number. All allowed CPUs when the
 * distances are unknown or name none of them. */
static int nearest_cpus(int id, const char *online, const int *all, int nall,
                        int *out) {
  char *d = read_node(id, "distance");
  int dist[MAX_NODES], best = -1, k = 0;
  for (int i = 0; i < MAX_NODES; ++i)
    dist[i] = -1;
  for (char *p = d; p && *p;) { /* one figure per online node, in order */
    char *end;
    long v = strtol(p, &end, 10);
    if (end == p)
      break;
    while (k < MAX_NODES && !in_list(online, k))
      ++k;
    if (k < MAX_NODES)
      dist[k++] = (int)v;
    p = end;
  }
  int n = 0;
  for (int pass = 0; pass < 2; ++pass)
    for (int node = 0; node < MAX_NODES; ++node) {
      const char *cl = dist[node] >= 0 ? read_node(node, "cpulist") : NULL;
      if (!cl || !*cl)
        continue;
      if (pass == 0 && (best < 0 || dist[node] < best))
        best = dist[node];
      else if (pass == 1 && dist[node] == best)
        for (int c = 0; c < nall; ++c)
          if (all[c] >= 0 && in_list(cl, all[c]) && n < MAX_CPUS)
            out[n++] = all[c];
    }
  if (!n) {
    memcpy(out, all, sizeof *all * (size_t)nall);
    n = nall;
  }
  return n;
}

/* \p cpus as a list ("0-3,8"). */
static void cpu_list(char *buf, size_t len, const int *cpus, int n) {
  size_t at = 0;
  buf[0] = 0;
  for (int i = 0; i < n && at < len; ++i) {
    int j = i;
    while (j + 1 < n && cpus[j + 1] == cpus[j] + 1)
      ++j;
    if (cpus[i] < 0)
      at += (size_t)snprintf(buf + at, len - at, "%sany", at ? "," : "");
    else if (j > i)
      at += (size_t)snprintf(buf + at, len - at, "%s%d-%d", at ? "," : "",
                             cpus[i], cpus[j]);
    else
      at +=
          (size_t)snprintf(buf + at, len - at, "%s%d", at ? "," : "", cpus[i]);
    i = j;
  }
}

/*--- naming and output ------------------------------------------------------*/

enum { NTIERS = 3 };
static const char *const Tiers[NTIERS] = {"hbm", "ddr", "slow"};

static void name_tiers(struct node *nodes, int count) {
  double ddr_best = 0;
  for (int i = 0; i < count; ++i)
    if (nodes[i].has_cpus && nodes[i].measured > ddr_best)
      ddr_best = nodes[i].measured;
  for (int i = 0; i < count; ++i)
    nodes[i].tier = hmplace_probe_tier(nodes[i].memkind_hbw, nodes[i].has_cpus,
                                       nodes[i].measured, ddr_best);
}

static void size_text(char *buf, size_t n, unsigned long long b) {
  if (b >= 1ull << 30)
    snprintf(buf, n, "%.1fGiB", (double)b / (double)(1ull << 30));
  else
    snprintf(buf, n, "%lluMiB", b >> 20);
}

static void write_yaml(FILE *f, const struct node *nodes, int count,
                       const double *tier_bw, size_t bytes, double seconds) {
  char host[256] = "";
  gethostname(host, sizeof host - 1);
  fprintf(f,
          "# hmplan probe: a STREAM-like triad per NUMA node (arrays of %zu "
          "MiB, at most %.1f s a node, a thread on each CPU of its socket); "
          "for hmplan advise --machine\n",
          bytes >> 20, seconds);
  fprintf(f, "machine: 1\nhost: \"%s\"\nnodes:\n", host);
  for (int i = 0; i < count; ++i) {
    const struct node *n = &nodes[i];
    char cap[32];
    size_text(cap, sizeof cap, n->total);
    fprintf(f, "  - node: %d\n    cpus: \"%s\"\n    capacity: %s\n", n->id,
            n->cpus, cap);
    if (n->measured > 0)
      fprintf(f, "    bandwidth: %.1fGB/s\n    measured-from: \"%s\"\n",
              n->measured / 1e9, n->from);
    if (n->hmat_mbs > 0)
      fprintf(f, "    hmat-read-bandwidth: %.0fMB/s\n", n->hmat_mbs);
    fprintf(f, "    memkind: %s\n    tier: %s\n",
            n->memkind_hbw ? "high bandwidth" : "other", n->tier);
  }
  fprintf(f, "tiers:\n");
  for (int t = 0; t < NTIERS; ++t) {
    unsigned long long cap = 0;
    char list[256] = "";
    size_t len = 0;
    for (int i = 0; i < count; ++i)
      if (!strcmp(nodes[i].tier, Tiers[t]) && len < sizeof list) {
        cap += nodes[i].total;
        len += (size_t)snprintf(list + len, sizeof list - len, "%s%d",
                                len ? ", " : "", nodes[i].id);
      }
    if (!len)
      continue;
    char c[32];
    size_text(c, sizeof c, cap);
    fprintf(f, "  %s: {", Tiers[t]);
    if (tier_bw[t] > 0)
      fprintf(f, "bandwidth: %.1fGB/s, ", tier_bw[t] / 1e9);
    fprintf(f, "capacity: %s, nodes: [%s]}\n", c, list);
  }
}

/*--- main ------------------------------------------------------------------*/

/* The smallest triad array --size takes, and the least bandwidth a
 * measurement may give: below them the figure is the caches' or noise. */
enum { MIN_ARRAY = 1 << 20 };
static const double MinBandwidth = 1e8; /* 0.1 GB/s */

static unsigned long long parse_size(const char *s) {
  char *end;
  double v = strtod(s, &end);
  unsigned long long m = 1;
  if (*end == 'K' || *end == 'k')
    m = 1ull << 10, ++end;
  else if (*end == 'M')
    m = 1ull << 20, ++end;
  else if (*end == 'G')
    m = 1ull << 30, ++end;
  if (*end == 'i' && end[1] == 'B')
    end += 2;
  else if (*end == 'B')
    ++end;
  if (end == s || *end || !(v > 0 && v * (double)m < 0x1p63))
    die("--size: '%s' is not a size (64MiB, 1GiB, ...)", s);
  if (v * (double)m < (double)MIN_ARRAY)
    die("--size: '%s': arrays under 1 MiB measure the caches, not the "
        "memory",
        s);
  return (unsigned long long)(v * (double)m);
}

/* To stdout for --help, to stderr before an error. */
static void usage(FILE *to) {
  fprintf(to,
          "usage: hmplan probe [-o FILE] [--nodes LIST] [--size BYTES] "
          "[--seconds S] [--no-measure]\n"
          "  measure each NUMA node's bandwidth (a triad bound to it) and "
          "capacity,\n  name the tiers, and write a machine description "
          "for hmplan advise --machine\n");
}

/* The CPUs this process may run on, into cpus; their number. */
static int allowed_cpus(int *cpus) {
  cpu_set_t set;
  int n = 0;
  if (sched_getaffinity(0, sizeof set, &set) != 0)
    return 0;
  for (int c = 0; c < CPU_SETSIZE && n < MAX_CPUS; ++c)
    if (CPU_ISSET(c, &set))
      cpus[n++] = c;
  return n;
}

struct options {
  const char *out, *want;
  unsigned long long size;
  double seconds;
  int measure;
};

static void read_options(int argc, char **argv, struct options *o) {
  *o = (struct options){NULL, NULL, 64ull << 20, 1.0, 1};
  for (int i = 1; i < argc; ++i) {
    const char *a = argv[i];
    const char *v = i + 1 < argc ? argv[i + 1] : NULL;
    if (!strcmp(a, "-o") && v)
      o->out = v, ++i;
    else if (!strcmp(a, "--nodes") && v) {
      if (!*v)
        die("--nodes: an empty list (give node numbers: 0,1 or 0-3)%s", "");
      o->want = v, ++i;
    } else if (!strcmp(a, "--size") && v)
      o->size = parse_size(v), ++i;
    else if (!strcmp(a, "--seconds") && v) {
      char *end;
      o->seconds = strtod(v, &end);
      if (end == v || *end || !(o->seconds > 0 && o->seconds <= 600))
        die("--seconds: '%s' is not a time from 0 to 600 seconds", v);
      ++i;
    } else if (!strcmp(a, "--no-measure"))
      o->measure = 0;
    else if (!strcmp(a, "-h") || !strcmp(a, "--help")) {
      usage(stdout);
      exit(0);
    } else {
      usage(stderr);
      die("unknown or incomplete option '%s'", a);
    }
  }
}

/* Every node of --nodes \p want must be online (\p on). */
static void check_wanted(const char *want, const char *on) {
  for (const char *p = want; *p;) {
    char *end;
    long id = strtol(p, &end, 10);
    if (end == p || id < 0 || id >= MAX_NODES)
      die("--nodes: '%s' is not a list of node numbers (0,1 or 0-3)", want);
    long hi = id;
    if (*end == '-')
      hi = strtol(end + 1, &end, 10);
    for (long n = id; n <= hi; ++n)
      if (!in_list(on, (int)n)) {
        char msg[300];
        snprintf(msg, sizeof msg, "node %ld: no such NUMA node (online: %s)", n,
                 on);
        die("%s", msg);
      }
    p = *end == ',' ? end + 1 : end;
    if (*end && *end != ',')
      die("--nodes: '%s' is not a list of node numbers (0,1 or 0-3)", want);
  }
}

/* The triad's array size for nodes \p ids: --size, at most an eighth of the
 * free memory of the smallest. */
static size_t array_bytes(const struct options *o, const struct node *nodes,
                          const int *idx, int n) {
  size_t bytes = o->size;
  for (int i = 0; i < n; ++i)
    if (nodes[idx[i]].free && bytes > nodes[idx[i]].free / 8)
      bytes = (size_t)(nodes[idx[i]].free / 8);
  return bytes;
}

/* Measure the nodes \p idx (of \p nodes) together, from the CPUs nearest the
 * first; exits naming them on failure. */
static double measure_nodes(const struct options *o, const struct node *nodes,
                            const int *idx, int n, const char *on,
                            const int *cpus, int ncpu) {
  int ids[MAX_NODES], near[MAX_CPUS];
  for (int i = 0; i < n; ++i)
    ids[i] = nodes[idx[i]].id;
  int nnear = nearest_cpus(ids[0], on, cpus, ncpu, near);
  char why[256] = "";
  double bw = measure(ids, n, array_bytes(o, nodes, idx, n), o->seconds, near,
                      nnear, why, sizeof why);
  if (!bw) {
    char msg[400];
    snprintf(msg, sizeof msg, "node %d: %s", ids[0], why);
    die("%s", msg);
  }
  if (!(bw >= MinBandwidth)) {
    char msg[400];
    snprintf(msg, sizeof msg,
             "node %d: the triad measured %.3g B/s, too little for a "
             "memory's bandwidth (a run this short or arrays this small "
             "measure noise): give more --seconds or --size",
             ids[0], bw);
    die("%s", msg);
  }
  return bw;
}

/* A tier's bandwidth as a process using it all gets it: its nodes grouped
 * by the CPUs nearest them (a socket's), each group measured together
 * (interleaved over its nodes, from its CPUs: two HBM nodes of one socket
 * share that socket's cores), the groups summed (sockets work at once). */
static double tier_bandwidth(const struct options *o, const struct node *nodes,
                             int count, const char *tier, const char *on,
                             const int *cpus, int ncpu) {
  double sum = 0;
  int done[MAX_NODES] = {0};
  for (int i = 0; i < count; ++i) {
    if (done[i] || strcmp(nodes[i].tier, tier) || nodes[i].measured <= 0)
      continue;
    int group[MAX_NODES], n = 0;
    for (int j = i; j < count; ++j)
      if (!done[j] && !strcmp(nodes[j].tier, tier) &&
          !strcmp(nodes[j].from, nodes[i].from) && nodes[j].measured > 0)
        group[n++] = j, done[j] = 1;
    if (n == 1) {
      sum += nodes[i].measured;
      continue;
    }
    double bw = measure_nodes(o, nodes, group, n, on, cpus, ncpu);
    char list[256] = "";
    size_t len = 0;
    for (int k = 0; k < n && len < sizeof list; ++k)
      len += (size_t)snprintf(list + len, sizeof list - len, "%s%d",
                              k ? ", " : "", nodes[group[k]].id);
    fprintf(stderr,
            "%s: note: %s nodes %s share CPUs %s: measured together "
            "(interleaved), %.1fGB/s\n",
            Me, tier, list, nodes[i].from, bw / 1e9);
    sum += bw;
  }
  return sum;
}

/* Describe (and measure) every online node of --nodes; their number. */
static int probe_nodes(const struct options *o, const char *on,
                       struct node *nodes, const int *cpus, int ncpu) {
  int count = 0;
  for (int id = 0; id < MAX_NODES; ++id) {
    if (!in_list(on, id) || (o->want && !in_list(o->want, id)))
      continue;
    struct node *n = &nodes[count];
    describe(n, id);
    if (!n->total) {
      fprintf(stderr, "%s: note: node %d has no memory: skipped\n", Me, id);
      continue;
    }
    if (o->measure) {
      int near[MAX_CPUS], nnear = nearest_cpus(id, on, cpus, ncpu, near);
      cpu_list(n->from, sizeof n->from, near, nnear);
      n->measured = measure_nodes(o, nodes, &count, 1, on, cpus, ncpu);
    }
    ++count;
  }
  return count;
}

/* Write the description to --o (through a temporary file: all or
 * nothing) or stdout. */
static void output(const struct options *o, const struct node *nodes, int count,
                   const double *tier_bw) {
  FILE *f = stdout;
  char tmp[4096];
  if (o->out) {
    snprintf(tmp, sizeof tmp, "%s.tmp.%d", o->out, (int)getpid());
    if (!(f = fopen(tmp, "w")))
      die("cannot write '%s'", o->out);
  }
  write_yaml(f, nodes, count, tier_bw, o->size, o->seconds);
  if (o->out) {
    if (fclose(f) != 0 || rename(tmp, o->out) != 0) {
      unlink(tmp);
      die("cannot write '%s'", o->out);
    }
    fprintf(stderr, "%s: %d node%s; machine description written to %s\n", Me,
            count, count == 1 ? "" : "s", o->out);
  }
}

int main(int argc, char **argv) {
  struct options o;
  const char *root = getenv("HMPLACE_SYSFS");
  if (root && *root)
    Root = root;
  read_options(argc, argv, &o);
  check_memkind_env();
  const char *online = read_sys("/devices/system/node/online");
  if (!online)
    die("%s: no NUMA nodes in sysfs (/devices/system/node/online)", Root);
  char on[256];
  snprintf(on, sizeof on, "%s", online);
  if (o.want)
    check_wanted(o.want, on);
  static struct node nodes[MAX_NODES];
  int cpus[MAX_CPUS], ncpu = allowed_cpus(cpus);
  if (!ncpu)
    ncpu = 1, cpus[0] = -1;
  int count = probe_nodes(&o, on, nodes, cpus, ncpu);
  if (!count)
    die("no node with memory to describe (online: %s)", on);
  name_tiers(nodes, count);
  double tier_bw[NTIERS] = {0};
  for (int t = 0; t < NTIERS; ++t)
    tier_bw[t] = tier_bandwidth(&o, nodes, count, Tiers[t], on, cpus, ncpu);
  output(&o, nodes, count, tier_bw);
  return 0;
}
