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
 *
 * Why this and not another way, for flang 19 (measured on Debian's
 * libFortranRuntime.a): the runtime has no allocator registry yet (newer
 * flang keeps an allocator index in the descriptor), Descriptor::Allocate
 * calls malloc directly; replacing the array after the runtime call would
 * copy every page of a fresh array and break the footer the runtime checks
 * when a POINTER is deallocated. DEALLOCATE and automatic deallocation call
 * free, which libhmplace.so dispatches by address.
 *
 * Only libhmplace.so's malloc (interpose.c) honours a scope; malloc pays one
 * load of hm_scopes_open and a predicted branch while no scope is open.
 *===----------------------------------------------------------------------===*/
#include "hmplace.h"
#include "hmplace_internal.h"

#include <stdatomic.h>

_Atomic int hm_scopes_open;
static __thread int ScopeKind __attribute__((tls_model("initial-exec"))) = -1;

void hmplace_scope_enter(enum hmplace_kind k) {
#if !HMPLACE_INTERPOSE
  static _Atomic int Warned;
  if (!atomic_exchange(&Warned, 1))
    hm_warn("Fortran ALLOCATE placement needs libhmplace.so (it replaces "
            "malloc while flang's runtime allocates); with libhmplace-core.a "
            "those arrays stay on the heap");
  (void)k;
#else
  if ((unsigned)k >= HMPLACE_KIND_COUNT)
    return; /* the heap: nothing to do */
  ScopeKind = (int)k;
  atomic_fetch_add_explicit(&hm_scopes_open, 1, memory_order_relaxed);
#endif
}

void hmplace_scope_exit(void) {
#if HMPLACE_INTERPOSE
  if (ScopeKind >= 0 || ScopeKind == -2) {
    ScopeKind = -1;
    atomic_fetch_sub_explicit(&hm_scopes_open, 1, memory_order_relaxed);
  }
#endif
}

void *hm_scope_malloc(size_t n) {
  int k = ScopeKind;
  if (k < 0)
    return 0;
  /* Once: the array's block. -2 keeps the scope open until exit, so that
   * the count stays balanced, and lets hmplace_malloc's own allocations
   * (and the runtime's later ones) go to the heap. */
  ScopeKind = -2;
  return hmplace_malloc((enum hmplace_kind)k, n ? n : 1);
}
