//===- hmcc.c - compiler wrappers that build with HmPlace.so and a plan ---===//
//
// hmcc, hmc++ and hmfort (one program under three names) compile with the
// HmPlace.so pass and a plan and link the runtime, for unmodified builds:
//
//   make CC="hmcc --plan=plan.yaml"     or   HMPLACE_PLAN=plan.yaml make
//   CC=hmcc
//
// Under a compiler's own name (clang, clang++, flang-new, ..., the links in
// <prefix>/libexec/hmplace) it does the same for Makefiles that choose flags
// by that name: PATH=<prefix>/libexec/hmplace:$PATH make CC=clang.
//
// The compiler underneath: $HMPLACE_CC / $HMPLACE_CXX / $HMPLACE_FC (words
// split at blanks, e.g. "ccache clang-19"), else clang-19 / clang++-19 /
// flang-new-19. It may be an MPI wrapper (mpicc, mpif90, ...): that is told
// to run clang/flang 19 underneath, since only they load the plugin. A
// relative plan is made absolute, so that recursive make finds it from any
// directory. Where no -g is given, line tables are added: the pass keys sites
// by debug locations. Only a link adds the runtime.
//
// A compiled program rather than a script: a script with its helper
// processes cost 12-15% of a whole build; this is one exec.
//
//===----------------------------------------------------------------------===//
#define _GNU_SOURCE
#include <errno.h>
#include <limits.h>
#include <regex.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

enum lang { LANG_C, LANG_CXX, LANG_FORTRAN };

static const char *Me;

static void *xmalloc(size_t n) {
  void *p = malloc(n);
  if (!p) {
    fprintf(stderr, "%s: error: out of memory\n", Me);
    exit(2);
  }
  return p;
}

static char *concat(const char *a, const char *b) {
  size_t la = strlen(a), lb = strlen(b);
  char *s = xmalloc(la + lb + 1);
  memcpy(s, a, la);
  memcpy(s + la, b, lb + 1);
  return s;
}

static int exists(const char *path) { return access(path, F_OK) == 0; }

static int starts_with(const char *s, const char *prefix) {
  return strncmp(s, prefix, strlen(prefix)) == 0;
}

/* Language by the name run: hm* are the wrappers' own names, the others the
 * compilers' names under libexec/hmplace. */
static enum lang lang_of(const char *name, int *masquerade) {
  *masquerade = !starts_with(name, "hm");
  if (strstr(name, "++") || !strcmp(name, "hmcxx"))
    return LANG_CXX;
  if (strstr(name, "fort") || strstr(name, "flang") || !strcmp(name, "hmf90"))
    return LANG_FORTRAN;
  return LANG_C;
}

/* The program a PATH search finds for \p name, skipping \p self (under a
 * compiler's name, the wrapper is itself on PATH as that name). */
static char *find_program(const char *name, const char *self) {
  if (strchr(name, '/'))
    return strdup(name);
  const char *path = getenv("PATH");
  if (!path || !*path)
    path = "/usr/local/bin:/usr/bin:/bin";
  size_t nl = strlen(name);
  for (const char *p = path;;) {
    const char *end = strchr(p, ':');
    size_t dl = end ? (size_t)(end - p) : strlen(p);
    char *cand = xmalloc(dl + nl + 3);
    if (dl == 0)
      strcpy(cand, ".");
    else
      memcpy(cand, p, dl), cand[dl] = 0;
    strcat(cand, "/");
    strcat(cand, name);
    char real[PATH_MAX];
    if (access(cand, X_OK) == 0 && realpath(cand, real) &&
        strcmp(real, self) != 0)
      return cand;
    free(cand);
    if (!end)
      return NULL;
    p = end + 1;
  }
}

/* A Makefile in the current directory that tests the compiler variable's
 * value (ifeq ($(CC),clang), $(findstring gcc,$(CC)), ...): with CC=hmcc
 * that test is false and the build silently takes the other branch (often:
 * no -fopenmp). Returns the first such line's number, or 0. */
static int makefile_tests_name(const char **file, char *line_out, size_t n) {
  static const char *names[] = {"GNUmakefile", "makefile", "Makefile"};
  static const char *pattern =
      "^[[:space:]]*(ifeq|ifneq)[[:space:]].*\\$[({](CC|CXX|FC|F77|F90|"
      "MPICC|MPICXX|MPIFC|MPIF90)[)}]"
      "|\\$[({](findstring|filter|filter-out|subst|patsubst|notdir|"
      "firstword)[[:space:]][^)}]*\\$[({](CC|CXX|FC|F77|F90|MPICC|MPICXX|"
      "MPIFC|MPIF90)[)}]";
  for (size_t i = 0; i < 3; ++i) {
    FILE *f = fopen(names[i], "r");
    if (!f)
      continue;
    regex_t re;
    if (regcomp(&re, pattern, REG_EXTENDED | REG_NOSUB) != 0) {
      fclose(f);
      return 0;
    }
    char buf[4096];
    int lineno = 0, found = 0;
    while (fgets(buf, sizeof buf, f)) {
      ++lineno;
      if (regexec(&re, buf, 0, NULL, 0) == 0) {
        buf[strcspn(buf, "\n")] = 0;
        snprintf(line_out, n, "%s", buf);
        found = lineno;
        break;
      }
    }
    regfree(&re);
    fclose(f);
    *file = names[i];
    return found; /* make reads only the first of the three it finds */
  }
  return 0;
}

/* -g, -g1..-g3, -ggdb*, -gdwarf*, -gline-tables-only, -gmlt, -gfull. */
static int is_debug_flag(const char *a) {
  if (!strcmp(a, "-g") || starts_with(a, "-ggdb") ||
      starts_with(a, "-gdwarf") || !strcmp(a, "-gline-tables-only") ||
      !strcmp(a, "-gmlt") || !strcmp(a, "-gfull"))
    return 1;
  return starts_with(a, "-g") && a[2] >= '1' && a[2] <= '9' && !a[3];
}

/* Whether \p a (before \p next) links memkind: -lmemkind, -l memkind,
 * or the library's path. */
static int names_memkind(const char *a, const char *next) {
  if (!strcmp(a, "-lmemkind") || (!strcmp(a, "-l") && !strcmp(next, "memkind")))
    return 1;
  const char *base = strrchr(a, '/');
  return base && starts_with(base + 1, "libmemkind.");
}

static int add_runtime(char **cmd, int n, enum lang lang, const char *lib) {
  if (lang == LANG_FORTRAN)
    cmd[n++] = "-lhmplace-fortran";
  cmd[n++] = concat("-L", lib);
  cmd[n++] = concat("-Wl,-rpath,", lib);
  cmd[n++] = "-lhmplace";
  return n;
}

static void set_default(const char *var, const char *value) {
  setenv(var, value, 0);
}

int main(int argc, char **argv) {
  const char *slash = strrchr(argv[0], '/');
  Me = slash ? slash + 1 : argv[0];
  int masquerade;
  enum lang lang = lang_of(Me, &masquerade);

  char self[PATH_MAX];
  ssize_t sl = readlink("/proc/self/exe", self, sizeof self - 1);
  if (sl <= 0) {
    fprintf(stderr, "%s: error: cannot find its own path: %s\n", Me,
            strerror(errno));
    return 2;
  }
  self[sl] = 0;
  /* <prefix>/bin/hmcc: the plugin and runtime in <prefix>/lib, the header in
   * <prefix>/include (in the build tree, a link to runtime/include). */
  char *prefix = strdup(self);
  for (int up = 0; up < 2; ++up) {
    char *s = strrchr(prefix, '/');
    if (s)
      *s = 0;
  }
  char *lib = concat(prefix, "/lib");
  char *plugin = concat(lib, "/HmPlace.so");
  char *inc = concat(prefix, "/include");

  if (argc < 2) {
    fprintf(stderr, "usage: %s [--plan=PLAN] COMPILER-ARGS...\n", Me);
    return 2;
  }
  const char *plan = getenv("HMPLACE_PLAN");
  char **args = xmalloc(sizeof(char *) * (size_t)(argc + 16));
  int nargs = 0;
  int link = 1, debug = 0, compile = 1, only_info = 1;
  for (int i = 1; i < argc; ++i) {
    const char *a = argv[i];
    if (starts_with(a, "--plan=")) {
      plan = a + 7;
      continue;
    }
    if (!strcmp(a, "-c") || !strcmp(a, "-S") || !strcmp(a, "-E") ||
        !strcmp(a, "-M") || !strcmp(a, "-MM") || !strcmp(a, "-fsyntax-only"))
      link = 0;
    if (!strcmp(a, "-E") || !strcmp(a, "-M") || !strcmp(a, "-MM"))
      compile = 0;
    if (!strcmp(a, "-g0"))
      debug = 0;
    else if (is_debug_flag(a))
      debug = 1;
    /* Version queries and the like (configure scripts): no plan needed. */
    if (strcmp(a, "-v") && strcmp(a, "--version") &&
        strcmp(a, "-dumpversion") && strcmp(a, "-dumpmachine") &&
        !starts_with(a, "-print-"))
      only_info = 0;
    args[nargs++] = argv[i];
  }

  /* The compiler underneath, split at blanks ("ccache clang-19"). */
  const char *env = getenv(lang == LANG_CXX       ? "HMPLACE_CXX"
                           : lang == LANG_FORTRAN ? "HMPLACE_FC"
                                                  : "HMPLACE_CC");
  const char *dflt = lang == LANG_CXX       ? "clang++-19"
                     : lang == LANG_FORTRAN ? "flang-new-19"
                                            : "clang-19";
  char *cc_words = strdup(env && *env ? env : dflt);
  char **cmd = xmalloc(sizeof(char *) * (size_t)(argc + 32 + strlen(cc_words)));
  int n = 0;
  for (char *w = strtok(cc_words, " \t"); w; w = strtok(NULL, " \t"))
    cmd[n++] = w;
  if (n == 0) {
    fprintf(stderr, "%s: error: empty compiler in $HMPLACE_%s\n", Me,
            lang == LANG_CXX       ? "CXX"
            : lang == LANG_FORTRAN ? "FC"
                                   : "CC");
    return 2;
  }
  char *found = find_program(cmd[0], self);
  if (!found) {
    fprintf(stderr, "%s: error: compiler '%s' not found on PATH\n", Me, cmd[0]);
    return 127;
  }
  cmd[0] = found;

  if (only_info) {
    memcpy(cmd + n, args, sizeof(char *) * (size_t)nargs);
    cmd[n + nargs] = NULL;
    execv(cmd[0], cmd);
    fprintf(stderr, "%s: error: cannot run %s: %s\n", Me, cmd[0],
            strerror(errno));
    return 127;
  }
  if (!plan || !*plan) {
    fprintf(stderr,
            "%s: error: no plan: give --plan=FILE or set HMPLACE_PLAN\n", Me);
    return 2;
  }
  if (plan[0] != '/' && exists(plan)) {
    char cwd[PATH_MAX];
    if (getcwd(cwd, sizeof cwd)) {
      char *abs = concat(cwd, "/");
      plan = concat(abs, plan);
    }
  }
  setenv("HMPLACE_PLAN", plan, 1);

  /* An MPI wrapper runs clang/flang 19 underneath. */
  const char *base = strrchr(cmd[0], '/');
  base = base ? base + 1 : cmd[0];
  if (starts_with(base, "mpi")) {
    set_default("OMPI_CC", "clang-19");
    set_default("OMPI_CXX", "clang++-19");
    set_default("OMPI_FC", "flang-new-19");
    set_default("MPICH_CC", "clang-19");
    set_default("MPICH_CXX", "clang++-19");
    set_default("MPICH_FC", "flang-new-19");
    set_default("MPICH_F90", "flang-new-19");
  }

  /* Under make, as hmcc: say once (at the link) if the Makefile picks flags
   * by the compiler's name, which CC=hmcc defeats. */
  if (link && !masquerade && getenv("MAKELEVEL")) {
    const char *mf = NULL;
    char line[256];
    int at = makefile_tests_name(&mf, line, sizeof line);
    if (at)
      fprintf(stderr,
              "%s: warning: %s:%d chooses flags by the compiler's name "
              "(%s); with %s that test sees '%s', not the compiler's name. "
              "Build with the wrappers under the compilers' own names: "
              "PATH=%s/libexec/hmplace:$PATH make CC=clang CXX=clang++ "
              "FC=flang-new (HMPLACE_PLAN=plan.yaml)\n",
              Me, mf, at, line, Me, Me, prefix);
  }

  cmd[n++] = concat("-I", inc);
  if (compile) {
    cmd[n++] = concat("-fpass-plugin=", plugin);
    if (!debug)
      cmd[n++] = "-gline-tables-only";
  }
  /* The runtime goes after the program's objects (so that a linker with
   * --as-needed keeps it) but before memkind: libhmplace serves memkind's
   * hbw_* functions itself, and the program must bind to those. */
  int runtime_in = !link;
  for (int i = 0; i < nargs; ++i) {
    if (!runtime_in &&
        names_memkind(args[i], i + 1 < nargs ? args[i + 1] : "")) {
      n = add_runtime(cmd, n, lang, lib);
      runtime_in = 1;
    }
    cmd[n++] = args[i];
  }
  if (!runtime_in)
    n = add_runtime(cmd, n, lang, lib);
  cmd[n] = NULL;
  execv(cmd[0], cmd);
  fprintf(stderr, "%s: error: cannot run %s: %s\n", Me, cmd[0],
          strerror(errno));
  return 127;
}
