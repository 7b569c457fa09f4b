#!/usr/bin/env bash
# env_mode.sh -- MPROF_MODE from the environment is obeyed: env_events
# records 0 .. 199999 into a 64 KiB ring, then 300 labels of new text.
# discard keeps the oldest values (0 up, contiguous) and counts the rest,
# exactly (the labels' strings still reach the names area, whose packets
# count no drops); overwrite, and no MPROF_MODE at all, keep the newest (up
# to 199999, contiguous) and discard nothing.  The trace header's
# ring_mode says which (docs/FORMAT.md 1.1).
#   env_mode.sh BUILD
set -euo pipefail
build=$1
mprof=$build/mprof
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }
unset MPROF_MODE
count=200000

# run NAME [MODE]: record, then print "ring_mode first last values
# contiguous|gaps discarded events" of the trace (events: those the program
# recorded, kept: its values, create and labels).
run() {
  local trace=$tmp/$1.ctf
  if [ $# = 2 ]; then
    MPROF_TRACE=$trace MPROF_SIZE=64K MPROF_MODE=$2 "$build/test/rel/env_events" $count 300
  else
    MPROF_TRACE=$trace MPROF_SIZE=64K "$build/test/rel/env_events" $count 300
  fi
  local discarded
  discarded=$("$mprof" check "$trace" | sed -n 's/.* \([0-9]*\) discarded.*/\1/p')
  "$mprof" dump "$trace" | awk -v mode="$(od -An -tu4 -j12 -N4 "$trace" | tr -d ' ')" \
      -v discarded="${discarded:-none}" '
    $3 == "counter_value" || $3 == "create" || $3 == "label" { events++ }
    $3 == "counter_value" {
      sub("value=", "", $6); v = $6 + 0
      if (n && v != last + 1) gaps++
      if (!n) first = v
      last = v; n++
    }
    END { print mode, first, last, n, gaps ? "gaps" : "contiguous", discarded, events }'
}

read -r mode first last n order discarded events <<<"$(run discard discard)"
[ "$mode $first $order" = "1 0 contiguous" ] && [ "$n" -lt $count ] &&
  [ $((events + discarded)) = $((count + 1 + 300)) ] ||
  fail "discard: ring_mode $mode, values $first..$last ($n, $order), $events events kept, $discarded discarded"
for mode_setting in overwrite ""; do
  if [ -n "$mode_setting" ]; then out=$(run overwrite overwrite); else out=$(run default); fi
  read -r mode first last n order discarded events <<<"$out"
  [ "$mode $last $order $discarded" = "0 $((count - 1)) contiguous 0" ] && [ "$first" -gt 0 ] ||
    fail "${mode_setting:-no MPROF_MODE}: ring_mode $mode, values $first..$last ($n, $order), $discarded discarded"
done
echo "ok: MPROF_MODE=discard keeps the oldest, overwrite and the default the newest"
