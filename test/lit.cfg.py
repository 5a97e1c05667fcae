# lit configuration for HmPlace: substitutions for the project's tools, the
# runtime's include/lib paths, the LLVM's compilers and test utilities.
import os
import sys
import lit.formats
from lit.llvm.subst import ToolSubst

config.name = "HmPlace"
config.test_format = lit.formats.ShTest(execute_external=False)
config.suffixes = [".test", ".yaml", ".locations", ".c", ".cpp", ".ll", ".f90"]
config.excludes = ["Inputs", "corpus", "lit.cfg.py", "lit.site.cfg.py"]
config.test_source_root = os.path.dirname(__file__)
config.test_exec_root = os.path.join(config.hmplace_obj_root, "test")

bindir = os.path.join(config.hmplace_obj_root, "bin")
tools = config.llvm_tools_dir
config.environment["PATH"] = os.pathsep.join(
    [bindir, tools, config.environment.get("PATH", os.environ["PATH"])])
# Messages are compared verbatim; keep them uncoloured and untranslated.
config.environment["LC_ALL"] = "C"
config.environment.pop("HMPLACE", None)
config.environment.pop("HMPLACE_REPORT", None)
config.environment.pop("MEMKIND_HBW_NODES", None)
config.environment.pop("HMPLACE_PLAN", None)
config.environment.pop("HMPLACE_PROFILE", None)
# The advisor's LLC comes from sysfs; tests give it (--llc) or a sysfs tree
# of their own (advise/llc.test), so that no figure depends on the machine.
config.environment["HMPLACE_SYSFS"] = "/nonexistent"

def tool(name):
    return os.path.join(bindir, name)

# The LLVM the tree was built against (19 or 22): %llvm_major, and the
# compilers by the names Debian puts on PATH, which the wrappers run (before
# %clang, %flang and %clangxx, which prefix them).
config.substitutions.append(("%llvm_major", config.llvm_major))
config.substitutions.append(("%clangxx_name", "clang++-" + config.llvm_major))
config.substitutions.append(("%clang_name", "clang-" + config.llvm_major))
config.substitutions.append(("%flang_name", "flang-new-" + config.llvm_major))
config.available_features.add("llvm-" + config.llvm_major)
# That LLVM's clang-format (hmrewrite formats with its libFormat), and git's
# clang-format subcommand running it.
config.substitutions.append(
    ("%git_clang_format", os.path.join(tools, "git-clang-format") +
     " --binary " + os.path.join(tools, "clang-format")))
config.substitutions.append(("%clang_format", os.path.join(tools, "clang-format")))
# Longer names first: lit substitutes in order, and %hmplan prefixes others.
config.substitutions.append(("%hmplan_raw_fuzz", tool("hmplan-raw-fuzz")))
config.substitutions.append(("%hmplan_indexed_fuzz", tool("hmplan-indexed-fuzz")))
config.substitutions.append(("%hmplan_fuzz", tool("hmplan-fuzz")))
config.substitutions.append(("%hmplan_sanitized", tool("hmplan-sanitized")))
config.substitutions.append(("%hmplan", tool("hmplan")))
# The build tree itself (install tests install from it).
config.substitutions.append(("%hmplace_build", config.hmplace_obj_root))
config.substitutions.append(("%hmplace_src", config.hmplace_src_root))
config.substitutions.append(("%hmrewrite", tool("hmrewrite")))
# The profiling route (hmcc --profile): MemProf, frame pointers, the
# profile support library (runtime/profile/profile.c).
config.substitutions.append(("%hmcc_profile", tool("hmcc") + " --profile"))
config.substitutions.append(("%hmcxx_profile", tool("hmc++") + " --profile"))
config.substitutions.append(("%hmfort_profile", tool("hmfort") + " --profile"))
config.substitutions.append(("%hmfort", tool("hmfort")))
config.substitutions.append(("%hmcxx", tool("hmc++")))
config.substitutions.append(("%hmcc", tool("hmcc")))
config.substitutions.append(("%python", sys.executable))
config.substitutions.append(
    ("%hmplace_plugin", os.path.join(config.hmplace_obj_root, "lib", "HmPlace.so")))
config.substitutions.append(("%opt", os.path.join(tools, "opt")))
config.substitutions.append(("%flang", os.path.join(tools, "flang-new")))
config.substitutions.append(
    ("%apply_replacements", os.path.join(tools, "clang-apply-replacements")))
config.substitutions.append(
    ("%examples", os.path.join(config.hmplace_src_root, "examples")))
# Runtime: headers, and three ways to link it.
rt_inc = os.path.join(config.hmplace_src_root, "runtime", "include")
libdir = os.path.join(config.hmplace_obj_root, "lib")
rt_deps = "-lmemkind -lnuma -ldl -lpthread"
config.substitutions.append(("%hmplace_cflags", "-I" + rt_inc + " -g"))
# Default: the shared runtime with process-wide free/delete replacement.
config.substitutions.append(
    ("%hmplace_lib", "-L%s -Wl,-rpath,%s -lhmplace %s" % (libdir, libdir, rt_deps)))
# Fortran programs whose ALLOCATEs are placed inside flang's runtime.
config.substitutions.append(
    ("%hmplace_fortran_lib", "-L%s -Wl,-rpath,%s -lhmplace-fortran -lhmplace %s" % (libdir, libdir, rt_deps)))
# Without interposition.
config.substitutions.append(
    ("%hmplace_core_lib", "%s/libhmplace-core.a %s" % (libdir, rt_deps)))
for san, flags in [("asan", "-fsanitize=address,undefined -fno-sanitize-recover=all"),
                   ("tsan", "-fsanitize=thread")]:
    config.substitutions.append(
        ("%%hmplace_%s_lib" % san,
         "%s %s/libhmplace-core-%s.a %s" % (flags, libdir, san, rt_deps)))
if config.hmplace_sanitizers:
    config.available_features.add("sanitizers")
# Context tests: one program built with HmPlace.so at -O0 and -O2 and with
# hmrewrite, run, outputs compared (test/context/Inputs/three-ways.py).
config.substitutions.append(
    ("%three_ways", " ".join([
        sys.executable,
        os.path.join(config.hmplace_src_root, "test", "context", "Inputs",
                     "three-ways.py"),
        "--clang", os.path.join(tools, "clang"),
        "--clangxx", os.path.join(tools, "clang++"),
        "--plugin", os.path.join(config.hmplace_obj_root, "lib", "HmPlace.so"),
        "--hmrewrite", tool("hmrewrite"),
        "--include", rt_inc, "--libdir", libdir])))
# Tests see exactly one NUMA node and no HBM; %hbw makes memkind's HBW and
# DAX kinds use node 0, as on a machine that has them.
config.substitutions.append(("%hbw", "env MEMKIND_HBW_NODES=0 MEMKIND_DAX_KMEM_NODES=0"))
config.substitutions.append(("%clangxx", os.path.join(tools, "clang++")))
config.substitutions.append(("%clang", os.path.join(tools, "clang")))
config.substitutions.append(("%FileCheck", os.path.join(tools, "FileCheck")))
config.substitutions.append(("%memkind_h", "/usr/include/memkind.h"))
for t in ["FileCheck", "not", "split-file"]:
    config.substitutions.append(
        (r"(?<![\w%-])" + t + r"(?![\w-])", os.path.join(tools, t)))

# An immutable directory (root + chattr) makes file creation fail even for
# root: used to check that a failed in-place rewrite leaves files intact.
def chattr_works():
    import subprocess, tempfile
    try:
        d = tempfile.mkdtemp(dir=config.hmplace_obj_root)
        ok = subprocess.run(["chattr", "+i", d], capture_output=True).returncode == 0
        subprocess.run(["chattr", "-i", d], capture_output=True)
        os.rmdir(d)
        return ok
    except Exception:
        return False
if os.path.exists(os.path.join(tools, "flang-new")):
    config.available_features.add("flang")
# Open MPI (scripts/install-deps installs it): MPI wrappers and mpirun.
import shutil
if shutil.which("gcc") and shutil.which("g++"):
    config.available_features.add("gcc")
# lintian (scripts/install-deps installs it): the .deb is checked with it.
if shutil.which("lintian"):
    config.available_features.add("lintian")
# valgrind (scripts/install-deps installs it): a placed program under memcheck.
if shutil.which("valgrind"):
    config.available_features.add("valgrind")
if shutil.which("mpicc") and shutil.which("mpirun"):
    config.available_features.add("mpi")
# LLVM 22's clang beside a build against 19 (scripts/test installs every
# LLVM's packages first): profiles in LLVM 22's raw format for the 19 reader.
if config.llvm_major != "22" and os.path.exists("/usr/lib/llvm-22/bin/clang"):
    config.available_features.add("clang-22")
    config.substitutions.append(("%llvm22_clang", "/usr/lib/llvm-22/bin/clang"))
    config.substitutions.append(
        ("%llvm22_profdata", "/usr/lib/llvm-22/bin/llvm-profdata"))
# And LLVM 19's beside a build against 22: its indexed profiles.
if config.llvm_major != "19" and os.path.exists("/usr/lib/llvm-19/bin/clang"):
    config.available_features.add("clang-19")
    config.substitutions.append(("%llvm19_clang", "/usr/lib/llvm-19/bin/clang"))
    config.substitutions.append(
        ("%llvm19_profdata", "/usr/lib/llvm-19/bin/llvm-profdata"))
# The advisor reads the LLC from sysfs where the machine describes it.
if os.path.exists("/sys/devices/system/cpu/cpu0/cache/index0/size"):
    config.available_features.add("sysfs-cache")
if chattr_works():
    config.available_features.add("chattr")

if config.hmplace_fuzz:
    config.available_features.add("fuzz")

# scripts/vm boots a small qemu VM with several NUMA nodes (HBM, a slow tier,
# two sockets) and runs a program inside. scripts/test installs what it needs,
# so the VM tests are skipped only where it cannot run (said by --check).
vm_script = os.path.join(config.hmplace_src_root, "scripts", "vm")
config.substitutions.append(("%vm", sys.executable + " " + vm_script))
def vm_works():
    import subprocess
    return subprocess.run([sys.executable, vm_script, "--check"],
                          capture_output=True).returncode == 0
if vm_works():
    config.available_features.add("numa-vm")
else:
    lit_config.note("scripts/vm cannot boot a VM here: VM tests are skipped")
