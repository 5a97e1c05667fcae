/*===- report.c - budgets from the environment and the placement report ---===*
 *
 * HMPLACE_REPORT=1 prints, at exit on stderr, per kind: placed allocations,
 * bytes, peak and current live bytes, fallbacks to the ordinary heap, and the
 * NUMA nodes of the kind's pages at that moment: by default every resident
 * page of the regions the kind's memory is mapped in (live blocks and what
 * memkind keeps for reuse), found with mincore and move_pages at report time
 * only, so that the report costs the running program nothing; with
 * HMPLACE_REPORT_PAGES=live, the pages of the blocks live at that moment,
 * which needs every placed block tracked (a lock and a record per placed
 * allocation and free: documented as costly). Never a sum over freed
 * blocks. HMPLACE_REPORT=json:PATH writes the same as JSON.
 *===----------------------------------------------------------------------===*/
#define _GNU_SOURCE
#include "context.h"
#include "entryfilter.h"
#include "heap.h"
#include "hmplace.h"
#include "hmplace_internal.h"
#include "split.h"
#include "track.h"

#include <fcntl.h>

#include <ctype.h>
#include <errno.h>
#include <numaif.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

/*--- the report -------------------------------------------------------------*/

enum { MAXNODES = 64 };

struct residency {
  uint64_t pages[MAXNODES]; /* by node */
  uint64_t untouched, blocks;
  uint64_t unknown; /* resident pages whose node nobody would say */
};

/* Node of a page move_pages would not name: with NUMA balancing on, it
 * answers -EFAULT for resident pages that the balancer has made
 * inaccessible for its hinting faults. mincore says whether the page is
 * resident (get_mempolicy would fault a missing one in); if it is,
 * get_mempolicy names its node. -1: not resident; -2: unknown. */
static int node_of_page(void *page, long pagesize) {
  unsigned char in = 0;
  if (mincore(page, (size_t)pagesize, &in) != 0)
    return -2;
  if (!(in & 1))
    return -1;
  int node = -1;
  if (get_mempolicy(&node, NULL, 0, page, MPOL_F_NODE | MPOL_F_ADDR) != 0 ||
      node < 0)
    return -2;
  return node;
}

/* Node of each of \p cnt pages (move_pages without moving). */
static void count_page_list(void **pages, size_t cnt, long page,
                            uint64_t *by_node, uint64_t *untouched,
                            uint64_t *unknown) {
  enum { BATCH = 1024 };
  int status[BATCH];
  for (size_t at = 0; at < cnt; at += BATCH) {
    unsigned long n = cnt - at < BATCH ? cnt - at : BATCH;
    if (move_pages(0, n, pages + at, NULL, status, 0) != 0) {
      *unknown += n;
      continue;
    }
    for (unsigned long i = 0; i < n; ++i) {
      int node = status[i];
      if (node == -EFAULT)
        node = node_of_page(pages[at + i], page);
      if (node >= 0 && node < MAXNODES)
        by_node[node]++;
      else if (node == -ENOENT || node == -1)
        ++*untouched; /* not faulted in: never written */
      else
        ++*unknown;
    }
  }
}

/* Node of every page of [p, p+n). */
static void count_pages(void *p, size_t n, uint64_t *by_node,
                        uint64_t *untouched, uint64_t *unknown) {
  long page = sysconf(_SC_PAGESIZE);
  enum { BATCH = 1024 };
  void *pages[BATCH];
  uintptr_t a = (uintptr_t)p & ~(uintptr_t)(page - 1);
  uintptr_t end = (uintptr_t)p + n;
  while (a < end) {
    size_t cnt = 0;
    for (; cnt < BATCH && a < end; ++cnt, a += (uintptr_t)page)
      pages[cnt] = (void *)a;
    count_page_list(pages, cnt, page, by_node, untouched, unknown);
  }
}

/* The census of one kind's regions: the slots' kinds by owner byte, and
 * mincore's buffers. */
struct region_census {
  int kind, kind_of[256]; /* by owner byte: the slot's kind, or -1 */
  long page;
  size_t per; /* pages per region */
  unsigned char *vec;
  void **list;
  struct residency *r;
};

static int of_kind(uint8_t owner, void *arg) {
  const struct region_census *c = arg;
  return c->kind_of[owner] == c->kind;
}

/* mincore says which pages of \p n regions at \p at are resident (most of a
 * region may never have been touched), move_pages names their nodes. */
static void census_run(char *at, uint64_t n, void *arg) {
  struct region_census *c = arg;
  if (mincore(at, (size_t)n << HM_REGION_SHIFT, c->vec) != 0)
    return;
  for (uint64_t j = 0; j < n * c->per;) {
    size_t cnt = 0;
    for (; j < n * c->per && cnt < c->per; ++j)
      if (c->vec[j] & 1)
        c->list[cnt++] = at + j * (size_t)c->page;
    count_page_list(c->list, cnt, c->page, c->r->pages, &c->r->untouched,
                    &c->r->unknown);
  }
}

/* Resident pages of the regions slots of \p kind are mapped in. Only
 * regions memkind handed out blocks in (a slot's chunk may span 64 GiB of
 * which a few MiB are used), runs of them asked of mincore up to 1 GiB at
 * a time. */
static void census_regions(int kind, struct residency *r) {
  enum { RUN = 256 }; /* regions per mincore call */
  struct region_census c = {.kind = kind, .r = r};
  c.page = sysconf(_SC_PAGESIZE);
  c.per = ((size_t)1 << HM_REGION_SHIFT) / (size_t)c.page;
  c.vec = hm_own_malloc(c.per * RUN);
  c.list = hm_own_malloc(c.per * sizeof *c.list);
  for (int o = 0; o < 256; ++o) {
    char pol[8];
    uint64_t threads, cpus;
    c.kind_of[o] = -1;
    if (o && hm_slot_info(o - 1, &c.kind_of[o], pol, sizeof pol, &threads,
                          &cpus) < 0)
      c.kind_of[o] = -1;
  }
  if (c.vec && c.list)
    hm_range_each_used(of_kind, census_run, RUN, &c);
  hm_own_free(c.vec);
  hm_own_free(c.list);
}

struct live_census {
  int kind;
  struct residency *r;
};

static void live_block(void *p, size_t n, void *arg) {
  struct live_census *c = arg;
  if (hmplace_owner(p) != c->kind + 1)
    return;
  ++c->r->blocks;
  count_pages(p, n, c->r->pages, &c->r->untouched, &c->r->unknown);
}

/* The kind's pages now: of its live blocks (HMPLACE_REPORT_PAGES=live), or
 * of the memory it holds. */
static void residency_of(int kind, struct residency *r) {
  memset(r, 0, sizeof(*r));
  if (!hm_tracking) {
    census_regions(kind, r);
    return;
  }
  struct live_census c = {kind, r};
  hm_track_each(live_block, &c);
}

/* The page size the counts of pages are in, for the report's headers. */
static long page_kib(void) {
  long page = sysconf(_SC_PAGESIZE);
  return page > 0 ? page / 1024 : 4;
}

/*--- split objects (split.c) ------------------------------------------------*/

static void split_pages(void *p, size_t n, void *arg) {
  struct residency *r = arg;
  ++r->blocks;
  count_pages(p, n, r->pages, &r->untouched, &r->unknown);
}

/* A line (or JSON object) per split placement used: objects, bytes, and the
 * pages of its live objects by node. */
static void split_report(FILE *f, int json) {
  int code, first = 1;
  uint64_t objects, bytes;
  if (json)
    fprintf(f, "\"splits\": [");
  for (int i = 0; hm_split_codes(i, &code, &objects, &bytes) == 0; ++i) {
    struct residency r;
    memset(&r, 0, sizeof r);
    hm_split_each(code, split_pages, &r);
    char b1[32];
    const char *name = hmplace_kind_name((enum hmplace_kind)code);
    if (json) {
      fprintf(f,
              "%s\n  {\"split\": \"%s\", \"objects\": %llu, \"bytes\": "
              "%llu, \"live_objects\": %llu, \"pages_by_node\": {",
              first ? "" : ",", name, (unsigned long long)objects,
              (unsigned long long)bytes, (unsigned long long)r.blocks);
      for (int nd = 0, pf = 1; nd < MAXNODES; ++nd)
        if (r.pages[nd]) {
          fprintf(f, "%s\"%d\": %llu", pf ? "" : ", ", nd,
                  (unsigned long long)r.pages[nd]);
          pf = 0;
        }
      fprintf(f, "}, \"untouched_pages\": %llu}",
              (unsigned long long)r.untouched);
    } else {
      if (first)
        fprintf(f,
                "hmplace: %-44s %8s %11s  pages by node (live objects, %ld KiB "
                "each)\n",
                "split placement", "objects", "requested", page_kib());
      fprintf(f, "hmplace: %-44s %8llu %11s ", name,
              (unsigned long long)objects, hm_human(bytes, b1, sizeof b1));
      if (!r.blocks)
        fprintf(f, " - (none live)");
      for (int nd = 0; nd < MAXNODES; ++nd)
        if (r.pages[nd])
          fprintf(f, " node%d:%llu", nd, (unsigned long long)r.pages[nd]);
      if (r.untouched)
        fprintf(f, " untouched:%llu", (unsigned long long)r.untouched);
      fputc('\n', f);
    }
    first = 0;
  }
  uint64_t more, more_bytes;
  hm_split_unlisted(&more, &more_bytes);
  char b2[32];
  if (json)
    fprintf(f,
            "\n], \"splits_unlisted\": {\"objects\": %llu, \"bytes\": %llu}, ",
            (unsigned long long)more, (unsigned long long)more_bytes);
  else if (more)
    fprintf(f,
            "hmplace: %-44s %8llu %11s  (not listed: placements past the "
            "first 32)\n",
            "other split placements", (unsigned long long)more,
            hm_human(more_bytes, b2, sizeof b2));
}

static char *JsonPath;

static int report_off(void) { return hm_sanitizer() || hm_env_off(); }

/* Stats and residency of kind \p k; 0 if nothing was planned to it. */
static int active_kind(int k, struct hmplace_stats *s, struct residency *r) {
  hmplace_get_stats((enum hmplace_kind)k, s);
  if (!s->allocs && !s->fallbacks)
    return 0;
  residency_of(k, r);
  return 1;
}

/* "1,3" for the bits of \p nodes. */
static void node_list(char *buf, size_t n, uint64_t nodes) {
  size_t len = 0;
  buf[0] = 0;
  for (int i = 0; i < 64 && len < n; ++i)
    if (nodes >> i & 1)
      len += (size_t)snprintf(buf + len, n - len, "%s%d", len ? "," : "", i);
}

/* What a node policy's name means, for the report's readers. */
static const char *policy_meaning(const char *policy) {
  if (!strncmp(policy, "bind", 4))
    return "pages on these nodes only";
  if (!strncmp(policy, "preferred", 9))
    return "pages on this node while it has room";
  if (!strncmp(policy, "interleave", 10))
    return "pages spread across these nodes";
  return "pages where first touched";
}

/* Under a kind, its node policies (a multi-socket node has one per socket):
 * which threads and CPU nodes allocated there; text lines or a JSON list. */
static void slots(FILE *f, int k, int json) {
  int kind, first = 1;
  char policy[128], nodes[128];
  uint64_t threads, cpus;
  if (json)
    fprintf(f, ", \"slots\": [");
  for (int i = 0;
       hm_slot_info(i, &kind, policy, sizeof policy, &threads, &cpus) == 0;
       ++i) {
    if (kind != k)
      continue;
    node_list(nodes, sizeof nodes, cpus);
    if (json)
      fprintf(f,
              "%s{\"policy\": \"%s\", \"threads\": %llu, \"cpu_nodes\": [%s]}",
              first ? "" : ", ", policy, (unsigned long long)threads, nodes);
    else
      fprintf(
          f, "hmplace:   memory policy %s (%s): %llu thread%s, CPU node%s %s\n",
          policy, policy_meaning(policy), (unsigned long long)threads,
          threads == 1 ? "" : "s", strchr(nodes, ',') ? "s" : "", nodes);
    first = 0;
  }
  if (json)
    fputc(']', f);
}

/* What HMPLACE_ENTRIES held back, as lines or as the JSON object's field. */
static void entries_filter(FILE *f, int json) {
  const char *path;
  size_t named;
  uint64_t held, unnamed;
  if (!hm_filter_counts(&path, &named, &held, &unnamed))
    return;
  if (json) {
    fprintf(f, ", \"only_entries\": {\"file\": ");
    hm_json_string(f, path);
    fprintf(f, ", \"named\": %zu, \"held\": %llu, \"unnamed\": %llu}", named,
            (unsigned long long)held, (unsigned long long)unnamed);
    return;
  }
  fprintf(f,
          "hmplace: HMPLACE_ENTRIES=%s (%zu entr%s): %llu allocation%s of "
          "entries it does not name held on the ordinary heap\n",
          path, named, named == 1 ? "y" : "ies", (unsigned long long)held,
          held == 1 ? "" : "s");
  if (unnamed)
    fprintf(f,
            "hmplace: %llu placed allocation%s named no entry (a source "
            "rewritten by hmrewrite, hbw_malloc): placed as built\n",
            (unsigned long long)unnamed, unnamed == 1 ? "" : "s");
}

static void report_text(FILE *f) {
  const struct hm_job *j = hm_job();
  char rank[64] = "";
  if (j->rank >= 0)
    snprintf(rank, sizeof rank, ", rank %d", j->rank);
  if (j->local_size > 0)
    snprintf(rank + strlen(rank), sizeof rank - strlen(rank),
             ", %d ranks on this node", j->local_size);
  const char *tool = hm_sanitizer();
  fprintf(f, "hmplace: placement report (pid %d%s)%s%s%s\n", (int)getpid(),
          rank, tool ? " [under " : "", tool ? tool : "",
          tool           ? ": nothing placed]"
          : report_off() ? " [HMPLACE=off: nothing placed]"
                         : "");
  for (int k = 0; k < HMPLACE_KIND_COUNT; ++k)
    if (hm_budget_from_env(k) && hm_load_budget(k))
      fprintf(f, "hmplace: budget %s: %llu bytes\n",
              hmplace_kind_name((enum hmplace_kind)k),
              (unsigned long long)hm_load_budget(k));
  char range[128];
  hm_range_mode(range, sizeof range);
  if (strchr(range, ',')) /* a limit shapes how placed memory is mapped */
    fprintf(f, "hmplace: placed memory: %s\n", range);
  if (!hm_policy_trusted())
    fprintf(f, "hmplace: node policies read back from one block per kind "
               "(memkind's operations table not recognised): right for the "
               "first thread that used a kind\n");
  fprintf(
      f,
      "hmplace: %-30s %8s %11s %11s %11s %9s  pages by node (%ld KiB each)\n",
      "kind", "allocs", "requested", "peak usable", "usable now", "fallbacks",
      page_kib());
  int any = 0;
  for (int k = 0; k < HMPLACE_KIND_COUNT; ++k) {
    struct hmplace_stats s;
    struct residency r;
    if (!active_kind(k, &s, &r))
      continue;
    any = 1;
    char b1[32], b2[32], b3[32];
    fprintf(f, "hmplace: %-30s %8llu %11s %11s %11s %9llu  ",
            hmplace_kind_name((enum hmplace_kind)k),
            (unsigned long long)s.allocs, hm_human(s.bytes, b1, sizeof b1),
            hm_human(s.peak, b2, sizeof b2), hm_human(s.live, b3, sizeof b3),
            (unsigned long long)s.fallbacks);
    int printed = 0;
    for (int n = 0; n < MAXNODES; ++n)
      if (r.pages[n]) {
        fprintf(f, "%snode%d:%llu", printed ? " " : "", n,
                (unsigned long long)r.pages[n]);
        printed = 1;
      }
    if (r.untouched)
      fprintf(f, "%suntouched:%llu", printed ? " " : "",
              (unsigned long long)r.untouched);
    if (r.unknown)
      fprintf(f, "%sunknown:%llu", (printed || r.untouched) ? " " : "",
              (unsigned long long)r.unknown);
    if (!printed && !r.untouched && !r.unknown)
      fputc('-', f);
    fputc('\n', f);
    slots(f, k, 0);
  }
  if (!any)
    fprintf(f, "hmplace: no planned allocation ran\n");
  split_report(f, 0);
  hm_entries_report_text(f);
  entries_filter(f, 0);
}

static void report_json(FILE *f) {
  char range[128];
  hm_range_mode(range, sizeof range);
  fprintf(f,
          "{\"pid\": %d, \"rank\": %d, \"local_rank\": %d, "
          "\"ranks_on_node\": %d, \"off\": %s, \"range\": \"%s\", "
          "\"policy_from_memkind_ops\": %s, \"kinds\": [",
          (int)getpid(), hm_job()->rank, hm_job()->local_rank,
          hm_job()->local_size, report_off() ? "true" : "false", range,
          hm_policy_trusted() ? "true" : "false");
  int first = 1;
  for (int k = 0; k < HMPLACE_KIND_COUNT; ++k) {
    struct hmplace_stats s;
    struct residency r;
    if (!active_kind(k, &s, &r))
      continue;
    fprintf(f,
            "%s\n  {\"kind\": \"%s\", \"available\": %d, \"allocs\": %llu, "
            "\"bytes\": %llu, \"peak_live\": %llu, \"live\": %llu, "
            "\"fallbacks\": %llu, \"live_blocks\": %llu, \"budget\": %llu, "
            "\"pages_by_node\": {",
            first ? "" : ",", hmplace_kind_name((enum hmplace_kind)k),
            s.available, (unsigned long long)s.allocs,
            (unsigned long long)s.bytes, (unsigned long long)s.peak,
            (unsigned long long)s.live, (unsigned long long)s.fallbacks,
            (unsigned long long)r.blocks,
            (unsigned long long)hm_load_budget(k));
    int pf = 1;
    for (int n = 0; n < MAXNODES; ++n)
      if (r.pages[n]) {
        fprintf(f, "%s\"%d\": %llu", pf ? "" : ", ", n,
                (unsigned long long)r.pages[n]);
        pf = 0;
      }
    fprintf(f, "}, \"untouched_pages\": %llu, \"unknown_pages\": %llu",
            (unsigned long long)r.untouched, (unsigned long long)r.unknown);
    slots(f, k, 1);
    fputc('}', f);
    first = 0;
  }
  fprintf(f, "\n], ");
  split_report(f, 1);
  hm_entries_report_json(f);
  entries_filter(f, 1);
  fprintf(f, "}\n");
}

void hmplace_report(void) {
  hm_track_fork_lock(1); /* the tracked blocks stay as they are */
  if (JsonPath) {
    /* Never through a symbolic link someone planted at the path: the
     * report would overwrite whatever it points to. */
    int fd = open(JsonPath,
                  O_WRONLY | O_CREAT | O_TRUNC | O_NOFOLLOW | O_CLOEXEC, 0644);
    FILE *f = fd < 0 ? NULL : fdopen(fd, "w");
    if (fd >= 0 && !f)
      close(fd);
    if (!f) {
      hm_error("cannot write report to '%s': %s", JsonPath, strerror(errno));
    } else {
      report_json(f);
      /* A full disk or a device that takes nothing (/dev/full): said. */
      int bad = ferror(f);
      if (fclose(f) != 0 || bad)
        hm_error("cannot write report to '%s': %s", JsonPath,
                 strerror(errno ? errno : EIO));
    }
  } else {
    /* One write(), so that MPI ranks' reports do not interleave. */
    char *text = NULL;
    size_t len = 0;
    FILE *m = open_memstream(&text, &len);
    if (m) {
      report_text(m);
      fclose(m);
      hm_write_all(2, text, len);
      free(text);
    } else {
      report_text(stderr);
    }
  }
  hm_track_fork_lock(0);
}

void hm_report_init(void) {
  /* Not in set-user-ID programs: the report path would let any user
   * write where the program may. */
  const char *r = secure_getenv("HMPLACE_REPORT");
  if (!r || !*r || !strcmp(r, "0"))
    return;
  if (!strncmp(r, "json:", 5)) {
    JsonPath = hm_expand_path(r + 5);
  } else if (strcmp(r, "1") && strcmp(r, "text")) {
    hm_warn("HMPLACE_REPORT='%s' not understood; use 1 or json:PATH", r);
    return;
  }
  hm_ctx_forget_choice();
  hm_reporting = 1;
  const char *pages = secure_getenv("HMPLACE_REPORT_PAGES");
  if (pages && !strcmp(pages, "live"))
    hm_tracking = 1;
  else if (pages && *pages && strcmp(pages, "resident"))
    hm_warn("HMPLACE_REPORT_PAGES='%s' not understood; use live or resident",
            pages);
  atexit(hmplace_report);
}
