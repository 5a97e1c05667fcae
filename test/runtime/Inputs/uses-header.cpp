// hmplace.h in C++, with the placed new-expressions hmrewrite writes.
#include <hmplace.h>

#include <new>

struct alignas(64) Line { double v[8]; };

int main() {
  int *i = new (HMPLACE_HBW) int(1);
  int *a = new (HMPLACE_HBW) int[4]();
  int *n = new (HMPLACE_HBW, std::nothrow) int;
  Line *l = new (HMPLACE_HBW) Line;
  bool ok = *i == 1 && a[3] == 0 && n != nullptr &&
            hmplace_owner(l) == 1 + HMPLACE_HBW;
  delete i;
  delete[] a;
  delete n;
  delete l;
  return !ok;
}
