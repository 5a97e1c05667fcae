#!/usr/bin/env bash
# reformat.sh HMREWRITE REVIEW STYLE DIR PLAN [hmrewrite args...] -- FILES...
# Rewrite DIR with PLAN (-i), commit, format every source with STYLE (a
# clang-format style other than the tree's), then rerun hmrewrite and
# hmplace-review --strict on the formatted tree. Prints the rerun's summary,
# its warnings and its notes on plan entries, the review's verdict, and how
# many placed calls and notes the text holds before and after.
set -eu
hmrewrite=$1 review=$2 style=$3 dir=$4 plan=$5
shift 5
args=()
while [ "$1" != -- ]; do args+=("$1"); shift; done
shift
cd "$dir"
count() { cat "$@" | tr -d ' \t\n' | grep -o 'hmplace_[a-z_]*(HMPLACE_\|HMPLACE_CALLER[A-Z_]*(' | wc -l; }
"$hmrewrite" --plan "$plan" "${args[@]}" -i "$@" -- > /dev/null 2>&1
before=$(count *.[ch]*)
git init -q && git add -A && git -c user.name=t -c user.email=t@t commit -qm rewritten
for f in *.[ch]*; do "${CLANG_FORMAT:-clang-format-19}" -i --style="$style" "$f"; done
echo "formatted: $(git diff --stat HEAD | tail -1)"
"$hmrewrite" --plan "$plan" "${args[@]}" "$@" -- 2>&1 |
  grep -E 'warning|note: plan entry|hmrewrite:' || true
"$review" --strict --plan "$plan" "${args[@]}" "$@" -- 2>&1 | tail -1
echo "placements: $before before, $(count *.[ch]*) after"
