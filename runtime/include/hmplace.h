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
/* The forms below use variadic macros and, under GNU compilers, statement
 * expressions; as a system header their definitions do not trip -pedantic in
 * C89 programs that include them. */
#if defined(__GNUC__)
#pragma GCC system_header
#endif

#include <stddef.h>
#include <stdint.h>

#include "hmplace_frame.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The kinds, one row each: memkind's static kind MEMKIND_<name> (memkind
 * 1.14's, test/plan/kinds-match-memkind.test) and what it is. The enum
 * below, the runtime's kind names (kinds.c) and memkind kinds (policy.c)
 * and the tools' kind table (tool/plan/Kinds.cpp) are made from this list,
 * in its order: a kind is added here and nowhere else. */
#define HMPLACE_KINDS_(X)                                                      \
  X(REGULAR, "memory on nodes with CPUs (DDR), no HBM/PMem")                   \
  X(DEFAULT, "memkind's default heap (its own jemalloc arenas)")               \
  X(HUGETLB, "default policy, 2 MiB huge pages")                               \
  X(HBW, "high-bandwidth memory (HBM/MCDRAM), fails if absent")                \
  X(HBW_ALL, "HBW on any node, not only the closest")                          \
  X(HBW_PREFERRED, "HBW if available, else other memory")                      \
  X(HBW_HUGETLB, "HBW with 2 MiB huge pages")                                  \
  X(HBW_ALL_HUGETLB, "HBW on any node with 2 MiB huge pages")                  \
  X(HBW_PREFERRED_HUGETLB, "HBW preferred, 2 MiB huge pages")                  \
  X(HBW_INTERLEAVE, "interleaved across all HBW nodes")                        \
  X(INTERLEAVE, "interleaved across all nodes")                                \
  X(DAX_KMEM, "persistent memory / CXL exposed as KMEM DAX nodes")             \
  X(DAX_KMEM_ALL, "any KMEM DAX node")                                         \
  X(DAX_KMEM_PREFERRED, "KMEM DAX if available, else other memory")            \
  X(DAX_KMEM_INTERLEAVE, "interleaved across KMEM DAX nodes")                  \
  X(HIGHEST_CAPACITY, "the node(s) with the most memory")                      \
  X(HIGHEST_CAPACITY_PREFERRED, "highest capacity, else other")                \
  X(HIGHEST_CAPACITY_LOCAL, "highest capacity local to the CPU")               \
  X(HIGHEST_CAPACITY_LOCAL_PREFERRED, "highest capacity local, else other")    \
  X(LOWEST_LATENCY_LOCAL, "lowest-latency node local to the CPU")              \
  X(LOWEST_LATENCY_LOCAL_PREFERRED, "lowest latency local, else other")        \
  X(HIGHEST_BANDWIDTH_LOCAL, "highest-bandwidth node local to CPU")            \
  X(HIGHEST_BANDWIDTH_LOCAL_PREFERRED, "highest bandwidth local, else other")

/* HMPLACE_<name> for each kind, in the table's order; HMPLACE_HEAP is the
 * ordinary heap (malloc), where a call-stack choice may leave an object. */
enum hmplace_kind {
  HMPLACE_HEAP = -1,
/* (clang-format would take the list's expansion for an expression.) */
/* clang-format off */
#define HMPLACE_KIND_ENUM_(name, what) HMPLACE_##name,
  HMPLACE_KINDS_(HMPLACE_KIND_ENUM_)
#undef HMPLACE_KIND_ENUM_
  HMPLACE_KIND_COUNT,
  /* clang-format on */
  /* Not a kind: widens the enum's range to every int, so that a split
   * placement (below) is a value of the type in C++ too. */
  HMPLACE_KIND_RANGE_ = 0x7fffffff
};

/* The kinds table's ABI: placed calls pass a kind as its index in the table
 * above, so a runtime must have the table a program was built with, or
 * that table with kinds appended (kinds are only ever appended:
 * test/runtime/kinds-abi.test). Each file that includes this header checks
 * at start-up (a constructor; define HMPLACE_NO_KINDS_CHECK to leave it
 * out), as does each module HmPlace.so places: the runtime refuses a
 * program built with another table, with a message naming it. */
#define HMPLACE_KINDS_ABI_NAME_(name, what) #name ","
#define HMPLACE_KINDS_ABI HMPLACE_KINDS_(HMPLACE_KINDS_ABI_NAME_)
void hmplace_kinds_check(const char *hmplace_table, const char *hmplace_where);
#if (defined(__GNUC__) || defined(__clang__)) && !defined(HMPLACE_RUNTIME_) && \
    !defined(HMPLACE_NO_KINDS_CHECK)
/* Weak: a file that includes this header without linking the runtime
 * builds and runs, and has nothing to check. */
void hmplace_kinds_check(const char *hmplace_table, const char *hmplace_where)
    __attribute__((__weak__));
static void hmplace_kinds_check_(void)
    __attribute__((__constructor__, __used__));
static void hmplace_kinds_check_(void) {
  if (hmplace_kinds_check)
    hmplace_kinds_check(HMPLACE_KINDS_ABI, __BASE_FILE__);
}
#endif

/* A placement split across kinds (plan: `kind: {hbm: 75%, ddr: 25%}`): the
 * object's pages go to the kinds in those shares, interleaved in runs so
 * that every part of the object holds the shares (docs/advisor.md, "Both
 * tiers at once"). Passed wherever a kind is:
 *   hmplace_malloc(HMPLACE_SPLIT(HMPLACE_HBW, 75, HMPLACE_REGULAR), n)
 * HMPLACE_SPLIT: k0 gets p0 percent, k1 the rest; HMPLACE_SPLIT3: k0 p0,
 * k1 p1, k2 the rest. An object too small to split goes whole to the kind
 * of the largest share. */
#define HMPLACE_SPLIT_FLAG 0x40000000
#define HMPLACE_SPLIT(k0, p0, k1)                                              \
  ((enum hmplace_kind)(HMPLACE_SPLIT_FLAG | (int)(k0) | ((int)(k1) << 5) |     \
                       (31 << 10) | ((p0) << 15) | ((100 - (p0)) << 22)))
#define HMPLACE_SPLIT3(k0, p0, k1, p1, k2)                                     \
  ((enum hmplace_kind)(HMPLACE_SPLIT_FLAG | (int)(k0) | ((int)(k1) << 5) |     \
                       ((int)(k2) << 10) | ((p0) << 15) | ((p1) << 22)))

/* A plan entry's size window (min-size/max-size): \p k when \p n is in
 * [lo, hi], else the ordinary heap (HMPLACE_OUT_OF_WINDOW_, which the
 * runtime takes as HMPLACE_HEAP, and hmplace_malloc/hmplace_calloc below
 * send to malloc/calloc without calling the runtime). hmrewrite writes it
 * as the kind of a windowed site, the size repeated as the call spells it:
 *   hmplace_malloc(hmplace_in_window(HMPLACE_HBW, n, HMPLACE_MiB(1),
 *                                    HMPLACE_MiB(5)), n)                   */
#define HMPLACE_OUT_OF_WINDOW_ ((enum hmplace_kind) - 2)
static __inline__ enum hmplace_kind
hmplace_in_window(enum hmplace_kind hmplace_k, size_t hmplace_n,
                  size_t hmplace_lo, size_t hmplace_hi) {
  return hmplace_n >= hmplace_lo && hmplace_n <= hmplace_hi
             ? hmplace_k
             : HMPLACE_OUT_OF_WINDOW_;
}
/* The same for calloc's two sizes: their product, out of the window when it
 * overflows (the call then fails with ENOMEM wherever it goes), as HmPlace.so
 * checks it:  hmplace_calloc(hmplace_in_window2(HMPLACE_HBW, count, size,
 *                                                HMPLACE_KiB(64), SIZE_MAX),
 *                            count, size)                                  */
static __inline__ enum hmplace_kind
hmplace_in_window2(enum hmplace_kind hmplace_k, size_t hmplace_nmemb,
                   size_t hmplace_size, size_t hmplace_lo, size_t hmplace_hi) {
  if (hmplace_size && hmplace_nmemb > (size_t)-1 / hmplace_size)
    return HMPLACE_OUT_OF_WINDOW_;
  return hmplace_in_window(hmplace_k, hmplace_nmemb * hmplace_size, hmplace_lo,
                           hmplace_hi);
}
#define HMPLACE_KiB(n) ((size_t)(n) << 10)
#define HMPLACE_MiB(n) ((size_t)(n) << 20)
#define HMPLACE_GiB(n) ((size_t)(n) << 30)

/* Allocation entry points for planned sites. */
void *hmplace_malloc(enum hmplace_kind hmplace_k, size_t hmplace_n);
void *hmplace_calloc(enum hmplace_kind hmplace_k, size_t hmplace_nmemb,
                     size_t hmplace_size);
#if (defined(__GNUC__) || defined(__clang__)) && !defined(HMPLACE_RUNTIME_)
/* A call a size window keeps out goes to malloc/calloc here, one compare
 * (small allocations of a windowed file would otherwise each call into the
 * runtime: 1.10 of the plain calls, scripts/bench window); any other goes
 * to the runtime's function, through the second name it exports for these
 * inline forms (the inline form itself is never a symbol). */
void *hmplace_malloc_kind_(enum hmplace_kind hmplace_k, size_t hmplace_n);
void *hmplace_calloc_kind_(enum hmplace_kind hmplace_k, size_t hmplace_nmemb,
                           size_t hmplace_size);
extern __inline__ __attribute__((__gnu_inline__, __always_inline__)) void *
hmplace_malloc(enum hmplace_kind hmplace_k, size_t hmplace_n) {
  if (hmplace_k == HMPLACE_OUT_OF_WINDOW_)
    return __builtin_malloc(hmplace_n);
  return hmplace_malloc_kind_(hmplace_k, hmplace_n);
}
extern __inline__ __attribute__((__gnu_inline__, __always_inline__)) void *
hmplace_calloc(enum hmplace_kind hmplace_k, size_t hmplace_nmemb,
               size_t hmplace_size) {
  if (hmplace_k == HMPLACE_OUT_OF_WINDOW_)
    return __builtin_calloc(hmplace_nmemb, hmplace_size);
  return hmplace_calloc_kind_(hmplace_k, hmplace_nmemb, hmplace_size);
}
#endif
void *hmplace_aligned_alloc(enum hmplace_kind hmplace_k, size_t hmplace_align,
                            size_t hmplace_n);
int hmplace_posix_memalign(enum hmplace_kind hmplace_k, void **hmplace_out,
                           size_t hmplace_align, size_t hmplace_n);
void *hmplace_memalign(enum hmplace_kind hmplace_k, size_t hmplace_align,
                       size_t hmplace_n);
void *hmplace_valloc(enum hmplace_kind hmplace_k, size_t hmplace_n);
char *hmplace_strdup(enum hmplace_kind hmplace_k, const char *hmplace_s);
char *hmplace_strndup(enum hmplace_kind hmplace_k, const char *hmplace_s,
                      size_t hmplace_n);
/* A planned realloc site: the result lives in kind k, wherever p came from
 * (a block from another heap or kind is moved). */
void *hmplace_realloc_to(enum hmplace_kind hmplace_k, void *hmplace_p,
                         size_t hmplace_n);

/* Dispatch for any pointer. realloc keeps a block in its heap and kind. */
void hmplace_free(void *hmplace_p);
void *hmplace_realloc(void *hmplace_p, size_t hmplace_n);
size_t hmplace_malloc_usable_size(void *hmplace_p);

/* 1 + the kind of a placed block, 0 for anything else (NULL, heap); for a
 * split object, of its largest share. */
int hmplace_owner(const void *hmplace_p);

/* Per-process capacity budget of a kind in bytes (0: none). Plans' tier
 * capacities arrive here; HMPLACE_BUDGET overrides them. */
void hmplace_set_budget(enum hmplace_kind hmplace_k, uint64_t hmplace_bytes);

/* The fields are API: a program's macros of the same names are set aside
 * here and restored after (every compiler that runs HmPlace's tools has
 * push_macro), so that the declaration holds whatever the program defines. */
#pragma push_macro("allocs")
#undef allocs
#pragma push_macro("bytes")
#undef bytes
#pragma push_macro("live")
#undef live
#pragma push_macro("peak")
#undef peak
#pragma push_macro("fallbacks")
#undef fallbacks
#pragma push_macro("available")
#undef available
struct hmplace_stats {
  uint64_t allocs;    /* placed allocations served by the kind */
  uint64_t bytes;     /* bytes requested by those allocations */
  uint64_t live;      /* usable bytes currently allocated */
  uint64_t peak;      /* maximum of live */
  uint64_t fallbacks; /* planned allocations served by the ordinary heap */
  int available;      /* 1 usable, 0 not (yet) initialised, -1 unavailable */
};
#pragma pop_macro("allocs")
#pragma pop_macro("bytes")
#pragma pop_macro("live")
#pragma pop_macro("peak")
#pragma pop_macro("fallbacks")
#pragma pop_macro("available")
void hmplace_get_stats(enum hmplace_kind hmplace_k,
                       struct hmplace_stats *hmplace_out);
/* The name of a kind ("MEMKIND_HBW"), of a split ("MEMKIND_HBW 75% +
 * MEMKIND_REGULAR 25%"), "ordinary heap" for HMPLACE_HEAP, else "invalid". */
const char *hmplace_kind_name(enum hmplace_kind hmplace_k);
/* Print the report now (also done at exit when HMPLACE_REPORT is set). */
void hmplace_report(void);

/* The calling thread's next malloc, until hmplace_scope_exit, comes from
 * kind k: HmPlace.so brackets calls into flang's runtime that allocate the
 * array of a planned ALLOCATE. In libhmplace-fortran.so (it replaces malloc),
 * which such programs link before libhmplace.so. */
void hmplace_scope_enter(enum hmplace_kind hmplace_k);
/* The same with a size window: the array is placed only if its size is in
 * [lo, hi] (a plan entry's min-size/max-size); else the ordinary heap. */
void hmplace_scope_enter_window(enum hmplace_kind hmplace_k, size_t hmplace_lo,
                                size_t hmplace_hi);
/* The same, naming the plan entry for HMPLACE_LOG (what HmPlace.so
 * writes). */
void hmplace_scope_enter_entry(enum hmplace_kind hmplace_k, size_t hmplace_lo,
                               size_t hmplace_hi, const char *hmplace_entry);
void hmplace_scope_exit(void);

/*--- call-stack placement --------------------------------------------------*
 * A plan entry may name an object by the chain of calls that reached its
 * allocation (a wrapper, a macro, a template). Calls a plan names as caller
 * frames note themselves on a per-thread shadow stack while they run; an
 * allocation whose entries differ by caller picks its kind from the frames on
 * top of that stack. hmrewrite writes these forms (HmPlace.so does the same
 * in IR); the design is in tool/plan/Context.h.
 *
 *   HMPLACE_FRAME("main.c", 19, 15)   a place: file name (only its last path
 *                                     component counts, in any case), line,
 *                                     column (0: any column on the line)
 *   HMPLACE_AT(19, 15)                the same place in the file this is
 *                                     written in (its name as the compiler
 *                                     has it there): what hmrewrite writes,
 *                                     outside macro definitions
 *
 *   double *a = HMPLACE_CALLER(HMPLACE_AT(19, 15), TALLOC(double, n));
 *       the call (or macro use) runs with the frame noted; its value, type
 *       and value category are the wrapped expression's
 *   HMPLACE_CALLER_STMT(HMPLACE_AT(22, 3), ALLOC_ARRAY(w, n));
 *       the same for an expression statement or a statement-like macro use
 *   HMPLACE_CALLER_DECL(HMPLACE_AT(25, 3), DECLARE_ARRAY(A, n, m));
 *       the same for a declaration; the names it declares stay in scope
 *   HMPLACE_CALLER_STMTS(HMPLACE_AT(26, 3), DECL_ARRAY(A, n))
 *       the same for a macro use that writes its own last ';' and has
 *       none after it (`#define DECL_ARRAY(v, n) double *v; v = ...;`)
 *   Mesh(size_t n) : x((HMPLACE_CALLER_INIT(HMPLACE_AT(9, 22)), n)) {}
 *       (C++) a member's constructor, noted while the member is built
 *   #pragma omp parallel
 *   { HMPLACE_CALLER_BLOCK(HMPLACE_AT(30, 1)); ...
 *     HMPLACE_CALLER_BLOCK_END(HMPLACE_AT(30, 1)); }
 *       the frame is noted from here to the end of the block, in each
 *       thread that runs it (a parallel region's body; HmPlace.so notes the
 *       region's outlined function the same way)
 *
 *   void *p = hmplace_malloc(HMPLACE_BY_CALLERS("mem.h:9:13",
 *                 (HMPLACE_HBW, "main.c:19"), (HMPLACE_REGULAR, "kernels.c:6",
 *                 "main.c:23"), HMPLACE_HEAP), n);
 *       the allocation at mem.h:9:13 goes to HBW when the innermost noted
 *       frame is main.c:19, to REGULAR when the two innermost are
 *       kernels.c:6 and main.c:23 (innermost first), else to the ordinary
 *       heap; the first entry that matches wins.
 *
 * Three implementations, chosen here: C++ (any C++11 compiler: a lambda
 * holding an RAII guard, so exceptions restore the stack; inside the
 * wrapped expression __func__ names the lambda), GNU C (gcc, clang, icx, nvc:
 * statement expressions with a cleanup attribute), and portable C (any C
 * compiler, or -DHMPLACE_PORTABLE): calls into the runtime, with two limits
 * C cannot lift -- the value of HMPLACE_CALLER must be an object pointer
 * (returned as void *, which C converts on assignment, initialization,
 * argument passing and return) or, from C11, an arithmetic value; and a
 * longjmp out of a wrapped statement leaves its frame noted until an
 * enclosing one ends. */

/* The run-time id of a frame: a 32-bit hash of the lowercased file name in
 * the high half, 20 bits of line and 12 of column (clamped) below. The hash
 * is a sum of one term per character (c_i * P^(i+1) + length, mod 2^32,
 * P = 16777619) so that it is a flat constant expression here, which the
 * compiler folds: noting a frame then costs two stores. The tools compute
 * the same (tool/plan/Context.cpp), and names longer than 64 bytes are
 * hashed by the runtime. */
#define HMPLACE_FRAME(file, line, col)                                         \
  HMPLACE_FRAME_ID(HMPLACE_NAME_HASH_(file), line, col)
/* __FILE_NAME__ (clang 9, gcc 12) is the name's last component, a literal
 * the compiler folds; elsewhere the runtime hashes __FILE__'s last one. */
#ifdef __FILE_NAME__
#define HMPLACE_AT(line, col) HMPLACE_FRAME(__FILE_NAME__, line, col)
#else
#define HMPLACE_AT(line, col)                                                  \
  HMPLACE_FRAME_ID(hmplace_name_hash(__FILE__), line, col)
#endif
#define HMPLACE_NAME_HASH_(s)                                                  \
  (sizeof(s) <= 65 ? HMPLACE_SUM64_(s) : hmplace_name_hash(s))
#define HMPLACE_CH_(s, i)                                                      \
  ((unsigned long)(unsigned char)(s)[(i) < sizeof(s) - 1 ? (i) : 0])
#define HMPLACE_T_(s, i, k)                                                    \
  ((i) < sizeof(s) - 1                                                         \
       ? (HMPLACE_CH_(s, i) - 'A' < 26u ? HMPLACE_CH_(s, i) + 32u              \
                                        : HMPLACE_CH_(s, i)) *                 \
             (k)                                                               \
       : 0ul)
#define HMPLACE_SUM64_(s)                                                      \
  ((sizeof(s) - 1 + HMPLACE_T_(s, 0, 0x01000193ul) +                           \
    HMPLACE_T_(s, 1, 0x26027A69ul) + HMPLACE_T_(s, 2, 0x3EE6B34Bul) +          \
    HMPLACE_T_(s, 3, 0x502C3F11ul) + HMPLACE_T_(s, 4, 0x46A747C3ul) +          \
    HMPLACE_T_(s, 5, 0xFC55F7F9ul) + HMPLACE_T_(s, 6, 0x34555CFBul) +          \
    HMPLACE_T_(s, 7, 0x5D615F21ul) + HMPLACE_T_(s, 8, 0x2148C0F3ul) +          \
    HMPLACE_T_(s, 9, 0x5887BE89ul) + HMPLACE_T_(s, 10, 0xE6B0F1ABul) +         \
    HMPLACE_T_(s, 11, 0xD38C7031ul) + HMPLACE_T_(s, 12, 0x37149D23ul) +        \
    HMPLACE_T_(s, 13, 0xD8735E19ul) + HMPLACE_T_(s, 14, 0xD69D215Bul) +        \
    HMPLACE_T_(s, 15, 0x345B8241ul) + HMPLACE_T_(s, 16, 0xAD0E0C53ul) +        \
    HMPLACE_T_(s, 17, 0xC01D66A9ul) + HMPLACE_T_(s, 18, 0x17489C0Bul) +        \
    HMPLACE_T_(s, 19, 0xB24DA551ul) + HMPLACE_T_(s, 20, 0x013B3E83ul) +        \
    HMPLACE_T_(s, 21, 0x73436839ul) + HMPLACE_T_(s, 22, 0xAC1D11BBul) +        \
    HMPLACE_T_(s, 23, 0xACC2E961ul) + HMPLACE_T_(s, 24, 0x57D563B3ul) +        \
    HMPLACE_T_(s, 25, 0xF7EBF2C9ul) + HMPLACE_T_(s, 26, 0x116F326Bul) +        \
    HMPLACE_T_(s, 27, 0xDD0C5E71ul) + HMPLACE_T_(s, 28, 0x6B78ABE3ul) +        \
    HMPLACE_T_(s, 29, 0x11F69659ul) + HMPLACE_T_(s, 30, 0xA02EAE1Bul) +        \
    HMPLACE_T_(s, 31, 0x447C1481ul) + HMPLACE_T_(s, 32, 0x50544713ul) +        \
    HMPLACE_T_(s, 33, 0x87ABE2E9ul) + HMPLACE_T_(s, 34, 0x7C9634CBul) +        \
    HMPLACE_T_(s, 35, 0xEB751B91ul) + HMPLACE_T_(s, 36, 0x3A5A6543ul) +        \
    HMPLACE_T_(s, 37, 0x1F4D6879ul) + HMPLACE_T_(s, 38, 0xBFDB767Bul) +        \
    HMPLACE_T_(s, 39, 0x817B83A1ul) + HMPLACE_T_(s, 40, 0x76703673ul) +        \
    HMPLACE_T_(s, 41, 0xE5A5B709ul) + HMPLACE_T_(s, 42, 0x8CDF232Bul) +        \
    HMPLACE_T_(s, 43, 0xEE445CB1ul) + HMPLACE_T_(s, 44, 0xC69DEAA3ul) +        \
    HMPLACE_T_(s, 45, 0x4D985E99ul) + HMPLACE_T_(s, 46, 0xBFDCEADBul) +        \
    HMPLACE_T_(s, 47, 0xE3C5B6C1ul) + HMPLACE_T_(s, 48, 0x513EB1D3ul) +        \
    HMPLACE_T_(s, 49, 0xB8B1EF29ul) + HMPLACE_T_(s, 50, 0xE91B7D8Bul) +        \
    HMPLACE_T_(s, 51, 0x8146A1D1ul) + HMPLACE_T_(s, 52, 0x5330BC03ul) +        \
    HMPLACE_T_(s, 53, 0xF8B7F8B9ul) + HMPLACE_T_(s, 54, 0x429C8B3Bul) +        \
    HMPLACE_T_(s, 55, 0x176F2DE1ul) + HMPLACE_T_(s, 56, 0xC5053933ul) +        \
    HMPLACE_T_(s, 57, 0x5A390B49ul) + HMPLACE_T_(s, 58, 0x50CCC3EBul) +        \
    HMPLACE_T_(s, 59, 0x1D586AF1ul) + HMPLACE_T_(s, 60, 0x23305963ul) +        \
    HMPLACE_T_(s, 61, 0xC81CB6D9ul) + HMPLACE_T_(s, 62, 0xDE33D79Bul) +        \
    HMPLACE_T_(s, 63, 0x669C6901ul)) &                                         \
   0xFFFFFFFFul)
uint32_t hmplace_name_hash(const char *hmplace_file);

/* The kind a context site allocates in now, from its table (the text of
 * HMPLACE_BY_CALLERS's arguments; HmPlace.so passes the same text). Counts
 * the object for the per-entry report. */
enum hmplace_kind hmplace_ctx_kind(const char *hmplace_table);
#define HMPLACE_BY_CALLERS(...) hmplace_ctx_kind(#__VA_ARGS__)

/* Out-of-line noting, for the portable forms: push a frame and return the
 * depth to restore; restore a depth (and return it); pop the frame of a call
 * that has run and pass its value on. */
uint32_t hmplace_ctx_enter(uint64_t hmplace_frame);
uint32_t hmplace_ctx_leave(uint32_t hmplace_depth);
void *hmplace_ctx_pass_ptr(void *hmplace_value);
long long hmplace_ctx_pass_ll(long long hmplace_value);
unsigned long long hmplace_ctx_pass_ull(unsigned long long hmplace_value);
double hmplace_ctx_pass_double(double hmplace_value);
long double hmplace_ctx_pass_ldouble(long double hmplace_value);

#define HMPLACE_CAT2_(a, b) a##b
#define HMPLACE_CAT_(a, b) HMPLACE_CAT2_(a, b)
#ifdef __COUNTER__
#define HMPLACE_UNIQUE_ __COUNTER__
#else
#define HMPLACE_UNIQUE_ __LINE__
#endif
/* clang 22 calls __COUNTER__ a C2y extension (a warning under -pedantic,
 * in C and C++): the declarations that use it say it is meant. */
#if defined(__clang__) && defined(__has_warning)
#if __has_warning("-Wc2y-extensions")
#define HMPLACE_UNIQUE_BEGIN_                                                  \
  _Pragma("clang diagnostic push")                                             \
      _Pragma("clang diagnostic ignored \"-Wc2y-extensions\"")
#define HMPLACE_UNIQUE_END_ _Pragma("clang diagnostic pop")
#endif
#endif
#ifndef HMPLACE_UNIQUE_BEGIN_
#define HMPLACE_UNIQUE_BEGIN_
#define HMPLACE_UNIQUE_END_
#endif
#if defined(__GNUC__)
#define HMPLACE_UNUSED_ __attribute__((__unused__))
#else
#define HMPLACE_UNUSED_
#endif

/* The shadow stack (HmPlace.so writes the same layout in IR). */
struct hmplace_ctx_stack {
  uint32_t
      hmplace_depth; /* may exceed HMPLACE_CTX_CAP: deeper ids are not kept */
  uint32_t hmplace_reserved;
  uint64_t hmplace_ids[HMPLACE_CTX_CAP + 1]; /* the last one absorbs overflow */
};

#if defined(__GNUC__)
extern __thread struct hmplace_ctx_stack hmplace_ctx_tls
    __attribute__((__tls_model__("initial-exec")));

/* Push a frame id; returns the depth to restore after the call. */
static __inline__ uint32_t hmplace_ctx_push(uint64_t hmplace_id) {
  uint32_t hmplace_d = hmplace_ctx_tls.hmplace_depth;
  hmplace_ctx_tls
      .hmplace_ids[hmplace_d < HMPLACE_CTX_CAP ? hmplace_d : HMPLACE_CTX_CAP] =
      hmplace_id;
  hmplace_ctx_tls.hmplace_depth = hmplace_d + 1;
  return hmplace_d;
}
static __inline__ uint32_t hmplace_ctx_restore(uint32_t hmplace_depth) {
  hmplace_ctx_tls.hmplace_depth = hmplace_depth;
  return hmplace_depth;
}
/* GNU C cleanup handler: restores the depth when a scope ends. */
static __inline__ void hmplace_ctx_cleanup(uint32_t *hmplace_depth) {
  hmplace_ctx_tls.hmplace_depth = *hmplace_depth;
}

/* The site and the entry chosen, which the placed entry point that follows
 * counts for the per-entry report. HmPlace.so decides small context sites
 * inline and stores one word: the site's descriptor (16-byte aligned) with
 * 1 + the entry's index (0 for none) in its low four bits, the choice left
 * 0; hmplace_ctx_kind stores the site as given and 2 + the index. */
struct hmplace_ctx_chosen {
  const char *hmplace_site;
  int32_t hmplace_choice;
};
extern __thread struct hmplace_ctx_chosen hmplace_ctx_chosen
    __attribute__((__tls_model__("initial-exec")));
#endif

/* Make sites known at start-up, so that the report can name plan entries
 * whose allocations never ran. */
void hmplace_ctx_register(const char *const *hmplace_sites, size_t hmplace_n);

#if defined(__cplusplus)
#if __cplusplus >= 201402L
#define HMPLACE_LAMBDA_RET_(...) ->decltype(auto)
#else
#define HMPLACE_LAMBDA_RET_(...) ->decltype(__VA_ARGS__)
#endif
#define HMPLACE_CALLER(frame, ...)                                             \
  ([&]() HMPLACE_LAMBDA_RET_(__VA_ARGS__) {                                    \
    ::hmplace::hmplace_caller_guard hmplace_guard_(frame);                     \
    return __VA_ARGS__;                                                        \
  }())
#define HMPLACE_CALLER_STMT(frame, ...)                                        \
  do {                                                                         \
    ::hmplace::hmplace_caller_guard hmplace_guard_(frame);                     \
    __VA_ARGS__;                                                               \
  } while (0)
#define HMPLACE_CALLER_DECL(frame, ...)                                        \
  HMPLACE_UNIQUE_BEGIN_                                                        \
  HMPLACE_CALLER_DECL_(HMPLACE_UNIQUE_, frame, __VA_ARGS__)                    \
  HMPLACE_UNIQUE_END_
#define HMPLACE_CALLER_DECL_(n, frame, ...)                                    \
  ::hmplace::hmplace_caller_guard HMPLACE_CAT_(hmplace_guard_, n)(frame);      \
  __VA_ARGS__;                                                                 \
  ::hmplace::hmplace_caller_end HMPLACE_CAT_(hmplace_end_, n)(                 \
      HMPLACE_CAT_(hmplace_guard_, n))
#define HMPLACE_CALLER_BLOCK(frame)                                            \
  ::hmplace::hmplace_caller_guard hmplace_block_guard_(frame)
#define HMPLACE_CALLER_BLOCK_END(frame) hmplace_block_guard_.hmplace_leave()
/* A member's constructor in a constructor's initializer list:
 *   Mesh(size_t n) : x((HMPLACE_CALLER_INIT(HMPLACE_AT(9, 22)), n)) {}
 * the guard is a temporary of the mem-initializer's full-expression, which
 * ends when the member is constructed. */
#define HMPLACE_CALLER_INIT(frame) (void)::hmplace::hmplace_caller_guard(frame)
#elif defined(__GNUC__) && !defined(HMPLACE_PORTABLE)
/* A depth restored when its scope ends (the GNU cleanup attribute). */
#define HMPLACE_RESTORED_                                                      \
  __attribute__((__cleanup__(hmplace_ctx_cleanup), __unused__)) uint32_t
#define HMPLACE_CALLER(frame, ...)                                             \
  (__extension__({                                                             \
    HMPLACE_RESTORED_ hmplace_depth_ = hmplace_ctx_push(frame);                \
    __VA_ARGS__;                                                               \
  }))
#define HMPLACE_CALLER_STMT(frame, ...)                                        \
  do {                                                                         \
    HMPLACE_RESTORED_ hmplace_depth_ = hmplace_ctx_push(frame);                \
    __VA_ARGS__;                                                               \
  } while (0)
#define HMPLACE_CALLER_DECL(frame, ...)                                        \
  HMPLACE_UNIQUE_BEGIN_                                                        \
  HMPLACE_CALLER_DECL_(HMPLACE_UNIQUE_, frame, __VA_ARGS__)                    \
  HMPLACE_UNIQUE_END_
#define HMPLACE_CALLER_DECL_(n, frame, ...)                                    \
  HMPLACE_RESTORED_ HMPLACE_CAT_(hmplace_depth_, n) = hmplace_ctx_push(frame); \
  __VA_ARGS__;                                                                 \
  __attribute__((__unused__)) uint32_t HMPLACE_CAT_(hmplace_done_, n) =        \
      hmplace_ctx_restore(HMPLACE_CAT_(hmplace_depth_, n))
#define HMPLACE_CALLER_BLOCK(frame)                                            \
  HMPLACE_RESTORED_ hmplace_block_depth_ = hmplace_ctx_push(frame)
#define HMPLACE_CALLER_BLOCK_END(frame)                                        \
  hmplace_ctx_restore(hmplace_block_depth_)
#else
/* Portable C. The value passes through a function that restores the stack
 * after the wrapped call has run (its argument is evaluated first). */
#if defined(__STDC_VERSION__) && __STDC_VERSION__ >= 201112L
#define HMPLACE_CTX_PASS_(v)                                                   \
  _Generic((v),                                                                \
      float: hmplace_ctx_pass_double,                                          \
      double: hmplace_ctx_pass_double,                                         \
      long double: hmplace_ctx_pass_ldouble,                                   \
      _Bool: hmplace_ctx_pass_ll,                                              \
      char: hmplace_ctx_pass_ll,                                               \
      signed char: hmplace_ctx_pass_ll,                                        \
      short: hmplace_ctx_pass_ll,                                              \
      int: hmplace_ctx_pass_ll,                                                \
      long: hmplace_ctx_pass_ll,                                               \
      long long: hmplace_ctx_pass_ll,                                          \
      unsigned char: hmplace_ctx_pass_ull,                                     \
      unsigned short: hmplace_ctx_pass_ull,                                    \
      unsigned: hmplace_ctx_pass_ull,                                          \
      unsigned long: hmplace_ctx_pass_ull,                                     \
      unsigned long long: hmplace_ctx_pass_ull,                                \
      default: hmplace_ctx_pass_ptr)(v)
#else
#define HMPLACE_CTX_PASS_(v) hmplace_ctx_pass_ptr(v)
#endif
#define HMPLACE_CALLER(frame, ...)                                             \
  ((void)hmplace_ctx_enter(frame), HMPLACE_CTX_PASS_((__VA_ARGS__)))
#define HMPLACE_CALLER_STMT(frame, ...)                                        \
  do {                                                                         \
    uint32_t hmplace_depth_ = hmplace_ctx_enter(frame);                        \
    __VA_ARGS__;                                                               \
    hmplace_ctx_leave(hmplace_depth_);                                         \
  } while (0)
#define HMPLACE_CALLER_DECL(frame, ...)                                        \
  HMPLACE_UNIQUE_BEGIN_                                                        \
  HMPLACE_CALLER_DECL_(HMPLACE_UNIQUE_, frame, __VA_ARGS__)                    \
  HMPLACE_UNIQUE_END_
#define HMPLACE_CALLER_DECL_(n, frame, ...)                                    \
  uint32_t HMPLACE_CAT_(hmplace_depth_, n) = hmplace_ctx_enter(frame);         \
  __VA_ARGS__;                                                                 \
  HMPLACE_UNUSED_ uint32_t HMPLACE_CAT_(hmplace_done_, n) =                    \
      hmplace_ctx_leave(HMPLACE_CAT_(hmplace_depth_, n))
#define HMPLACE_CALLER_BLOCK(frame)                                            \
  uint32_t hmplace_block_depth_ = hmplace_ctx_enter(frame)
#define HMPLACE_CALLER_BLOCK_END(frame) hmplace_ctx_leave(hmplace_block_depth_)
#endif
/* A macro use that ends its statement itself: its own ';' last, none after
 * the use. */
#define HMPLACE_CALLER_STMTS(frame, ...)                                       \
  HMPLACE_CALLER_DECL(frame, __VA_ARGS__);

#ifdef __cplusplus
} /* extern "C" */

#include <cstddef>
#include <new>

/* libhmplace-cxx.so (containers.cpp): arm the calling thread's operator new
 * with a container table, returning the one it replaces; restore that one.
 * The symbols' names say what a link without the library lacks. */
extern "C" const char *
hmplace_containers_enter(const char *hmplace_table) __asm__(
    "hmplace_containers_enter__link_with_lhmplace_cxx");
extern "C" void hmplace_containers_exit(const char *hmplace_previous) __asm__(
    "hmplace_containers_exit__link_with_lhmplace_cxx");

namespace hmplace {
/* HMPLACE_CONTAINERS(frame, table...): a caller frame under which the
 * buffers standard containers allocate follow the table (the site
 * "std::allocator"):
 *   HMPLACE_CALLER_STMT(HMPLACE_CONTAINERS(HMPLACE_AT(19, 3),
 *       "std::allocator", (HMPLACE_HBW, "mesh.cpp:19"), HMPLACE_HEAP),
 *       m.x.resize(n));
 * Needs -lhmplace-cxx. */
struct hmplace_containers_frame {
  uint64_t hmplace_frame;
  const char *hmplace_table;
};
#define HMPLACE_CONTAINERS(frame, ...)                                         \
  (::hmplace::hmplace_containers_frame{(frame), #__VA_ARGS__})

/* HMPLACE_CALLER's C++ form: a frame noted while the guard lives (also when
 * an exception leaves the wrapped call). */
class hmplace_caller_guard {
public:
  explicit hmplace_caller_guard(uint64_t hmplace_frame)
      : hmplace_saved_depth_(hmplace_enter(hmplace_frame)),
        hmplace_previous_(0), hmplace_disarm_(0), hmplace_left_(false) {}
  /* Only code that uses HMPLACE_CONTAINERS refers to libhmplace-cxx. */
  explicit hmplace_caller_guard(const hmplace_containers_frame &hmplace_f)
      : hmplace_saved_depth_(hmplace_enter(hmplace_f.hmplace_frame)),
        hmplace_previous_(hmplace_containers_enter(hmplace_f.hmplace_table)),
        hmplace_disarm_(&hmplace_containers_exit), hmplace_left_(false) {}
  ~hmplace_caller_guard() { hmplace_leave(); }
  void hmplace_leave() {
    if (hmplace_left_)
      return;
    hmplace_left_ = true;
    if (hmplace_disarm_)
      hmplace_disarm_(hmplace_previous_);
#if defined(__GNUC__)
    hmplace_ctx_restore(hmplace_saved_depth_);
#else
    hmplace_ctx_leave(hmplace_saved_depth_);
#endif
  }

private:
  hmplace_caller_guard(const hmplace_caller_guard &);
  hmplace_caller_guard &operator=(const hmplace_caller_guard &);
  static uint32_t hmplace_enter(uint64_t hmplace_frame) {
#if defined(__GNUC__)
    return hmplace_ctx_push(hmplace_frame);
#else
    return hmplace_ctx_enter(hmplace_frame);
#endif
  }
  uint32_t hmplace_saved_depth_;
  const char *hmplace_previous_;
  void (*hmplace_disarm_)(const char *);
  bool hmplace_left_;
};
/* HMPLACE_CALLER_DECL's end: the declaration it wraps is complete. */
class hmplace_caller_end {
public:
  explicit hmplace_caller_end(hmplace_caller_guard &hmplace_g) {
    hmplace_g.hmplace_leave();
  }
};

#if __cplusplus >= 201402L
/* A caller frame noted around the call alone, after its arguments (or
 * operands) are evaluated, as HmPlace.so notes it: hmrewrite writes these
 * where an argument calls something that may allocate, which a wrapper
 * around the whole text would put under the frame too.
 *   double *a = HMPLACE_CALL(HMPLACE_AT(11, 15), work)(make(n));
 *   HMPLACE_BINARY(HMPLACE_AT(9, 8), m[k], =, make(n));
 * The arguments are forwarded unchanged (C++14: a generic lambda). */
template <class HmplaceFrame_, class HmplaceF_> class hmplace_noted_callable {
public:
  hmplace_noted_callable(HmplaceFrame_ hmplace_frame, HmplaceF_ hmplace_f)
      : hmplace_frame_(hmplace_frame), hmplace_f_(hmplace_f) {}
  template <class... HmplaceA_>
  decltype(auto) operator()(HmplaceA_ &&...hmplace_a) {
    hmplace_caller_guard hmplace_g(hmplace_frame_);
    return hmplace_f_(static_cast<HmplaceA_ &&>(hmplace_a)...);
  }

private:
  HmplaceFrame_ hmplace_frame_;
  HmplaceF_ hmplace_f_;
};
template <class HmplaceFrame_, class HmplaceF_>
hmplace_noted_callable<HmplaceFrame_, HmplaceF_>
hmplace_noted(HmplaceFrame_ hmplace_frame, HmplaceF_ hmplace_f) {
  return hmplace_noted_callable<HmplaceFrame_, HmplaceF_>(hmplace_frame,
                                                          hmplace_f);
}
template <class HmplaceFrame_, class HmplaceF_, class HmplaceL_,
          class HmplaceR_>
decltype(auto) hmplace_noted_binary(HmplaceFrame_ hmplace_frame,
                                    HmplaceF_ hmplace_f, HmplaceL_ &&hmplace_l,
                                    HmplaceR_ &&hmplace_r) {
  hmplace_caller_guard hmplace_g(hmplace_frame);
  return hmplace_f(static_cast<HmplaceL_ &&>(hmplace_l),
                   static_cast<HmplaceR_ &&>(hmplace_r));
}
#define HMPLACE_CALL(frame, ...)                                               \
  ::hmplace::hmplace_noted(                                                    \
      (frame), [&](auto &&...hmplace_a_) -> decltype(auto) {                   \
        return __VA_ARGS__(                                                    \
            static_cast<decltype(hmplace_a_) &&>(hmplace_a_)...);              \
      })
#define HMPLACE_BINARY(frame, l, op, ...)                                      \
  ::hmplace::hmplace_noted_binary(                                             \
      (frame),                                                                 \
      [](auto &&hmplace_l_, auto &&hmplace_r_) -> decltype(auto) {             \
        return static_cast<decltype(hmplace_l_) &&>(hmplace_l_)                \
            op static_cast<decltype(hmplace_r_) &&>(hmplace_r_);               \
      },                                                                       \
      l, __VA_ARGS__)
#endif
} // namespace hmplace

/* C++: `new (HMPLACE_HBW) T(args)`, `new (HMPLACE_HBW, std::nothrow) T[n]`.
 * Over-aligned types get the align_val_t forms automatically. The matching
 * placement deletes run only if a constructor throws; ordinary `delete p`
 * works through libhmplace.so's replacement of operator delete. */
void *operator new(std::size_t hmplace_n, hmplace_kind hmplace_k);
void *operator new[](std::size_t hmplace_n, hmplace_kind hmplace_k);
void *operator new(std::size_t hmplace_n, hmplace_kind hmplace_k,
                   const std::nothrow_t &) noexcept;
void *operator new[](std::size_t hmplace_n, hmplace_kind hmplace_k,
                     const std::nothrow_t &) noexcept;
void operator delete(void *hmplace_p, hmplace_kind hmplace_k) noexcept;
void operator delete[](void *hmplace_p, hmplace_kind hmplace_k) noexcept;
void operator delete(void *hmplace_p, hmplace_kind hmplace_k,
                     const std::nothrow_t &) noexcept;
void operator delete[](void *hmplace_p, hmplace_kind hmplace_k,
                       const std::nothrow_t &) noexcept;
/* Over-aligned forms: std::align_val_t exists from C++17 (or -faligned-new);
 * before that, over-aligned types do not get aligned operator new anyway. */
#ifdef __cpp_aligned_new
void *operator new(std::size_t hmplace_n, std::align_val_t hmplace_a,
                   hmplace_kind hmplace_k);
void *operator new[](std::size_t hmplace_n, std::align_val_t hmplace_a,
                     hmplace_kind hmplace_k);
void *operator new(std::size_t hmplace_n, std::align_val_t hmplace_a,
                   hmplace_kind hmplace_k, const std::nothrow_t &) noexcept;
void *operator new[](std::size_t hmplace_n, std::align_val_t hmplace_a,
                     hmplace_kind hmplace_k, const std::nothrow_t &) noexcept;
void operator delete(void *hmplace_p, std::align_val_t hmplace_a,
                     hmplace_kind hmplace_k) noexcept;
void operator delete[](void *hmplace_p, std::align_val_t hmplace_a,
                       hmplace_kind hmplace_k) noexcept;
void operator delete(void *hmplace_p, std::align_val_t hmplace_a,
                     hmplace_kind hmplace_k, const std::nothrow_t &) noexcept;
void operator delete[](void *hmplace_p, std::align_val_t hmplace_a,
                       hmplace_kind hmplace_k, const std::nothrow_t &) noexcept;
#endif
#endif

#endif /* HMPLACE_H */
