/*===- rt_bench.c - runtime microbenchmarks, compared side by side --------===*
 *
 * Each comparison alternates its two variants in one process, several
 * rounds, and reports the median ratio (the machine is small and noisy).
 *  1. glibc malloc + free       vs  malloc + free through the dispatch
 *     (with the argument "fortran", built with libhmplace-fortran.so: only
 *     what its malloc adds)
 *     (the program's free is libhmplace.so's: ownership test, then glibc)
 *  2. memkind_malloc/free(MEMKIND_HBW) vs hmplace_malloc(HBW)/hmplace_free
 *  3. dispatch path throughput, 2 threads vs 1 thread
 *  4. hmplace_malloc(HBW) called directly vs an allocation through a wrapper
 *     that a call-stack entry places by its caller. The wrapper is static:
 *     HmPlace.so gives the caller a copy of it with the kind a constant
 *     (CallerCopies.h). Only when built with HmPlace.so and
 *     runtime/bench/ctx-plan.yaml (scripts/bench does); the program checks
 *     that the wrappers' blocks really are placed.
 *     4b: the same wrapper with its call placed by a constant kind (as a
 *     site entry places it) against the stack entry.
 *     4c: as 4, through a weak wrapper, which HmPlace.so cannot copy (as one
 *     in another file): the shadow-stack push around the call and the
 *     inline check of the stack in the wrapper.
 *  5. a whole placed 32 MiB block vs a split one (HMPLACE_SPLIT, 75% HBW,
 *     25% REGULAR): allocation, first touch of every page, free.
 *  6. the same for objects of a few hundred KiB (400 KiB and 1 MiB), the
 *     size just over the split threshold where the runtime's own work per
 *     object shows most: allocation and free alone, then with every page
 *     written. 6b: a time step that also makes a whole HBW block (which
 *     gives the kept split object's pages back only where the node is short).
 * Run with MEMKIND_HBW_NODES=0 so that HBW kinds are served here.
 *===----------------------------------------------------------------------===*/
#define _GNU_SOURCE
#include <hmplace.h>
#include <memkind.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/rseq.h>
#include <time.h>

extern void *__libc_malloc(size_t);
extern void __libc_free(void *);

enum { BATCH = 64, ROUNDS = 9 };
static size_t Iters = 2000000;

static double now(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return t.tv_sec + t.tv_nsec * 1e-9;
}

static size_t size_of(size_t i) { return 16 + (i * 40503u) % 1000; }

/* Allocate BATCH blocks, then free them: the pattern keeps allocator caches
 * warm but not trivially LIFO. */
#define LOOP(ALLOC, FREE)                                                      \
  do {                                                                         \
    void *b[BATCH];                                                            \
    for (size_t i = 0; i < Iters; i += BATCH) {                                \
      for (size_t j = 0; j < BATCH; ++j) {                                     \
        b[j] = ALLOC(size_of(i + j));                                          \
        *(volatile char *)b[j] = 1;                                            \
      }                                                                        \
      for (size_t j = 0; j < BATCH; ++j)                                       \
        FREE(b[j]);                                                            \
    }                                                                          \
  } while (0)

/* glibc's own malloc and free, as a program without libhmplace.so calls
 * them, against the interposed malloc (scope test) and free (dispatch). */
static void glibc_pairs(void) { LOOP(__libc_malloc, __libc_free); }
static void dispatch_free_pairs(void) { LOOP(__libc_malloc, free); }
static void dispatch_pairs(void) { LOOP(malloc, free); }
#define MK_ALLOC(n) memkind_malloc(MEMKIND_HBW, n)
#define MK_FREE(p) memkind_free(MEMKIND_HBW, p)
static void memkind_pairs(void) { LOOP(MK_ALLOC, MK_FREE); }
#define HM_ALLOC(n) hmplace_malloc(HMPLACE_HBW, n)
static void placed_pairs(void) { LOOP(HM_ALLOC, hmplace_free); }

/* Comparison 4. The plan (ctx-plan.yaml) names the malloc in bench_wrapper
 * and the call in ctx_pairs; keep their lines in step with it. */
__attribute__((noinline)) static void *bench_wrapper(size_t n) {
  return malloc(n);
}

static void ctx_pairs(void) {
  void *b[BATCH];
  for (size_t i = 0; i < Iters; i += BATCH) {
    for (size_t j = 0; j < BATCH; ++j) {
      b[j] = bench_wrapper(size_of(i + j));
      *(volatile char *)b[j] = 1;
    }
    for (size_t j = 0; j < BATCH; ++j)
      hmplace_free(b[j]);
  }
}

/* Comparison 5: BIG objects, every page written, freed. */
enum { BIG = 32 << 20, BIG_ITERS = 16 };
static void touch_free(char *p) {
  memset(p, 1, BIG);
  hmplace_free(p);
}
static void whole_big(void) {
  for (int i = 0; i < BIG_ITERS; ++i)
    touch_free(hmplace_malloc(HMPLACE_HBW, BIG));
}
static void split_big(void) {
  for (int i = 0; i < BIG_ITERS; ++i)
    touch_free(
        hmplace_malloc(HMPLACE_SPLIT(HMPLACE_HBW, 75, HMPLACE_REGULAR), BIG));
}

/* 5b: a size never asked for before each time (a page more), so that no
 * freed split object can be reused: a fresh mapping, every page faulted. */
static size_t FreshPages;
static void touch_free_n(char *p, size_t n) {
  memset(p, 1, n);
  hmplace_free(p);
}
static void whole_fresh(void) {
  for (int i = 0; i < BIG_ITERS; ++i) {
    size_t n = BIG + (++FreshPages << 12);
    touch_free_n(hmplace_malloc(HMPLACE_HBW, n), n);
  }
}
static void split_fresh(void) {
  for (int i = 0; i < BIG_ITERS; ++i) {
    size_t n = BIG + (++FreshPages << 12);
    touch_free_n(
        hmplace_malloc(HMPLACE_SPLIT(HMPLACE_HBW, 75, HMPLACE_REGULAR), n), n);
  }
}

/* 4b: the same wrapper shape with its call placed as a site entry would
 * place it (a constant kind): the call-stack mechanism's own cost is the
 * difference. */
__attribute__((noinline)) static void *site_wrapper(size_t n) {
  return hmplace_malloc(HMPLACE_HBW, n);
}
static void site_wrapper_pairs(void) { LOOP(site_wrapper, hmplace_free); }

/* 4c: a wrapper the link could replace (weak, as one in another file or
 * library is to HmPlace.so), which it cannot copy for its caller: its
 * caller's frame is checked on the shadow stack at run time. The plan names
 * the malloc and the call below; keep their lines in step with it. */
__attribute__((noinline, weak)) void *bench_weak_wrapper(size_t n) {
  return malloc(n);
}
static void weak_ctx_pairs(void) {
  void *b[BATCH];
  for (size_t i = 0; i < Iters; i += BATCH) {
    for (size_t j = 0; j < BATCH; ++j) {
      b[j] = bench_weak_wrapper(size_of(i + j));
      *(volatile char *)b[j] = 1;
    }
    for (size_t j = 0; j < BATCH; ++j)
      hmplace_free(b[j]);
  }
}

/* Comparison 6: mid-sized objects, allocated and freed MID_ITERS times
 * (alone, or with every page written). */
enum { MID_ITERS = 4096 };
static size_t MidSize;
static int MidTouch;
static void mid_loop(int code) {
  for (int i = 0; i < MID_ITERS; ++i) {
    char *p = hmplace_malloc(code, MidSize);
    if (MidTouch)
      memset(p, 1, MidSize);
    else
      *(volatile char *)p = 1;
    hmplace_free(p);
  }
}
static void whole_mid(void) { mid_loop(HMPLACE_HBW); }
static void split_mid(void) {
  mid_loop(HMPLACE_SPLIT(HMPLACE_HBW, 75, HMPLACE_REGULAR));
}

/* 6b: a time step that makes a whole HBW block, then its split object: the
 * whole block's allocation would have the kept split object's pages lazily
 * freed where the node is short, and each reuse would then write lazily
 * freed pages (a slow first write on a VM). */
static void step_loop(int split) {
  enum hmplace_kind s = HMPLACE_SPLIT(HMPLACE_HBW, 75, HMPLACE_REGULAR);
  for (int i = 0; i < MID_ITERS / 4; ++i) {
    char *w = hmplace_malloc(HMPLACE_HBW, MidSize / 2);
    char *p = hmplace_malloc(split ? s : HMPLACE_HBW, MidSize);
    memset(p, 1, MidSize);
    memset(w, 1, MidSize / 2);
    hmplace_free(w);
    hmplace_free(p);
  }
}
static void whole_steps(void) { step_loop(0); }
static void split_steps(void) { step_loop(1); }

static void compare_mid(size_t size, int touch, double target);

/* Whether the plan took effect: the wrapper called from an unplanned line
 * stays on the heap, every block of one batch of ctx_pairs is placed. */
static int ctx_placed(void *(*wrapper)(size_t), void (*pairs)(void)) {
  void *q = wrapper(64);
  int unplanned_on_heap = hmplace_owner(q) == 0;
  hmplace_free(q);
  size_t save = Iters;
  struct hmplace_stats before, after;
  hmplace_get_stats(HMPLACE_HBW, &before);
  Iters = BATCH;
  pairs();
  Iters = save;
  hmplace_get_stats(HMPLACE_HBW, &after);
  return unplanned_on_heap && after.allocs - before.allocs == BATCH;
}

static double timed(void (*f)(void)) {
  double t = now();
  f();
  return now() - t;
}

static int cmp(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return (x > y) - (x < y);
}

/* Median over rounds of t(b)/t(a), alternating which runs first; each
 * variant's median time times \p scale, in \p unit. */
static void compare_in(const char *what, void (*a)(void), const char *an,
                       void (*b)(void), const char *bn, double target,
                       const char *sense, double scale, const char *unit) {
  double ratios[ROUNDS], ta[ROUNDS], tb[ROUNDS];
  a(), b(); /* warm up */
  for (int r = 0; r < ROUNDS; ++r) {
    if (r & 1) {
      tb[r] = timed(b);
      ta[r] = timed(a);
    } else {
      ta[r] = timed(a);
      tb[r] = timed(b);
    }
    ratios[r] = tb[r] / ta[r];
  }
  qsort(ratios, ROUNDS, sizeof(double), cmp);
  qsort(ta, ROUNDS, sizeof(double), cmp);
  qsort(tb, ROUNDS, sizeof(double), cmp);
  printf("%-44s %-26s %6.2f %s\n", what, an, ta[ROUNDS / 2] * scale, unit);
  printf("%-44s %-26s %6.2f %s\n", "", bn, tb[ROUNDS / 2] * scale, unit);
  if (target > 0)
    printf("%-44s ratio %.3f (median of %d, target %s %.2f)\n\n", "",
           ratios[ROUNDS / 2], ROUNDS, sense, target);
  else
    printf("%-44s ratio %.3f (median of %d, %s)\n\n", "", ratios[ROUNDS / 2],
           ROUNDS, sense);
}

/* The same per alloc/free pair. */
static void compare(const char *what, void (*a)(void), const char *an,
                    void (*b)(void), const char *bn, double target,
                    const char *sense) {
  compare_in(what, a, an, b, bn, target, sense, 1e9 / (double)Iters, "ns/pair");
}

static void compare_mid(size_t size, int touch, double target) {
  char what[64];
  MidSize = size;
  MidTouch = touch;
  snprintf(what, sizeof what, "6. split vs whole, %zu KiB%s", size >> 10,
           touch ? ", touched" : "");
  compare_in(what, whole_mid, "whole in HBW", split_mid,
             "75% HBW + 25% REGULAR", target, "<=", 1e6 / MID_ITERS,
             "us/object");
}

static void *thread_body(void *arg) {
  (void)arg;
  dispatch_pairs();
  return NULL;
}

static double throughput(int threads) {
  pthread_t t[8];
  double s = now();
  for (int i = 0; i < threads; ++i)
    pthread_create(&t[i], NULL, thread_body, NULL);
  for (int i = 0; i < threads; ++i)
    pthread_join(t[i], NULL);
  return (double)threads * (double)Iters / (now() - s);
}

int main(int argc, char **argv) {
  if (argc > 1)
    Iters = strtoull(argv[1], NULL, 10);
  if (memkind_check_available(MEMKIND_HBW) != 0) {
    fprintf(stderr, "rt_bench: run with MEMKIND_HBW_NODES=0\n");
    return 1;
  }
  free(hmplace_malloc(HMPLACE_HBW, 1)); /* initialise the slot */
  printf("runtime microbenchmarks, %zu alloc/free pairs per run, sizes "
         "16..1015 B, batches of %d\n",
         Iters, BATCH);
  /* How the runtime finds the CPU a placed allocation runs on (its slot). */
  if (__rseq_size != 0)
    printf("CPU lookup: rseq (glibc registered it: __rseq_size %u)\n\n",
           __rseq_size);
  else
    printf("CPU lookup: sched_getcpu() (no rseq registration: an old kernel, "
           "or GLIBC_TUNABLES=glibc.pthread.rseq=0)\n\n");
  if (argc > 2 && strcmp(argv[2], "fortran") == 0) {
    /* Built with libhmplace-fortran.so: what its malloc (the scope test)
     * adds, for the programs that link it. */
    compare("1f. malloc of libhmplace-fortran.so", dispatch_free_pairs,
            "glibc malloc + dispatching free", dispatch_pairs,
            "its malloc + dispatching free", 1.05, "<=");
    return 0;
  }
  compare("1. non-placed free through the dispatch", glibc_pairs,
          "glibc malloc + free", dispatch_pairs, "malloc + dispatching free",
          1.03, "<=");
  compare("2. placed alloc+free vs direct memkind", memkind_pairs,
          "memkind_malloc/free(HBW)", placed_pairs, "hmplace_malloc/free(HBW)",
          1.00, "<=");
  double t1[ROUNDS], t2[ROUNDS], sc[ROUNDS];
  for (int r = 0; r < ROUNDS; ++r) {
    t1[r] = throughput(1);
    t2[r] = throughput(2);
    sc[r] = t2[r] / t1[r];
  }
  qsort(sc, ROUNDS, sizeof(double), cmp);
  qsort(t1, ROUNDS, sizeof(double), cmp);
  qsort(t2, ROUNDS, sizeof(double), cmp);
  printf("%-44s 1 thread  %6.1f Mpairs/s\n", "3. dispatch path scaling",
         t1[ROUNDS / 2] / 1e6);
  printf("%-44s 2 threads %6.1f Mpairs/s\n", "", t2[ROUNDS / 2] / 1e6);
  printf("%-44s scaling %.2fx (median of %d, target >= 1.80)\n\n", "",
         sc[ROUNDS / 2], ROUNDS);
  compare_in("5. split object vs whole, 32 MiB, touched", whole_big,
             "whole in HBW", split_big, "75% HBW + 25% REGULAR", 1.10,
             "<=", 1e3 / BIG_ITERS, "ms/object");
  compare_in("5b. the same, each a size never seen before", whole_fresh,
             "whole in HBW", split_fresh, "75% HBW + 25% REGULAR", 0,
             "no target: the split's pages are all faulted anew",
             1e3 / BIG_ITERS, "ms/object");
  compare_mid(400 << 10, 0, 2.0);
  compare_mid(1 << 20, 0, 2.0);
  compare_mid(400 << 10, 1, 2.0);
  compare_mid(1 << 20, 1, 2.0);
  MidSize = 1 << 20;
  compare_in("6b. a step: 1 MiB split or whole + 512 KiB", whole_steps,
             "whole in HBW", split_steps, "75% HBW + 25% REGULAR", 2.0,
             "<=", 4e6 / MID_ITERS, "us/step");
  if (!ctx_placed(bench_wrapper, ctx_pairs) ||
      !ctx_placed(bench_weak_wrapper, weak_ctx_pairs)) {
    printf("4. (skipped: the wrapper's blocks are not placed by caller; build "
           "with HmPlace.so and runtime/bench/ctx-plan.yaml, as scripts/bench "
           "does)\n");
    return 0;
  }
  compare("4. placed through a wrapper, by call stack", placed_pairs,
          "hmplace_malloc(HBW) direct", ctx_pairs, "wrapper, stack entry", 1.05,
          "<=");
  compare("4b. the same wrapper, by site vs by stack", site_wrapper_pairs,
          "wrapper, site entry", ctx_pairs, "wrapper, stack entry", 0,
          "the call-stack mechanism's own cost");
  compare("4c. placed through a wrapper HmPlace.so cannot copy", placed_pairs,
          "hmplace_malloc(HBW) direct", weak_ctx_pairs,
          "weak wrapper, stack check", 0,
          "the stack checked at run time, as for a wrapper in another file");
  return 0;
}
