//===- containers.cpp - libhmplace-cxx: container buffers by call stack ---===//
//
// A plan's container entry names the buffer a standard container allocates
// while a user call runs (`m.x.resize(n)` at mesh.cpp:19). HmPlace.so places
// it inside std::allocator's inlined code; a rewritten source cannot edit
// the standard library, so the note around the user call (HMPLACE_CONTAINERS
// in hmplace.h) arms this thread with the site's table, and this library's
// replacement of the global operator new takes its kind from the table by
// the same shadow-stack check while it is armed, and behaves as the C++
// library's operator new otherwise.
//
// While armed, an operator new called from the program's own code is
// checked, as HmPlace.so places the std::allocator code instantiated in the
// program; one called from inside the C++ library (std::string's buffers:
// libstdc++ compiles basic_string<char> into itself) is not, as HmPlace.so
// cannot place that either. The difference left: an element constructor
// that calls `new` itself is placed by the rewritten program, not by the
// pass's. Growth later, at a call no entry names, is not armed: the new
// buffer comes from the ordinary heap in both front ends.
//
// Only programs whose rewritten sources use HMPLACE_CONTAINERS link this
// (-lhmplace-cxx); the cost it adds to every operator new (a thread-local
// load and a branch) is theirs alone.
//
//===----------------------------------------------------------------------===//
#include "hmplace.h"

#include <algorithm>
#include <cstdint>
#include <cstdlib>
#include <dlfcn.h>
#include <exception>
#include <link.h>
#include <new>

static thread_local const char *Armed
    __attribute__((tls_model("initial-exec"))) = nullptr;

const char *hmplace_containers_enter(const char *table) {
  // Known to the report from the first time it is armed, as HmPlace.so's
  // tables are from the start: an entry that placed nothing says so.
  hmplace_ctx_register(&table, 1);
  const char *Previous = Armed;
  Armed = table;
  return Previous;
}

void hmplace_containers_exit(const char *previous) { Armed = previous; }

/// As the C++ library's operator new: a unique block, or the new handler,
/// or std::bad_alloc.
template <typename Alloc> static void *loop(Alloc A) {
  for (;;) {
    if (void *P = A())
      return P;
    std::new_handler H = std::get_new_handler();
    if (!H)
      throw std::bad_alloc();
    H();
  }
}

namespace {
/// The executable code of the C++ library's shared object; empty when it is
/// linked into the program itself (-static-libstdc++: no telling apart).
struct Range {
  std::uintptr_t Lo = 0, Hi = 0;
};
struct Search {
  std::uintptr_t Base; ///< where the C++ library is loaded
  int Seen = 0;        ///< objects looked at: the first is the program
  Range Code;
};
} // namespace

static int findCode(struct dl_phdr_info *Info, std::size_t, void *Arg) {
  auto *S = static_cast<Search *>(Arg);
  bool Program = S->Seen++ == 0;
  if (Info->dlpi_addr != S->Base)
    return 0;
  if (Program)
    return 1; // linked into the program: no telling apart
  for (int I = 0; I < Info->dlpi_phnum; ++I) {
    const ElfW(Phdr) &P = Info->dlpi_phdr[I];
    if (P.p_type == PT_LOAD && (P.p_flags & PF_X)) {
      std::uintptr_t Lo = Info->dlpi_addr + P.p_vaddr, Hi = Lo + P.p_memsz;
      S->Code.Lo = S->Code.Hi ? std::min(S->Code.Lo, Lo) : Lo;
      S->Code.Hi = std::max(S->Code.Hi, Hi);
    }
  }
  return 1;
}

static Range stdLibraryCode() {
  Dl_info Std;
  if (!dladdr(reinterpret_cast<void *>(&std::terminate), &Std))
    return {};
  Search S{reinterpret_cast<std::uintptr_t>(Std.dli_fbase), 0, {}};
  dl_iterate_phdr(findCode, &S);
  return S.Code;
}

/// Whether \p Caller (a return address) is in the C++ library's code.
static bool fromStdLibrary(const void *Caller) {
  static const Range R = stdLibraryCode();
  auto A = reinterpret_cast<std::uintptr_t>(Caller);
  return A >= R.Lo && A < R.Hi;
}

/// The next definition of one form of operator new after this library's
/// (the C++ library's, which Valgrind replaces: its delete then matches the
/// block), looked up once; null when none follows.
template <typename Fn> static Fn nextNew(const char *Name) {
  return reinterpret_cast<Fn>(dlsym(RTLD_NEXT, Name));
}

/// Set while this thread's armed operator new asks libhmplace.so's operator
/// new with a kind, whose fallback is the global operator new: this one
/// again, which must then behave as the C++ library's.
static thread_local bool Placing __attribute__((tls_model("initial-exec"))) =
    false;
namespace {
struct PlacingScope {
  PlacingScope() { Placing = true; }
  ~PlacingScope() { Placing = false; }
};
} // namespace

static bool armedFor(const void *Caller) {
  return __builtin_expect(Armed != nullptr, 0) && !Placing &&
         !fromStdLibrary(Caller);
}

/// Operator new (\p Array: new[]) of \p N bytes: placed by the armed table,
/// or the C++ library's.
static void *allocate(std::size_t N, bool Array, const void *Caller) {
  if (armedFor(Caller)) {
    hmplace_kind K = hmplace_ctx_kind(Armed);
    PlacingScope S;
    return Array ? operator new[](N, K) : operator new(N, K);
  }
  using Fn = void *(*)(std::size_t);
  static const Fn Scalar = nextNew<Fn>("_Znwm"), Vector = nextNew<Fn>("_Znam");
  if (Fn Next = Array ? Vector : Scalar)
    return Next(N);
  return loop([&] { return std::malloc(N ? N : 1); });
}

static void *allocateAligned(std::size_t N, std::align_val_t A, bool Array,
                             const void *Caller) {
  if (armedFor(Caller)) {
    hmplace_kind K = hmplace_ctx_kind(Armed);
    PlacingScope S;
    return Array ? operator new[](N, A, K) : operator new(N, A, K);
  }
  using Fn = void *(*)(std::size_t, std::align_val_t);
  static const Fn Scalar = nextNew<Fn>("_ZnwmSt11align_val_t"),
                  Vector = nextNew<Fn>("_ZnamSt11align_val_t");
  if (Fn Next = Array ? Vector : Scalar)
    return Next(N, A);
  std::size_t Al = static_cast<std::size_t>(A);
  if (Al < sizeof(void *))
    Al = sizeof(void *);
  return loop([&]() -> void * {
    void *P = nullptr;
    return posix_memalign(&P, Al, N ? N : 1) == 0 ? P : nullptr;
  });
}

void *operator new(std::size_t N) {
  return allocate(N, false, __builtin_return_address(0));
}
void *operator new[](std::size_t N) {
  return allocate(N, true, __builtin_return_address(0));
}
void *operator new(std::size_t N, const std::nothrow_t &) noexcept {
  try {
    return allocate(N, false, __builtin_return_address(0));
  } catch (...) {
    return nullptr;
  }
}
void *operator new[](std::size_t N, const std::nothrow_t &) noexcept {
  try {
    return allocate(N, true, __builtin_return_address(0));
  } catch (...) {
    return nullptr;
  }
}
void *operator new(std::size_t N, std::align_val_t A) {
  return allocateAligned(N, A, false, __builtin_return_address(0));
}
void *operator new[](std::size_t N, std::align_val_t A) {
  return allocateAligned(N, A, true, __builtin_return_address(0));
}
void *operator new(std::size_t N, std::align_val_t A,
                   const std::nothrow_t &) noexcept {
  try {
    return allocateAligned(N, A, false, __builtin_return_address(0));
  } catch (...) {
    return nullptr;
  }
}
void *operator new[](std::size_t N, std::align_val_t A,
                     const std::nothrow_t &) noexcept {
  try {
    return allocateAligned(N, A, true, __builtin_return_address(0));
  } catch (...) {
    return nullptr;
  }
}
