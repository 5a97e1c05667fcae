/*===- hmplace.h - HmPlace runtime: placed allocation and safe free -------===*
 *
 * The one public header of the HmPlace runtime. hmrewrite and HmPlace.so emit
 * calls to these functions; programs may call them directly too.
 *
 *  - hmplace_malloc(HMPLACE_HBW, n) and friends allocate from a memkind kind
 *    with C semantics (size 0 gives a unique pointer, calloc checks overflow,
 *    posix_memalign validates its alignment, errno as in glibc), falling back
 *    to the ordinary heap when the kind is unavailable, full, over budget or
 *    HMPLACE=off.
 *  - hmplace_free/hmplace_realloc/hmplace_malloc_usable_size accept any
 *    pointer a program may legally pass to free(): placed or not, NULL, from
 *    glibc or another allocator. Linking libhmplace.so also replaces free,
 *    realloc, reallocarray, malloc_usable_size and every global operator
 *    delete, so code that was never rewritten is safe too.
 *
 *===----------------------------------------------------------------------===*/
#ifndef HMPLACE_H
#define HMPLACE_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* memkind 1.14's static kinds, in memkind.h's order. */
enum hmplace_kind {
  HMPLACE_REGULAR,
  HMPLACE_DEFAULT,
  HMPLACE_HUGETLB,
  HMPLACE_HBW,
  HMPLACE_HBW_ALL,
  HMPLACE_HBW_PREFERRED,
  HMPLACE_HBW_HUGETLB,
  HMPLACE_HBW_ALL_HUGETLB,
  HMPLACE_HBW_PREFERRED_HUGETLB,
  HMPLACE_HBW_INTERLEAVE,
  HMPLACE_INTERLEAVE,
  HMPLACE_DAX_KMEM,
  HMPLACE_DAX_KMEM_ALL,
  HMPLACE_DAX_KMEM_PREFERRED,
  HMPLACE_DAX_KMEM_INTERLEAVE,
  HMPLACE_HIGHEST_CAPACITY,
  HMPLACE_HIGHEST_CAPACITY_PREFERRED,
  HMPLACE_HIGHEST_CAPACITY_LOCAL,
  HMPLACE_HIGHEST_CAPACITY_LOCAL_PREFERRED,
  HMPLACE_LOWEST_LATENCY_LOCAL,
  HMPLACE_LOWEST_LATENCY_LOCAL_PREFERRED,
  HMPLACE_HIGHEST_BANDWIDTH_LOCAL,
  HMPLACE_HIGHEST_BANDWIDTH_LOCAL_PREFERRED,
  HMPLACE_KIND_COUNT
};

/* Allocation entry points for planned sites. */
void *hmplace_malloc(enum hmplace_kind k, size_t n);
void *hmplace_calloc(enum hmplace_kind k, size_t nmemb, size_t size);
void *hmplace_aligned_alloc(enum hmplace_kind k, size_t align, size_t n);
int hmplace_posix_memalign(enum hmplace_kind k, void **out, size_t align,
                           size_t n);
void *hmplace_memalign(enum hmplace_kind k, size_t align, size_t n);
void *hmplace_valloc(enum hmplace_kind k, size_t n);
char *hmplace_strdup(enum hmplace_kind k, const char *s);
char *hmplace_strndup(enum hmplace_kind k, const char *s, size_t n);
/* A planned realloc site: the result lives in kind k, wherever p came from
 * (a block from another heap or kind is moved). */
void *hmplace_realloc_to(enum hmplace_kind k, void *p, size_t n);

/* Dispatch for any pointer. realloc keeps a block in its heap and kind. */
void hmplace_free(void *p);
void *hmplace_realloc(void *p, size_t n);
size_t hmplace_malloc_usable_size(void *p);

/* 1 + the kind of a placed block, 0 for anything else (NULL, heap). */
int hmplace_owner(const void *p);

/* Per-process capacity budget of a kind in bytes (0: none). Plans' tier
 * capacities arrive here; HMPLACE_BUDGET overrides them. */
void hmplace_set_budget(enum hmplace_kind k, uint64_t bytes);

struct hmplace_stats {
  uint64_t allocs;    /* placed allocations served by the kind */
  uint64_t bytes;     /* bytes requested by those allocations */
  uint64_t live;      /* usable bytes currently allocated */
  uint64_t peak;      /* maximum of live */
  uint64_t fallbacks; /* planned allocations served by the ordinary heap */
  int available;      /* 1 usable, 0 not (yet) initialised, -1 unavailable */
};
void hmplace_get_stats(enum hmplace_kind k, struct hmplace_stats *out);
const char *hmplace_kind_name(enum hmplace_kind k);
/* Print the report now (also done at exit when HMPLACE_REPORT is set). */
void hmplace_report(void);

/* The calling thread's next malloc, until hmplace_scope_exit, comes from
 * kind k: HmPlace.so brackets calls into flang's runtime that allocate the
 * array of a planned ALLOCATE. In libhmplace-fortran.so (it replaces malloc),
 * which such programs link before libhmplace.so. */
void hmplace_scope_enter(enum hmplace_kind k);
void hmplace_scope_exit(void);

/*--- context-sensitive placement (call-stack plan entries) ----------------*
 * A call site that a plan names as a caller frame notes itself on a
 * per-thread shadow stack around the call; an allocation call whose plan
 * entries differ by caller asks hmplace_ctx_kind() which kind the current
 * chain selects. hmrewrite and HmPlace.so emit these calls; the design is in
 * tool/plan/Context.h. */
#define HMPLACE_CTX_CAP 64
struct hmplace_ctx_stack {
  uint32_t depth; /* may exceed HMPLACE_CTX_CAP: deeper ids are not kept */
  uint32_t reserved;
  uint64_t ids[HMPLACE_CTX_CAP + 1]; /* the last one absorbs overflow */
};
extern __thread struct hmplace_ctx_stack hmplace_ctx_tls
    __attribute__((tls_model("initial-exec")));

/* Push a frame id; returns the depth to restore after the call. */
static __inline__ uint32_t hmplace_ctx_push(uint64_t id) {
  uint32_t d = hmplace_ctx_tls.depth;
  hmplace_ctx_tls.ids[d < HMPLACE_CTX_CAP ? d : HMPLACE_CTX_CAP] = id;
  hmplace_ctx_tls.depth = d + 1;
  return d;
}
static __inline__ void hmplace_ctx_restore(uint32_t depth) {
  hmplace_ctx_tls.depth = depth;
}
/* GNU C cleanup handler: restores the depth when a scope ends. */
static __inline__ void hmplace_ctx_cleanup(uint32_t *depth) {
  hmplace_ctx_tls.depth = *depth;
}
/* The kind a context site allocates in now (-1: the ordinary heap), from
 * its descriptor (a string only the front ends write). Counts the object
 * for the per-entry report. */
int hmplace_ctx_kind(const char *site);
/* HmPlace.so decides small context sites (and site entries) inline and
 * leaves the site and the entry chosen (an index into the descriptor's
 * entries, -1 for none) here; the placed entry point that follows counts
 * them for the per-entry report. */
struct hmplace_ctx_chosen {
  const char *site;
  int32_t choice;
};
extern __thread struct hmplace_ctx_chosen hmplace_ctx_chosen
    __attribute__((tls_model("initial-exec")));
/* Make sites known at start-up, so that the report can name plan entries
 * whose allocations never ran. */
void hmplace_ctx_register(const char *const *sites, size_t n);

#ifdef __cplusplus
} /* extern "C" */

#include <cstddef>
#include <new>

/* C++: `new (HMPLACE_HBW) T(args)`, `new (HMPLACE_HBW, std::nothrow) T[n]`.
 * Over-aligned types get the align_val_t forms automatically. The matching
 * placement deletes run only if a constructor throws; ordinary `delete p`
 * works through libhmplace.so's replacement of operator delete. */
void *operator new(std::size_t n, hmplace_kind k);
void *operator new[](std::size_t n, hmplace_kind k);
void *operator new(std::size_t n, hmplace_kind k,
                   const std::nothrow_t &) noexcept;
void *operator new[](std::size_t n, hmplace_kind k,
                     const std::nothrow_t &) noexcept;
void operator delete(void *p, hmplace_kind k) noexcept;
void operator delete[](void *p, hmplace_kind k) noexcept;
void operator delete(void *p, hmplace_kind k, const std::nothrow_t &) noexcept;
void operator delete[](void *p, hmplace_kind k,
                       const std::nothrow_t &) noexcept;
/* Over-aligned forms: std::align_val_t exists from C++17 (or -faligned-new);
 * before that, over-aligned types do not get aligned operator new anyway. */
#ifdef __cpp_aligned_new
void *operator new(std::size_t n, std::align_val_t a, hmplace_kind k);
void *operator new[](std::size_t n, std::align_val_t a, hmplace_kind k);
void *operator new(std::size_t n, std::align_val_t a, hmplace_kind k,
                   const std::nothrow_t &) noexcept;
void *operator new[](std::size_t n, std::align_val_t a, hmplace_kind k,
                     const std::nothrow_t &) noexcept;
void operator delete(void *p, std::align_val_t a, hmplace_kind k) noexcept;
void operator delete[](void *p, std::align_val_t a, hmplace_kind k) noexcept;
void operator delete(void *p, std::align_val_t a, hmplace_kind k,
                     const std::nothrow_t &) noexcept;
void operator delete[](void *p, std::align_val_t a, hmplace_kind k,
                       const std::nothrow_t &) noexcept;
#endif
#endif

#endif /* HMPLACE_H */
