/*===- kinds.c - kinds: names, counters, budgets and warnings ------------===*
 *
 * What the plan asked of each kind, whichever slots served it: allocations,
 * bytes, live and peak bytes, fallbacks, the budget (from HMPLACE_BUDGET,
 * read here, or hmplace_set_budget), and the one-time warnings. The inline
 * accounting of the hot paths is in kinds.h; a placement's name, which may
 * be a split's, is split.c's hmplace_kind_name.
 *===----------------------------------------------------------------------===*/
#define _GNU_SOURCE
#include "kinds.h"
#include "heap.h"

#include <ctype.h>
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

const char *const hm_kind_names[HMPLACE_KIND_COUNT] = {
#define HM_KIND_NAME(name, what) "MEMKIND_" #name,
    HMPLACE_KINDS_(HM_KIND_NAME)
#undef HM_KIND_NAME
};

/* hmplace.h's table as this runtime was built with it ("REGULAR,DEFAULT,"). */
static const char KindsTable[] = HMPLACE_KINDS_ABI;

/* The name of the kind that offset \p at of \p table falls in, as
 * "MEMKIND_<name>" ("no kind" past the table's end), into \p out; returns
 * its index. */
static int kind_at(const char *table, size_t at, char *out, size_t size) {
  int index = 0;
  for (size_t i = 0; i < at; ++i)
    index += table[i] == ',';
  size_t start = at;
  while (start && table[start - 1] != ',')
    --start;
  int len = (int)strcspn(table + start, ",");
  if (len)
    snprintf(out, size, "MEMKIND_%.*s", len, table + start);
  else
    snprintf(out, size, "no kind");
  return index;
}

void hmplace_kinds_check(const char *table, const char *where) {
  size_t n = strlen(table);
  /* This runtime's table, or its beginning (kinds appended since). */
  if (n < sizeof KindsTable && !memcmp(table, KindsTable, n))
    return;
  size_t at = 0;
  while (table[at] && table[at] == KindsTable[at])
    ++at;
  char built[64], mine[64];
  int k = kind_at(table, at, built, sizeof built);
  kind_at(KindsTable, at, mine, sizeof mine);
  if (hm_env_off()) {
    static _Atomic int warned; /* one line, not one per file */
    if (!atomic_exchange(&warned, 1))
      hm_warn("%s was built with a kinds table this runtime does not have "
              "(its kind %d is %s, this runtime's %s); placement is off, so "
              "it runs unplaced",
              where, k, built, mine);
    return;
  }
  hm_error("%s was built with a kinds table this runtime does not have: its "
           "kind %d is %s, this runtime's is %s, and its placed calls would "
           "land in the wrong kind; rebuild it with this HmPlace, or run it "
           "with the libhmplace it was built with (HMPLACE=off runs it "
           "unplaced)",
           where, k, built, mine);
  _exit(1);
}

struct kstate hm_kinds[HMPLACE_KIND_COUNT];
_Atomic int hm_off;

/* The whole line in one write(): under MPI the ranks share one stderr, and
 * a line written in pieces interleaves with another rank's. */
static void say(const char *level, const char *fmt, va_list ap) {
  char buf[1024];
  int n = snprintf(buf, sizeof buf, "hmplace: %s: ", level);
  int m = vsnprintf(buf + n, sizeof buf - n, fmt, ap);
  size_t len = m < 0 ? (size_t)n : (size_t)n + (size_t)m;
  if (len > sizeof buf - 2)
    len = sizeof buf - 2; /* cut, but still one whole line */
  buf[len++] = '\n';
  hm_write_all(2, buf, len);
}

void hm_write_all(int fd, const char *p, size_t n) {
  while (n > 0) {
    ssize_t w = write(fd, p, n);
    if (w < 0 && errno == EINTR)
      continue;
    if (w <= 0)
      return;
    p += w;
    n -= (size_t)w;
  }
}

void hm_warn(const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  say("warning", fmt, ap);
  va_end(ap);
}

void hm_error(const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  say("error", fmt, ap);
  va_end(ap);
}

void hm_kind_unavailable(int k, const char *why) {
  if (!atomic_exchange(&hm_kinds[k].warned_unavailable, 1))
    hm_warn("%s is unavailable (%s); its planned allocations use the ordinary "
            "heap",
            hm_kind_names[k], why);
}

/* The slot could not give a block: no chunk has room and no new one could
 * be mapped. */
void hm_kind_full(int k, const char *why) {
  if (!atomic_exchange(&hm_kinds[k].warned_full, 1))
    hm_warn(
        "%s could not satisfy an allocation (%s); it and later ones that do "
        "not fit use the ordinary heap",
        hm_kind_names[k], why);
}

void hm_warn_budget(int k) {
  struct kstate *s = &hm_kinds[k];
  if (!atomic_exchange(&s->warned_budget, 1))
    hm_warn("%s budget exhausted; further planned allocations that do not "
            "fit use the ordinary heap",
            hm_kind_names[k]);
}

static _Atomic int warned_off;
static const char *OffUnder; /* the sanitizer placement is off under */

void hm_off_under(const char *sanitizer) {
  OffUnder = sanitizer;
  atomic_store(&hm_off, 1);
}

void hm_warn_off(void) {
  if (OffUnder && !atomic_exchange(&warned_off, 1))
    hm_warn("placement is off: the program runs under %s, whose free "
            "cannot release memkind's blocks; planned allocations use "
            "the ordinary heap",
            OffUnder);
}

/*--- per-thread counts (placed.h) ------------------------------------------*/

__thread struct tcount *hm_tcount __attribute__((tls_model("initial-exec")));
static struct tcount *CountList; /* under CountLock */
static pthread_mutex_t CountLock = PTHREAD_MUTEX_INITIALIZER;
static pthread_key_t CountKey;
static pthread_once_t CountKeyOnce = PTHREAD_ONCE_INIT;

void hm_counts_fork_lock(int take) { hm_take_lock(&CountLock, take); }

static void release_counts(void *c) {
  struct tcount *t = c;
  pthread_mutex_lock(&CountLock);
  for (int k = 0; k < HMPLACE_KIND_COUNT; ++k) {
    atomic_fetch_add(&hm_kinds[k].allocs, atomic_load(&t->allocs[k]));
    atomic_fetch_add(&hm_kinds[k].bytes, atomic_load(&t->bytes[k]));
    add_live(&hm_kinds[k], atomic_load(&t->live[k]));
    atomic_store(&t->allocs[k], 0);
    atomic_store(&t->bytes[k], 0);
    atomic_store(&t->live[k], 0);
  }
  t->in_use = 0;
  pthread_mutex_unlock(&CountLock);
  hm_tcount = NULL;
}

static void make_count_key(void) {
  pthread_key_create(&CountKey, release_counts);
}

void hm_counts_init(void) { pthread_once(&CountKeyOnce, make_count_key); }

struct tcount *hm_new_counts(void) {
  pthread_once(&CountKeyOnce, make_count_key);
  pthread_mutex_lock(&CountLock);
  struct tcount *t = CountList;
  while (t && t->in_use)
    t = t->next;
  if (!t && (t = hm_own_calloc(1, sizeof *t))) {
    t->next = CountList;
    CountList = t;
  }
  if (t)
    t->in_use = 1;
  pthread_mutex_unlock(&CountLock);
  if (t)
    pthread_setspecific(CountKey, t);
  return hm_tcount = t;
}

/*--- budgets and stats -----------------------------------------------------*/

void hmplace_set_budget(enum hmplace_kind k, uint64_t bytes) {
  if (valid_kind(k) && !hm_budget_from_env(k))
    atomic_store(&hm_kinds[k].budget, bytes);
}

void hmplace_get_stats(enum hmplace_kind k, struct hmplace_stats *o) {
  memset(o, 0, sizeof(*o));
  if (!valid_kind(k))
    return;
  struct kstate *s = &hm_kinds[k];
  o->allocs = atomic_load(&s->allocs);
  o->bytes = atomic_load(&s->bytes);
  int64_t live = (int64_t)atomic_load(&s->live);
  pthread_mutex_lock(&CountLock);
  for (struct tcount *t = CountList; t; t = t->next) {
    o->allocs += atomic_load_explicit(&t->allocs[k], memory_order_relaxed);
    o->bytes += atomic_load_explicit(&t->bytes[k], memory_order_relaxed);
    live += atomic_load_explicit(&t->live[k], memory_order_relaxed);
  }
  pthread_mutex_unlock(&CountLock);
  o->live = live > 0 ? (uint64_t)live : 0;
  /* The shared peak misses what threads hold in their batches. */
  o->peak = atomic_load(&s->peak);
  if (o->peak < o->live)
    o->peak = o->live;
  o->fallbacks = atomic_load(&s->fallbacks);
  int st = atomic_load(&s->state);
  o->available = st == KIND_READY ? 1 : st == KIND_UNAVAILABLE ? -1 : 0;
}

int hm_kind_by_name(const char *name, size_t len) {
  for (int k = 0; k < HMPLACE_KIND_COUNT; ++k) {
    const char *n = hm_kind_names[k];
    if (strlen(n) == len && !strncmp(n, name, len))
      return k;
    /* Also without the MEMKIND_ prefix: HMPLACE_BUDGET=HBW=16GiB. */
    if (strlen(n + 8) == len && !strncmp(n + 8, name, len))
      return k;
  }
  return -1;
}

uint64_t hm_load_budget(int k) { return atomic_load(&hm_kinds[k].budget); }

void hm_store_budget(int k, uint64_t bytes) {
  atomic_store(&hm_kinds[k].budget, bytes);
}

/* The inverse of hm_parse_size, as the report and the log print bytes. */
const char *hm_human(uint64_t b, char *buf, size_t n) {
  static const char *U[] = {"B", "KiB", "MiB", "GiB", "TiB"};
  double v = (double)b;
  int u = 0;
  while (v >= 1024 && u < 4) {
    v /= 1024;
    ++u;
  }
  if (u == 0)
    snprintf(buf, n, "%llu B", (unsigned long long)b);
  else
    snprintf(buf, n, "%.1f %s", v, U[u]);
  return buf;
}

int hm_parse_size(const char *s, uint64_t *out) {
  while (isspace((unsigned char)*s))
    ++s;
  if (!isdigit((unsigned char)*s))
    return -1;
  char *end;
  errno = 0;
  double v = strtod(s, &end);
  if (errno || end == s)
    return -1;
  while (isspace((unsigned char)*end))
    ++end;
  static const struct {
    const char *u;
    double m;
  } Units[] = {{"", 1},
               {"b", 1},
               {"k", 1024.0},
               {"kib", 1024.0},
               {"m", 1048576.0},
               {"mib", 1048576.0},
               {"g", 1073741824.0},
               {"gib", 1073741824.0},
               {"t", 1099511627776.0},
               {"tib", 1099511627776.0},
               {"kb", 1e3},
               {"mb", 1e6},
               {"gb", 1e9},
               {"tb", 1e12}};
  char unit[8] = {0};
  size_t n = 0;
  while (end[n] && !isspace((unsigned char)end[n]) && n < sizeof(unit) - 1) {
    unit[n] = (char)tolower((unsigned char)end[n]);
    ++n;
  }
  if (end[n] && !isspace((unsigned char)end[n]))
    return -1;
  for (size_t i = 0; i < sizeof(Units) / sizeof(Units[0]); ++i)
    if (!strcmp(unit, Units[i].u)) {
      double b = v * Units[i].m;
      if (!(b < 18446744073709551616.0))
        return -1;
      *out = (uint64_t)b;
      return 0;
    }
  return -1;
}

/* Whether \p v is one of \p words, in any case. */
static int one_of(const char *v, const char *const *words) {
  for (; *words; ++words)
    if (!strcasecmp(v, *words))
      return 1;
  return 0;
}

static const char *const OffWords[] = {"off", "0", "false", "no", NULL};
static const char *const OnWords[] = {"on", "1", "true", "yes", NULL};

int hm_yes_no(const char *v) {
  return one_of(v, OnWords) ? 1 : one_of(v, OffWords) ? 0 : -1;
}

int hm_env_off(void) {
  const char *v = getenv("HMPLACE");
  return v && hm_yes_no(v) == 0;
}

/* HMPLACE=off (0, false, no, in any case): every planned site goes to the
 * ordinary heap. A value it does not know leaves placement on, and says
 * so. */
void hm_read_off_env(void) {
  const char *v = getenv("HMPLACE");
  if (hm_env_off())
    atomic_store(&hm_off, 1);
  else if (v && *v && hm_yes_no(v) < 0)
    hm_warn("HMPLACE='%s' is not off, 0, false or no (nor on, 1, true or "
            "yes): placement stays on",
            v);
}

static unsigned char BudgetFromEnv[HMPLACE_KIND_COUNT];

int hm_budget_from_env(int k) { return BudgetFromEnv[k]; }

void hm_read_budget_env(void) {
  const char *env = secure_getenv("HMPLACE_BUDGET");
  if (!env)
    return;
  const char *p = env;
  /* Each kind's item, to say which one a second item of the kind replaces. */
  const char *given[HMPLACE_KIND_COUNT] = {0};
  size_t given_len[HMPLACE_KIND_COUNT] = {0};
  while (*p) {
    const char *item = p;
    const char *comma = strchr(p, ',');
    size_t len = comma ? (size_t)(comma - p) : strlen(p);
    const char *eq = memchr(item, '=', len);
    int k = eq ? hm_kind_by_name(item, (size_t)(eq - item)) : -1;
    char val[64];
    uint64_t bytes;
    size_t vlen = eq ? len - (size_t)(eq + 1 - item) : 0;
    if (k >= 0 && vlen < sizeof(val)) {
      memcpy(val, eq + 1, vlen);
      val[vlen] = 0;
    }
    /* SIZE/node: the node's budget, shared by the ranks on the node. */
    int per_node = 0;
    if (k >= 0 && vlen < sizeof(val) && vlen > 5 &&
        !strcmp(val + vlen - 5, "/node")) {
      val[vlen - 5] = 0;
      per_node = 1;
    }
    if (k < 0 || vlen >= sizeof(val) || hm_parse_size(val, &bytes) != 0) {
      hm_warn("ignoring '%.*s' in HMPLACE_BUDGET; expected KIND=SIZE or "
              "KIND=SIZE/node, e.g. HBW=16GiB",
              (int)len, item);
    } else {
      if (per_node) {
        const struct hm_job *j = hm_job();
        if (j->local_size > 0)
          bytes /= (uint64_t)j->local_size;
        else
          hm_warn("HMPLACE_BUDGET gives '%.*s' but no MPI launcher says how "
                  "many ranks share this node; this process takes the whole "
                  "node's budget",
                  (int)len, item);
      }
      if (given[k])
        hm_warn("HMPLACE_BUDGET gives %s twice: '%.*s' replaces '%.*s'",
                hm_kind_names[k], (int)len, item, (int)given_len[k], given[k]);
      given[k] = item;
      given_len[k] = len;
      hm_store_budget(k, bytes);
      BudgetFromEnv[k] = 1;
    }
    p = comma ? comma + 1 : p + len;
  }
}
