// Fork safety: four threads allocate, reallocate and free placed and
// ordinary blocks without pause (with the exact page census on, every
// placed block also takes the report's lock) while the main thread forks
// 100 times; each child allocates and frees placed memory (small blocks
// through the thread cache, large ones through a new chunk) and exits, and
// the parent keeps going. A lock held by another thread at fork would hang
// the child: each child has 20 s (alarm) and must exit with 0. Also without
// the report, and under TSan (the instrumented core runtime; every free
// through hmplace_free there), which must report no race (its lock-order
// detector is off: it livelocks on memkind's many mutexes).
// RUN: %clang %hmplace_cflags -O1 %s %hmplace_lib -o %t
// RUN: %hbw env HMPLACE_REPORT=json:%t.json HMPLACE_REPORT_PAGES=live %t | FileCheck %s
// RUN: %hbw %t | FileCheck %s
// RUN: %if sanitizers %{ %clang %hmplace_cflags -O1 -DCORE %s %hmplace_tsan_lib -o %t.tsan %}
// RUN: %if sanitizers %{ %hbw env TSAN_OPTIONS=halt_on_error=1:die_after_fork=0:detect_deadlocks=0 %t.tsan 2>&1 | FileCheck %s --implicit-check-not=ThreadSanitizer %}
// CHECK: children ok 100 of 100
#include <hmplace.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>

#ifdef CORE /* no interposition: the runtime's entry points take any block */
#define free hmplace_free
#define realloc hmplace_realloc
#endif

static atomic_int Stop;

static void *churn(void *arg) {
  unsigned seed = (unsigned)(size_t)arg;
  void *keep[64] = {0};
  while (!atomic_load(&Stop)) {
    int i = rand_r(&seed) % 64;
    size_t n = 16 + rand_r(&seed) % 100000;
    if (keep[i] && rand_r(&seed) % 4 == 0) {
      keep[i] = realloc(keep[i], n);
      continue;
    }
    free(keep[i]);
    keep[i] = rand_r(&seed) % 2 ? hmplace_malloc(HMPLACE_HBW, n) : malloc(n);
  }
  for (int i = 0; i < 64; ++i)
    free(keep[i]);
  return NULL;
}

static int child(void) {
  alarm(20);
  for (int i = 0; i < 1000; ++i) {
    void *p = hmplace_malloc(HMPLACE_HBW, 64 + i);
    void *q = malloc(100);
    hmplace_free(p);
    free(q);
  }
  void *big = hmplace_malloc(HMPLACE_HBW, 256 << 20);
  if (!hmplace_owner(big))
    return 3;
  free(big);
  return 0;
}

int main(void) {
  pthread_t t[4];
  for (int i = 0; i < 4; ++i)
    pthread_create(&t[i], NULL, churn, (void *)(size_t)(i + 1));
  int ok = 0;
  for (int f = 0; f < 100; ++f) {
    usleep(1000);
    fflush(stdout);
    pid_t pid = fork();
    if (pid == 0)
      _exit(child());
    int st;
    waitpid(pid, &st, 0);
    if (WIFEXITED(st) && WEXITSTATUS(st) == 0)
      ++ok;
    else {
      fprintf(stderr, "child %d: %s %d\n", f,
              WIFSIGNALED(st) ? "signal" : "exit",
              WIFSIGNALED(st) ? WTERMSIG(st) : WEXITSTATUS(st));
      break;
    }
  }
  atomic_store(&Stop, 1);
  for (int i = 0; i < 4; ++i)
    pthread_join(t[i], NULL);
  printf("children ok %d of 100\n", ok);
  return 0;
}
