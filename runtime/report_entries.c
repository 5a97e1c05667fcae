/*===- report_entries.c - the report's table of call-stack entries -------===*
 *
 * What each call-stack entry placed (its objects and requested bytes, "never
 * ran" for an entry no allocation reached) and which context sites had
 * allocations that matched no entry, as the text report's table and the JSON
 * report's "entries" and "unmatched" arrays. The rows come from context.c
 * (hm_ctx_rows), which keeps the state; this file only formats them.
 *===----------------------------------------------------------------------===*/
#include "context.h"
#include "entryfilter.h"
#include "heap.h"
#include "hmplace.h"
#include "hmplace_internal.h"

#include <stdlib.h>
#include <string.h>

struct rows {
  struct hm_ctx_row *row;
  size_t n, cap;
};

/* The rows are copied (their strings live as long as the process). */
static void keep(const struct hm_ctx_row *r, void *arg) {
  struct rows *rs = arg;
  if (rs->n == rs->cap) {
    size_t cap = rs->cap ? 2 * rs->cap : 64;
    struct hm_ctx_row *more = hm_own_realloc(rs->row, cap * sizeof *more);
    if (!more)
      return;
    rs->row = more;
    rs->cap = cap;
  }
  rs->row[rs->n++] = *r;
}

static const char *kind_label(int k) {
  return k < 0 ? "ordinary heap" : hmplace_kind_name((enum hmplace_kind)k);
}

/* What an entry's row adds after its bytes: the objects it chose that its
 * kind did not serve, or why it shows none (it never ran, or
 * HMPLACE_ENTRIES held it back). */
static const char *row_why(const struct hm_ctx_row *r, char *b, size_t n) {
  if (r->fallbacks) {
    snprintf(b, n, "  (%llu fallback%s: on the ordinary heap)",
             (unsigned long long)r->fallbacks, r->fallbacks == 1 ? "" : "s");
    return b;
  }
  if (r->objects)
    return "";
  if (hm_filter_on && !hm_filter_names(r->key))
    return "  (held back: not in HMPLACE_ENTRIES)";
  /* A tool's operator new takes the calls of a rewritten program's
   * container entries before libhmplace-cxx's: "never ran" may be untrue. */
  if (hm_sanitizer()) {
    snprintf(b, n, "  (none seen under %s)", hm_sanitizer());
    return b;
  }
  return "  (never ran)";
}

void hm_entries_report_text(FILE *f) {
  struct rows rs = {0};
  hm_ctx_rows(keep, &rs);
  int w = 22; /* the kind column: a split's name is longer */
  int entries = 0;
  for (size_t i = 0; i < rs.n; ++i)
    if (!rs.row[i].unmatched) {
      ++entries;
      if ((int)strlen(kind_label(rs.row[i].kind)) > w)
        w = (int)strlen(kind_label(rs.row[i].kind));
    }
  if (entries)
    fprintf(f, "hmplace: %-40s %-*s %8s %12s\n", "call-stack entry", w, "kind",
            "objects", "requested");
  for (size_t i = 0; i < rs.n; ++i) {
    const struct hm_ctx_row *r = &rs.row[i];
    char b[32], why[80];
    if (!r->unmatched)
      fprintf(f, "hmplace: %-40s %-*s %8llu %12s%s\n", r->key, w,
              kind_label(r->kind), (unsigned long long)r->objects,
              hm_human(r->bytes, b, sizeof b), row_why(r, why, sizeof why));
    else if (r->objects)
      fprintf(f,
              "hmplace: %llu allocation%s at %s matched no call-stack "
              "entry (%s)\n",
              (unsigned long long)r->objects, r->objects == 1 ? "" : "s",
              r->key, kind_label(r->kind));
  }
  hm_own_free(rs.row);
}

void hm_json_string(FILE *f, const char *s) {
  fputc('"', f);
  for (; *s; ++s)
    if (*s == '"' || *s == '\\')
      fprintf(f, "\\%c", *s);
    else if ((unsigned char)*s < 0x20)
      fprintf(f, "\\u%04x", *s);
    else
      fputc(*s, f);
  fputc('"', f);
}

void hm_entries_report_json(FILE *f) {
  struct rows rs = {0};
  hm_ctx_rows(keep, &rs);
  for (int unmatched = 0; unmatched < 2; ++unmatched) {
    fprintf(f, unmatched ? "\n], \"unmatched\": [" : "\"entries\": [");
    int first = 1;
    for (size_t i = 0; i < rs.n; ++i) {
      const struct hm_ctx_row *r = &rs.row[i];
      if (r->unmatched != unmatched)
        continue;
      fprintf(f, "%s\n  {\"%s\": ", first ? "" : ",",
              unmatched ? "site" : "entry");
      hm_json_string(f, r->key);
      if (unmatched)
        fprintf(f, ", \"kind\": \"%s\", \"objects\": %llu}",
                kind_label(r->kind), (unsigned long long)r->objects);
      else
        fprintf(f,
                ", \"kind\": \"%s\", \"objects\": %llu, \"bytes\": %llu, "
                "\"fallbacks\": %llu}",
                kind_label(r->kind), (unsigned long long)r->objects,
                (unsigned long long)r->bytes, (unsigned long long)r->fallbacks);
      first = 0;
    }
  }
  fprintf(f, "\n]");
  hm_own_free(rs.row);
}
