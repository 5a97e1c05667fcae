/*===- log.c - HMPLACE_LOG: a line per planned allocation -----------------===*
 *
 * AutoHBW users read AUTO_HBW_LOG to see each allocation it moved; the
 * report gives totals. HMPLACE_LOG=1 (stderr) or HMPLACE_LOG=PATH (%p the
 * pid, %r the MPI rank, as HMPLACE_REPORT's) writes one line per planned
 * allocation: where it was asked for (the call-stack entry chosen, else the
 * calling code as module+offset for addr2line, with its function), the
 * bytes, and where it went (the kind and the nodes its memory policy
 * allows, or the ordinary heap and why). At most HMPLACE_LOG_RATE lines per
 * second (default 1000); the lines left out are counted and said. The
 * allocations a plan entry itself keeps on the ordinary heap (out of its
 * size window, or callers its table leaves there: with a window over
 * compiler temporaries, nearly every line) are counted and said at exit,
 * logged one by one only with HMPLACE_LOG_KEPT=1. Off, it costs the placed
 * entry points one predicted branch.
 *===----------------------------------------------------------------------===*/
#define _GNU_SOURCE
#include "log.h"
#include "entryfilter.h"
#include "context.h"
#include "heap.h"
#include "kinds.h"
#include "track.h"

#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <numaif.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>
#include <unistd.h>

static int LogFd = 2;
static unsigned Rate = 1000;
static _Atomic long Second = -1;
static _Atomic unsigned InSecond;
static _Atomic unsigned long Dropped;
static int LogKept;
static _Atomic unsigned long KeptUnlogged;

/* A log that takes no more lines (a full disk, /dev/full): said once, on
 * stderr where the log is a file. */
static void cannot_write(int err) {
  static _Atomic int Said;
  if (LogFd != 2 && !atomic_exchange(&Said, 1))
    hm_warn("cannot write to HMPLACE_LOG: %s; its lines are lost",
            strerror(err));
}

/* One line to the log: "hmplace: log: " and the text, cut to the buffer
 * with its newline kept. */
__attribute__((format(printf, 1, 2))) static void put_line(const char *fmt,
                                                           ...) {
  char line[1024] = "hmplace: log: ";
  size_t head = strlen(line);
  va_list ap;
  va_start(ap, fmt);
  int len = vsnprintf(line + head, sizeof line - head, fmt, ap);
  va_end(ap);
  if (len < 0)
    return;
  size_t total = head + (size_t)len;
  if (total > sizeof line - 1)
    total = sizeof line - 1, line[total - 1] = '\n';
  if (write(LogFd, line, total) < 0)
    cannot_write(errno);
}

static void say_kept(void) {
  unsigned long n = atomic_exchange(&KeptUnlogged, 0);
  if (n)
    put_line("%lu allocations their entry kept on the ordinary heap (out of "
             "a size window, or callers its table leaves there) not logged "
             "(HMPLACE_LOG_KEPT=1 logs them)\n",
             n);
}

static void say_dropped(void) {
  unsigned long n = atomic_exchange(&Dropped, 0);
  if (n)
    put_line("%lu lines left out (HMPLACE_LOG_RATE=%u lines a second)\n", n,
             Rate);
}

/* HMPLACE_LOG_RATE: lines a second, 1 to UINT_MAX; anything else (a sign,
 * text, a value past the range) is said, and the default kept. */
static void read_rate(void) {
  const char *r = secure_getenv("HMPLACE_LOG_RATE");
  if (!r || !*r)
    return;
  char *end;
  errno = 0;
  unsigned long long n = strtoull(r, &end, 10);
  if (*r < '0' || *r > '9' || *end || !n)
    hm_warn("HMPLACE_LOG_RATE='%s' is not a number of lines a second; "
            "%u a second are logged",
            r, Rate);
  else if (errno == ERANGE || n > UINT_MAX)
    hm_warn("HMPLACE_LOG_RATE='%s' is over %u lines a second; %u a second "
            "are logged",
            r, UINT_MAX, Rate);
  else
    Rate = (unsigned)n;
}

/* HMPLACE_LOG_KEPT: 1/0, yes/no, true/false, on/off (any case). */
static void read_kept(void) {
  const char *k = secure_getenv("HMPLACE_LOG_KEPT");
  if (!k || !*k)
    return;
  int on = hm_yes_no(k);
  if (on >= 0) {
    LogKept = on;
    return;
  }
  hm_warn("HMPLACE_LOG_KEPT='%s' is neither 1 nor 0 (yes/no, true/false, "
          "on/off); allocations kept out are not logged one by one",
          k);
}

void hm_log_init(void) {
  const char *v = secure_getenv("HMPLACE_LOG");
  if (!v || !*v || !strcmp(v, "0"))
    return;
  if (strcmp(v, "1")) {
    char *path = hm_expand_path(v);
    int fd = path ? open(path,
                         O_WRONLY | O_CREAT | O_APPEND | O_NOFOLLOW | O_CLOEXEC,
                         0644)
                  : -1;
    if (fd < 0)
      hm_warn("cannot open HMPLACE_LOG='%s': %s; logging to stderr", v,
              path ? strerror(errno) : "out of memory");
    else
      LogFd = fd;
    hm_own_free(path);
  }
  read_rate();
  read_kept();
  hm_ctx_forget_choice();
  hm_log_on = 1;
  atexit(say_kept);
  atexit(say_dropped);
}

/* Whether this line may go out now (the rate), and say what was left out
 * since the last second's lines. */
static int may_log(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC_COARSE, &t);
  long s = (long)t.tv_sec, was = atomic_load(&Second);
  if (s != was && atomic_compare_exchange_strong(&Second, &was, s)) {
    atomic_store(&InSecond, 0);
    say_dropped();
  }
  if (atomic_fetch_add(&InSecond, 1) < Rate)
    return 1;
  atomic_fetch_add(&Dropped, 1);
  return 0;
}

/* This call's entry, taken with its line or left out with it: never the
 * next call's. */
static void forget_entry(void) {
  hm_log_entry = NULL;
  hmplace_log_site = NULL;
  hmplace_log_call = NULL;
}

/* Where it was asked for: the entry chosen (a `files:` entry's with the
 * call it placed: "app.f90:12:3 (u) by files: *.f90"), else the caller's
 * module and offset (what addr2line -e MODULE takes) and function. */
static int where(char *buf, size_t n, const void *caller) {
  const char *entry = hm_log_entry ? hm_log_entry : hmplace_log_site;
  const char *call = hmplace_log_call;
  forget_entry();
  if (entry && call)
    return snprintf(buf, n, "%s by %s", call, entry);
  if (entry)
    return snprintf(buf, n, "%s", entry);
  Dl_info in;
  if (!caller || !dladdr(caller, &in) || !in.dli_fname)
    return snprintf(buf, n, "%p", caller);
  const char *mod = strrchr(in.dli_fname, '/');
  mod = mod ? mod + 1 : in.dli_fname;
  if (!*mod)
    mod = "program";
  int len = snprintf(
      buf, n, "%s+0x%lx", mod,
      (unsigned long)((const char *)caller - (const char *)in.dli_fbase));
  if (in.dli_sname && len < (int)n)
    len += snprintf(buf + len, n - (size_t)len, " in %s", in.dli_sname);
  return len;
}

/* The memory policy of the block's pages: " bind 1", " preferred 0,2". */
static void policy_of(char *buf, size_t n, const void *p) {
  int mode = 0;
  unsigned long mask[16] = {0};
  buf[0] = 0;
  if (get_mempolicy(&mode, mask, 16 * 8 * sizeof(long), (void *)p,
                    MPOL_F_ADDR) != 0)
    return;
  const char *m = mode == MPOL_BIND         ? "bind"
                  : mode == MPOL_PREFERRED  ? "preferred"
                  : mode == MPOL_INTERLEAVE ? "interleave"
                                            : "default policy";
  size_t len = (size_t)snprintf(buf, n, " %s", m);
  const char *sep = " ";
  for (int node = 0; node < 16 * 64 && len < n; ++node)
    if (mask[node / 64] >> (node % 64) & 1) {
      len += (size_t)snprintf(buf + len, n - len, "%s%d", sep, node);
      sep = ",";
    }
}

void hm_log_alloc(const void *caller, enum hmplace_kind want, size_t n,
                  const void *p) {
  int held = hm_held_now;
  hm_held_now = 0;
  if (p && (int)want < 0 && !LogKept) {
    forget_entry();
    atomic_fetch_add(&KeptUnlogged, 1);
    return;
  }
  if (!may_log()) {
    forget_entry();
    return;
  }
  char at[512], to[256], pol[128];
  where(at, sizeof at, caller);
  int owner = p ? hmplace_owner(p) : 0;
  if (!p)
    snprintf(to, sizeof to, "failed (out of memory)");
  else if ((int)want < 0)
    snprintf(to, sizeof to,
             "ordinary heap (kept by its entry: out of its size window, or "
             "callers its table leaves there)");
  else if (owner == 0 && held)
    snprintf(to, sizeof to,
             "ordinary heap (held back from %s: HMPLACE_ENTRIES does not "
             "name its entry)",
             hmplace_kind_name(want));
  else if (owner == 0)
    snprintf(to, sizeof to, "ordinary heap (fallback from %s: %s)",
             hmplace_kind_name(want),
             atomic_load(&hm_off) ? "HMPLACE=off"
                                  : "the kind is unavailable, full or over "
                                    "its budget");
  else {
    pol[0] = 0;
    if ((int)want < HMPLACE_KIND_COUNT) /* a split's runs differ */
      policy_of(pol, sizeof pol, p);
    snprintf(to, sizeof to, "%s%s", hmplace_kind_name(want), pol);
  }
  put_line("%s %zu B -> %s\n", at, n, to);
}
