"""man-options.py PAGE.gz HELP.txt - every option HELP.txt names (--long,
or -x at the start of a help line) must have an entry of its own in the
manual page (a tagged paragraph, .TP, whose tag names it). Prints the
missing ones, or 'every option is in the page'."""
import gzip
import re
import sys

roff = gzip.open(sys.argv[1], "rt").read().split("\n")
tags = " ".join(roff[i + 1] for i, l in enumerate(roff[:-1]) if l == ".TP")
tags = re.sub(r"\\f[BIRP]", "", tags).replace("\\-", "-")
helptext = open(sys.argv[2]).read()
generic = {"--help", "--help-list", "--help-hidden", "--help-list-hidden",
           "--version"}
opts = set(re.findall(r"(?<![\w-])(--[a-z][a-z-]*)", helptext))
opts |= set(re.findall(r"^\s+(-[a-zA-Z])\b", helptext, re.M))
missing = sorted(o for o in opts - generic
                 if not re.search(r"(?<![\w-])" + re.escape(o) + r"(?![\w-])", tags))
print("missing: " + ", ".join(missing) if missing else "every option is in the page")
