/*===- alloc.c - the entry points for planned sites, and start-up ---------===*
 *
 * hmplace_malloc and its siblings keep C's semantics (malloc(0), calloc's
 * overflow check, posix_memalign's EINVAL without touching *out or errno),
 * and fall back to the ordinary heap with C's own call when the kind may
 * not or cannot serve the request. The runtime's constructor is here
 * (startup.c has what it runs).
 *===----------------------------------------------------------------------===*/
#define _GNU_SOURCE
/* The entry points themselves: not hmplace.h's inline forms of them. */
#define HMPLACE_RUNTIME_ 1
#include "context.h"
#include "entryfilter.h"
#include "log.h"
#include "placed.h"
#include "split.h"
#include "track.h"

#include <errno.h>
#include <malloc.h>
#include <string.h>
#include <unistd.h>

/* A split object for an alignment a split object cannot give: said once;
 * the block goes to the ordinary heap, a fallback of kind \p k. */
static void split_align_fallback(enum hmplace_kind k, size_t align) {
  static _Atomic int warned;
  placed_failed(k);
  if (!atomic_exchange(&warned, 1))
    hm_warn("a split placement was asked for a block aligned to %zu bytes; "
            "split objects are aligned to %zu: it and any later such blocks "
            "go to the ordinary heap (fallbacks of %s)",
            align, (size_t)HM_SPLIT_ALIGN, hm_kind_names[k]);
}

/* A block of \p req bytes (aligned to \p align unless 0) from kind \p k, or
 * NULL: \p *fell set where a kind may not or cannot serve it (counted: a
 * fallback), left where the choice was the ordinary heap. */
static inline __attribute__((always_inline)) void *
place(enum hmplace_kind k, size_t align, size_t req, int *fell) {
  size_t held;
  if (__builtin_expect((int)k > HMPLACE_KIND_COUNT, 0)) {
    /* A split placement (split.c): large objects are split (an object
     * starts a region of the placed range: any alignment up to it holds);
     * small ones go whole to the largest share's kind. Off, a large one
     * is the largest share's fallback (may_place counts it). */
    int whole = hm_split_whole_kind((int)k, req);
    if (whole == -2) {
      int off = atomic_load_explicit(&hm_off, memory_order_relaxed);
      if (!off && align <= HM_SPLIT_ALIGN) {
        void *p = hm_split_alloc((int)k, req);
        *fell = !p;
        return p;
      }
      whole = hm_split_largest_kind((int)k);
      if (!off) {
        split_align_fallback((enum hmplace_kind)whole, align);
        *fell = 1;
        return NULL;
      }
    }
    if (whole < 0)
      return NULL;
    k = (enum hmplace_kind)whole;
  }
  if (!valid_kind(k))
    return NULL;
  *fell = 1;
  if (!may_place(k, req, &held))
    return NULL;
  int idx = slot_for(k);
  void *p = NULL;
  if (idx >= 0) {
    hm_split_give_back(idx, k, req);
    p = align ? hm_placed_aligned(k, idx, align, req, held)
              : hm_placed_malloc(k, idx, req, held);
  }
  if (!p) {
    atomic_fetch_sub_explicit(&hm_kinds[k].live, held, memory_order_relaxed);
    placed_failed(k);
  }
  return p;
}

/* place(), for the program's call: HMPLACE_ENTRIES asked first, and the
 * call-stack entry the call chose counted for the report (an object where
 * placed, a fallback where its kind did not serve it). The caller falls
 * back to the ordinary heap with C's own call on NULL. */
static void *try_place(enum hmplace_kind k, size_t align, size_t req) {
  /* HMPLACE_ENTRIES: its entry not named, the ordinary heap's (not a
   * fallback, and not its call-stack entry's object); asked before the
   * choice is taken. */
  if (__builtin_expect(hm_filter_on, 0) && hm_filter_hold()) {
    hm_ctx_forget_choice();
    return NULL;
  }
  int counted = hm_ctx_account(req), fell = 0;
  void *p = place(k, align, req, &fell);
  if (__builtin_expect(!p && (counted & fell), 0))
    hm_ctx_fell_back();
  return p;
}

void *hm_malloc_from(enum hmplace_kind k, size_t n, const void *caller) {
  /* malloc(0) returns a unique pointer; memkind's returns NULL. */
  void *p = try_place(k, 0, n ? n : 1);
  return hm_logged(p ? p : malloc(n), k, n, caller);
}

/* A request for the ordinary heap (a size window's call outside it, a
 * call-stack entry's fallback) while neither the report nor the log wants
 * to hear of it: the heap's own call, nothing else to do (hmrewrite's
 * windowed form comes here for every small allocation of a windowed file). */
#define HEAP_ONLY(k)                                                           \
  __builtin_expect((int)(k) < 0 && !(hm_reporting | hm_log_on), 0)

/* Out of line, so that the heap's path saves no registers. */
__attribute__((noinline)) static void *
malloc_placed(enum hmplace_kind k, size_t n, const void *caller) {
  return hm_malloc_from(k, n, caller);
}

void *hmplace_malloc(enum hmplace_kind k, size_t n) {
  if (HEAP_ONLY(k))
    return malloc(n);
  return malloc_placed(k, n, __builtin_return_address(0));
}

void *hmplace_calloc(enum hmplace_kind k, size_t nmemb, size_t size) {
  if (HEAP_ONLY(k))
    return calloc(nmemb, size);
  size_t n;
  /* memkind_calloc does not check the product for overflow. */
  if (__builtin_mul_overflow(nmemb, size, &n)) {
    errno = ENOMEM;
    return NULL;
  }
  void *p = try_place(k, 0, n ? n : 1);
  if (!p)
    return hm_logged(calloc(nmemb, size), k, n, __builtin_return_address(0));
  /* Cached blocks are dirty and fresh ones are zero only sometimes. */
  memset(p, 0, n);
  return hm_logged(p, k, n, __builtin_return_address(0));
}

/* operator new's placed path (hmplace_new.cpp): a block of kind \p k (aligned
 * to \p align unless 0), or NULL, and the caller takes its heap's operator
 * new of the same form, which the program's delete matches (under Valgrind
 * and ASan too); hm_log_new then logs the block either way. */
void *hm_place_new(enum hmplace_kind k, size_t align, size_t n) {
  if (align && align < sizeof(void *))
    align = sizeof(void *);
  return try_place(k, align, n ? n : 1);
}

void *hm_log_new(void *p, enum hmplace_kind k, size_t n, const void *caller) {
  return hm_logged(p, k, n, caller);
}

/* The names hmplace.h's inline forms of the two call (the same functions:
 * the return address they log is the program's call). */
void *hmplace_malloc_kind_(enum hmplace_kind k, size_t n)
    __attribute__((alias("hmplace_malloc")));
void *hmplace_calloc_kind_(enum hmplace_kind k, size_t nmemb, size_t size)
    __attribute__((alias("hmplace_calloc")));

static int good_alignment(size_t align) {
  return align && (align & (align - 1)) == 0;
}

int hm_posix_memalign_from(enum hmplace_kind k, void **out, size_t align,
                           size_t n, const void *caller) {
  /* POSIX: a power of two multiple of sizeof(void *), else EINVAL and *out
   * untouched. Returns the error; errno is left alone. */
  if (!good_alignment(align) || align % sizeof(void *) != 0)
    return EINVAL;
  void *p = try_place(k, align, n ? n : 1);
  if (p) {
    *out = hm_logged(p, k, n, caller);
    return 0;
  }
  int saved = errno;
  int r = posix_memalign(out, align, n);
  errno = saved;
  hm_logged(r ? NULL : *out, k, n, caller);
  return r;
}

int hmplace_posix_memalign(enum hmplace_kind k, void **out, size_t align,
                           size_t n) {
  return hm_posix_memalign_from(k, out, align, n, __builtin_return_address(0));
}

void *hmplace_aligned_alloc(enum hmplace_kind k, size_t align, size_t n) {
  /* glibc accepts any power of two (even below sizeof(void *)). */
  if (!good_alignment(align)) {
    errno = EINVAL;
    return NULL;
  }
  size_t a = align < sizeof(void *) ? sizeof(void *) : align;
  void *p = try_place(k, a, n ? n : 1);
  return hm_logged(p ? p : aligned_alloc(align, n), k, n,
                   __builtin_return_address(0));
}

void *hmplace_memalign(enum hmplace_kind k, size_t align, size_t n) {
  /* glibc's memalign rounds a non-power-of-two alignment up. */
  if (align > ((size_t)1 << (sizeof(size_t) * 8 - 1))) {
    errno = EINVAL;
    return NULL;
  }
  size_t a = sizeof(void *);
  while (a < align)
    a <<= 1;
  void *p = try_place(k, a, n ? n : 1);
  return hm_logged(p ? p : memalign(align, n), k, n,
                   __builtin_return_address(0));
}

void *hmplace_valloc(enum hmplace_kind k, size_t n) {
  return hmplace_memalign(k, (size_t)sysconf(_SC_PAGESIZE), n);
}

char *hmplace_strdup(enum hmplace_kind k, const char *s) {
  size_t n = strlen(s) + 1;
  char *d = hm_malloc_from(k, n, __builtin_return_address(0));
  if (d)
    memcpy(d, s, n);
  return d;
}

char *hmplace_strndup(enum hmplace_kind k, const char *s, size_t max) {
  size_t n = strnlen(s, max);
  char *d = hm_malloc_from(k, n + 1, __builtin_return_address(0));
  if (d) {
    memcpy(d, s, n);
    d[n] = 0;
  }
  return d;
}

/*--- start-up ---------------------------------------------------------------*/

/* The runtime's constructor: here, in the file every program that places
 * anything links (from libhmplace-core.a a file of its own would be left
 * out); the hooks it runs are startup.c's table. */
__attribute__((constructor)) static void hmplace_init(void) { hm_startup(); }
