// The entry points keep C's semantics where memkind's differ: size 0 gives a
// unique freeable pointer, calloc checks overflow (ENOMEM), posix_memalign
// rejects bad alignments with EINVAL without touching *out or errno,
// aligned_alloc/memalign/valloc align, strdup/strndup copy.
// RUN: %clang %hmplace_cflags %s %hmplace_lib -o %t
// RUN: %hbw env PLACED=1 %t | FileCheck %s
// RUN: %t 2>/dev/null | FileCheck %s
// RUN: %if sanitizers %{ %clang %hmplace_cflags %s %hmplace_asan_lib -o %t.asan %}
// RUN: %if sanitizers %{ %hbw env PLACED=1 %t.asan | FileCheck %s %}
#include "Inputs/expect.h"
#include <errno.h>
#include <hmplace.h>
#include <stdint.h>
#include <string.h>
#include <unistd.h>

int main(void) {
  int hbw = placed_expected() ? HMPLACE_HBW + 1 : 0;
  // Size 0.
  void *a = hmplace_malloc(HMPLACE_HBW, 0), *b = hmplace_malloc(HMPLACE_HBW, 0);
  EXPECT(a && b && a != b && hmplace_owner(a) == hbw);
  void *c = hmplace_calloc(HMPLACE_HBW, 0, 8);
  EXPECT(c && hmplace_owner(c) == hbw);
  hmplace_free(a), hmplace_free(b), hmplace_free(c);
  // calloc: zeroed, and overflow checked ((2^62+1) * 4 wraps to 4).
  int *z = hmplace_calloc(HMPLACE_HBW, 1000, sizeof(int));
  for (int i = 0; i < 1000; ++i)
    EXPECT(z[i] == 0);
  hmplace_free(z);
  errno = 0;
  EXPECT(hmplace_calloc(HMPLACE_HBW, ((size_t)1 << 62) + 1, 4) == NULL);
  EXPECT(errno == ENOMEM);
  // posix_memalign.
  void *out = (void *)0x1234;
  errno = 0;
  EXPECT(hmplace_posix_memalign(HMPLACE_HBW, &out, 3, 10) == EINVAL);
  EXPECT(hmplace_posix_memalign(HMPLACE_HBW, &out, 4, 10) == EINVAL);
  EXPECT(hmplace_posix_memalign(HMPLACE_HBW, &out, 0, 10) == EINVAL);
  EXPECT(out == (void *)0x1234 && errno == 0);
  EXPECT(hmplace_posix_memalign(HMPLACE_HBW, &out, 4096, 10) == 0);
  EXPECT(((uintptr_t)out & 4095) == 0 && hmplace_owner(out) == hbw);
  hmplace_free(out);
  EXPECT(hmplace_posix_memalign(HMPLACE_HBW, &out, 64, 0) == 0 && out);
  hmplace_free(out);
  // aligned_alloc: power of two (glibc also takes ones below sizeof(void*)).
  errno = 0;
  EXPECT(hmplace_aligned_alloc(HMPLACE_HBW, 24, 48) == NULL && errno == EINVAL);
  void *al = hmplace_aligned_alloc(HMPLACE_HBW, 256, 1000);
  EXPECT(((uintptr_t)al & 255) == 0 && hmplace_owner(al) == hbw);
  hmplace_free(al);
  al = hmplace_aligned_alloc(HMPLACE_HBW, 2, 3);
  EXPECT(al && ((uintptr_t)al & 1) == 0);
  hmplace_free(al);
  // memalign rounds a non-power-of-two up; valloc is page aligned.
  void *m = hmplace_memalign(HMPLACE_HBW, 48, 10);
  EXPECT(((uintptr_t)m & 63) == 0);
  hmplace_free(m);
  void *v = hmplace_valloc(HMPLACE_HBW, 10);
  EXPECT(((uintptr_t)v & (uintptr_t)(sysconf(_SC_PAGESIZE) - 1)) == 0);
  hmplace_free(v);
  // strdup / strndup.
  char *s = hmplace_strdup(HMPLACE_HBW, "placed");
  EXPECT(!strcmp(s, "placed") && hmplace_owner(s) == hbw);
  char *t = hmplace_strndup(HMPLACE_HBW, "placed", 3);
  EXPECT(!strcmp(t, "pla"));
  hmplace_free(s), hmplace_free(t);
  printf("c semantics ok\n");
  // CHECK: c semantics ok
  return 0;
}
