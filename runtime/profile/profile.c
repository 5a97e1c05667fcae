/*===- profile.c - what a MemProf-profiled build links to be seen whole ---===*
 *
 * `hmcc --profile` (and hmc++, hmfort) links this into a program built with
 * LLVM MemProf instrumentation, with -Wl,--wrap for the allocation functions
 * below, so that `hmplan advise` sees every heap object of the run. Two
 * things LLVM's MemProf runtime (19 and 22) gets wrong without it:
 *
 *  - Blocks over 128 KiB still allocated at exit are left out of the
 *    profile. At exit the runtime records the live blocks by walking its
 *    allocator (InsertLiveBlocks), and finds a block's header only for the
 *    primary allocator's chunks (up to 128 KiB) or where a memalign left a
 *    magic word before it (GetMemprofChunk); a large malloc has neither, so
 *    an 8 MiB array that is never freed is absent (measured: 131,080 B never
 *    freed absent, 128,000 B present, the same block freed present). Many
 *    HPC codes never free their main arrays. Here every request of 64 KiB or
 *    more is made as memalign(64, n), which gives the block the magic word;
 *    the request's size is kept, 64 bytes of address space are the cost.
 *
 *  - An ALLOCATE that flang 19 lowers to a call into its runtime library
 *    (STAT=, module variables, derived types, ...) is malloc'ed inside that
 *    library, which is built without frame pointers: MemProf's frame-pointer
 *    unwinder stops there, and every such array shares one context with no
 *    user frame. HmPlace.so (profile mode) brackets the call with
 *    hmplace_profile_enter(frame)/hmplace_profile_exit(); the first malloc
 *    inside the bracket (the array's, as runtime/scope.c explains) is made
 *    through a frame record that links the unwinder to the ALLOCATE's own
 *    frame and return address, so the context is the statement's.
 *
 * The wrappers reach the MemProf runtime's interceptors (memalign, malloc,
 * ...) through calls or tail calls from code without debug info: LLVM's raw
 * profile reader drops frames it cannot symbolize, so the innermost frame of
 * a context stays the program's own call, as without the wrappers. Requests
 * under 64 KiB go straight to the real function.
 *
 * x86-64 only: LLVM (19, 22) reads raw MemProf profiles of x86 programs only.
 * Built without debug info, on purpose (above).
 *===----------------------------------------------------------------------===*/
#define _GNU_SOURCE
#include <dlfcn.h>
#include <malloc.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "profile.h"

/* What `hmplan advise` looks for in a binary to know it was linked with
 * this library (MemProfile.cpp). */
const char hmplace_profile_support[] = "hmplace-profile 1";

void *__real_malloc(size_t);
void *__real_calloc(size_t, size_t);
void *__real_realloc(void *, size_t);
int __real_posix_memalign(void **, size_t, size_t);
void *__real_aligned_alloc(size_t, size_t);
void *__real_memalign(size_t, size_t);

/* The ALLOCATE being profiled on this thread: the frame pointer and the
 * return address of the call to hmplace_profile_enter in the program's
 * function, which sit where a frame record of that function would be. */
static __thread struct {
  void *frame, *ret;
  int armed;
} Scope __attribute__((tls_model("initial-exec")));

void hmplace_profile_enter(void *frame) {
  Scope.frame = frame;
  Scope.ret = __builtin_return_address(0);
  Scope.armed = 1;
}

void hmplace_profile_exit(void) { Scope.armed = 0; }

/* Call fn(a, b) with the frame pointer set to \p record, a frame record
 * {caller's frame, return address}: the callee's frame record then links
 * to it, and a frame-pointer unwinder continues from the program's frame. */
void *hm_call_through(void **record, void *(*fn)(size_t, size_t), size_t a,
                      size_t b);
__asm__(".text\n"
        ".globl hm_call_through\n"
        ".hidden hm_call_through\n"
        ".type hm_call_through,@function\n"
        "hm_call_through:\n"
        "  pushq %rbp\n"
        "  movq %rdi, %rbp\n"
        "  movq %rsi, %rax\n"
        "  movq %rdx, %rdi\n"
        "  movq %rcx, %rsi\n"
        "  callq *%rax\n"
        "  popq %rbp\n"
        "  retq\n"
        ".size hm_call_through, .-hm_call_through\n");

static void *malloc_shim(size_t n, size_t unused) {
  (void)unused;
  return __real_malloc(n);
}

static void *memalign_shim(size_t align, size_t n) {
  return memalign(align, n);
}

/* The array's block inside a bracketed runtime ALLOCATE, or 0 outside one
 * (and for every later allocation inside it). */
static int take_scope(void *record[2]) {
  if (__builtin_expect(!Scope.armed, 1))
    return 0;
  Scope.armed = 0;
  record[0] = Scope.frame;
  record[1] = Scope.ret;
  return 1;
}

void *__wrap_malloc(size_t n) {
  void *record[2];
  if (take_scope(record))
    return n >= HM_PROFILE_BIG
               ? hm_call_through(record, memalign_shim, HM_PROFILE_ALIGN, n)
               : hm_call_through(record, (void *(*)(size_t, size_t))malloc_shim,
                                 n, 0);
  if (n >= HM_PROFILE_BIG)
    return memalign(HM_PROFILE_ALIGN, n);
  return __real_malloc(n);
}

/* The copy a realloc makes, as MemProf's own realloc makes it: through
 * libc's memcpy. The memcpy this program links is MemProf's interceptor,
 * which counts both ranges as the program's accesses. */
static void *(*libc_memcpy)(void *, const void *, size_t);

static void copy_uncounted(void *to, const void *from, size_t n) {
  if (!libc_memcpy)
    libc_memcpy =
        (void *(*)(void *, const void *, size_t))dlsym(RTLD_NEXT, "memcpy");
  if (libc_memcpy)
    libc_memcpy(to, from, n);
  else
    memcpy(to, from, n);
}

/* calloc never zeroes through memset here: the memset a program links is
 * MemProf's interceptor, which counted every byte as an access (an 8 MiB
 * array the program never touched showed 1,048,577 accesses and was advised
 * into HBM) and touched every page. Up to HM_PROFILE_PRIMARY_LAST bytes
 * MemProf's calloc serves the block from its primary allocator, where it is
 * found at exit, and zeroes it uncounted; a larger block through memalign
 * comes from its secondary allocator, a fresh mapping of zero pages. */
void *__wrap_calloc(size_t n, size_t size) {
  size_t bytes;
  if (__builtin_mul_overflow(n, size, &bytes) ||
      bytes <= HM_PROFILE_PRIMARY_LAST)
    return __real_calloc(n, size);
  return memalign(HM_PROFILE_ALIGN, bytes);
}

void *__wrap_realloc(void *p, size_t n) {
  if (n < HM_PROFILE_BIG)
    return __real_realloc(p, n);
  void *q = memalign(HM_PROFILE_ALIGN, n);
  if (!q || !p)
    return q;
  size_t old = malloc_usable_size(p);
  copy_uncounted(q, p, old < n ? old : n);
  free(p);
  return q;
}

int __wrap_posix_memalign(void **out, size_t align, size_t n) {
  if (n >= HM_PROFILE_BIG && align < HM_PROFILE_ALIGN && align &&
      !(align & (align - 1)) && align % sizeof(void *) == 0)
    align = HM_PROFILE_ALIGN;
  return __real_posix_memalign(out, align, n);
}

void *__wrap_aligned_alloc(size_t align, size_t n) {
  if (n >= HM_PROFILE_BIG && align < HM_PROFILE_ALIGN && align &&
      !(align & (align - 1)) && n % align == 0)
    return memalign(HM_PROFILE_ALIGN, n);
  return __real_aligned_alloc(align, n);
}

void *__wrap_memalign(size_t align, size_t n) {
  if (n >= HM_PROFILE_BIG && align < HM_PROFILE_ALIGN)
    align = HM_PROFILE_ALIGN;
  return __real_memalign(align, n);
}
