// threads.c - one function is both a thread's start routine and called
// from main; the objects it makes live at the same time (a barrier), the
// thread's is read eight times, main's once.
#include <pthread.h>
#include <stdlib.h>

#define N (2 << 20) / sizeof(double)

static pthread_barrier_t both;
static double result[2];

__attribute__((noinline)) static void *sweep(void *arg) {
  int passes = (int)(long)arg;
  double *a = malloc(N * sizeof *a);
  pthread_barrier_wait(&both);
  for (size_t i = 0; i < N; ++i)
    a[i] = 1;
  double s = 0;
  for (int p = 0; p < passes; ++p)
    for (size_t i = 0; i < N; ++i)
      s += a[i];
  pthread_barrier_wait(&both);
  free(a);
  result[passes > 1] = s;
  return 0;
}

int main(void) {
  pthread_t t;
  pthread_barrier_init(&both, 0, 2);
  pthread_create(&t, 0, sweep, (void *)8L);
  sweep((void *)1L);
  pthread_join(t, 0);
  return result[1] == 8.0 * N && result[0] == 1.0 * N ? 0 : 1;
}
