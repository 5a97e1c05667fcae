/*===- room.h - whether a slot's nodes have room for more pages ----------===*
 *
 * What split.c asks before it gives kept objects' pages back (room.c): the
 * free memory of the nodes a slot's policy takes pages from, as the kernel
 * last said it, less what the slot's kind has grown since.
 *===----------------------------------------------------------------------===*/
#ifndef HMPLACE_ROOM_H
#define HMPLACE_ROOM_H

#include "hmplace_internal.h"

#include <stddef.h>

/* Whether the nodes of slot \p idx keep a margin free after \p req more
 * bytes of its kind: their free memory (sysfs, read again once it is 10 ms
 * old) less the growth of the kind's live bytes since it was read, less
 * \p req, at least max(64 MiB, 1/32 of the nodes). 0 where that cannot be
 * known (a slot with no node mask, an unreadable sysfs). */
int hm_room_for(int idx, size_t req) HM_HIDDEN;

#endif
