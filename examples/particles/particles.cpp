// particles.cpp - allocation of the particle arrays, deterministic start.
#include "particles.h"

#include <cmath>

Particles::Particles(std::size_t n) : N(n) {
  x = new double[n];
  y = new double[n];
  z = new double[n];
  vx = new double[n]();
  vy = new double[n]();
  vz = new double[n]();
  fx = new double[n];
  fy = new double[n];
  fz = new double[n];
  species = std::unique_ptr<int[]>(new int[n]);
  label = new std::string("argon-like");
  // A jittered lattice in a cube of side L = cbrt(n).
  std::size_t side = (std::size_t)std::ceil(std::cbrt((double)n));
  for (std::size_t i = 0; i < n; ++i) {
    x[i] = (double)(i % side) + 0.01 * (double)(i % 7);
    y[i] = (double)((i / side) % side) + 0.01 * (double)(i % 5);
    z[i] = (double)(i / (side * side)) + 0.01 * (double)(i % 3);
    species[i] = (int)(i % 2);
  }
}

Particles::~Particles() {
  delete[] x;
  delete[] y;
  delete[] z;
  delete[] vx;
  delete[] vy;
  delete[] vz;
  delete[] fx;
  delete[] fy;
  delete[] fz;
  delete label;
}
