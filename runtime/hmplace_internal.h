/*===- hmplace_internal.h - shared between the runtime's C files ----------===*/
#ifndef HMPLACE_INTERNAL_H
#define HMPLACE_INTERNAL_H

#include "hmplace.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>

/* "16GiB", "512 MiB", "1.5G", "1000000": powers of 1024 for K/M/G/T[iB],
 * of 1000 for kB/MB/GB/TB, as in plans. Returns 0 on success. */
int hm_parse_size(const char *s, uint64_t *out);

/* The sanitizer that owns the heap (placement is then off), or NULL. */
const char *hm_sanitizer(void);
/* Kind index for "MEMKIND_HBW" or "HBW" (len bytes), or -1. */
int hm_kind_by_name(const char *name, size_t len);
void hm_store_budget(int k, uint64_t bytes);
uint64_t hm_load_budget(int k);
/* HMPLACE_BUDGET="HBW=16GiB,DAX_KMEM=1TiB": read once at start-up; kinds it
 * names keep their budget whatever the program sets. */
void hm_read_budget_env(void);
/* A yes/no word of the environment, in any case: 1 for on, 1, true, yes; 0
 * for off, 0, false, no; -1 for anything else. */
int hm_yes_no(const char *v) __attribute__((visibility("hidden")));
/* Whether the environment turns placement off (HMPLACE=off, 0, false, no,
 * in any case); hm_read_off_env, at start-up, sets hm_off from it and warns
 * of a value it does not know. */
int hm_env_off(void) __attribute__((visibility("hidden")));
void hm_read_off_env(void) __attribute__((visibility("hidden")));
int hm_budget_from_env(int k);

void hm_report_init(void);
/* job.c: a path with %p (pid) and %r (MPI rank) filled in, in the runtime's
 * own memory (hm_own_free), or NULL. */
char *hm_expand_path(const char *t);
/* hmplace_malloc / hmplace_posix_memalign for the runtime's own wrappers
 * (hbw_*, operator new, realloc_to): the log names \p caller, the
 * program's call, not the wrapper. */
void *hm_malloc_from(enum hmplace_kind k, size_t n, const void *caller);
int hm_posix_memalign_from(enum hmplace_kind k, void **out, size_t align,
                           size_t n, const void *caller);
/* job.c: rank, node-local rank and ranks per node from the MPI launcher's
 * environment; -1 where none says. */
struct hm_job {
  int rank, local_rank, local_size;
};
void hm_job_init(void);
const struct hm_job *hm_job(void);
/* startup.c: the start-up hooks of every file, and their locks taken (1)
 * and released (0) around fork(), in one table; hm_startup runs the hooks
 * (the constructor), hm_fork_register installs the fork handlers once. */
void hm_startup(void) __attribute__((visibility("hidden")));
void hm_fork_register(void);
/* What each file's fork lock function does with its one mutex. */
static inline void hm_take_lock(pthread_mutex_t *m, int take) {
  if (take)
    pthread_mutex_lock(m);
  else
    pthread_mutex_unlock(m);
}
void hm_track_fork_lock(int take);
void hm_ctx_fork_lock(int take);
void hm_slots_fork_lock(int take);
void hm_range_fork_lock(int take);
void hm_orphans_fork_lock(int take);
void hm_counts_fork_lock(int take);
/* teardown.c: stop OpenMP workers before memkind's destructor runs. */
void hm_teardown_init(void);

/* report_entries.c: context.c's rows (context.h) as the report's table and
 * its JSON array. */
#include <stdio.h>
void hm_entries_report_text(FILE *f);
void hm_entries_report_json(FILE *f);
/* kinds.c: "1.5 MiB", bytes as the report prints them (B up to 1023, then
 * KiB...). */
const char *hm_human(uint64_t b, char *buf, size_t n)
    __attribute__((visibility("hidden")));

/* range.c: placed blocks live in chunks of whole 4 MiB regions inside
 * [hm_range_base, hm_range_base + hm_range_span); hm_region_owner[] holds the
 * slot index + 1 of each region, 0 for addresses that are not ours. */
#define HM_REGION_SHIFT 22
#define HM_SPAN ((uint64_t)1 << 43)
#define HM_HIDDEN __attribute__((visibility("hidden")))
/* What every free() of the program reads, in one cache line (and one
 * page): the placed range (range.c sets it) and, in libhmplace.so, the next
 * allocator's free (heap.c). Three globals in three pages cost the
 * non-placed free path three TLB entries. */
struct hm_free_path {
  _Atomic uintptr_t range_base, range_span;
  void (*next_free)(void *); /* read and written with __atomic builtins */
} __attribute__((aligned(64)));
extern struct hm_free_path hm_fp HM_HIDDEN;
#define hm_range_base (hm_fp.range_base)
#define hm_range_span (hm_fp.range_span)
extern _Atomic uint8_t hm_region_owner[HM_SPAN >> HM_REGION_SHIFT] HM_HIDDEN;
/* 1 for regions memkind has handed out a block in while a report was asked
 * for (the report's page census looks there only). */
extern _Atomic uint8_t hm_region_used[HM_SPAN >> HM_REGION_SHIFT] HM_HIDDEN;
extern _Atomic uintptr_t hm_region_used_end HM_HIDDEN; /* past the last */
/* Map a chunk of at least \p need bytes for slot \p idx, which holds \p held
 * bytes already; returns its address and size, or 0 and why (with the
 * numbers of the limit that stopped it). */
uintptr_t hm_range_map_chunk(int idx, uint64_t need, uint64_t held,
                             uint64_t *got, char *why, size_t whylen) HM_HIDDEN;
/* Map exactly the whole regions \p need bytes take, for region owner byte
 * \p owner (a split object, split.h). */
uintptr_t hm_range_map_for(int owner, uint64_t need, uint64_t *got, char *why,
                           size_t whylen) HM_HIDDEN;
void hm_range_unmap_chunk(uintptr_t at, uint64_t size) HM_HIDDEN;
/* 0 if \p bytes more fit under RLIMIT_AS and the commit limit; else -1 and
 * why, with the numbers. */
int hm_range_room(uint64_t bytes, char *why, size_t whylen) HM_HIDDEN;
/* How the range is mapped, for the report. */
const char *hm_range_mode(char *buf, size_t n) HM_HIDDEN;
/* Each run of regions memkind has handed out a block in (hm_region_used)
 * whose owner bytes \p mine accepts, at most \p most regions at a time,
 * handed to \p run: what the report's page census reads of the range. */
void hm_range_each_used(int (*mine)(uint8_t owner, void *arg),
                        void (*run)(char *at, uint64_t regions, void *arg),
                        uint64_t most, void *arg) HM_HIDDEN;

/* policy.c: the mode and node mask memkind would bind a new extent of static
 * kind k with, for the calling thread's CPU now; -1 if memkind cannot serve
 * k. hm_policy_trusted: whether memkind's own operations answer (else a
 * block's policy is read back). */
int hm_policy_now(int k, int *mode, unsigned long *mask, unsigned long maxnode,
                  char *why, size_t whylen) HM_HIDDEN;
int hm_policy_trusted(void) HM_HIDDEN;

/* Slot i (0..): its kind, node policy as text ("bind 2", "interleave 2,3",
 * "first touch"), how many threads allocated from it and the CPU nodes they
 * ran on (a bit per node). -1 past the last slot. */
int hm_slot_info(int i, int *kind, char *policy, size_t n, uint64_t *threads,
                 uint64_t *cpu_nodes) HM_HIDDEN;

/* "hmplace: warning: " (or "error: ") + printf(fmt, ...) + newline, on
 * stderr in one write(). */
/* \p s as a JSON string, quoted and escaped (report_entries.c). */
void hm_json_string(FILE *f, const char *s) HM_HIDDEN;
void hm_warn(const char *fmt, ...) HM_HIDDEN
    __attribute__((format(printf, 1, 2)));
void hm_error(const char *fmt, ...) HM_HIDDEN
    __attribute__((format(printf, 1, 2)));
/* All of p[0..n) to fd, across short writes and EINTR. */
void hm_write_all(int fd, const char *p, size_t n) HM_HIDDEN;

/* hmplace_free without the exported symbol's interposable call: the replaced
 * free() calls this directly. */
void hm_free(void *p) __attribute__((visibility("hidden")));

#endif
