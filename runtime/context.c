/*===- context.c - shadow stack and context sites for call-stack entries --===*
 *
 * The run-time half of context-sensitive placement (tool/plan/Context.h has
 * the design). Noted call sites push frame ids on hmplace_ctx_tls (inline in
 * hmplace.h, or inline IR from HmPlace.so); a context site passes its
 * descriptor string to hmplace_ctx_kind(), which compares the entries'
 * caller frames with the top of the stack and returns the first (most
 * specific) entry's kind, else the site's fallback.
 *
 * Descriptors are parsed once: a lock-free open-addressing table maps the
 * descriptor's address (a string constant of the calling module) to its
 * parsed form, so the steady-state cost is a hash, one or two loads and the
 * comparisons. Parsing and insertion take a mutex; readers never do.
 *
 * Per-entry accounting for the report: entries with the same plan key (a
 * wrapper in a header is a site in every module that includes it) share one
 * counter record. The site and the entry chosen are left in the thread-local
 * hmplace_ctx_chosen (by hmplace_ctx_kind, or by HmPlace.so's inline code:
 * two stores, no branch) and the placed entry point that follows counts the
 * object and its bytes (hm_ctx_account), only when a report was asked for
 * (hm_reporting): atomic adds on shared counters cost more than the whole
 * choice (measured: 1.33x a direct placed malloc+free with them).
 *===----------------------------------------------------------------------===*/
#define _GNU_SOURCE
#include "context.h"
#include "entryfilter.h"
#include "heap.h"
#include "hmplace.h"
#include "hmplace_internal.h"
#include "split.h"
#include "track.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

__thread struct hmplace_ctx_stack hmplace_ctx_tls
    __attribute__((tls_model("initial-exec")));

struct ctx_stats {
  char *key;
  int kind;
  _Atomic uint64_t objects, bytes; /* placed */
  _Atomic uint64_t fallbacks;      /* chosen, but on the ordinary heap */
  struct ctx_stats *next;
};

struct ctx_entry {
  int kind;
  unsigned nframes;
  uint64_t *frames;
  struct ctx_stats *stats;
};

struct ctx_site {
  char *where;
  int fallback;
  unsigned n;
  struct ctx_entry *e;
  _Atomic uint64_t unmatched;
  struct ctx_site *next;
};

enum { TABLE_BITS = 13, TABLE_SIZE = 1 << TABLE_BITS };
static struct {
  _Atomic(const char *) key;
  struct ctx_site *site;
} Table[TABLE_SIZE];
static pthread_mutex_t TableLock = PTHREAD_MUTEX_INITIALIZER;

void hm_ctx_fork_lock(int take) { hm_take_lock(&TableLock, take); }
static struct ctx_site *Sites;     /* every parsed site, for the report */
static struct ctx_stats *AllStats; /* one record per plan key */
static struct ctx_site BadSite = {"(malformed table)", -1, 0, NULL, 0, NULL};

static struct ctx_stats *stats_for(const char *key, size_t len, int kind) {
  for (struct ctx_stats *s = AllStats; s; s = s->next)
    if (s->kind == kind && strlen(s->key) == len && !memcmp(s->key, key, len))
      return s;
  struct ctx_stats *s = hm_own_calloc(1, sizeof(*s));
  if (!s)
    return NULL;
  s->key = hm_own_strndup(key, len);
  s->kind = kind;
  s->next = AllStats;
  AllStats = s;
  return s;
}

/* The table's grammar (hmplace.h, HMPLACE_BY_CALLERS; tool/plan/Context.cpp
 * writes it), spaces anywhere between tokens:
 *   table := STRING ',' { '(' KIND { ',' STRING } ')' ',' } KIND
 * the site, then one entry per call-stack choice (its kind and caller frames,
 * innermost first), then the kind when none matches. KIND is HMPLACE_HEAP or
 * HMPLACE_<memkind kind without MEMKIND_>; STRING is "file:line[:col]". */
struct cursor {
  const char *p;
};

static void skip_space(struct cursor *c) {
  while (*c->p == ' ' || *c->p == '\t' || *c->p == '\n' || *c->p == '\r')
    ++c->p;
}

static int accept(struct cursor *c, char ch) {
  skip_space(c);
  if (*c->p != ch)
    return 0;
  ++c->p;
  return 1;
}

/* A string literal's contents, unescaped, into buf. */
static int read_string(struct cursor *c, char *buf, size_t n) {
  if (!accept(c, '"'))
    return 0;
  size_t len = 0;
  for (; *c->p && *c->p != '"'; ++c->p) {
    if (*c->p == '\\' && c->p[1])
      ++c->p;
    if (len + 1 >= n)
      return 0;
    buf[len++] = *c->p;
  }
  if (*c->p != '"')
    return 0;
  ++c->p;
  buf[len] = 0;
  return 1;
}

static int read_kind(struct cursor *c);

/* A share's percentage (1..99) in a split, or -1. */
static int read_percent(struct cursor *c) {
  skip_space(c);
  char *end;
  long v = strtol(c->p, &end, 10);
  if (end == c->p || v < 1 || v > 99)
    return -1;
  c->p = end;
  return (int)v;
}

/* The rest of HMPLACE_SPLIT(K, P, K) or HMPLACE_SPLIT3(K, P, K, P, K)
 * (hmplace.h) after its name: the placement code, or -2. */
static int read_split(struct cursor *c, int three) {
  int k0, k1, k2 = 31, p0, p1;
  if (!accept(c, '(') || (k0 = read_kind(c)) < 0 || !accept(c, ',') ||
      (p0 = read_percent(c)) < 0 || !accept(c, ',') || (k1 = read_kind(c)) < 0)
    return -2;
  p1 = 100 - p0;
  if (three && (!accept(c, ',') || (p1 = read_percent(c)) < 0 ||
                !accept(c, ',') || (k2 = read_kind(c)) < 0))
    return -2;
  if (!accept(c, ')') || k0 >= HMPLACE_KIND_COUNT || k1 >= HMPLACE_KIND_COUNT)
    return -2;
  int code = HMPLACE_SPLIT_FLAG | k0 | k1 << 5 | k2 << 10 | p0 << 15 | p1 << 22;
  int kinds[3];
  unsigned pcts[3];
  return hm_split_decode(code, kinds, pcts) ? code : -2;
}

/* HMPLACE_<NAME>: its kind index (-1 for HMPLACE_HEAP), a split's
 * placement code, or -2. */
static int read_kind(struct cursor *c) {
  skip_space(c);
  if (strncmp(c->p, "HMPLACE_", 8))
    return -2;
  const char *b = c->p + 8, *e = b;
  while ((*e >= 'A' && *e <= 'Z') || (*e >= '0' && *e <= '9') || *e == '_')
    ++e;
  c->p = e;
  if (e - b == 4 && !strncmp(b, "HEAP", 4))
    return -1;
  if (e - b == 5 && !strncmp(b, "SPLIT", 5))
    return read_split(c, 0);
  if (e - b == 6 && !strncmp(b, "SPLIT3", 6))
    return read_split(c, 1);
  int k = hm_kind_by_name(b, (size_t)(e - b));
  return k < 0 ? -2 : k;
}

/* "file:line" or "file:line:col" as the frame id the shadow stack holds
 * (column 0: any). */
static int frame_id(const char *text, uint64_t *id) {
  const char *last = strrchr(text, ':');
  if (!last || last == text)
    return 0;
  char *end;
  unsigned long a = strtoul(last + 1, &end, 10), line = a, col = 0;
  if (*end || end == last + 1)
    return 0;
  const char *name_end = last;
  for (const char *q = last - 1; q > text; --q) {
    if (*q == ':') {
      unsigned long l = strtoul(q + 1, &end, 10);
      if (end == last && end != q + 1) {
        line = l, col = a, name_end = q;
      }
      break;
    }
    if (*q < '0' || *q > '9')
      break;
  }
  char name[4096];
  size_t len = (size_t)(name_end - text);
  if (len >= sizeof(name))
    return 0;
  memcpy(name, text, len);
  name[len] = 0;
  *id = HMPLACE_FRAME_ID(hmplace_name_hash(name), line, col);
  return 1;
}

static struct ctx_site *parse_site(const char *d) {
  struct cursor c = {d};
  char where[4096], frame[4096];
  if (!read_string(&c, where, sizeof(where)) || !accept(&c, ','))
    return NULL;
  /* Entries are at most the number of '(' in the text. */
  unsigned n = 0;
  for (const char *q = c.p; *q; ++q)
    n += *q == '(';
  struct ctx_site *s = hm_own_calloc(1, sizeof(*s));
  if (!s)
    return NULL;
  s->where = hm_own_strndup(where, strlen(where));
  s->e = hm_own_calloc(n ? n : 1, sizeof(*s->e));
  if (!s->where || !s->e)
    goto bad;
  while (accept(&c, '(')) {
    struct ctx_entry *e = &s->e[s->n];
    if ((e->kind = read_kind(&c)) < -1)
      goto bad;
    /* Frames are at most the commas before the closing parenthesis. */
    unsigned f = 0;
    for (const char *q = c.p; *q && *q != ')'; ++q)
      f += *q == ',';
    e->frames = hm_own_calloc(f ? f : 1, sizeof(uint64_t));
    char key[8192];
    size_t kl = (size_t)snprintf(key, sizeof(key), "%s", where);
    if (!e->frames)
      goto bad;
    while (accept(&c, ',')) {
      if (!read_string(&c, frame, sizeof(frame)) || e->nframes >= f ||
          !frame_id(frame, &e->frames[e->nframes]))
        goto bad;
      ++e->nframes;
      if (kl < sizeof(key))
        kl += (size_t)snprintf(key + kl, sizeof(key) - kl, " > %s", frame);
    }
    if (!e->nframes || !accept(&c, ')') || !accept(&c, ','))
      goto bad;
    e->stats = stats_for(key, strlen(key), e->kind);
    ++s->n;
  }
  if ((s->fallback = read_kind(&c)) < -1)
    goto bad;
  skip_space(&c);
  if (*c.p)
    goto bad;
  return s;
bad:
  /* Only a table written by hand (or by another HmPlace version) gets here;
   * its entries place nothing. The partial allocations are kept: this
   * happens once per site. */
  hm_warn("ignoring a malformed HMPLACE_BY_CALLERS table (%s): its "
          "allocations go to the ordinary heap",
          d);
  return NULL;
}

uint32_t hmplace_name_hash(const char *file) {
  const char *b = strrchr(file, '/');
  b = b ? b + 1 : file;
  /* hmplace.h's HMPLACE_NAME_HASH_: sum of c_i * P^(i+1), plus the length. */
  uint32_t h = 0, pw = 1;
  size_t i = 0;
  for (; b[i]; ++i) {
    unsigned char ch = (unsigned char)b[i];
    if (ch - 'A' < 26u)
      ch += 32;
    pw *= 16777619u;
    h += ch * pw;
  }
  return h + (uint32_t)i;
}

uint32_t hmplace_ctx_enter(uint64_t frame) {
  uint32_t d = hmplace_ctx_tls.hmplace_depth;
  hmplace_ctx_tls.hmplace_ids[d < HMPLACE_CTX_CAP ? d : HMPLACE_CTX_CAP] =
      frame;
  hmplace_ctx_tls.hmplace_depth = d + 1;
  return d;
}

uint32_t hmplace_ctx_leave(uint32_t depth) {
  hmplace_ctx_tls.hmplace_depth = depth;
  return depth;
}

/* The portable C form's HMPLACE_CALLER: the wrapped call has run (it is this
 * function's argument), so the frame it noted is popped. */
static void pass_done(void) {
  uint32_t d = hmplace_ctx_tls.hmplace_depth;
  hmplace_ctx_tls.hmplace_depth = d ? d - 1 : 0;
}
void *hmplace_ctx_pass_ptr(void *v) {
  pass_done();
  return v;
}
long long hmplace_ctx_pass_ll(long long v) {
  pass_done();
  return v;
}
unsigned long long hmplace_ctx_pass_ull(unsigned long long v) {
  pass_done();
  return v;
}
double hmplace_ctx_pass_double(double v) {
  pass_done();
  return v;
}
long double hmplace_ctx_pass_ldouble(long double v) {
  pass_done();
  return v;
}

static inline size_t slot_of(const char *d) {
  return (size_t)(((uintptr_t)d >> 3) * 0x9E3779B97F4A7C15ull >>
                  (64 - TABLE_BITS));
}

/* The parsed site of descriptor d, parsing it on first use. */
static struct ctx_site *site_of(const char *d) {
  size_t i = slot_of(d);
  for (size_t n = 0; n < TABLE_SIZE; ++n, i = (i + 1) & (TABLE_SIZE - 1)) {
    const char *k = atomic_load_explicit(&Table[i].key, memory_order_acquire);
    if (k == d)
      return Table[i].site;
    if (!k)
      break;
  }
  pthread_mutex_lock(&TableLock);
  struct ctx_site *found = &BadSite;
  i = slot_of(d);
  for (size_t n = 0; n < TABLE_SIZE; ++n, i = (i + 1) & (TABLE_SIZE - 1)) {
    const char *k = atomic_load_explicit(&Table[i].key, memory_order_relaxed);
    if (k == d) {
      found = Table[i].site;
      break;
    }
    if (!k) {
      struct ctx_site *s = parse_site(d);
      if (s) {
        s->next = Sites;
        Sites = s;
        found = s;
      }
      Table[i].site = found;
      atomic_store_explicit(&Table[i].key, d, memory_order_release);
      break;
    }
  }
  pthread_mutex_unlock(&TableLock);
  /* A full table (more than 8192 distinct sites) places nothing more. */
  return found;
}

/* A plan frame matches a pushed id if file and line agree and the plan's
 * column is 0 (any) or equal. Layout: tool/plan/Context.cpp. */
static inline int frame_matches(uint64_t have, uint64_t want) {
  return HMPLACE_FRAME_MATCHES(have, want);
}

__thread struct hmplace_ctx_chosen hmplace_ctx_chosen
    __attribute__((tls_model("initial-exec")));

/* Count one object of \p bytes for entry \p i of \p s (-1: no entry
 * matched). */
/* The entry this thread's last counted allocation was counted for, until
 * the placed path knows whether it placed it (hm_ctx_fell_back). */
static __thread struct ctx_stats *Counted
    __attribute__((tls_model("initial-exec")));
static __thread size_t CountedBytes __attribute__((tls_model("initial-exec")));

static void count_choice(struct ctx_site *s, int i, size_t bytes) {
  Counted = NULL;
  if (i < 0 || (unsigned)i >= s->n) {
    atomic_fetch_add_explicit(&s->unmatched, 1, memory_order_relaxed);
    return;
  }
  struct ctx_stats *st = s->e[i].stats;
  if (st) {
    atomic_fetch_add_explicit(&st->objects, 1, memory_order_relaxed);
    atomic_fetch_add_explicit(&st->bytes, bytes, memory_order_relaxed);
    Counted = st;
    CountedBytes = bytes;
  }
}

void hm_ctx_fell_back(void) {
  struct ctx_stats *st = Counted;
  if (!st)
    return;
  Counted = NULL;
  atomic_fetch_sub_explicit(&st->objects, 1, memory_order_relaxed);
  atomic_fetch_sub_explicit(&st->bytes, CountedBytes, memory_order_relaxed);
  atomic_fetch_add_explicit(&st->fallbacks, 1, memory_order_relaxed);
}

/* The first entry of \p s whose caller frames are on top of the stack, or
 * -1. */
static int choose(const struct ctx_site *s) {
  uint32_t depth = hmplace_ctx_tls.hmplace_depth;
  /* Deeper than the stack keeps: the top frames are unknown, so no entry
   * can be checked and none is chosen. */
  if (depth > HMPLACE_CTX_CAP)
    return -1;
  for (unsigned i = 0; i < s->n; ++i) {
    const struct ctx_entry *e = &s->e[i];
    if (e->nframes > depth)
      continue;
    unsigned f = 0;
    while (
        f < e->nframes &&
        frame_matches(hmplace_ctx_tls.hmplace_ids[depth - 1 - f], e->frames[f]))
      ++f;
    if (f == e->nframes)
      return (int)i;
  }
  return -1;
}

enum hmplace_kind hmplace_ctx_kind(const char *d) {
  struct ctx_site *s = site_of(d);
  int i = choose(s);
  if (__builtin_expect(hm_reporting | hm_log_on | hm_filter_on, 0)) {
    hmplace_ctx_chosen.hmplace_site = d;
    hmplace_ctx_chosen.hmplace_choice = i + 2;
  }
  return (enum hmplace_kind)(i < 0 ? s->fallback : s->e[i].kind);
}

void hm_ctx_account_chosen(const char *chosen, size_t bytes) {
  /* hmplace_ctx_kind's choice (the site as given, 2 + the entry), or an
   * inline site's (its descriptor, 16-byte aligned, with 1 + the entry in
   * the low bits; the choice field left 0): hmplace.h. */
  const char *d = chosen;
  int i = hmplace_ctx_chosen.hmplace_choice - 2;
  if (!hmplace_ctx_chosen.hmplace_choice) {
    d = (const char *)((uintptr_t)chosen & ~(uintptr_t)15);
    i = (int)((uintptr_t)chosen & 15) - 1;
  }
  hm_ctx_forget_choice();
  if (hm_reporting)
    count_choice(site_of(d), i, bytes);
  if (hm_log_on) {
    struct ctx_site *s = site_of(d);
    hm_log_entry = i >= 0 && (unsigned)i < s->n && s->e[i].stats
                       ? s->e[i].stats->key
                       : s->where;
  }
}

/* The site and entry index of the current choice (hm_ctx_account_chosen's
 * decoding), without taking it; 0 if there is none. */
static int current_choice(const char **d, int *i) {
  const char *chosen = hmplace_ctx_chosen.hmplace_site;
  if (!chosen)
    return 0;
  *d = chosen;
  *i = hmplace_ctx_chosen.hmplace_choice - 2;
  if (!hmplace_ctx_chosen.hmplace_choice) {
    *d = (const char *)((uintptr_t)chosen & ~(uintptr_t)15);
    *i = (int)((uintptr_t)chosen & 15) - 1;
  }
  return 1;
}

const char *hm_ctx_chosen_key(void) {
  const char *d;
  int i;
  if (!current_choice(&d, &i))
    return NULL;
  struct ctx_site *s = site_of(d);
  return i >= 0 && (unsigned)i < s->n && s->e[i].stats ? s->e[i].stats->key
                                                       : s->where;
}

void hmplace_ctx_register(const char *const *sites, size_t n) {
  for (size_t i = 0; i < n; ++i)
    site_of(sites[i]);
}

void hm_ctx_rows(void (*row)(const struct hm_ctx_row *, void *), void *arg) {
  pthread_mutex_lock(&TableLock);
  /* Oldest first: the list is built by prepending. */
  size_t n = 0;
  for (struct ctx_stats *s = AllStats; s; s = s->next)
    ++n;
  struct ctx_stats **order = n ? hm_own_malloc(n * sizeof(*order)) : NULL;
  size_t i = n;
  for (struct ctx_stats *s = AllStats; s && order; s = s->next)
    order[--i] = s;
  for (i = 0; order && i < n; ++i) {
    struct hm_ctx_row r = {.key = order[i]->key,
                           .kind = order[i]->kind,
                           .objects = atomic_load(&order[i]->objects),
                           .bytes = atomic_load(&order[i]->bytes),
                           .fallbacks = atomic_load(&order[i]->fallbacks)};
    row(&r, arg);
  }
  hm_own_free(order);
  for (struct ctx_site *s = Sites; s; s = s->next) {
    struct hm_ctx_row r = {.key = s->where,
                           .kind = s->fallback,
                           .objects = atomic_load(&s->unmatched),
                           .unmatched = 1};
    row(&r, arg);
  }
  pthread_mutex_unlock(&TableLock);
}
