// ranks.c - an MPI code: each rank reads a 1 MiB halo buffer 20 times and
// writes a 4 MiB field once; the ranks profile themselves (one raw file each).
#include <mpi.h>
#include <stdlib.h>
int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  int rank;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  size_t n = (1 << 20) / sizeof(double);
  double *halo = malloc(n * sizeof *halo);
  double *field = malloc(4 * n * sizeof *field);
  double s = 0;
  for (size_t i = 0; i < 4 * n; ++i)
    field[i] = rank;
  for (int p = 0; p < 20; ++p)
    for (size_t i = 0; i < n; ++i)
      s += (halo[i] = field[i] + p);
  double t;
  MPI_Allreduce(MPI_IN_PLACE, halo, (int)n, MPI_DOUBLE, MPI_SUM,
                MPI_COMM_WORLD);
  s += halo[n - 1];
  MPI_Allreduce(&s, &t, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
  free(halo);
  free(field);
  MPI_Finalize();
  return t > 0 ? 0 : 1;
}
