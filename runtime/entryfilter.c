/*===- entryfilter.c - HMPLACE_ENTRIES: place only the entries it names ---===*
 *
 * `hmplan try` checks a plan on the machine it is for: one placed build, run
 * with the first N entries of the plan placed (in the plan's order, which is
 * the order of gain in an advised plan) and the rest on the ordinary heap,
 * for N from 0 to all. HMPLACE_ENTRIES=FILE names the entries to place,
 * one key a line as the report and `hmplan try` write them ("main.c:12:15",
 * "mem.h:9:13 > main.c:19:15", "files: *.f90"); a line "#..." is a comment.
 *
 * The entry of an allocation is the one the build left for it: a site
 * entry's key (HmPlace.so stores it in hmplace_log_site before the placed
 * call), a call-stack entry's choice (hmplace_ctx_chosen), a Fortran
 * ALLOCATE's scope entry. A placed allocation of an entry the file does not
 * name goes to the ordinary heap: held back, not a fallback, and counted
 * apart. One whose entry the build does not say (a source rewritten by
 * hmrewrite, hbw_malloc) is placed as built, and counted: the report says
 * how many, so that a curve over N is not read as more than it is.
 *===----------------------------------------------------------------------===*/
#define _GNU_SOURCE
#include "entryfilter.h"
#include "context.h"
#include "heap.h"
#include "hmplace_internal.h"
#include "track.h"

#include <errno.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static char *Path;
static char **Keys; /* open addressing, power-of-two size */
static size_t KeyMask, KeyCount;
static _Atomic uint64_t Held, Unnamed;
__thread int hm_held_now __attribute__((tls_model("initial-exec")));

static uint64_t hash(const char *s, size_t n) {
  uint64_t h = 1469598103934665603ull;
  for (size_t i = 0; i < n; ++i)
    h = (h ^ (unsigned char)s[i]) * 1099511628211ull;
  return h;
}

static int named(const char *key) {
  size_t n = strlen(key);
  for (size_t i = hash(key, n) & KeyMask;; i = (i + 1) & KeyMask) {
    if (!Keys[i])
      return 0;
    if (!strcmp(Keys[i], key))
      return 1;
  }
}

static void add_key(const char *s, size_t n) {
  for (size_t i = hash(s, n) & KeyMask;; i = (i + 1) & KeyMask) {
    if (!Keys[i]) {
      Keys[i] = hm_own_strndup(s, n);
      KeyCount += Keys[i] != NULL;
      return;
    }
    if (strlen(Keys[i]) == n && !memcmp(Keys[i], s, n))
      return;
  }
}

/* The lines of \p text as keys (trailing spaces and '\r' dropped). */
static void add_lines(const char *text) {
  for (const char *p = text; *p;) {
    const char *e = strchr(p, '\n');
    size_t n = e ? (size_t)(e - p) : strlen(p);
    size_t m = n;
    while (m && (p[m - 1] == ' ' || p[m - 1] == '\t' || p[m - 1] == '\r'))
      --m;
    if (m && p[0] != '#')
      add_key(p, m);
    p += n + (e != NULL);
  }
}

/* The file's text, or NULL with errno. At most 64 MiB: a plan's keys. */
static char *read_all(const char *path) {
  FILE *f = fopen(path, "r");
  if (!f)
    return NULL;
  size_t cap = 4096, len = 0;
  char *buf = hm_own_malloc(cap);
  for (size_t got; buf && (got = fread(buf + len, 1, cap - len - 1, f));) {
    len += got;
    if (len + 1 == cap && cap < (64u << 20)) {
      char *more = hm_own_realloc(buf, cap * 2);
      if (!more) {
        hm_own_free(buf);
        buf = NULL;
        break;
      }
      buf = more;
      cap *= 2;
    }
  }
  int bad = ferror(f) || (buf && len + 1 == cap);
  fclose(f);
  if (bad) {
    hm_own_free(buf);
    errno = EFBIG;
    return NULL;
  }
  if (buf)
    buf[len] = 0;
  return buf;
}

void hm_filter_init(void) {
  const char *v = secure_getenv("HMPLACE_ENTRIES");
  if (!v || !*v)
    return;
  char *text = read_all(v);
  if (!text) {
    hm_warn("HMPLACE_ENTRIES='%s': cannot read it (%s): every entry places "
            "as built",
            v, strerror(errno));
    return;
  }
  size_t lines = 1;
  for (const char *p = text; *p; ++p)
    lines += *p == '\n';
  size_t size = 16;
  while (size < 2 * lines)
    size *= 2;
  Keys = hm_own_calloc(size, sizeof *Keys);
  Path = hm_own_strndup(v, strlen(v));
  if (!Keys || !Path) {
    hm_own_free(text);
    return;
  }
  KeyMask = size - 1;
  add_lines(text);
  hm_own_free(text);
  hm_ctx_forget_choice();
  hm_filter_on = 1;
}

/* The key of the entry the build left for the allocation under way, or
 * NULL. Read without the log on, the names are taken (a site entry's name
 * stays set otherwise, and a later call without one would read it). */
static const char *current_key(void) {
  const char *k = hm_ctx_chosen_key();
  if (!k)
    k = hm_log_entry ? hm_log_entry : hmplace_log_site;
  if (!hm_log_on) {
    hm_log_entry = NULL;
    hmplace_log_site = NULL;
  }
  return k;
}

int hm_filter_names(const char *key) { return hm_filter_on && named(key); }

int hm_filter_hold(void) {
  const char *k = current_key();
  if (!k) {
    atomic_fetch_add_explicit(&Unnamed, 1, memory_order_relaxed);
    return 0;
  }
  if (named(k))
    return 0;
  atomic_fetch_add_explicit(&Held, 1, memory_order_relaxed);
  if (hm_log_on) { /* the log line names the entry held back */
    hm_log_entry = k;
    hm_held_now = 1;
  }
  return 1;
}

int hm_filter_counts(const char **path, size_t *named, uint64_t *held,
                     uint64_t *unnamed) {
  if (!hm_filter_on)
    return 0;
  *path = Path;
  *named = KeyCount;
  *held = atomic_load(&Held);
  *unnamed = atomic_load(&Unnamed);
  return 1;
}
