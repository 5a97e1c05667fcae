/*===- heap.c - the ordinary heap beneath libhmplace.so's free and realloc ===*
 *
 * libhmplace.so defines free, realloc and malloc_usable_size (interpose.c,
 * dispatch.c); a block that is not placed goes on to the next definitions:
 * glibc's, a preloaded allocator's, or a sanitizer's, which owns the heap
 * (placement is then off: alloc.c). heap_core.c is libhmplace-core.a's.
 *===----------------------------------------------------------------------===*/
#define _GNU_SOURCE
#include "heap.h"

#include <dlfcn.h>
#include <malloc.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* This library defines free/realloc/malloc_usable_size itself, so the next
 * definitions are looked up (glibc's, or a preloaded allocator's). glibc's
 * __libc_* serve until then: dlsym may itself allocate and free. */
extern void *__libc_malloc(size_t);
extern void *__libc_calloc(size_t, size_t);
extern void *__libc_realloc(void *, size_t);
extern void __libc_free(void *);
static void bootstrap_free(void *p);
/* next_free starts as bootstrap_free, so the hot path is a load and a
 * jump, no test; the placed range is unset until range.c maps it. */
struct hm_free_path hm_fp = {0, 0, bootstrap_free};
static void *(*next_realloc)(void *, size_t);
static size_t (*next_usable)(void *);
static _Atomic int next_resolving;

/* A sanitizer (or a Valgrind tool) that owns the heap (its runtime defines
 * malloc and free ahead of every library: in the executable for clang, first in
 * the search order for gcc), or NULL. Its free, not this library's, then
 * receives every pointer the program frees, and it cannot release memkind's
 * blocks. */
static const char *Sanitizer;

static const char *find_sanitizer(void) {
  static const struct {
    const char *init, *name;
  } San[] = {{"__asan_init", "AddressSanitizer"},
             {"__hwasan_init", "HWAddressSanitizer"},
             {"__tsan_init", "ThreadSanitizer"},
             {"__msan_init", "MemorySanitizer"},
             {"__lsan_init", "LeakSanitizer"}};
  for (size_t i = 0; i < sizeof San / sizeof *San; ++i)
    if (dlsym(RTLD_DEFAULT, San[i].init))
      return San[i].name;
  return NULL;
}

/* The Valgrind tool the program runs under, if it replaces malloc and free
 * (memcheck, helgrind, drd, massif, dhat preload vgpreload_<tool>, beside
 * vgpreload_core): its free then receives every pointer the program frees,
 * placed ones too (memcheck: "Invalid free()", and a realloc that returns
 * NULL). NULL otherwise. */
static const char *find_valgrind(void) {
  static char name[64];
  const char *pre = getenv("LD_PRELOAD");
  for (const char *p = pre ? strstr(pre, "vgpreload_") : NULL; p;
       p = strstr(p + 1, "vgpreload_")) {
    const char *tool = p + strlen("vgpreload_");
    size_t n = strcspn(tool, "-.:/ ");
    if (n && n < 40 && strncmp(tool, "core", n) != 0) {
      snprintf(name, sizeof name, "Valgrind's %.*s", (int)n, tool);
      return name;
    }
  }
  return NULL;
}

static int ours(void *fn) {
  Dl_info a, b;
  return fn && dladdr(fn, &a) && dladdr((void *)&find_sanitizer, &b) &&
         a.dli_fbase == b.dli_fbase;
}

void hm_heap_init(void) {
  if (atomic_exchange(&next_resolving, 1))
    return;
  /* Under a sanitizer the heap's functions are its, wherever they are in
   * the search order: RTLD_NEXT would skip them (they come before). */
  Sanitizer = find_sanitizer();
  void *where = Sanitizer ? RTLD_DEFAULT : RTLD_NEXT;
  if (!Sanitizer) /* Valgrind redirects libc's own: RTLD_NEXT stays right */
    Sanitizer = find_valgrind();
  void *f = dlsym(where, "free");
  void *r = dlsym(where, "realloc");
  void *u = dlsym(where, "malloc_usable_size");
  /* Never our own (a sanitizer that leaves one of them alone): compared by
   * the object that holds it, since this library's own references to free
   * resolve to whichever definition comes first. */
  if (ours(f))
    f = NULL;
  if (ours(r))
    r = NULL;
  if (ours(u))
    u = Sanitizer ? dlsym(RTLD_NEXT, "malloc_usable_size") : NULL;
  if (u)
    __atomic_store_n(&next_usable, (size_t (*)(void *))u, __ATOMIC_RELEASE);
  if (r)
    __atomic_store_n(&next_realloc, (void *(*)(void *, size_t))r,
                     __ATOMIC_RELEASE);
  if (f)
    __atomic_store_n(&hm_fp.next_free, (void (*)(void *))f, __ATOMIC_RELEASE);
}

/* Until the constructor has asked dlsym (or if it cannot answer), glibc's
 * own free. Never dlsym from here: a free before the constructor may come
 * from inside dlsym itself (UBSan's start-up calls dlsym, whose error path
 * frees its message), and a nested dlsym there frees that message twice. */
static void bootstrap_free(void *p) { __libc_free(p); }

void *hm_heap_realloc(void *p, size_t n) {
  void *(*f)(void *, size_t) = __atomic_load_n(&next_realloc, __ATOMIC_ACQUIRE);
  return f ? f(p, n) : __libc_realloc(p, n); /* as bootstrap_free */
}

size_t hm_heap_usable(void *p) {
  size_t (*f)(void *) = __atomic_load_n(&next_usable, __ATOMIC_ACQUIRE);
  if (!f) {
    hm_heap_init();
    f = __atomic_load_n(&next_usable, __ATOMIC_ACQUIRE);
  }
  return f ? f(p) : 0;
}

/* The runtime's own memory: glibc's, whatever allocator the program has
 * (heap.h). */
void *hm_own_malloc(size_t n) { return __libc_malloc(n); }
void *hm_own_calloc(size_t nmemb, size_t size) {
  return __libc_calloc(nmemb, size);
}
void *hm_own_realloc(void *p, size_t n) { return __libc_realloc(p, n); }
void hm_own_free(void *p) { __libc_free(p); }

const char *hm_sanitizer(void) { return Sanitizer; }
