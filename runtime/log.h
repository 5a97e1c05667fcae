/*===- log.h - HMPLACE_LOG: a line per planned allocation (log.c) ---------===*/
#ifndef HMPLACE_LOG_H
#define HMPLACE_LOG_H

#include "hmplace.h"
#include "hmplace_internal.h"
#include "track.h"

#include <stddef.h>

void hm_log_init(void);
void hm_log_alloc(const void *caller, enum hmplace_kind want, size_t n,
                  const void *p);
/* HMPLACE_LOG: what became of a planned allocation of \p n bytes asked for
 * at \p caller (one predicted branch while off); returns \p p. */
static inline void *hm_logged(void *p, enum hmplace_kind k, size_t n,
                              const void *caller) {
  if (__builtin_expect(hm_log_on, 0))
    hm_log_alloc(caller, k, n, p);
  return p;
}

#endif
