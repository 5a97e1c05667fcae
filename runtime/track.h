/*===- track.h - the switches the placed paths read, and live placed blocks ===*
 *
 * The report's and the log's switches (HMPLACE_REPORT, HMPLACE_LOG) and the
 * tracking of live placed blocks (HMPLACE_REPORT_PAGES=live): what every
 * placed path reads, here near the bottom (track.c) so that they call
 * nothing above.
 *===----------------------------------------------------------------------===*/
#ifndef HMPLACE_TRACK_H
#define HMPLACE_TRACK_H

#include <stddef.h>

/* Report: live placed blocks are tracked only for an exact census of their
 * pages (HMPLACE_REPORT_PAGES=live); otherwise these are a predictable
 * branch. */
extern int hm_tracking;
/* A report was asked for (HMPLACE_REPORT): call-stack entries count their
 * objects. */
extern int hm_reporting;
void hm_track_alloc_slow(void *p, size_t n);
void hm_track_free_slow(void *p);
/* Each tracked block; the caller holds the tracking lock
 * (hm_track_fork_lock(1)). */
void hm_track_each(void (*fn)(void *p, size_t n, void *arg), void *arg);
static inline void hm_track_alloc(void *p, size_t n) {
  if (__builtin_expect(hm_tracking, 0))
    hm_track_alloc_slow(p, n);
}
/* A block leaves (it is freed). */
static inline void hm_track_free(void *p) {
  if (__builtin_expect(hm_tracking, 0))
    hm_track_free_slow(p);
}
/* A block is about to be reallocated (the new one is tracked anew). */
static inline void hm_track_forget(void *p) {
  if (__builtin_expect(hm_tracking, 0))
    hm_track_free_slow(p);
}
/* HMPLACE_LOG (log.h) is on. hm_log_entry is the call-stack entry the
 * thread's next allocation was chosen by (context.c sets it while logging). */
extern int hm_log_on;
extern __thread const char *hm_log_entry;
/* The site entry HmPlace.so placed the thread's next allocation by (the
 * pass stores its key before the call; the log line takes it). */
extern __thread const char *hmplace_log_site;
/* For a `files:` entry, whose key names no call, the call it placed
 * ("app.f90:12:3 (u)"), stored with the key. */
extern __thread const char *hmplace_log_call;
/* HMPLACE_ENTRIES (entryfilter.h) names the entries that place (exported:
 * libhmplace-fortran's scopes read it). */
extern int hm_filter_on;

#endif
