/*===- job.c - this process's place in a parallel job ----------------------===*
 *
 * Several MPI ranks on one node share that node's HBM. The launcher says how
 * many ranks share the node and which one this is: Open MPI
 * (OMPI_COMM_WORLD_*), MPICH/Hydra and Intel MPI (PMI_RANK, MPI_LOCALNRANKS,
 * MPI_LOCALRANKID) and Slurm (SLURM_PROCID, SLURM_LOCALID, and the tasks of
 * this node from SLURM_STEP_TASKS_PER_NODE, e.g. "4(x2),3", with
 * SLURM_NODEID). A per-node budget (HMPLACE_BUDGET=HBW=16GiB/node) is
 * divided among the node's ranks; the report names the rank and a report
 * path may hold it (%r).
 *
 *===----------------------------------------------------------------------===*/
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include "heap.h"
#include "hmplace_internal.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static struct hm_job Job = {-1, -1, -1};

/* A non-negative decimal environment variable, or -1. */
static int env_int(const char *name) {
  const char *v = secure_getenv(name);
  if (!v || !*v)
    return -1;
  char *end;
  long n = strtol(v, &end, 10);
  return (*end || n < 0 || n > 1 << 30) ? -1 : (int)n;
}

static int first_int(const char *const *names) {
  for (; *names; ++names) {
    int n = env_int(*names);
    if (n >= 0)
      return n;
  }
  return -1;
}

/* Tasks on node \p node from Slurm's "N(xR),M,..." list, or -1. */
static int slurm_tasks_on(const char *list, int node) {
  const char *p = list;
  while (*p) {
    char *end;
    long n = strtol(p, &end, 10);
    if (end == p || n <= 0)
      return -1;
    long reps = 1;
    p = end;
    if (!strncmp(p, "(x", 2)) {
      reps = strtol(p + 2, &end, 10);
      if (end == p + 2 || *end != ')' || reps <= 0)
        return -1;
      p = end + 1;
    }
    if (node < reps)
      return (int)n;
    node -= (int)reps;
    if (*p == ',')
      ++p;
    else if (*p)
      return -1;
  }
  return -1;
}

void hm_job_init(void) {
  static const char *const Rank[] = {"OMPI_COMM_WORLD_RANK", "PMI_RANK",
                                     "PMIX_RANK", "SLURM_PROCID", NULL};
  static const char *const Local[] = {"OMPI_COMM_WORLD_LOCAL_RANK",
                                      "MPI_LOCALRANKID", "SLURM_LOCALID", NULL};
  static const char *const Size[] = {"OMPI_COMM_WORLD_LOCAL_SIZE",
                                     "MPI_LOCALNRANKS", NULL};
  Job.rank = first_int(Rank);
  Job.local_rank = first_int(Local);
  Job.local_size = first_int(Size);
  if (Job.local_size < 0) {
    const char *tasks = secure_getenv("SLURM_STEP_TASKS_PER_NODE");
    int node = env_int("SLURM_NODEID");
    if (tasks && node >= 0)
      Job.local_size = slurm_tasks_on(tasks, node);
  }
  if (Job.local_size <= 0)
    Job.local_size = -1;
}

const struct hm_job *hm_job(void) { return &Job; }

/* A report path with %r (the MPI rank, or "pid" and the pid where there is
 * none), %p (the pid) and %% expanded: one file per rank of a job. */
char *hm_expand_path(const char *t) {
  size_t cap = strlen(t) + 64, n = 0;
  char *out = hm_own_malloc(cap);
  if (!out)
    return NULL;
  for (; *t; ++t) {
    char piece[32] = {*t, 0};
    if (t[0] == '%' && (t[1] == 'r' || t[1] == 'p' || t[1] == '%')) {
      ++t;
      if (*t == 'r' && hm_job()->rank >= 0)
        snprintf(piece, sizeof piece, "%d", hm_job()->rank);
      else if (*t == 'r')
        snprintf(piece, sizeof piece, "pid%d", (int)getpid());
      else if (*t == 'p')
        snprintf(piece, sizeof piece, "%d", (int)getpid());
    }
    size_t l = strlen(piece);
    if (n + l + 1 > cap) {
      char *bigger = hm_own_realloc(out, cap = 2 * (n + l + 1));
      if (!bigger) {
        hm_own_free(out);
        return NULL;
      }
      out = bigger;
    }
    memcpy(out + n, piece, l);
    n += l;
  }
  out[n] = 0;
  return out;
}
