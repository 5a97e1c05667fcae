/* Every declaration of hmplace.h in use, as rewritten code uses them. */
#include <hmplace.h>

static int noted(void) { return 1; }

int main(void) {
  void *p = hmplace_malloc(HMPLACE_HBW, 16);
  void *q = 0;
  struct hmplace_stats s;
  int r = hmplace_posix_memalign(HMPLACE_HBW, &q, 64, 64);
  {
    uint32_t d = hmplace_ctx_push(1);
    r += noted();
    hmplace_ctx_restore(d);
  }
  p = hmplace_realloc(p, 32);
  hmplace_get_stats(HMPLACE_HBW, &s);
  r = r == 1 && hmplace_owner(p) == 1 + HMPLACE_HBW && s.allocs == 2;
  hmplace_free(p);
  hmplace_free(q);
  return !r;
}
