/*===- hmplace_frame.h - frame ids and the shadow stack's capacity --------===*
 *
 * One definition of what the runtime (hmplace.h, context.c), the plan
 * library (`hmplan match`, the advisor's check) and HmPlace.so agree on:
 * a frame id is a 32-bit hash of the lowercased file name in the high half,
 * 20 bits of line and 12 of column (clamped; 0 in a plan frame matches any
 * column) below; the shadow stack keeps the innermost HMPLACE_CTX_CAP ids.
 *===----------------------------------------------------------------------===*/
#ifndef HMPLACE_FRAME_H
#define HMPLACE_FRAME_H

#define HMPLACE_CTX_CAP 64

#define HMPLACE_FRAME_ID(hash, line, col)                                     \
  ((uint64_t)(hash) << 32 | (uint64_t)((line) & 0xFFFFF) << 12 |              \
   (uint64_t)((col) > 0xFFF ? 0xFFF : (col)))

/* Whether the id \p have of a noted call matches the plan frame \p want. */
#define HMPLACE_FRAME_MATCHES(have, want)                                     \
  (!(((have) ^ (want)) >> 12) &&                                              \
   (!((want) & 0xFFF) || ((want) & 0xFFF) == ((have) & 0xFFF)))

#endif
