/* where.h - which memory an object came from, for the context tests. */
#ifndef WHERE_H
#define WHERE_H
#include <hmplace.h>

static const char *where(const void *p) {
  switch (hmplace_owner(p)) {
  case 0:
    return "heap";
  case 1 + HMPLACE_HBW:
    return "hbw";
  case 1 + HMPLACE_REGULAR:
    return "ddr";
  default:
    return "other";
  }
}
#endif
