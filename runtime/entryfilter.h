/*===- entryfilter.h - HMPLACE_ENTRIES: place only the entries it names ---===*
 *                   (entryfilter.c)
 *===----------------------------------------------------------------------===*/
#ifndef HMPLACE_ENTRYFILTER_H
#define HMPLACE_ENTRYFILTER_H

#include "hmplace_internal.h"
#include "track.h"

#include <stddef.h>
#include <stdint.h>

/* Set by hm_filter_hold for the allocation it held back (the log says so
 * instead of calling it a fallback); the log clears it. */
extern __thread int hm_held_now HM_HIDDEN;

/* Read HMPLACE_ENTRIES (at start-up). */
void hm_filter_init(void) HM_HIDDEN;
/* Whether the placed allocation under way is held on the ordinary heap:
 * its entry is not one the file names (counted; one that names no entry
 * is placed, and counted apart). Only while hm_filter_on. */
int hm_filter_hold(void) HM_HIDDEN;
/* Whether the file names \p key (0 while HMPLACE_ENTRIES is off). */
int hm_filter_names(const char *key) HM_HIDDEN;
/* What the report says of HMPLACE_ENTRIES: its path, how many entries it
 * names, the allocations held back and those that named no entry. 0 while
 * it is off. */
int hm_filter_counts(const char **path, size_t *named, uint64_t *held,
                     uint64_t *unnamed) HM_HIDDEN;

#endif
