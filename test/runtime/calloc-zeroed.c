// hmplace_calloc zeroes its block on every path: the inline form's call
// outside its size window (hmplace.h sends it to calloc, without calling
// the runtime), inside the window (the runtime's placed block), and with
// the ordinary heap as its kind. Each block is asked for where a freed one
// of the same size was filled with 0xAB, which malloc would hand back as
// it is. With GCC and Clang, -O0 and -O2.
// RUN: %clang %hmplace_cflags -O0 %s %hmplace_lib -o %t0
// RUN: %hbw %t0 | FileCheck %s
// RUN: %clang %hmplace_cflags -O2 %s %hmplace_lib -o %t2
// RUN: %hbw %t2 | FileCheck %s
// RUN: gcc %hmplace_cflags -O2 -std=c99 %s %hmplace_lib -o %tg
// RUN: %hbw %tg | FileCheck %s
// CHECK:      out of the window: 0 of 64 bytes non-zero
// CHECK-NEXT: in the window: 0 of 2097152 bytes non-zero
// CHECK-NEXT: ordinary heap: 0 of 64 bytes non-zero
#include <hmplace.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void dirty(size_t n) {
  volatile unsigned char *p = malloc(n);
  memset((void *)p, 0xAB, n);
  free((void *)p);
}

static void report(const char *what, const unsigned char *p, size_t n) {
  size_t bad = 0;
  for (size_t i = 0; i < n; ++i)
    bad += p[i] != 0;
  printf("%s: %zu of %zu bytes non-zero\n", what, bad, n);
}

int main(void) {
  dirty(64);
  unsigned char *a = hmplace_calloc(
      hmplace_in_window2(HMPLACE_HBW, 8, 8, HMPLACE_KiB(64), SIZE_MAX), 8, 8);
  report("out of the window", a, 64);
  size_t big = (size_t)2 << 20;
  unsigned char *d = hmplace_malloc(HMPLACE_HBW, big);
  memset(d, 0xAB, big);
  hmplace_free(d);
  unsigned char *b = hmplace_calloc(
      hmplace_in_window2(HMPLACE_HBW, big / 8, 8, HMPLACE_KiB(64), SIZE_MAX),
      big / 8, 8);
  report("in the window", b, big);
  dirty(64);
  unsigned char *c = hmplace_calloc(HMPLACE_HEAP, 8, 8);
  report("ordinary heap", c, 64);
  free(a), hmplace_free(b), hmplace_free(c);
  return 0;
}
