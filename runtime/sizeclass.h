/*===- sizeclass.h - the usable size of a placed block, one definition ---===*
 *
 * memkind's jemalloc (5.3, 4 KiB pages) rounds a request of n bytes up to
 * its size class: 16-byte steps to 128, then four classes per doubling, the
 * same spacing for large blocks. An aligned request is rounded to a class
 * that holds the alignment (jemalloc's sz_sa2u). The runtime counts live
 * bytes, and budgets, in these usable sizes, so `hmplan advise` counts a
 * tier's capacity with the same functions (tool/hmplan includes this file):
 * test/runtime/size-classes.c checks them against the sizes memkind hands
 * out.
 *
 * Plain C (and C++), no dependency: static inline functions only.
 *===----------------------------------------------------------------------===*/
#ifndef HMPLACE_SIZECLASS_H
#define HMPLACE_SIZECLASS_H

#include <stddef.h>

/* jemalloc's largest small class and smallest large one (4 KiB pages). */
enum { HM_SMALL_MAX = 14336, HM_LARGE_MIN = 16384, HM_PAGE = 4096 };

/* 2^lg < n <= 2^(lg+1), for n > 128. */
static inline unsigned size_lg(size_t n) {
  return 63 - (unsigned)__builtin_clzll(n - 1);
}

static inline size_t size_step(size_t n) {
  return n <= 128 ? 16 : (size_t)1 << (size_lg(n) - 2);
}

/* The usable size of a block for a request of n bytes. */
static inline size_t usable_for(size_t n) {
  size_t step = size_step(n);
  return n ? (n + step - 1) & ~(step - 1) : 16;
}

/* The usable size of a block of n bytes aligned to align (a power of two;
 * 0 or up to 16: the allocator's own alignment). */
static inline size_t usable_aligned(size_t n, size_t align) {
  if (align <= 16)
    return usable_for(n);
  if (n <= HM_SMALL_MAX && align <= HM_PAGE) {
    size_t u = usable_for((n + align - 1) & ~(align - 1));
    if (u < HM_LARGE_MIN)
      return u;
  }
  return n <= HM_LARGE_MIN ? (size_t)HM_LARGE_MIN : usable_for(n);
}

/* A split object (split.c) is cut into runs, each given whole to one kind:
 * a power of two, at most an 80th of the object (an eighth holds ten runs
 * or more), at least a page, at most a huge page (2 MiB) up to objects of
 * 8 GiB, and past that doubled until an object has at most 4096 runs. Objects
 * under 80 pages are not split: they go whole to the kind of the largest share.
 * A part holds its share of the object's pages to within one run. */
enum { HM_SPLIT_MIN_PAGES = 80, HM_SPLIT_MAX_RUNS = 4096 };
#define HM_SPLIT_MAX_RUN ((size_t)2 << 20)

static inline size_t split_run(size_t n) {
  size_t r = HM_PAGE;
  while (r < HM_SPLIT_MAX_RUN && r * 2 * HM_SPLIT_MIN_PAGES <= n)
    r *= 2;
  while (n / r > HM_SPLIT_MAX_RUNS)
    r *= 2;
  return r;
}

/* Whether the runtime splits an object of n bytes. */
static inline int split_splits(size_t n) {
  return n >= (size_t)HM_SPLIT_MIN_PAGES * HM_PAGE;
}

#endif
