/*===- profile_new.c - operator new for MemProf-profiled C++ programs -----===*
 *
 * The C++ half of profile.c: the global operator new forms a program calls,
 * wrapped (-Wl,--wrap=_Znwm, ...) so that a request of 64 KiB or more is
 * made by the aligned form, which leaves the magic word LLVM's MemProf
 * needs to record a block still live at exit (profile.c says why). A file
 * of its own: only a C++ program references operator new, and only then is
 * this pulled from the archive (a C program has no operator new to call).
 *===----------------------------------------------------------------------===*/
#include <stddef.h>

#include "profile.h"

/* The mangled names: operator new(size_t), new[](size_t), their nothrow
 * forms, and the aligned forms (std::align_val_t is a size_t). */
void *__real__Znwm(size_t);
void *__real__Znam(size_t);
void *__real__ZnwmRKSt9nothrow_t(size_t, const void *);
void *__real__ZnamRKSt9nothrow_t(size_t, const void *);
void *_ZnwmSt11align_val_t(size_t, size_t);
void *_ZnamSt11align_val_t(size_t, size_t);
void *_ZnwmSt11align_val_tRKSt9nothrow_t(size_t, size_t, const void *);
void *_ZnamSt11align_val_tRKSt9nothrow_t(size_t, size_t, const void *);

void *__wrap__Znwm(size_t n) {
  if (n >= HM_PROFILE_BIG)
    return _ZnwmSt11align_val_t(n, HM_PROFILE_ALIGN);
  return __real__Znwm(n);
}

void *__wrap__Znam(size_t n) {
  if (n >= HM_PROFILE_BIG)
    return _ZnamSt11align_val_t(n, HM_PROFILE_ALIGN);
  return __real__Znam(n);
}

void *__wrap__ZnwmRKSt9nothrow_t(size_t n, const void *tag) {
  if (n >= HM_PROFILE_BIG)
    return _ZnwmSt11align_val_tRKSt9nothrow_t(n, HM_PROFILE_ALIGN, tag);
  return __real__ZnwmRKSt9nothrow_t(n, tag);
}

void *__wrap__ZnamRKSt9nothrow_t(size_t n, const void *tag) {
  if (n >= HM_PROFILE_BIG)
    return _ZnamSt11align_val_tRKSt9nothrow_t(n, HM_PROFILE_ALIGN, tag);
  return __real__ZnamRKSt9nothrow_t(n, tag);
}
