// main.cpp - a few velocity-Verlet steps of soft-sphere particles; prints
// the energy so that a placed build can be compared with the original.
#include "cells.h"
#include "particles.h"

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <vector>

static double forces(Particles &P, const CellList &C, double box) {
  std::size_t n = P.size();
  for (std::size_t i = 0; i < n; ++i)
    P.fx[i] = P.fy[i] = P.fz[i] = 0.0;
  double energy = 0.0;
  auto wrap = [box](double d) { return d - box * std::round(d / box); };
  C.forPairs(P, [&](int i, int j) {
    double dx = wrap(P.x[i] - P.x[j]), dy = wrap(P.y[i] - P.y[j]),
           dz = wrap(P.z[i] - P.z[j]);
    double r2 = dx * dx + dy * dy + dz * dz;
    if (r2 >= 1.0 || r2 == 0.0)
      return;
    double r = std::sqrt(r2), s = 1.0 - r; // soft sphere: (1 - r)^2
    energy += s * s;
    double f = 2.0 * s / r;
    P.fx[i] += f * dx, P.fy[i] += f * dy, P.fz[i] += f * dz;
    P.fx[j] -= f * dx, P.fy[j] -= f * dy, P.fz[j] -= f * dz;
  });
  return energy;
}

int main(int argc, char **argv) {
  std::size_t n = argc > 1 ? std::strtoul(argv[1], nullptr, 10) : 4096;
  int steps = argc > 2 ? std::atoi(argv[2]) : 10;
  double box = std::ceil(std::cbrt((double)n)), dt = 0.01;
  Particles *P = new Particles(n);
  CellList *C = new CellList(box, 1.0, n);
  std::vector<double> history;
  C->build(*P);
  double e = forces(*P, *C, box);
  for (int s = 0; s < steps; ++s) {
    for (std::size_t i = 0; i < n; ++i) {
      P->vx[i] += 0.5 * dt * P->fx[i], P->vy[i] += 0.5 * dt * P->fy[i],
          P->vz[i] += 0.5 * dt * P->fz[i];
      P->x[i] += dt * P->vx[i], P->y[i] += dt * P->vy[i],
          P->z[i] += dt * P->vz[i];
    }
    C->build(*P);
    e = forces(*P, *C, box);
    double k = 0.0;
    for (std::size_t i = 0; i < n; ++i) {
      P->vx[i] += 0.5 * dt * P->fx[i], P->vy[i] += 0.5 * dt * P->fy[i],
          P->vz[i] += 0.5 * dt * P->fz[i];
      k += P->vx[i] * P->vx[i] + P->vy[i] * P->vy[i] + P->vz[i] * P->vz[i];
    }
    history.push_back(e + 0.5 * k);
  }
  std::printf("%s: %zu particles, %d steps, energy %.9f -> %.9f\n",
              P->label->c_str(), n, steps, history.front(), history.back());
  delete C;
  delete P;
  return 0;
}
