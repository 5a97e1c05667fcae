//===- hmplace_new.cpp - C++ operator new with a kind, and delete ---------===//
//
// `new (HMPLACE_HBW) T` and its nothrow/aligned/array forms, with the
// placement deletes the compiler calls when a constructor throws. In
// libhmplace.so also every global operator delete, so `delete p` of a placed
// object is right whoever wrote it; operator new is left to the C++ library.
// A block a kind does not give (placement off, the kind absent or full) is
// the C++ library's operator new's, and a delete under Valgrind or ASan
// reaches their operator delete: the tools see matched pairs.
//
//===----------------------------------------------------------------------===//
#include "hmplace.h"

#include <atomic>
#include <cstdlib>
#include <dlfcn.h>
#include <new>

// The runtime's side (alloc.c, dispatch.c).
extern "C" void *hm_place_new(hmplace_kind k, std::size_t align, std::size_t n);
extern "C" void *hm_log_new(void *p, hmplace_kind k, std::size_t n,
                            const void *caller);
extern "C" int hm_delete(void *p);

/// A block of kind \p k, or else what \p heap returns: the C++ library's
/// operator new of the same form (or the one that replaces it: a
/// sanitizer's, the program's own), so that the program's `delete` matches
/// an unplaced block under Valgrind and ASan as it matches any other, and
/// the new handler and std::bad_alloc are its. Logged either way.
template <typename Heap>
static void *placed_or(hmplace_kind k, std::size_t align, std::size_t n,
                       const void *at, Heap heap) {
  void *p = hm_place_new(k, align, n);
  if (!p) {
    try {
      p = heap();
    } catch (...) {
      hm_log_new(nullptr, k, n, at);
      throw;
    }
  }
  return hm_log_new(p, k, n, at);
}

static std::size_t al(std::align_val_t a) {
  return static_cast<std::size_t>(a);
}

void *operator new(std::size_t n, hmplace_kind k) {
  return placed_or(k, 0, n, __builtin_return_address(0),
                   [&] { return ::operator new(n); });
}
void *operator new[](std::size_t n, hmplace_kind k) {
  return placed_or(k, 0, n, __builtin_return_address(0),
                   [&] { return ::operator new[](n); });
}
void *operator new(std::size_t n, std::align_val_t a, hmplace_kind k) {
  return placed_or(k, al(a), n, __builtin_return_address(0),
                   [&] { return ::operator new(n, a); });
}
void *operator new[](std::size_t n, std::align_val_t a, hmplace_kind k) {
  return placed_or(k, al(a), n, __builtin_return_address(0),
                   [&] { return ::operator new[](n, a); });
}
void *operator new(std::size_t n, hmplace_kind k,
                   const std::nothrow_t &) noexcept {
  return placed_or(k, 0, n, __builtin_return_address(0),
                   [&] { return ::operator new(n, std::nothrow); });
}
void *operator new[](std::size_t n, hmplace_kind k,
                     const std::nothrow_t &) noexcept {
  return placed_or(k, 0, n, __builtin_return_address(0),
                   [&] { return ::operator new[](n, std::nothrow); });
}
void *operator new(std::size_t n, std::align_val_t a, hmplace_kind k,
                   const std::nothrow_t &) noexcept {
  return placed_or(k, al(a), n, __builtin_return_address(0),
                   [&] { return ::operator new(n, a, std::nothrow); });
}
void *operator new[](std::size_t n, std::align_val_t a, hmplace_kind k,
                     const std::nothrow_t &) noexcept {
  return placed_or(k, al(a), n, __builtin_return_address(0),
                   [&] { return ::operator new[](n, a, std::nothrow); });
}

/// One form of operator delete, looked up once: the next definition after
/// this library's (the C++ library's, which a tool replaces), or with
/// \p Program the program's (the first: a sanitizer's, where it has one).
template <typename... A> struct OtherDelete {
  const char *Name;
  bool Program;
  std::atomic<void (*)(void *, A...)> Fn{nullptr};
  void operator()(void *p, A... a) {
    auto F = Fn.load(std::memory_order_acquire);
    if (!F) {
      F = reinterpret_cast<void (*)(void *, A...)>(
          dlsym(Program ? RTLD_DEFAULT : RTLD_NEXT, Name));
      if (!F) { // no C++ library after this one: its blocks are malloc's
        std::free(p);
        return;
      }
      Fn.store(F, std::memory_order_release);
    }
    F(p, a...);
  }
};

#if HMPLACE_INTERPOSE
// A call of ::operator delete here would bind to this library's own, past
// one the program defines before it (ASan's): the program's is looked up.
static OtherDelete<> ProgramDelete{"_ZdlPv", true},
    ProgramDeleteArray{"_ZdaPv", true};
static OtherDelete<std::align_val_t> ProgramDeleteAligned{
    "_ZdlPvSt11align_val_t", true},
    ProgramDeleteArrayAligned{"_ZdaPvSt11align_val_t", true};
#endif

/// Where a placement delete sends a block no kind gave: the operator delete
/// the program's own `delete` calls.
static void unplacedDelete(void *p, bool array) {
#if HMPLACE_INTERPOSE
  array ? ProgramDeleteArray(p) : ProgramDelete(p);
#else
  array ? ::operator delete[](p) : ::operator delete(p);
#endif
}
static void unplacedDelete(void *p, std::align_val_t a, bool array) {
#if HMPLACE_INTERPOSE
  array ? ProgramDeleteArrayAligned(p, a) : ProgramDeleteAligned(p, a);
#else
  array ? ::operator delete[](p, a) : ::operator delete(p, a);
#endif
}

// The placement deletes, called when a constructor throws: a placed block to
// its kind, another to the operator delete that matches where it came from.
void operator delete(void *p, hmplace_kind) noexcept {
  if (hmplace_owner(p))
    hmplace_free(p);
  else
    unplacedDelete(p, false);
}
void operator delete[](void *p, hmplace_kind) noexcept {
  if (hmplace_owner(p))
    hmplace_free(p);
  else
    unplacedDelete(p, true);
}
void operator delete(void *p, std::align_val_t a, hmplace_kind) noexcept {
  if (hmplace_owner(p))
    hmplace_free(p);
  else
    unplacedDelete(p, a, false);
}
void operator delete[](void *p, std::align_val_t a, hmplace_kind) noexcept {
  if (hmplace_owner(p))
    hmplace_free(p);
  else
    unplacedDelete(p, a, true);
}
void operator delete(void *p, hmplace_kind k, const std::nothrow_t &) noexcept {
  operator delete(p, k);
}
void operator delete[](void *p, hmplace_kind k,
                       const std::nothrow_t &) noexcept {
  operator delete[](p, k);
}
void operator delete(void *p, std::align_val_t a, hmplace_kind k,
                     const std::nothrow_t &) noexcept {
  operator delete(p, a, k);
}
void operator delete[](void *p, std::align_val_t a, hmplace_kind k,
                       const std::nothrow_t &) noexcept {
  operator delete[](p, a, k);
}

#if HMPLACE_INTERPOSE
static_assert(sizeof(std::size_t) == sizeof(unsigned long),
              "the mangled names below spell size_t as unsigned long");
static OtherDelete<> Delete{"_ZdlPv", false}, DeleteArray{"_ZdaPv", false};
static OtherDelete<std::size_t> DeleteSized{"_ZdlPvm", false},
    DeleteArraySized{"_ZdaPvm", false};
static OtherDelete<std::align_val_t> DeleteAligned{"_ZdlPvSt11align_val_t",
                                                   false},
    DeleteArrayAligned{"_ZdaPvSt11align_val_t", false};
static OtherDelete<std::size_t, std::align_val_t> DeleteSizedAligned{
    "_ZdlPvmSt11align_val_t", false},
    DeleteArraySizedAligned{"_ZdaPvmSt11align_val_t", false};
static OtherDelete<const std::nothrow_t &> DeleteNothrow{"_ZdlPvRKSt9nothrow_t",
                                                         false},
    DeleteArrayNothrow{"_ZdaPvRKSt9nothrow_t", false};
static OtherDelete<std::align_val_t, const std::nothrow_t &>
    DeleteAlignedNothrow{"_ZdlPvSt11align_val_tRKSt9nothrow_t", false},
    DeleteArrayAlignedNothrow{"_ZdaPvSt11align_val_tRKSt9nothrow_t", false};

/// A placed block to its kind, any other to the next free; with placement
/// off for the run, to the next operator delete of the same form (a tool's,
/// which matched it with its operator new).
template <typename Next, typename... A>
static inline void release(void *p, Next &next, A... a) {
  if (__builtin_expect(!hm_delete(p), 0))
    next(p, a...);
}

// Replacements of every global operator delete (C++17/20 forms).
void operator delete(void *p) noexcept { release(p, Delete); }
void operator delete[](void *p) noexcept { release(p, DeleteArray); }
void operator delete(void *p, std::size_t n) noexcept {
  release(p, DeleteSized, n);
}
void operator delete[](void *p, std::size_t n) noexcept {
  release(p, DeleteArraySized, n);
}
void operator delete(void *p, std::align_val_t a) noexcept {
  release(p, DeleteAligned, a);
}
void operator delete[](void *p, std::align_val_t a) noexcept {
  release(p, DeleteArrayAligned, a);
}
void operator delete(void *p, std::size_t n, std::align_val_t a) noexcept {
  release(p, DeleteSizedAligned, n, a);
}
void operator delete[](void *p, std::size_t n, std::align_val_t a) noexcept {
  release(p, DeleteArraySizedAligned, n, a);
}
void operator delete(void *p, const std::nothrow_t &t) noexcept {
  release<decltype(DeleteNothrow), const std::nothrow_t &>(p, DeleteNothrow, t);
}
void operator delete[](void *p, const std::nothrow_t &t) noexcept {
  release<decltype(DeleteArrayNothrow), const std::nothrow_t &>(
      p, DeleteArrayNothrow, t);
}
void operator delete(void *p, std::align_val_t a,
                     const std::nothrow_t &t) noexcept {
  release<decltype(DeleteAlignedNothrow), std::align_val_t,
          const std::nothrow_t &>(p, DeleteAlignedNothrow, a, t);
}
void operator delete[](void *p, std::align_val_t a,
                       const std::nothrow_t &t) noexcept {
  release<decltype(DeleteArrayAlignedNothrow), std::align_val_t,
          const std::nothrow_t &>(p, DeleteArrayAlignedNothrow, a, t);
}
#endif
