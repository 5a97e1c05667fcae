// cells.cpp - cell list construction.
#include "cells.h"

#include <cmath>

CellList::CellList(double box, double cutoff, std::size_t n)
    : M(std::max(3, (int)(box / cutoff))), Side(box / M) {
  Head.assign((std::size_t)M * M * M, -1);
  Next = new int[n];
}

int CellList::cellOf(double x, double y, double z) const {
  auto c = [&](double v) {
    int k = (int)std::floor(v / Side) % M;
    return k < 0 ? k + M : k;
  };
  return c(x) + M * (c(y) + M * c(z));
}

void CellList::build(const Particles &P) {
  std::fill(Head.begin(), Head.end(), -1);
  for (std::size_t i = 0; i < P.size(); ++i) {
    int c = cellOf(P.x[i], P.y[i], P.z[i]);
    Next[i] = Head[c];
    Head[c] = (int)i;
  }
}
