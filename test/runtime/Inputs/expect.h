/* expect.h - assertions for runtime test programs: a failed EXPECT prints
 * the condition and its line and exits 1, so lit sees the failure. */
#ifndef EXPECT_H
#define EXPECT_H
#include <stdio.h>
#include <stdlib.h>
#define EXPECT(c)                                                              \
  do {                                                                         \
    if (!(c)) {                                                                \
      fprintf(stderr, "%s:%d: EXPECT failed: %s\n", __FILE__, __LINE__, #c);   \
      exit(1);                                                                 \
    }                                                                          \
  } while (0)
/* Whether placed allocations of HBW are expected to be served by memkind:
 * the test passes PLACED=1 when run with MEMKIND_HBW_NODES=0. */
static int placed_expected(void) {
  const char *e = getenv("PLACED");
  return e && *e == '1';
}
#endif
