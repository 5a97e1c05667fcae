/*===- hmplace_internal.h - shared between the runtime's C files ----------===*/
#ifndef HMPLACE_INTERNAL_H
#define HMPLACE_INTERNAL_H

#include <stddef.h>
#include <stdint.h>

/* "16GiB", "512 MiB", "1.5G", "1000000": powers of 1024 for K/M/G/T[iB],
 * of 1000 for kB/MB/GB/TB, as in plans. Returns 0 on success. */
int hm_parse_size(const char *s, uint64_t *out);

/* Kind index for "MEMKIND_HBW" or "HBW" (len bytes), or -1. */
int hm_kind_by_name(const char *name, size_t len);
void hm_store_budget(int k, uint64_t bytes);
/* HMPLACE_BUDGET="HBW=16GiB,DAX_KMEM=1TiB": read once at start-up; kinds it
 * names keep their budget whatever the program sets. */
void hm_read_budget_env(void);
int hm_budget_from_env(int k);

/* Report (HMPLACE_REPORT=1 or json:PATH): live placed blocks are tracked
 * only when a report was asked for, so that NUMA residency can be measured
 * at exit; otherwise these are a predictable branch. */
extern int hm_tracking;
void hm_track_alloc_slow(void *p, size_t n);
void hm_track_free_slow(void *p, int sample);
static inline void hm_track_alloc(void *p, size_t n) {
  if (__builtin_expect(hm_tracking, 0))
    hm_track_alloc_slow(p, n);
}
/* A block leaves: its pages are sampled for the report (it is freed). */
static inline void hm_track_free(void *p) {
  if (__builtin_expect(hm_tracking, 0))
    hm_track_free_slow(p, 1);
}
/* A block is about to be reallocated: forget it without sampling, or its
 * pages would be counted again when the new block is freed. */
static inline void hm_track_forget(void *p) {
  if (__builtin_expect(hm_tracking, 0))
    hm_track_free_slow(p, 0);
}
void hm_report_init(void);
/* teardown.c: stop OpenMP workers before memkind's destructor runs. */
void hm_teardown_init(void);

/* context.c: bytes of the allocation a context site just chose an entry for
 * (called by every placed entry point), and the per-entry report. */
void hm_ctx_account(size_t bytes);
#include <stdio.h>
void hm_ctx_report_text(FILE *f);
void hm_ctx_report_json(FILE *f);

/* hmplace_free without the exported symbol's interposable call: the replaced
 * free() calls this directly. */
void hm_free(void *p) __attribute__((visibility("hidden")));

#endif
