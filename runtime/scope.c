/*===- scope.c - a kind for the allocation a library makes on our behalf ---===*
 *
 * flang-new-19 lowers ALLOCATE with STAT=/ERRMSG=/SOURCE=/MOLD=, of POINTER
 * arrays, scalars and derived types to calls into its runtime library
 * (_FortranAAllocatableAllocate and friends), and the array is malloc'ed
 * there, in code HmPlace.so never sees. The pass brackets such a call with
 * hmplace_scope_enter(kind) / hmplace_scope_exit(); in between, the thread's
 * next malloc comes from the kind. That malloc is the array's: the runtime
 * checks the descriptor (allocating nothing), then Descriptor::Allocate (or,
 * for pointers, the validated payload with its footer) mallocs the block,
 * then initialises or copies into it. Anything the runtime allocates after
 * that (SOURCE= deep copies of allocatable components) stays on the heap.
 * The runtime calls that allocate a result (MATMUL, PACK, RESHAPE, ...) or
 * reallocate an assignment's allocatable (_FortranAAssign) are bracketed
 * the same way: their first malloc is the result's, as the profile, which
 * brackets them too, counted it.
 *
 * Why this and not another way, for flang 19 (measured on Debian's
 * libFortranRuntime.a): the runtime has no allocator registry yet (newer
 * flang keeps an allocator index in the descriptor), Descriptor::Allocate
 * calls malloc directly; replacing the array after the runtime call would
 * copy every page of a fresh array and break the footer the runtime checks
 * when a POINTER is deallocated. DEALLOCATE and automatic deallocation call
 * free, which libhmplace.so dispatches by address.
 *
 * This file is a library of its own, libhmplace-fortran.so, because serving
 * a scope means replacing malloc, and every malloc of the process then pays
 * a load and a predicted branch (about 2-3% of a malloc+free pair,
 * scripts/bench): programs without planned runtime allocations (C, C++)
 * link only libhmplace.so and keep glibc's malloc as it is. The pass emits
 * hmplace_scope_enter only where it placed such a call, and this is the only
 * library that defines it: a program that needs it and does not link it
 * fails to link, naming the symbol, instead of placing nothing.
 *===----------------------------------------------------------------------===*/
#define _GNU_SOURCE
#include "hmplace.h"

#include <stdatomic.h>
#include <stddef.h>

extern void *__libc_malloc(size_t);
/* libhmplace.so's: the log names the program's code and the plan entry. */
extern void *hm_malloc_from(enum hmplace_kind k, size_t n, const void *caller);
extern int hm_log_on, hm_filter_on;
extern __thread const char *hm_log_entry
    __attribute__((tls_model("initial-exec")));
extern __thread const char *hmplace_log_call
    __attribute__((tls_model("initial-exec")));

/* Open scopes in all threads: malloc's one test while none is open. */
static _Atomic int ScopesOpen;
static __thread int ScopeKind __attribute__((tls_model("initial-exec"))) = -1;
/* A size window (a plan entry's min-size/max-size, AutoHBW's rule): the
 * array's block is placed only if its size is inside. The size is known
 * only here: flang's runtime computes it from the descriptor. */
static __thread size_t ScopeLo __attribute__((tls_model("initial-exec")));
static __thread size_t ScopeHi __attribute__((tls_model("initial-exec")));
/* For HMPLACE_LOG: the program's code that opened the scope (the ALLOCATE
 * statement's), and the plan entry that placed it (or NULL). */
static __thread const void *ScopeCaller
    __attribute__((tls_model("initial-exec")));
static __thread const char *ScopeEntry
    __attribute__((tls_model("initial-exec")));
/* A `files:` entry's call ("app.f90:12:3 (u)"), which its key does not
 * name: stored by the pass before the scope opens. */
static __thread const char *ScopeCall
    __attribute__((tls_model("initial-exec")));

static void open_scope(enum hmplace_kind k, size_t lo, size_t hi,
                       const char *entry, const void *caller) {
  const char *call = hmplace_log_call;
  hmplace_log_call = 0; /* the scope's, not the next call's */
  if ((int)k < 0 || (int)k == HMPLACE_KIND_COUNT)
    return; /* the heap: nothing to do (a split is a kind here) */
  ScopeCall = call;
  ScopeKind = (int)k;
  ScopeLo = lo;
  ScopeHi = hi;
  ScopeEntry = entry;
  ScopeCaller = caller;
  atomic_fetch_add_explicit(&ScopesOpen, 1, memory_order_relaxed);
}

void hmplace_scope_enter_entry(enum hmplace_kind k, size_t lo, size_t hi,
                               const char *entry) {
  open_scope(k, lo, hi, entry, __builtin_return_address(0));
}

void hmplace_scope_enter_window(enum hmplace_kind k, size_t lo, size_t hi) {
  open_scope(k, lo, hi, 0, __builtin_return_address(0));
}

void hmplace_scope_enter(enum hmplace_kind k) {
  open_scope(k, 0, (size_t)-1, 0, __builtin_return_address(0));
}

void hmplace_scope_exit(void) {
  if (ScopeKind >= 0 || ScopeKind == -2) {
    ScopeKind = -1;
    atomic_fetch_sub_explicit(&ScopesOpen, 1, memory_order_relaxed);
  }
}

/* The block for the calling thread's open scope, or 0 if it has none. */
static void *scope_malloc(size_t n) {
  int k = ScopeKind;
  if (k < 0)
    return 0;
  /* Once: the array's block. -2 keeps the scope open until exit, so that
   * the count stays balanced, and lets hmplace_malloc's own allocations
   * (and the runtime's later ones) go to the heap. */
  ScopeKind = -2;
  /* Outside the window: the ordinary heap, and with HMPLACE_LOG, counted
   * (or logged with HMPLACE_LOG_KEPT) as what the entry keeps out. */
  int in = n >= ScopeLo && n <= ScopeHi;
  if (!in && !hm_log_on)
    return 0;
  if ((hm_log_on | hm_filter_on) && ScopeEntry) {
    hm_log_entry = ScopeEntry; /* the log's name; HMPLACE_ENTRIES's too */
    hmplace_log_call = ScopeCall;
  }
  return hm_malloc_from(in ? (enum hmplace_kind)k : HMPLACE_HEAP, n ? n : 1,
                        ScopeCaller);
}

/* Out of line, so that malloc's path while no scope is open is a load, a
 * branch and a jump to glibc's. */
__attribute__((noinline)) static void *malloc_in_scope(size_t n) {
  void *p = scope_malloc(n);
  return p ? p : __libc_malloc(n);
}

void *malloc(size_t n) {
  if (__builtin_expect(
          atomic_load_explicit(&ScopesOpen, memory_order_relaxed) != 0, 0))
    return malloc_in_scope(n);
  return __libc_malloc(n);
}
