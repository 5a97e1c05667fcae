/*===- room_limit.h - what a slot's nodes leave to the process's kind -----===*
 *
 * room.c's arithmetic, apart so that a unit test checks it: the nodes keep a
 * margin free, max(64 MiB, 1/32 of their memory) (what other processes may
 * take from them within a reading's age), and the process may use of the
 * kind what it used when the nodes were read and their free memory past the
 * margin.
 *===----------------------------------------------------------------------===*/
#ifndef HMPLACE_ROOM_LIMIT_H
#define HMPLACE_ROOM_LIMIT_H

#include <stdint.h>

#define HM_ROOM_MIN_MARGIN ((int64_t)64 << 20)

/* The margin nodes of \p total bytes keep free. */
static inline int64_t hm_room_margin(int64_t total) {
  return total / 32 > HM_ROOM_MIN_MARGIN ? total / 32 : HM_ROOM_MIN_MARGIN;
}

/* What the process may use of the kind (its live and kept bytes) while the
 * nodes, read with \p free of \p total bytes free when it used \p used0,
 * keep the margin free; 0 where they are short already. */
static inline int64_t hm_room_limit_of(int64_t used0, int64_t free,
                                       int64_t total) {
  int64_t limit = used0 + free - hm_room_margin(total);
  return limit > 0 ? limit : 0;
}

#endif
