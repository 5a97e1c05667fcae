// particles.h - particle arrays of a short-range MD step (structure of arrays).
#ifndef PARTICLES_H
#define PARTICLES_H

#include <cstddef>
#include <memory>
#include <string>

// Positions, velocities and forces: the arrays every step streams through,
// the ones worth placing in HBM.
class Particles {
public:
  explicit Particles(std::size_t n);
  ~Particles();
  Particles(const Particles &) = delete;
  Particles &operator=(const Particles &) = delete;

  std::size_t size() const { return N; }
  double *x, *y, *z;    // positions
  double *vx, *vy, *vz; // velocities
  double *fx, *fy, *fz; // forces
  std::unique_ptr<int[]> species; // per particle, rarely read
  std::string *label;             // one name, for the log

private:
  std::size_t N;
};

#endif
