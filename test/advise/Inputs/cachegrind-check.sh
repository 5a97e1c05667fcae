#!/usr/bin/env bash
# cachegrind-check.sh NAME PROFILED PLAIN "SIZE..." RUN-ARGS -- IDLE-ARGS
#
# Run PROFILED (built with hmcc --profile) with RUN-ARGS, RUNS times
# (default 3), and print the misses of one run (`hmplan misses` of all the
# runs' profiles, a fully associative LRU cache, divided by RUNS) beside
# valgrind cachegrind's last-level data misses of PLAIN (the same sources,
# not instrumented) with the same arguments, per cache SIZE (bytes), within
# TOLERANCE (default 0.10). cachegrind's LL is made 256-way, as close to the
# fully associative cache the measurement models as it runs fast; its count
# less that of a run with IDLE-ARGS (the loader's and the libraries'
# start-up, which the profiled build does not instrument).
# Needs HMPLAN (the hmplan to run) and CMP (cachegrind-compare.py).
set -euo pipefail
name=$1 prof=$2 plain=$3 sizes=$4
shift 4
run=()
while [ $# -gt 0 ] && [ "$1" != -- ]; do run+=("$1"); shift; done
shift
idle=("$@")
runs=${RUNS:-3}
for ((i = 0; i < runs; i++)); do
  env MEMPROF_OPTIONS=log_path="$PWD/$name.raw" "$prof" "${run[@]}" > /dev/null
done
caches=
for s in $sizes; do caches="$caches${caches:+,}$s"; done
"$HMPLAN" misses "$name".raw.* --binary "$prof" --cache "$caches" > "$name.misses.txt"
pairs=()
for s in $sizes; do
  cg() { valgrind --tool=cachegrind --cache-sim=yes --LL="$s,256,64" \
           --cachegrind-out-file=/dev/null "$plain" "$@" > /dev/null; }
  cg "${run[@]}" 2> "$name.cg.$s"
  cg "${idle[@]}" 2> "$name.idle.$s"
  pairs+=("$s=$name.cg.$s:$name.idle.$s")
done
echo "$name:"
python3 "$CMP" "${TOLERANCE:-0.10}" "$runs" "$name.misses.txt" "${pairs[@]}"
