/*===- policy.c - the node policy memkind gives a kind on the calling CPU --===*
 *
 * Why ask memkind, and how: memkind binds each new extent of a static kind
 *   with the mode and node mask its kind operations compute *for the CPU the
 *   thread runs on* (HBW: the HBW nodes closest to that CPU's node; REGULAR:
 *   every DRAM node; HMAT, MEMKIND_HBW_NODES and the other variables
 *   included). Re-deriving those rules would drift from memkind, so the
 *   runtime calls the kind's own get_mbind_mode/get_mbind_nodemask
 *   operations. They are exported functions, but the operations table that
 *   holds them is memkind-internal: its layout is checked against the
 *   exported symbols before it is trusted (memkind 1.14, as Debian ships it).
 *   If the check fails, the policy is read back from one block of the kind
 *   (get_mempolicy MPOL_F_ADDR), which is right for the thread that touches
 *   the kind first and may be stale for others: the report says which way
 *   is in use.
 *
 * Why patch MEMKIND_FIXED_OPS: memkind gives every kind 4 arenas per CPU
 *   (jemalloc has 4094 in all): on a 224-CPU node only three fixed kinds can
 *   be made, and the next static kind memkind initialises aborts the process
 *   (measured with MEMKIND_ARENA_NUM_PER_KIND=1024 here). The runtime makes
 *   one fixed kind per chunk of each slot, so fixed kinds get one arena each
 *   (memkind's own "bijective" arena choice); small placed blocks go through
 *   the runtime's per-thread caches anyway.
 *===----------------------------------------------------------------------===*/
#define _GNU_SOURCE
#include "hmplace.h"
#include "hmplace_internal.h"

#include <dlfcn.h>
#include <memkind.h>
#include <numa.h>
#include <numaif.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static memkind_t *const StaticKinds[HMPLACE_KIND_COUNT] = {
#define HM_KIND_MEMKIND(name, what) &MEMKIND_##name,
    HMPLACE_KINDS_(HM_KIND_MEMKIND)
#undef HM_KIND_MEMKIND
};

/* Indices in memkind 1.14's struct memkind_ops. */
enum {
  OpsCreate = 0,
  OpsMmap = 7,
  OpsMbind = 8,
  OpsMode = 11,
  OpsMask = 12,
  OpsGetArena = 13
};
typedef int (*mode_fn)(memkind_t, int *);
typedef int (*mask_fn)(memkind_t, unsigned long *, unsigned long);

static pthread_once_t Once = PTHREAD_ONCE_INIT;
static int Trusted;
static void *DefaultMbind;
static _Atomic int Initialised[HMPLACE_KIND_COUNT];

/* The kind's operations table: the first member of struct memkind. */
static void **ops_of(memkind_t k) { return *(void ***)k; }

static void *sym(void *lib, const char *name) {
  void *p = dlsym(RTLD_DEFAULT, name);
  return p ? p : lib ? dlsym(lib, name) : NULL;
}

static void check_layout(void) {
  void *lib = dlopen("libmemkind.so.0", RTLD_LAZY | RTLD_NOLOAD);
  void *hbw_mask = sym(lib, "memkind_hbw_get_mbind_nodemask");
  void *interleave_mode = sym(lib, "memkind_interleave_get_mbind_mode");
  void *preferred_mode = sym(lib, "memkind_preferred_get_mbind_mode");
  DefaultMbind = sym(lib, "memkind_default_mbind");
  Trusted = hbw_mask && interleave_mode && preferred_mode && DefaultMbind &&
            ops_of(MEMKIND_HBW)[OpsMask] == hbw_mask &&
            ops_of(MEMKIND_HBW)[OpsMbind] == DefaultMbind &&
            ops_of(MEMKIND_HBW_INTERLEAVE)[OpsMode] == interleave_mode &&
            ops_of(MEMKIND_HBW_PREFERRED)[OpsMode] == preferred_mode;

  void **fixed = sym(lib, "MEMKIND_FIXED_OPS");
  void *create = sym(lib, "memkind_fixed_create");
  void *mmap_op = sym(lib, "memkind_fixed_mmap");
  void *per_thread = sym(lib, "memkind_thread_get_arena");
  void *single = sym(lib, "memkind_bijective_get_arena");
  if (fixed && create && mmap_op && per_thread && single &&
      fixed[OpsCreate] == create && fixed[OpsMmap] == mmap_op &&
      fixed[OpsGetArena] == per_thread)
    fixed[OpsGetArena] = single;
  if (lib)
    dlclose(lib);
}

int hm_policy_trusted(void) {
  pthread_once(&Once, check_layout);
  return Trusted;
}

/* memkind initialises a static kind on its first allocation: 4 arenas per
 * CPU, each with a 2 MiB metadata block. If that does not fit under the
 * address-space or commit limit, memkind aborts the process
 * ("MEMKIND_FATAL ... Failed to create arena map", measured under ulimit -v):
 * the kind is declared unavailable instead. */
static int touch_kind(memkind_t sk, int k, char *why, size_t whylen) {
  if (atomic_load(&Initialised[k]))
    return 0;
  uint64_t arenas = 1;
  const char *env = getenv("MEMKIND_ARENA_NUM_PER_KIND");
  uint64_t want = env && atoi(env) > 0
                      ? (uint64_t)atoi(env)
                      : 4 * (uint64_t)numa_num_configured_cpus();
  while (arenas < want)
    arenas <<= 1;
  if (hm_range_room(arenas * (4 << 20) + (64 << 20), why, whylen))
    return -1;
  if (memkind_check_available(sk) != MEMKIND_SUCCESS) {
    snprintf(why, whylen, "memkind reports it unavailable on this machine");
    return -1;
  }
  void *p = memkind_malloc(sk, 64);
  if (!p)
    return -1;
  memkind_free(sk, p);
  atomic_store(&Initialised[k], 1);
  return 0;
}

int hm_policy_now(int k, int *mode, unsigned long *mask, unsigned long maxnode,
                  char *why, size_t whylen) {
  pthread_once(&Once, check_layout);
  memkind_t sk = *StaticKinds[k];
  if (touch_kind(sk, k, why, whylen))
    return -1;
  memset(mask, 0, maxnode / 8);
  if (Trusted) {
    void **ops = ops_of(sk);
    if (!ops[OpsMbind]) { /* memkind does not bind this kind */
      *mode = MPOL_DEFAULT;
      return 0;
    }
    if (ops[OpsMbind] == DefaultMbind && ops[OpsMode] && ops[OpsMask])
      return ((mask_fn)ops[OpsMask])(sk, mask, maxnode) == 0 &&
                     ((mode_fn)ops[OpsMode])(sk, mode) == 0
                 ? 0
                 : -1;
  }
  void *p = memkind_malloc(sk, 64);
  if (!p)
    return -1;
  long r = get_mempolicy(mode, mask, maxnode, p, MPOL_F_ADDR);
  memkind_free(sk, p);
  return r == 0 ? 0 : -1;
}
