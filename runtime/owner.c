/*===- owner.c - which kind owns any pointer (hmplace_owner) -------------===*
 *
 * Above the slots and the split objects it reads, below the log and the
 * report that ask it.
 *===----------------------------------------------------------------------===*/
#define _GNU_SOURCE
#include "placed.h"
#include "split.h"

/* The kind that owns \p p, + 1 (a split object: its largest part's), 0 for
 * the heap. */
int hmplace_owner(const void *p) {
  if (!p)
    return 0;
  int s = owner_of(p);
  if (s == SPLIT_IDX)
    return hm_split_owner(p);
  return s < 0 ? 0 : hm_slots[s].kind + 1;
}
