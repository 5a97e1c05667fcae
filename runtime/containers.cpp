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
// The difference from HmPlace.so: while armed, every global operator new of
// the thread is checked, not only std::allocator's (an element constructor
// that calls `new` itself is placed by the rewritten program, not by the
// pass's). Growth later, at a call no entry names, is not armed: the new
// buffer comes from the ordinary heap in both front ends.
//
// Only programs whose rewritten sources use HMPLACE_CONTAINERS link this
// (-lhmplace-cxx); the cost it adds to every operator new (a thread-local
// load and a branch) is theirs alone.
//
//===----------------------------------------------------------------------===//
#include "hmplace.h"

#include <cstdlib>
#include <new>

static thread_local const char *Armed
    __attribute__((tls_model("initial-exec"))) = nullptr;

const char *hmplace_containers_enter(const char *table) {
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

static void *allocate(std::size_t N) {
  if (__builtin_expect(Armed != nullptr, 0)) {
    hmplace_kind K = hmplace_ctx_kind(Armed);
    return loop([&] { return hmplace_malloc(K, N ? N : 1); });
  }
  return loop([&] { return std::malloc(N ? N : 1); });
}

static void *allocateAligned(std::size_t N, std::align_val_t A) {
  std::size_t Al = static_cast<std::size_t>(A);
  if (Al < sizeof(void *))
    Al = sizeof(void *);
  hmplace_kind K = __builtin_expect(Armed != nullptr, 0)
                       ? hmplace_ctx_kind(Armed)
                       : HMPLACE_HEAP;
  return loop([&]() -> void * {
    void *P = nullptr;
    int R = K == HMPLACE_HEAP ? posix_memalign(&P, Al, N ? N : 1)
                              : hmplace_posix_memalign(K, &P, Al, N ? N : 1);
    return R == 0 ? P : nullptr;
  });
}

void *operator new(std::size_t N) { return allocate(N); }
void *operator new[](std::size_t N) { return allocate(N); }
void *operator new(std::size_t N, const std::nothrow_t &) noexcept {
  try {
    return allocate(N);
  } catch (...) {
    return nullptr;
  }
}
void *operator new[](std::size_t N, const std::nothrow_t &) noexcept {
  try {
    return allocate(N);
  } catch (...) {
    return nullptr;
  }
}
void *operator new(std::size_t N, std::align_val_t A) {
  return allocateAligned(N, A);
}
void *operator new[](std::size_t N, std::align_val_t A) {
  return allocateAligned(N, A);
}
void *operator new(std::size_t N, std::align_val_t A,
                   const std::nothrow_t &) noexcept {
  try {
    return allocateAligned(N, A);
  } catch (...) {
    return nullptr;
  }
}
void *operator new[](std::size_t N, std::align_val_t A,
                     const std::nothrow_t &) noexcept {
  try {
    return allocateAligned(N, A);
  } catch (...) {
    return nullptr;
  }
}
