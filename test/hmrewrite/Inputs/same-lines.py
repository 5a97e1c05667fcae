"""Checks that a rewrite kept every line's number as the compiler counts it.

Usage: same-lines.py REV  (in a git work tree: the files changed since REV)

For each changed file, the original (git show REV:FILE) and the rewritten
text are matched line by line (difflib). A line the rewrite left as it was
must have, in the rewritten file, the number it had (counting `#line N`
directives as the compiler does); a changed statement must begin on its
original line. Prints the count of lines checked and each line that moved;
exits 1 if one did.
"""
import difflib
import re
import subprocess
import sys

LINE = re.compile(r'^\s*#\s*(?:line\s+)?(\d+)\b')


def presumed(lines):
    """The compiler's number of each physical line (1-based)."""
    out, nxt = [], 1
    for text in lines:
        out.append(nxt)
        m = LINE.match(text)
        nxt = int(m.group(1)) if m else nxt + 1
    return out


def main():
    rev = sys.argv[1]
    files = subprocess.run(['git', 'diff', '--name-only', rev], check=True,
                           capture_output=True, text=True).stdout.split()
    checked, moved = 0, []
    for f in files:
        old = subprocess.run(['git', 'show', f'{rev}:{f}'], check=True,
                             capture_output=True, text=True).stdout
        old = old.splitlines()
        new = open(f).read().splitlines()
        num = presumed(new)
        sm = difflib.SequenceMatcher(None, old, new, autojunk=False)
        for tag, i1, i2, j1, j2 in sm.get_opcodes():
            if tag == 'equal':
                pairs = zip(range(i1, i2), range(j1, j2))
            elif tag == 'replace':
                pairs = [(i1, j1)]  # the statement begins where it began
            else:
                continue
            for i, j in pairs:
                checked += 1
                if num[j] != i + 1:
                    moved.append(f'{f}:{i + 1}: now counted as line {num[j]}')
    print(f'{len(files)} files, {checked} lines checked, '
          f'{len(moved)} at another number')
    for m in moved:
        print(m)
    return 1 if moved else 0


sys.exit(main())
