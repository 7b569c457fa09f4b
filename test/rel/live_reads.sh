#!/usr/bin/env bash
# live_reads.sh -- run live_reads (SNAPSHOTS snapshots of a trace being
# written at full speed, each checked event by event and against the values
# its writers had written before it), then `mprof check` on the snapshots
# it saved: each must be a good, finished trace.
#   live_reads.sh BUILD SNAPSHOTS
set -euo pipefail
build=$1
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
"$build/test/rel/live_reads" "$2" "$tmp"
saved=0
for f in "$tmp"/snap-*.ctf; do
  out=$("$build/mprof" check "$f" 2>&1) || { echo "FAIL: $out" >&2; exit 1; }
  case $out in *": ok, "*" events "*) ;; *) echo "FAIL: $out" >&2; exit 1 ;; esac
  case $out in *"still being written"*) echo "FAIL: not finished: $out" >&2; exit 1 ;; esac
  saved=$((saved + 1))
done
[ $saved -ge $((($2 + 999) / 1000)) ] || { echo "FAIL: $saved snapshots saved" >&2; exit 1; }
echo "live_reads: $saved saved snapshots pass mprof check"
