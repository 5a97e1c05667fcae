/*===- split.h - one object's pages across several kinds -----------------===*
 *
 * split.c's interface to the rest of the runtime. A split object's regions
 * carry the owner byte SPLIT_OWNER, so owner_of() answers SPLIT_IDX for it
 * and the placed paths hand it here.
 *===----------------------------------------------------------------------===*/
#ifndef HMPLACE_SPLIT_H
#define HMPLACE_SPLIT_H

#include "hmplace_internal.h"
#include "slots.h"

#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>

/* The region owner byte of split objects, and what owner_of() returns for
 * them: past every slot (placed.h's MAX_SLOTS is 64). */
enum { SPLIT_IDX = 64, SPLIT_OWNER = SPLIT_IDX + 1 };

/* The parts of placement code \p code (kinds and percentages, up to 3);
 * 0 if it is no valid split. */
int hm_split_decode(int code, int *kinds, unsigned *pcts) HM_HIDDEN;
/* The kind an object of \p n bytes of split \p code goes to whole (too
 * small to split: the largest share's), -2 to split it, -1 for no split. */
int hm_split_whole_kind(int code, size_t n) HM_HIDDEN;
/* The kind of split \p code's largest share, -1 for no split. */
int hm_split_largest_kind(int code) HM_HIDDEN;
/* Kept (freed) split objects whose pages are not yet lazily freed: the
 * kinds and the slots that hold a placed part of one (bit k, bit j), and
 * those parts' bytes per kind and per slot (split.c). */
extern _Atomic uint64_t hm_split_kept_kinds HM_HIDDEN;
extern _Atomic uint64_t hm_split_kept_slots HM_HIDDEN;
extern _Atomic uint64_t hm_split_kept_bytes[HMPLACE_KIND_COUNT] HM_HIDDEN;
extern _Atomic uint64_t hm_split_kept_slot_bytes[SPLIT_IDX] HM_HIDDEN;
/* Lazily free the kept objects' pages where a placed request of \p req
 * bytes of kind \p k on slot \p idx could need them (split.c says when). */
void hm_split_make_room(int idx, int k, size_t req) HM_HIDDEN;
/* Before a placed allocation of \p req bytes of kind \p k on slot \p idx
 * (a whole block, a split object's part that reuses nothing, a realloc
 * that grows), its bytes already taken from the kind's budget if it has
 * one: kept objects give their pages back to the kernel where the
 * allocation could need them, whatever kind they were placed as (their
 * pages are their nodes'). One relaxed load while nothing is kept. */
static inline void hm_split_give_back(int idx, int k, size_t req) {
  /* Every kept part has a slot: no slot bit, nothing kept (one load). */
  uint64_t slots =
      atomic_load_explicit(&hm_split_kept_slots, memory_order_relaxed);
  if (__builtin_expect(slots != 0, 0) &&
      ((atomic_load_explicit(&hm_split_kept_kinds, memory_order_relaxed) >> k &
        1) ||
       (slots &
        atomic_load_explicit(&hm_slot_meets[idx], memory_order_relaxed))))
    hm_split_make_room(idx, k, req);
}
/* Whether a realloc of split object \p p to \p n bytes keeps it in place:
 * the same pages, or a size too small to split (a new object would go
 * whole to one kind, and a later growth would not be split again). */
int hm_split_keeps(const void *p, size_t n) HM_HIDDEN;
/* The alignment a split object has: it starts a region of the placed
 * range (range.c). */
#define HM_SPLIT_ALIGN ((size_t)1 << HM_REGION_SHIFT)
/* The run size of a split object of \p n bytes. */
size_t hm_split_run(size_t n) HM_HIDDEN;
/* A split object of \p n bytes, or NULL (the caller falls back). */
void *hm_split_alloc(int code, size_t n) HM_HIDDEN;
void hm_split_free(void *p) HM_HIDDEN;
size_t hm_split_usable(const void *p) HM_HIDDEN;
/* 1 + the kind of its largest share; 0 if \p p starts no split object. */
int hm_split_owner(const void *p) HM_HIDDEN;
/* "MEMKIND_HBW 75% + MEMKIND_REGULAR 25%" for a split code, NULL for
 * anything else (a stable string: hmplace_kind_name returns it). */
const char *hm_split_name(int code) HM_HIDDEN;
/* The placement code of the object at \p p, 0 if none. */
int hm_split_code_of(const void *p) HM_HIDDEN;
void hm_split_fork_lock(int take) HM_HIDDEN;
/* For the report: the i-th placement code used (objects, bytes
 * requested), -1 past the last; and each live object of a code. */
int hm_split_codes(int i, int *code, uint64_t *objects,
                   uint64_t *bytes) HM_HIDDEN;
void hm_split_each(int code, void (*fn)(void *p, size_t n, void *arg),
                   void *arg) HM_HIDDEN;
/* The objects (and bytes requested) of placements past the 32 listed. */
void hm_split_unlisted(uint64_t *objects, uint64_t *bytes) HM_HIDDEN;

#endif
