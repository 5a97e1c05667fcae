// cells.h - a cell list: which particles are near which.
#ifndef CELLS_H
#define CELLS_H

#include "particles.h"

#include <vector>

class CellList {
public:
  CellList(double box, double cutoff, std::size_t n);
  ~CellList() { delete[] Next; }
  void build(const Particles &P);
  // Calls F(i, j) once for every pair closer than a cell apart.
  template <class Fn> void forPairs(const Particles &P, Fn F) const;

private:
  int cellOf(double x, double y, double z) const;
  int M;                 // cells per side
  double Side;           // cell side
  std::vector<int> Head; // first particle of each cell, -1 if none
  int *Next;             // next particle in the same cell
};

template <class Fn> void CellList::forPairs(const Particles &P, Fn F) const {
  for (int c = 0; c < M * M * M; ++c) {
    int cx = c % M, cy = (c / M) % M, cz = c / (M * M);
    for (int i = Head[c]; i >= 0; i = Next[i])
      for (int d = 0; d < 27; ++d) {
        int nx = (cx + d % 3 - 1 + M) % M, ny = (cy + (d / 3) % 3 - 1 + M) % M,
            nz = (cz + d / 9 - 1 + M) % M;
        for (int j = Head[nx + M * (ny + M * nz)]; j >= 0; j = Next[j])
          if (j > i)
            F(i, j);
      }
  }
  (void)P;
}

#endif
