"""boot-lockup.py VM_SCRIPT DIR (boot-lockup.test): scripts/vm's boot() with stand-ins."""
import importlib.machinery
import importlib.util
import os
import sys

loader = importlib.machinery.SourceFileLoader("vm", sys.argv[1])
spec = importlib.util.spec_from_loader("vm", loader)
vm = importlib.util.module_from_spec(spec)
loader.exec_module(vm)
d = sys.argv[2]
console, result, boots = (os.path.join(d, n) for n in ("console", "result", "boots"))


def stand_in(script):
    """A 'qemu' that counts its boots and runs script (sh)."""
    return ["sh", "-c", "echo x >> %s; %s" % (boots, script)]


def run(name, script):
    if os.path.exists(boots):
        os.remove(boots)
    err = vm.boot(stand_in(script), console, result, timeout=20)
    n = len(open(boots).read().split())
    print("%s: %r after %d boot%s" % (name, err, n, "" if n == 1 else "s"))


lock = "echo 'watchdog: BUG: soft lockup - CPU#1 stuck' >> %s; sleep 30" % console
run("boot lockup", lock)
# Locked up the first time only: the second boot runs and exits.
run("second boot fine",
    "if [ $(wc -l < %s) -lt 2 ]; then %s; else echo done > %s; fi"
    % (boots, lock, result))
run("lockup while running",
    "echo '@@HMVM start' >> %s; echo 'watchdog: BUG: soft lockup' >> %s; "
    "sleep 1; echo done > %s" % (console, console, result))
