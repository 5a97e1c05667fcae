#!/usr/bin/env python3
"""three-ways.py - build one program three ways with a plan and run each.

The context tests check *which objects* a call-stack plan places, through
both front ends: HmPlace.so at -O0 and at -O2, and hmrewrite (in place, on a
copy, then built at -O2 without the plugin). Each build runs with HBW served
by node 0; the outputs must be identical, and are printed once for FileCheck
followed by a line naming the builds that agreed. Any difference prints every
output and fails.

usage: three-ways.py TOOLS... --plan P --src DIR [--cxx] [--header-filter RE]
                     [--cflags "..."] [--only NAMES] FILE...
"""
import argparse
import json
import os
import shlex
import shutil
import subprocess
import sys


def run(cmd, cwd, env=None):
    r = subprocess.run(cmd, cwd=cwd, env=env, capture_output=True, text=True)
    if r.returncode != 0:
        sys.stderr.write("command failed (%d): %s\n%s%s" %
                         (r.returncode, " ".join(cmd), r.stdout, r.stderr))
        sys.exit(1)
    return r


def main():
    ap = argparse.ArgumentParser()
    for t in ["clang", "clangxx", "plugin", "hmrewrite", "include", "libdir",
              "plan", "src", "out"]:
        ap.add_argument("--" + t, required=True)
    ap.add_argument("--cxx", action="store_true")
    ap.add_argument("--header-filter", default="")
    ap.add_argument("--cflags", default="")
    ap.add_argument("--only", default="pass-O0,pass-O2,rewrite")
    ap.add_argument("--report", action="store_true",
                    help="append the runtime's per-entry report")
    ap.add_argument("--args", default="", help="program arguments")
    ap.add_argument("--libs", default="",
                    help="more libraries for every link (-lhmplace-cxx)")
    ap.add_argument("files", nargs="+")
    a = ap.parse_args()

    cc = a.clangxx if a.cxx else a.clang
    extra = shlex.split(a.cflags)
    link = (["-L" + a.libdir, "-Wl,-rpath," + a.libdir] + shlex.split(a.libs) +
            ["-lhmplace", "-lm"])
    env = dict(os.environ, MEMKIND_HBW_NODES="0", HMPLACE_REPORT="")
    env.pop("HMPLACE_REPORT")
    outputs = {}
    for variant in a.only.split(","):
        work = os.path.join(a.out, variant)
        shutil.rmtree(work, ignore_errors=True)
        shutil.copytree(a.src, work)
        exe = os.path.join(work, "prog")
        flags = ["-I" + a.include, "-g"] + extra
        if variant.startswith("pass"):
            opt = "-O0" if variant == "pass-O0" else "-O2"
            penv = dict(env, HMPLACE_PLAN=os.path.abspath(a.plan))
            run([cc, opt, "-fpass-plugin=" + a.plugin] + flags + a.files +
                link + ["-o", exe], work, penv)
        else:
            db = [{"directory": work, "file": f,
                   "arguments": [cc, "-c", f] + flags} for f in a.files]
            with open(os.path.join(work, "compile_commands.json"), "w") as f:
                json.dump(db, f)
            cmd = [a.hmrewrite, "-p", work, "--plan", os.path.abspath(a.plan),
                   "-i"] + a.files
            if a.header_filter:
                cmd.insert(1, "--header-filter=" + a.header_filter)
            r = run(cmd, work)
            sys.stderr.write(r.stderr)
            run([cc, "-O2"] + flags + a.files + link + ["-o", exe], work)
        renv = dict(env)
        report = os.path.join(work, "report.json")
        if a.report:
            renv["HMPLACE_REPORT"] = "json:" + report
        out = run([exe] + shlex.split(a.args), work, renv).stdout
        if a.report:
            with open(report) as f:
                rep = json.load(f)
            for e in sorted(rep["entries"], key=lambda e: e["entry"]):
                out += "entry '%s' %s objects %d bytes %d\n" % (
                    e["entry"], e["kind"], e["objects"], e["bytes"])
            for k in rep["kinds"]:
                out += "kind %s allocs %d fallbacks %d\n" % (
                    k["kind"], k["allocs"], k["fallbacks"])
        outputs[variant] = out
    first = next(iter(outputs.values()))
    if any(o != first for o in outputs.values()):
        for v, o in outputs.items():
            print("== %s\n%s" % (v, o))
        print("builds disagree")
        sys.exit(1)
    sys.stdout.write(first)
    print("agree: " + " ".join(outputs))


if __name__ == "__main__":
    main()
