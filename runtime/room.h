/*===- room.h - whether a slot's nodes have room for more pages ----------===*
 *
 * What split.c asks before it gives kept objects' pages back (room.c): the
 * free memory of the nodes a slot's policy takes pages from, as the kernel
 * last said it, less what the slot's kind has grown since.
 *===----------------------------------------------------------------------===*/
#ifndef HMPLACE_ROOM_H
#define HMPLACE_ROOM_H

#include "hmplace_internal.h"
#include "placed.h"

#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>

/* The full check of hm_room_for: the reading (again, once it is 10 ms
 * old), the limit below set from it. */
int hm_room_read(int idx, int64_t used, size_t req) HM_HIDDEN;
/* Per slot, what the process may use of its kind while its nodes keep the
 * margin free, as the last reading said (0: none yet, or short). */
extern _Atomic int64_t hm_room_limit[MAX_SLOTS] HM_HIDDEN;
/* Requests below this trust the last reading whatever its age (they take a
 * small part of the margin; a reading only grows old where no larger
 * request comes): a placed allocation's check while kept objects hold its
 * kind is then a load and a compare, no clock. */
#define HM_ROOM_SMALL ((size_t)1 << 20)

/* Whether the nodes of slot \p idx keep a margin free after \p req more
 * bytes of its kind, where the process uses \p used of it (its live bytes
 * and what it keeps): their free memory (sysfs, read again once it is
 * 10 ms old) less what the process has come to use more since it was read,
 * less \p req, at least max(64 MiB, 1/32 of the nodes). 0 where that cannot
 * be known (a slot with no node mask, an unreadable sysfs). */
static inline int hm_room_for(int idx, int64_t used, size_t req) {
  int64_t limit =
      atomic_load_explicit(&hm_room_limit[idx], memory_order_relaxed);
  if (req < HM_ROOM_SMALL && limit > 0 && used + (int64_t)req <= limit)
    return 1;
  return hm_room_read(idx, used, req);
}

#endif
