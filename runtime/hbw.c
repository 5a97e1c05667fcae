/*===- hbw.c - memkind's hbwmalloc API, served by the runtime's kinds -----===*
 *
 * Linked into libhmplace.so only. A plan may move an hbw_malloc site to
 * another kind or back to the ordinary heap, and the block then reaches an
 * hbw_free somewhere else; memkind's hbw_free crashes on a block that is not
 * its own (it looks the pointer up in its jemalloc's tree). So the runtime
 * serves the whole API itself: every hbw block is a placed block of the HBW
 * kind the hbw policy names, and hbw_free/hbw_realloc are the runtime's
 * dispatch, safe for any pointer. This needs libhmplace.so ahead of
 * libmemkind.so in the program's symbol lookup; the constructor below says
 * when it is not.
 *
 * What changes for a program that was never placed: HBW exhaustion or a
 * machine without HBW gives the runtime's fallback to the ordinary heap
 * (with its warning and report line) instead of memkind's NULL, and budgets
 * (HMPLACE_BUDGET=HBW...) cover these blocks too.
 *===----------------------------------------------------------------------===*/
#define _GNU_SOURCE
#include "hmplace.h"
#include "hmplace_internal.h"

#include <dlfcn.h>
#include <errno.h>
#include <hbwmalloc.h>
#include <memkind.h>
#include <stdatomic.h>

/* 0 until set by hbw_set_policy or fixed by the first allocation. */
static _Atomic int Policy;

static hbw_policy_t policy(void) {
  int p = atomic_load_explicit(&Policy, memory_order_relaxed);
  if (__builtin_expect(p == 0, 0)) {
    int unset = 0;
    atomic_compare_exchange_strong(&Policy, &unset, HBW_POLICY_PREFERRED);
    p = atomic_load(&Policy);
  }
  return (hbw_policy_t)p;
}

/* The kind memkind's hbw_* functions use for \p p and \p pagesize, as
 * memkind 1.14 chooses it (hbwmalloc.c); HMPLACE_KIND_COUNT: not served. */
static enum hmplace_kind kind_for(hbw_policy_t p, hbw_pagesize_t pagesize) {
  int huge = pagesize == HBW_PAGESIZE_2MB;
  if (pagesize != HBW_PAGESIZE_4KB && !huge)
    return HMPLACE_KIND_COUNT; /* 1 GB pages: deprecated, gone from 1.14 */
  switch (p) {
  case HBW_POLICY_BIND:
    return huge ? HMPLACE_HBW_HUGETLB : HMPLACE_HBW;
  case HBW_POLICY_BIND_ALL:
    return huge ? HMPLACE_HBW_ALL_HUGETLB : HMPLACE_HBW_ALL;
  case HBW_POLICY_PREFERRED:
    return huge ? HMPLACE_HBW_PREFERRED_HUGETLB : HMPLACE_HBW_PREFERRED;
  case HBW_POLICY_INTERLEAVE:
    return huge ? HMPLACE_KIND_COUNT : HMPLACE_HBW_INTERLEAVE;
  }
  return HMPLACE_KIND_COUNT;
}

hbw_policy_t hbw_get_policy(void) { return policy(); }

int hbw_set_policy(hbw_policy_t mode) {
  if (mode < HBW_POLICY_BIND || mode > HBW_POLICY_BIND_ALL)
    return EINVAL;
  int unset = 0;
  /* As memkind: once, before the first allocation; again only to the same. */
  if (atomic_compare_exchange_strong(&Policy, &unset, (int)mode))
    return 0;
  return unset == (int)mode ? 0 : EPERM;
}

int hbw_check_available(void) {
  return memkind_check_available(MEMKIND_HBW) ? ENODEV : 0;
}

void *hbw_malloc(size_t size) {
  return hm_malloc_from(kind_for(policy(), HBW_PAGESIZE_4KB), size,
                        __builtin_return_address(0));
}

void *hbw_calloc(size_t num, size_t size) {
  return hmplace_calloc(kind_for(policy(), HBW_PAGESIZE_4KB), num, size);
}

void *hbw_realloc(void *ptr, size_t size) {
  return hmplace_realloc_to(kind_for(policy(), HBW_PAGESIZE_4KB), ptr, size);
}

int hbw_posix_memalign_psize(void **memptr, size_t alignment, size_t size,
                             hbw_pagesize_t pagesize) {
  enum hmplace_kind k = kind_for(policy(), pagesize);
  if (k == HMPLACE_KIND_COUNT)
    return EINVAL;
  return hm_posix_memalign_from(k, memptr, alignment, size,
                                __builtin_return_address(0));
}

int hbw_posix_memalign(void **memptr, size_t alignment, size_t size) {
  return hbw_posix_memalign_psize(memptr, alignment, size, HBW_PAGESIZE_4KB);
}

void hbw_free(void *ptr) { hm_free(ptr); }

size_t hbw_malloc_usable_size(void *ptr) {
  return hmplace_malloc_usable_size(ptr);
}

/* Which pages back a range is memkind's to answer, whoever allocated it. */
int hbw_verify_memory_region(void *addr, size_t size, int flags) {
  void *memkind = dlopen("libmemkind.so.0", RTLD_NOW | RTLD_NOLOAD);
  int (*verify)(void *, size_t, int) =
      memkind ? (int (*)(void *, size_t, int))dlsym(memkind,
                                                    "hbw_verify_memory_region")
              : NULL;
  if (memkind)
    dlclose(memkind);
  return verify ? verify(addr, size, flags) : EINVAL;
}

/* The program's hbw_* calls bind to the first definition in its lookup
 * order; if that is memkind's, blocks a plan moved off HBW reach memkind's
 * hbw_free and crash it. &hbw_free here would name that same definition,
 * hence the local alias. */
static void own_hbw_free(void *ptr) __attribute__((alias("hbw_free")));

__attribute__((constructor)) static void hbw_check_order(void) {
  void *bound = dlsym(RTLD_DEFAULT, "hbw_free");
  if (bound && bound != (void *)own_hbw_free)
    hm_warn("the program's hbw_* calls resolve to libmemkind, which comes "
            "before libhmplace in its link: an hbw_free of a block a plan "
            "moved off high-bandwidth memory would crash. Link -lhmplace "
            "before -lmemkind (hmcc and hmplace_apply_plan do)");
}
