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
// split at blanks, e.g. "ccache clang-19"), else the clang, clang++ and
// flang-new of the LLVM HmPlace was built with (HMPLACE_CLANG and so on, e.g.
// clang-19). It may be an MPI wrapper (mpicc, mpif90, ...): that is told to
// run those compilers underneath, since only they load the plugin. A
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

/* The compilers of the LLVM HmPlace.so was built for (tool/hmcc/CMakeLists). */
#ifndef HMPLACE_CLANG
#error "define HMPLACE_CLANG, HMPLACE_CLANGXX and HMPLACE_FLANG"
#endif

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

/* The variables that hold a compiler's name: the compilers' own, and those
 * a Makefile assigns from them (CCNAME := $(notdir $(CC)), LD = $(CC)),
 * with the two patterns over them, compiled again when a variable joins. */
struct name_vars {
  char list[1024]; /* "CC|CXX|...", a regex alternation */
  int count, ok;
  regex_t test;   /* ifeq/ifneq on one, or a function that picks at one */
  regex_t derive; /* an assignment from one: the variable is group 2 */
};

static void name_vars_free(struct name_vars *v) {
  if (v->ok) {
    regfree(&v->test);
    regfree(&v->derive);
  }
  v->ok = 0;
}

static int name_vars_compile(struct name_vars *v) {
  char test[2600], derive[1200];
  name_vars_free(v);
  snprintf(test, sizeof test,
           "^[[:space:]]*(ifeq|ifneq)[[:space:]].*\\$[({](%s)[)}]"
           "|\\$[({](findstring|filter|filter-out|subst|patsubst|notdir|"
           "firstword)[[:space:]][^)}]*\\$[({](%s)[)}]",
           v->list, v->list);
  snprintf(derive, sizeof derive,
           "^[[:space:]]*(override[[:space:]]+|export[[:space:]]+)?"
           "([A-Za-z_][A-Za-z0-9_]*)[[:space:]]*(::?|\\?|\\+|!)?=.*"
           "\\$[({](%s)[)}]",
           v->list);
  if (regcomp(&v->test, test, REG_EXTENDED | REG_NOSUB) != 0)
    return 0;
  if (regcomp(&v->derive, derive, REG_EXTENDED) != 0) {
    regfree(&v->test);
    return 0;
  }
  return v->ok = 1;
}

/* If \p line assigns a variable from one of \p v's values, adds it to \p v
 * and returns 1. */
static int derives_name(const char *line, struct name_vars *v) {
  regmatch_t all[3];
  if (regexec(&v->derive, line, 3, all, 0) != 0)
    return 0;
  size_t len = (size_t)(all[2].rm_eo - all[2].rm_so);
  size_t at = strlen(v->list);
  if (v->count < 16 && at + len + 2 < sizeof v->list) {
    v->list[at] = '|';
    memcpy(v->list + at + 1, line + all[2].rm_so, len);
    v->list[at + 1 + len] = 0;
    ++v->count;
    name_vars_compile(v);
  }
  return 1;
}

/* A Makefile in the current directory that tests the compiler variable's
 * value (ifeq ($(CC),clang), $(findstring gcc,$(CC)), ...), directly or
 * through a variable assigned from it (CCNAME := $(notdir $(CC)), then
 * ifeq ($(CCNAME),gcc)): with CC=hmcc that test is false and the build
 * silently takes the other branch (often: no -fopenmp). Returns the first
 * such test's line number (else an assignment that picks at the name), or
 * 0. Comments are no tests. */
static int makefile_tests_name(const char **file, char *line_out, size_t n) {
  static const char *names[] = {"GNUmakefile", "makefile", "Makefile"};
  for (size_t i = 0; i < 3; ++i) {
    FILE *f = fopen(names[i], "r");
    if (!f)
      continue;
    struct name_vars v = {.list = "CC|CXX|FC|F77|F90|MPICC|MPICXX|MPIFC|MPIF90",
                          .count = 9};
    if (!name_vars_compile(&v)) {
      fclose(f);
      return 0;
    }
    /* Whole lines (a list of sources can be longer than any buffer), so
     * that the count is of the Makefile's lines. */
    char *buf = NULL;
    size_t cap = 0;
    int lineno = 0, found = 0, fallback = 0;
    char assigned[256] = "";
    while (v.ok && !found && getline(&buf, &cap, f) >= 0) {
      ++lineno;
      /* A comment is no test (outside recipes, whose '#' is the
       * shell's). */
      char *hash = buf[0] == '\t' ? NULL : strchr(buf, '#');
      if (hash && (hash == buf || hash[-1] != '\\'))
        *hash = 0;
      buf[strcspn(buf, "\r\n")] = 0;
      int picks = regexec(&v.test, buf, 0, NULL, 0) == 0;
      if (buf[0] != '\t' && derives_name(buf, &v)) {
        if (picks && !fallback) {
          snprintf(assigned, sizeof assigned, "%s", buf);
          fallback = lineno;
        }
        continue;
      }
      if (picks) {
        snprintf(line_out, n, "%s", buf);
        found = lineno;
      }
    }
    if (!found && fallback) {
      snprintf(line_out, n, "%s", assigned);
      found = fallback;
    }
    free(buf);
    name_vars_free(&v);
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

/* -g, -g2, -g3, -ggdb, -gdwarf*: the full debug info a profile needs (the
 * advisor reads each function's declaration line and frame base). */
static int is_full_debug_flag(const char *a) {
  return is_debug_flag(a) && strcmp(a, "-gline-tables-only") &&
         strcmp(a, "-gmlt") && strcmp(a, "-g1") && strcmp(a, "-ggdb1");
}

static void set_default(const char *var, const char *value) {
  setenv(var, value, 0);
}

/* What one run was asked to do, read off the arguments. */
struct request {
  enum lang lang;
  int masquerade;    /* run under a compiler's own name */
  const char *plan;  /* --plan= or $HMPLACE_PLAN */
  int profile;       /* --profile: a MemProf-profiled build, no plan */
  int link, compile; /* the run links; it compiles (not -E/-M) */
  int sources;       /* it names a file to compile (not only objects) */
  int debug, full_debug, only_info;
  char **args; /* the compiler's own arguments, in order */
  int nargs;
};

/* A file the compiler compiles (not an object or library it links). */
static int is_source(const char *a) {
  static const char *const exts[] = {
      ".c",   ".i",   ".cc",  ".cp",  ".cxx", ".cpp", ".CPP",
      ".c++", ".C",   ".ii",  ".f",   ".F",   ".for", ".FOR",
      ".f77", ".F77", ".f90", ".F90", ".f95", ".F95", ".f03",
      ".F03", ".f08", ".F08", ".s",   ".S",   ".ll",  ".bc"};
  const char *dot = strrchr(a, '.');
  if (!dot || strchr(dot, '/'))
    return 0;
  for (size_t i = 0; i < sizeof exts / sizeof *exts; ++i)
    if (!strcmp(dot, exts[i]))
      return 1;
  return 0;
}

static void read_args(int argc, char **argv, struct request *r) {
  r->plan = getenv("HMPLACE_PLAN");
  /* HMPLACE_PROFILE=1 asks for --profile from the environment: under the
   * compilers' own names (libexec/hmplace on PATH) every variable a
   * Makefile compiles or links with ($(CC), $(LD), ...) reaches a wrapper
   * in profile mode, and tests of the compiler's name still see it. */
  const char *pe = getenv("HMPLACE_PROFILE");
  r->profile = pe && *pe && strcmp(pe, "0") != 0;
  r->args = xmalloc(sizeof(char *) * (size_t)(argc + 1));
  r->link = r->compile = r->only_info = 1;
  for (int i = 1; i < argc; ++i) {
    const char *a = argv[i];
    if (starts_with(a, "--plan=")) { /* a placed build, whatever the env */
      r->plan = a + 7;
      r->profile = 0;
      continue;
    }
    if (!strcmp(a, "--profile")) {
      r->profile = 1;
      continue;
    }
    if (!strcmp(a, "-c") || !strcmp(a, "-S") || !strcmp(a, "-E") ||
        !strcmp(a, "-M") || !strcmp(a, "-MM") || !strcmp(a, "-fsyntax-only"))
      r->link = 0;
    if (!strcmp(a, "-E") || !strcmp(a, "-M") || !strcmp(a, "-MM"))
      r->compile = 0;
    if (!strcmp(a, "-g0")) {
      r->debug = r->full_debug = 0;
    } else if (is_debug_flag(a)) {
      r->debug = 1;
      r->full_debug |= is_full_debug_flag(a);
    }
    if (a[0] != '-' && is_source(a))
      r->sources = 1;
    if (starts_with(a, "-x"))
      r->sources = 1; /* -x LANG: it reads sources */
    /* Version queries and the like (configure scripts): no plan needed. */
    if (strcmp(a, "-v") && strcmp(a, "--version") && strcmp(a, "--help") &&
        strcmp(a, "-dumpversion") && strcmp(a, "-dumpmachine") &&
        !starts_with(a, "-print-"))
      r->only_info = 0;
    r->args[r->nargs++] = argv[i];
  }
}

/* The LLVM major version of the compiler at \p path, as its real path
 * names it (Debian: /usr/bin/clang-19 -> /usr/lib/llvm-19/bin/clang), or 0
 * where it does not say (a compiler built elsewhere, an MPI wrapper). */
static int llvm_major_of(const char *path) {
  char real[PATH_MAX];
  if (!realpath(path, real))
    return 0;
  int major = 0; /* the last /llvm-N/bin/ of the path */
  for (const char *at = strstr(real, "/llvm-"); at;
       at = strstr(at + 1, "/llvm-")) {
    char *end;
    long n = strtol(at + 6, &end, 10);
    if (end != at + 6 && starts_with(end, "/bin/"))
      major = (int)n;
  }
  return major;
}

/* A compiler of another LLVM cannot load HmPlace.so (LLVM says only "Wrong
 * API version on plugin ... Got version 2, supported version is 1"): said
 * here, naming the compilers that can, and exits. */
static void check_llvm(const char *path) {
  int major = llvm_major_of(path);
  if (!major || major == HMPLACE_LLVM_MAJOR)
    return;
  fprintf(stderr,
          "%s: error: %s is LLVM %d's compiler, and this HmPlace was built "
          "with LLVM %d: its HmPlace.so loads only into LLVM %d's (%s, %s, "
          "%s); use one of those, or the wrappers of an HmPlace built with "
          "that compiler's LLVM (HmPlace builds with LLVM 19 or 22)\n",
          Me, path, major, HMPLACE_LLVM_MAJOR, HMPLACE_LLVM_MAJOR,
          HMPLACE_CLANG, HMPLACE_CLANGXX, HMPLACE_FLANG);
  exit(2);
}

/* The compiler underneath into cmd[0..): $HMPLACE_CC/CXX/FC split at blanks
 * ("ccache clang-19"), else HmPlace's LLVM's; the count, or exits. */
static int compiler_words(const struct request *r, const char *self,
                          char **cmd) {
  const char *env = getenv(r->lang == LANG_CXX       ? "HMPLACE_CXX"
                           : r->lang == LANG_FORTRAN ? "HMPLACE_FC"
                                                     : "HMPLACE_CC");
  const char *dflt = r->lang == LANG_CXX       ? HMPLACE_CLANGXX
                     : r->lang == LANG_FORTRAN ? HMPLACE_FLANG
                                               : HMPLACE_CLANG;
  char *cc_words = strdup(env && *env ? env : dflt);
  int n = 0;
  for (char *w = strtok(cc_words, " \t"); w; w = strtok(NULL, " \t"))
    cmd[n++] = w;
  if (n == 0) {
    fprintf(stderr, "%s: error: empty compiler in $HMPLACE_%s\n", Me,
            r->lang == LANG_CXX       ? "CXX"
            : r->lang == LANG_FORTRAN ? "FC"
                                      : "CC");
    exit(2);
  }
  char *found = find_program(cmd[0], self);
  if (!found) {
    fprintf(stderr, "%s: error: compiler '%s' not found on PATH\n", Me, cmd[0]);
    exit(127);
  }
  cmd[0] = found;
  /* An MPI wrapper runs HmPlace's LLVM's compilers underneath. */
  const char *base = strrchr(cmd[0], '/');
  base = base ? base + 1 : cmd[0];
  if (starts_with(base, "mpi")) {
    set_default("OMPI_CC", HMPLACE_CLANG);
    set_default("OMPI_CXX", HMPLACE_CLANGXX);
    set_default("OMPI_FC", HMPLACE_FLANG);
    set_default("MPICH_CC", HMPLACE_CLANG);
    set_default("MPICH_CXX", HMPLACE_CLANGXX);
    set_default("MPICH_FC", HMPLACE_FLANG);
    set_default("MPICH_F90", HMPLACE_FLANG);
  }
  return n;
}

static void run(char **cmd) {
  execv(cmd[0], cmd);
  fprintf(stderr, "%s: error: cannot run %s: %s\n", Me, cmd[0],
          strerror(errno));
  exit(127);
}

/* The plan, absolute (recursive make finds it from any directory), in
 * $HMPLACE_PLAN for the plugin; exits without one. */
static void export_plan(const char *plan) {
  if (!plan || !*plan) {
    fprintf(stderr,
            "%s: error: no plan: give --plan=FILE or set HMPLACE_PLAN (or "
            "--profile for a build to profile)\n",
            Me);
    exit(2);
  }
  if (plan[0] != '/' && exists(plan)) {
    char cwd[PATH_MAX];
    if (getcwd(cwd, sizeof cwd)) {
      char *abs = concat(cwd, "/");
      plan = concat(abs, plan);
    }
  }
  setenv("HMPLACE_PLAN", plan, 1);
}

/* Under make, as hmcc: say once (at the link) if the Makefile picks flags by
 * the compiler's name, which CC=hmcc defeats. */
static void check_makefile(const struct request *r, const char *prefix) {
  if (!r->link || r->masquerade || !getenv("MAKELEVEL"))
    return;
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

static int add_runtime(char **cmd, int n, enum lang lang, const char *lib) {
  if (lang == LANG_FORTRAN)
    cmd[n++] = "-lhmplace-fortran";
  cmd[n++] = concat("-L", lib);
  cmd[n++] = concat("-Wl,-rpath,", lib);
  cmd[n++] = "-lhmplace";
  return n;
}

/* A placed build: the plugin with the plan, line tables where no -g is
 * given (the pass keys sites by debug locations), and at a link the runtime
 * after the program's objects (so that a linker with --as-needed keeps it)
 * but before memkind: libhmplace serves memkind's hbw_* functions itself,
 * and the program must bind to those. */
static int place_flags(const struct request *r, char **cmd, int n,
                       const char *plugin, const char *lib) {
  if (r->compile) {
    cmd[n++] = concat("-fpass-plugin=", plugin);
    /* Fortran: full debug info, which `object:` entries need (the variable
     * an ALLOCATE fills is named there); C and C++: line tables. */
    if (!r->debug)
      cmd[n++] = r->lang == LANG_FORTRAN ? "-g" : "-gline-tables-only";
  }
  int runtime_in = !r->link;
  for (int i = 0; i < r->nargs; ++i) {
    if (!runtime_in &&
        names_memkind(r->args[i], i + 1 < r->nargs ? r->args[i + 1] : "")) {
      n = add_runtime(cmd, n, r->lang, lib);
      runtime_in = 1;
    }
    cmd[n++] = r->args[i];
  }
  if (!runtime_in)
    n = add_runtime(cmd, n, r->lang, lib);
  return n;
}

/* The allocation functions whose references the profile support library
 * wraps (runtime/profile/profile.c), and the copies it samples for misses
 * (misses.c). */
static const char *const ProfileWraps =
    "-Wl,--wrap=malloc,--wrap=calloc,--wrap=realloc,--wrap=posix_memalign,"
    "--wrap=aligned_alloc,--wrap=memalign,--wrap=_Znwm,--wrap=_Znam,"
    "--wrap=_ZnwmRKSt9nothrow_t,--wrap=_ZnamRKSt9nothrow_t,"
    "--wrap=memcpy,--wrap=memmove,--wrap=memset";

/* Two identical allocation calls (an if/else) are merged at -O2, by
 * SimplifyCFG or by the code generator's tail merging, into one call at
 * line 0, which no plan entry can name: a profiled build keeps them apart. */
static const char *const KeepCallsApart =
    "-simplifycfg-hoist-common=false,-simplifycfg-sink-common=false,"
    "-enable-tail-merge=false";

/* \p opts (KeepCallsApart) for the compiler (-mllvm each) or for the LTO
 * link (-Wl,-plugin-opt=each: the link optimises again, and clang does not
 * pass -mllvm on to it), into cmd[n..); the new n. */
static int llvm_options(const char *opts, int lto_link, char **cmd, int n) {
  char *list = strdup(opts);
  for (char *o = strtok(list, ","); o; o = strtok(NULL, ",")) {
    if (lto_link) {
      cmd[n++] = concat("-Wl,-plugin-opt=", o);
    } else {
      cmd[n++] = "-mllvm";
      cmd[n++] = o;
    }
  }
  return n;
}

/* Whether the run links with link-time optimisation (the last -flto* or
 * -fno-lto decides). */
static int lto(const struct request *r) {
  int on = 0;
  for (int i = 0; i < r->nargs; ++i)
    if (starts_with(r->args[i], "-flto"))
      on = strcmp(r->args[i], "-flto=none") != 0;
    else if (!strcmp(r->args[i], "-fno-lto"))
      on = 0;
  return on;
}

/* A build to profile with LLVM MemProf (`hmplan advise` reads its
 * profiles): full debug info, frame pointers, no sibling calls; clang
 * instruments itself (-fmemory-profile), flang through HmPlace.so in
 * profile mode, which also brackets its runtime's ALLOCATEs; HmPlace.so
 * samples every language's accesses for cache misses; calls are not
 * merged (a merged call has line 0). A link adds
 * MemProf's runtime and the profile support library, whose wrappers make
 * blocks still live at exit visible. */
static int profile_flags(const struct request *r, char **cmd, int n,
                         const char *plugin, const char *lib) {
  int fortran = r->lang == LANG_FORTRAN;
  if (r->compile) {
    /* HmPlace.so samples the accesses for cache misses (MissIR.h); for
     * flang it also adds MemProf's instrumentation, which clang adds. */
    cmd[n++] = concat("-fpass-plugin=", plugin);
    if (fortran) {
      setenv("HMPLACE_PROFILE", "1", 1);
    } else {
      setenv("HMPLACE_PROFILE", "misses", 1);
      cmd[n++] = "-fmemory-profile";
      cmd[n++] = "-fno-optimize-sibling-calls";
    }
    cmd[n++] = "-fno-omit-frame-pointer";
    if (r->sources) /* a link alone would call them unused */
      n = llvm_options(KeepCallsApart, 0, cmd, n);
    if (!r->full_debug)
      cmd[n++] = "-g";
  }
  for (int i = 0; i < r->nargs; ++i)
    cmd[n++] = r->args[i];
  if (!r->link)
    return n;
  if (fortran) { /* flang's driver does not know -fmemory-profile */
    static const char *const rt[] = {"memprof", "memprof_cxx"};
    for (int i = 0; i < 2; ++i) {
      char path[PATH_MAX];
      snprintf(path, sizeof path, "%s/libclang_rt.%s-x86_64.a",
               HMPLACE_CLANG_RT_DIR, rt[i]);
      cmd[n++] = "-Wl,--whole-archive";
      cmd[n++] = strdup(path);
      cmd[n++] = "-Wl,--no-whole-archive";
      cmd[n++] = concat("-Wl,--dynamic-list=", concat(path, ".syms"));
    }
    cmd[n++] = "-lpthread";
    cmd[n++] = "-lrt";
    cmd[n++] = "-lm";
    cmd[n++] = "-ldl";
  } else {
    cmd[n++] = "-fmemory-profile";
  }
  if (lto(r))
    n = llvm_options(KeepCallsApart, 1, cmd, n);
  cmd[n++] = (char *)ProfileWraps;
  cmd[n++] = "-Wl,-u,hmplace_profile_support";
  cmd[n++] = concat(lib, "/libhmplace-profile.a");
  return n;
}

/* `hmcc --help`: the wrapper's own options; the compiler's are its own
 * (`--help` after other arguments, or `clang-19 --help`). */
static int print_help(enum lang lang) {
  const char *cc = lang == LANG_CXX       ? HMPLACE_CLANGXX
                   : lang == LANG_FORTRAN ? HMPLACE_FLANG
                                          : HMPLACE_CLANG;
  const char *env = lang == LANG_CXX       ? "HMPLACE_CXX"
                    : lang == LANG_FORTRAN ? "HMPLACE_FC"
                                           : "HMPLACE_CC";
  printf(
      "usage: %s [--plan=PLAN | --profile] COMPILER-ARGS...\n"
      "\n"
      "Compile and link with HmPlace.so and a placement plan, for builds you\n"
      "do not edit: make CC=\"hmcc --plan=plan.yaml\" CXX=\"hmc++ "
      "--plan=plan.yaml\"\nFC=\"hmfort --plan=plan.yaml\", or "
      "HMPLACE_PLAN=plan.yaml make CC=hmcc.\n"
      "\n"
      "  --plan=PLAN   the plan to apply (default: $HMPLACE_PLAN; a relative\n"
      "                path is made absolute)\n"
      "  --profile     a build to profile for `hmplan advise` (MemProf\n"
      "                instrumentation, frame pointers, calls kept apart;\n"
      "                default: $HMPLACE_PROFILE=1)\n"
      "  --help        this text\n"
      "\n"
      "Every other argument goes to the compiler: $%s, else %s (an MPI\n"
      "wrapper there is made to run it). Where no -g is given, line tables are\n"
      "added (Fortran: full -g); a link adds the runtime. Its own options:\n"
      "%s --help.\n"
      "Makefiles that test the compiler's name: PATH=<prefix>/libexec/hmplace:"
      "$PATH\nmake CC=clang. Docs: docs/integration.md.\n",
      Me, env, cc, cc);
  return 0;
}

int main(int argc, char **argv) {
  const char *slash = strrchr(argv[0], '/');
  Me = slash ? slash + 1 : argv[0];
  struct request r = {0};
  r.lang = lang_of(Me, &r.masquerade);

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
    fprintf(stderr,
            "usage: %s [--plan=PLAN | --profile] COMPILER-ARGS... (%s "
            "--help)\n",
            Me, Me);
    return 2;
  }
  if (!r.masquerade && (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h")))
    return print_help(r.lang);
  read_args(argc, argv, &r);
  char **cmd = xmalloc(sizeof(char *) * (size_t)(argc + 64));
  int n = compiler_words(&r, self, cmd);
  if (r.only_info) {
    memcpy(cmd + n, r.args, sizeof(char *) * (size_t)r.nargs);
    cmd[n + r.nargs] = NULL;
    run(cmd);
  }
  check_llvm(cmd[0]); /* HmPlace.so is loaded from here on */
  if (!r.profile) {
    export_plan(r.plan);
    unsetenv("HMPLACE_PROFILE"); /* HmPlace.so places, not profiles */
  }
  check_makefile(&r, prefix);
  cmd[n++] = concat("-I", inc);
  n = r.profile ? profile_flags(&r, cmd, n, plugin, lib)
                : place_flags(&r, cmd, n, plugin, lib);
  cmd[n] = NULL;
  run(cmd);
  return 127;
}
