//===- hmplace_new.cpp - C++ operator new with a kind, and delete ---------===//
//
// `new (HMPLACE_HBW) T` and its nothrow/aligned/array forms, with the
// placement deletes the compiler calls when a constructor throws. In
// libhmplace.so also every global operator delete, so `delete p` of a placed
// object is right whoever wrote it; operator new is left to the C++ library.
//
//===----------------------------------------------------------------------===//
#include "hmplace.h"

#include <cerrno>
#include <new>

// The runtime's entry points with the program's call for HMPLACE_LOG
// (hmplace_internal.h).
extern "C" void *hm_malloc_from(hmplace_kind k, std::size_t n,
                                const void *caller);
extern "C" int hm_posix_memalign_from(hmplace_kind k, void **out,
                                      std::size_t align, std::size_t n,
                                      const void *caller);

static void *alloc_or_throw(std::size_t n, hmplace_kind k, const void *at) {
  for (;;) {
    if (void *p = hm_malloc_from(k, n, at))
      return p;
    // As the C++ library's operator new: try the handler, else throw.
    std::new_handler h = std::get_new_handler();
    if (!h)
      throw std::bad_alloc();
    h();
  }
}

static void *aligned_or_throw(std::size_t n, std::align_val_t a, hmplace_kind k,
                              const void *at) {
  std::size_t al = static_cast<std::size_t>(a);
  if (al < sizeof(void *))
    al = sizeof(void *);
  for (;;) {
    void *p = nullptr;
    if (hm_posix_memalign_from(k, &p, al, n, at) == 0)
      return p;
    std::new_handler h = std::get_new_handler();
    if (!h)
      throw std::bad_alloc();
    h();
  }
}

void *operator new(std::size_t n, hmplace_kind k) {
  return alloc_or_throw(n, k, __builtin_return_address(0));
}
void *operator new[](std::size_t n, hmplace_kind k) {
  return alloc_or_throw(n, k, __builtin_return_address(0));
}
void *operator new(std::size_t n, std::align_val_t a, hmplace_kind k) {
  return aligned_or_throw(n, a, k, __builtin_return_address(0));
}
void *operator new[](std::size_t n, std::align_val_t a, hmplace_kind k) {
  return aligned_or_throw(n, a, k, __builtin_return_address(0));
}
void *operator new(std::size_t n, hmplace_kind k,
                   const std::nothrow_t &) noexcept {
  try {
    return alloc_or_throw(n, k, __builtin_return_address(0));
  } catch (...) {
    return nullptr;
  }
}
void *operator new[](std::size_t n, hmplace_kind k,
                     const std::nothrow_t &) noexcept {
  try {
    return alloc_or_throw(n, k, __builtin_return_address(0));
  } catch (...) {
    return nullptr;
  }
}
void *operator new(std::size_t n, std::align_val_t a, hmplace_kind k,
                   const std::nothrow_t &) noexcept {
  try {
    return aligned_or_throw(n, a, k, __builtin_return_address(0));
  } catch (...) {
    return nullptr;
  }
}
void *operator new[](std::size_t n, std::align_val_t a, hmplace_kind k,
                     const std::nothrow_t &) noexcept {
  try {
    return aligned_or_throw(n, a, k, __builtin_return_address(0));
  } catch (...) {
    return nullptr;
  }
}

void operator delete(void *p, hmplace_kind) noexcept { hmplace_free(p); }
void operator delete[](void *p, hmplace_kind) noexcept { hmplace_free(p); }
void operator delete(void *p, std::align_val_t, hmplace_kind) noexcept {
  hmplace_free(p);
}
void operator delete[](void *p, std::align_val_t, hmplace_kind) noexcept {
  hmplace_free(p);
}
void operator delete(void *p, hmplace_kind, const std::nothrow_t &) noexcept {
  hmplace_free(p);
}
void operator delete[](void *p, hmplace_kind, const std::nothrow_t &) noexcept {
  hmplace_free(p);
}
void operator delete(void *p, std::align_val_t, hmplace_kind,
                     const std::nothrow_t &) noexcept {
  hmplace_free(p);
}
void operator delete[](void *p, std::align_val_t, hmplace_kind,
                       const std::nothrow_t &) noexcept {
  hmplace_free(p);
}

#if HMPLACE_INTERPOSE
// Replacements of every global operator delete (C++17/20 forms).
void operator delete(void *p) noexcept { hmplace_free(p); }
void operator delete[](void *p) noexcept { hmplace_free(p); }
void operator delete(void *p, std::size_t) noexcept { hmplace_free(p); }
void operator delete[](void *p, std::size_t) noexcept { hmplace_free(p); }
void operator delete(void *p, std::align_val_t) noexcept { hmplace_free(p); }
void operator delete[](void *p, std::align_val_t) noexcept { hmplace_free(p); }
void operator delete(void *p, std::size_t, std::align_val_t) noexcept {
  hmplace_free(p);
}
void operator delete[](void *p, std::size_t, std::align_val_t) noexcept {
  hmplace_free(p);
}
void operator delete(void *p, const std::nothrow_t &) noexcept {
  hmplace_free(p);
}
void operator delete[](void *p, const std::nothrow_t &) noexcept {
  hmplace_free(p);
}
void operator delete(void *p, std::align_val_t,
                     const std::nothrow_t &) noexcept {
  hmplace_free(p);
}
void operator delete[](void *p, std::align_val_t,
                       const std::nothrow_t &) noexcept {
  hmplace_free(p);
}
#endif
