#!/usr/bin/env python3
"""reformat-check.py - a rewritten tree, formatted in other styles and
rewritten again, places exactly the plan's objects.

  reformat-check.py --work DIR --tools ARGS (--seed N [--trees K] | --tree SRC)
                    [--styles 'S1|S2|...'] [--review HMPLACE_REVIEW]

Each tree is rewritten with its plan (hmrewrite -i), then, for each style,
a copy of it is formatted (clang-format -i --style=S), rewritten again with
the same plan, built with check.c (not rewritten: it prints each object's
owner) and run. The objects in HBW must be the plan's, every time, and the
rerun must say no warning. With --review, each formatted tree is also
given to hmplace-review --strict instead, which applies the edits it
proposes: the objects in HBW must be the plan's then too. --seed makes K random trees (several files,
wrappers called from several lines, two calls on a line, one-line function
bodies, tab-indented statements, site entries with and without columns,
call-stack entries through the wrappers whose caller frames have no
column, entries of the ordinary heap next to placed ones). --tree takes a
directory holding the sources, plan.yaml (or plan.locations, ...) and expect.txt (the objects the
plan puts in HBW, one a line).

--tools is one shell-quoted string: HMREWRITE CLANG_FORMAT CC 'CFLAGS'
'LIBS' 'RUN_PREFIX'. Prints one line per tree and style, and a total; exits
1 if any tree placed other objects than its plan's.
"""
import argparse
import os
import random
import re
import shlex
import shutil
import subprocess
import sys

CHECK_C = r"""#include <hmplace.h>
#include <stdio.h>
void seen(const char *name, void *p) {
  printf("%s %s\n", name, hmplace_owner(p) == 1 + HMPLACE_HBW ? "hbw" : "-");
}
"""


class Tree:
    """Sources being generated, with where each call is (line, column)."""

    def __init__(self, rng):
        self.rng = rng
        self.files = {}  # name -> list of lines
        self.wrappers = []  # (name, file, line, col of its allocation call)
        self.calls = []  # (object, [frames innermost first])
        self.count = 0

    def line(self, f, text):
        self.files.setdefault(f, []).append(text)
        return len(self.files[f])

    def obj(self):
        self.count += 1
        return "o%d" % self.count


def add_wrappers(t, n):
    rng = t.rng
    for i in range(n):
        name = "get%d" % i
        fn = rng.choice(["malloc(n)", "calloc(n, 1)"])
        callee = fn.split("(")[0]
        if rng.random() < 0.5:  # one-line body
            text = "void *%s(size_t n) { return %s; }" % (name, fn)
            ln = t.line("util.c", text)
            t.wrappers.append((name, "util.c", ln, text.index(callee) + 1))
        else:
            t.line("util.c", "void *%s(size_t n) {" % name)
            text = "  void *p = %s;" % fn
            ln = t.line("util.c", text)
            t.line("util.c", "  if (!p)")
            t.line("util.c", "    abort();")
            t.line("util.c", "  return p;")
            t.line("util.c", "}")
            t.wrappers.append((name, "util.c", ln, text.index(callee) + 1))
        t.line("util.h", "void *%s(size_t n);" % name)


def statement(t, f, indent):
    """One statement of 1 or 2 allocations; returns the objects' names."""
    rng = t.rng
    names, parts, callees = [], [], []
    for _ in range(2 if rng.random() < 0.2 else 1):
        o = t.obj()
        size = 1024 * rng.randint(1, 64) + t.count
        if t.wrappers and rng.random() < 0.5:
            w = rng.choice(t.wrappers)
            call, callee = "%s(%d)" % (w[0], size), w
        else:
            fn = rng.choice(["malloc", "calloc"])
            call = "malloc(%d)" % size if fn == "malloc" else "calloc(%d, 1)" % size
            callee = None
        names.append(o)
        parts.append((o, call, callee))
    text = indent + "char "
    frames = []
    for i, (o, call, callee) in enumerate(parts):
        text += ("" if i == 0 else ", ") + "*%s = " % o
        if callee is None and rng.random() < 0.3:
            text += "(char *)"
        col = len(text) + 1
        text += call
        frames.append((o, col, callee))
    text += ";"
    if rng.random() < 0.3:
        text += " /* " + "a comment that makes the line long " * rng.randint(1, 2) + "*/"
    ln = t.line(f, text)
    for o, col, callee in frames:
        if callee is None:
            t.calls.append((o, [(f, ln, col)]))
        else:
            t.calls.append((o, [(callee[1], callee[2], callee[3]), (f, ln, col)]))
    for o in names:
        t.line(f, indent + 'seen("%s", %s);' % (o, o))


def generate(seed):
    rng = random.Random(seed)
    t = Tree(rng)
    t.line("util.h", "#include <stdlib.h>")
    t.line("util.h", "void seen(const char *name, void *p);")
    t.line("util.c", '#include "util.h"')
    t.line("util.c", "")
    add_wrappers(t, rng.randint(1, 3))
    fns = []
    for f in ["main.c", "kern.c"]:
        t.line(f, '#include "util.h"')
        t.line(f, "")
        for k in range(rng.randint(1, 3)):
            name = "%s_%d" % (f[:-2], k)
            fns.append(name)
            if f == "kern.c":
                t.line("util.h", "void %s(void);" % name)
            else:
                t.line(f, "static void %s(void) {" % name)
                for _ in range(rng.randint(2, 6)):
                    statement(t, f, "\t" if rng.random() < 0.2 else "  ")
                t.line(f, "}")
                continue
            t.line(f, "void %s(void) {" % name)
            for _ in range(rng.randint(2, 6)):
                statement(t, f, "\t" if rng.random() < 0.2 else "  ")
            t.line(f, "}")
    t.line("main.c", "int main(void) {")
    for name in fns:
        t.line("main.c", "  %s();" % name)
    t.line("main.c", "  return 0;")
    t.line("main.c", "}")
    return t


def plan_of(t):
    """Entries for about two thirds of the calls; hbm or posix."""
    rng = t.rng
    entries, hbw = [], set()
    per_line = {}
    for o, frames in t.calls:
        per_line[frames[-1][:2]] = per_line.get(frames[-1][:2], 0) + 1
    for o, frames in t.calls:
        if rng.random() < 0.2:
            continue
        kind = "hbm" if rng.random() < 0.5 else "posix"
        keys = []
        for i, (f, ln, col) in enumerate(frames):
            alone = per_line[(f, ln)] == 1 if i == len(frames) - 1 else True
            # Caller frames on a line of one call, as advisors write them:
            # no column.
            keys.append("%s:%d" % (f, ln) if alone and (i > 0 or rng.random() < 0.3)
                        else "%s:%d:%d" % (f, ln, col))
        if len(keys) == 1:
            entries.append("  - {site: %s, kind: %s}" % (keys[0], kind))
        else:
            entries.append("  - {stack: [%s], kind: %s}" % (", ".join(keys), kind))
        if kind == "hbm":
            hbw.add(o)
    return "version: 1\nsites:\n" + "\n".join(entries) + "\n", hbw


def write_tree(t, d):
    os.makedirs(d)
    for f, lines in t.files.items():
        with open(os.path.join(d, f), "w") as out:
            out.write("\n".join(lines) + "\n")
    plan, hbw = plan_of(t)
    with open(os.path.join(d, "plan.yaml"), "w") as out:
        out.write(plan)
    with open(os.path.join(d, "expect.txt"), "w") as out:
        out.write("".join(o + "\n" for o in sorted(hbw)))


def run(cmd, cwd, env=None):
    return subprocess.run(cmd, cwd=cwd, env=env, capture_output=True, text=True)


def plan_file(d):
    return [f for f in sorted(os.listdir(d)) if f.startswith("plan.")][0]


def sources(d):
    return sorted(f for f in os.listdir(d) if re.search(r"\.(c|h)$", f))


def rerun(d, srcs, tools, review):
    """The plan again on the formatted tree: hmrewrite -i, or
    hmplace-review --strict (which applies what it proposes)."""
    if review:
        env = dict(os.environ, HMPLACE_BUILD=os.path.dirname(
            os.path.dirname(tools[0])), CLANG_FORMAT=tools[1])
        r = run([review, "--strict", "--plan", plan_file(d)] + srcs + ["--"],
                d, env)
        if r.returncode not in (0, 1):
            return "review: " + (r.stderr + r.stdout).strip()
        return None
    r = run([tools[0], "--plan", plan_file(d), "-i"] + srcs + ["--"], d)
    problems = [l for l in r.stderr.splitlines() if "warning" in l or "error" in l]
    if r.returncode or problems:
        return "rerun: " + "; ".join(problems or [r.stderr.strip()])
    return None


def check_style(src, style, work, tools, review):
    hmrewrite, clang_format, cc, cflags, libs, prefix = tools
    d = os.path.join(work, re.sub(r"[^A-Za-z0-9]", "_", style) +
                     ("-review" if review else ""))
    shutil.copytree(src, d)
    srcs = [f for f in sources(d) if f.endswith(".c")]
    for f in sources(d):
        r = run([clang_format, "-i", "--style=" + style, f], d)
        if r.returncode:
            return "clang-format failed: " + r.stderr
    err = rerun(d, srcs, tools, review)
    if err:
        return err
    with open(os.path.join(d, "check.c"), "w") as out:
        out.write(CHECK_C)
    r = run([cc] + shlex.split(cflags) + srcs + ["check.c"] + shlex.split(libs) +
            ["-o", "app"], d)
    if r.returncode:
        return "build: " + r.stderr
    r = run(shlex.split(prefix) + ["./app"], d)
    if r.returncode:
        return "run: " + r.stderr
    got = sorted(l.split()[0] for l in r.stdout.splitlines()
                 if l.split()[1] == "hbw")
    want = sorted(open(os.path.join(src, "expect.txt")).read().split())
    if got != want:
        return "in HBW: %s, the plan's: %s" % (" ".join(got), " ".join(want))
    return None


def first_rewrite(src, tools):
    hmrewrite = tools[0]
    shutil.copy(os.path.join(os.path.dirname(__file__), "..", "..", "..",
                             ".clang-format"), src)
    srcs = [f for f in sources(src) if f.endswith(".c")]
    r = run([hmrewrite, "--plan", plan_file(src), "-i"] + srcs + ["--"], src)
    problems = [l for l in r.stderr.splitlines() if "warning" in l or "error" in l]
    return "first rewrite: " + "; ".join(problems or [r.stderr]) \
        if r.returncode or problems else None


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--work", required=True)
    ap.add_argument("--tools", required=True)
    ap.add_argument("--seed", type=int)
    ap.add_argument("--trees", type=int, default=1)
    ap.add_argument("--tree")
    ap.add_argument("--review", help="hmplace-review: also check what it "
                    "applies on each formatted tree")
    ap.add_argument("--styles", default="LLVM|GNU|Google|{BasedOnStyle: LLVM, IndentWidth: 3}")
    a = ap.parse_args()
    if a.review:
        a.review = os.path.abspath(a.review)
    tools = shlex.split(a.tools)
    shutil.rmtree(a.work, ignore_errors=True)
    os.makedirs(a.work)
    trees = []
    if a.tree:
        shutil.copytree(a.tree, os.path.join(a.work, "t0", "src"))
        trees.append(("given", os.path.join(a.work, "t0")))
    else:
        for k in range(a.trees):
            d = os.path.join(a.work, "t%d" % k)
            write_tree(generate(a.seed * 1000 + k), os.path.join(d, "src"))
            trees.append(("seed %d" % (a.seed * 1000 + k), d))
    bad = total = 0
    for name, d in trees:
        src = os.path.join(d, "src")
        why = first_rewrite(src, tools)
        for style in a.styles.split("|"):
            for review in [None] + ([a.review] if a.review else []):
                total += 1
                err = why or check_style(src, style, d, tools, review)
                bad += bool(err)
                print("%s, %s%s: %s" % (name, style, ", review" if review else "",
                                        err or "the plan's objects in HBW"))
    print("%d of %d formatted trees placed the plan's objects" % (total - bad, total))
    sys.exit(1 if bad else 0)


if __name__ == "__main__":
    main()
