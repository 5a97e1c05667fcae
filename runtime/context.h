/*===- context.h - call-stack entries, as the placed paths and the report --===*
 *                 read them (context.c)
 *===----------------------------------------------------------------------===*/
#ifndef HMPLACE_CONTEXT_H
#define HMPLACE_CONTEXT_H

#include "hmplace.h"
#include "hmplace_internal.h"
#include "track.h"

#include <stddef.h>
#include <stdint.h>

/* Bytes of the allocation a context site just chose an entry for
 * (called by every placed entry point: inline, a load and a predicted
 * branch unless a report or the log wants the choice; HmPlace.so's inline
 * sites leave it whatever the switches say, and the stale choice is read
 * only while one is on, which they are from start-up), and what the report
 * reads: each call-stack entry (oldest first: its key, kind, objects and
 * bytes), then each context site whose allocations matched no entry (where,
 * the kind they fell back to, their count), handed to \p row under the
 * tables' lock. report.c formats them. */
void hm_ctx_account_chosen(const char *site, size_t bytes);
/* When the report or the log is switched on (at start-up): a choice an
 * inline context site left before (an allocation in an earlier
 * constructor) is not this thread's next allocation's. */
static inline void hm_ctx_forget_choice(void) {
  hmplace_ctx_chosen.hmplace_site = NULL;
  hmplace_ctx_chosen.hmplace_choice = 0;
}
/* The key of the entry the current choice is (or its site's place, where
 * none matched), without taking the choice; NULL if there is none. */
const char *hm_ctx_chosen_key(void);
static inline int hm_ctx_account(size_t bytes) {
  if (__builtin_expect(hm_reporting | hm_log_on, 0) &&
      hmplace_ctx_chosen.hmplace_site) {
    hm_ctx_account_chosen(hmplace_ctx_chosen.hmplace_site, bytes);
    return 1;
  }
  return 0;
}
/* The allocation hm_ctx_account just counted (it returned 1) went to the
 * ordinary heap: its entry's fallback, not its object. */
void hm_ctx_fell_back(void);
struct hm_ctx_row {
  const char *key; /* the entry's key, or the unmatched site's place */
  int kind;        /* its kind, or the unmatched allocations' fallback */
  uint64_t objects, bytes; /* placed */
  uint64_t fallbacks;      /* chosen, but on the ordinary heap */
  int unmatched; /* 1: a site's allocations that matched no entry */
};
void hm_ctx_rows(void (*row)(const struct hm_ctx_row *, void *), void *arg);

#endif
