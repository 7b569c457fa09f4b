#!/usr/bin/env bash
# test_big_trace.sh -- traces over 4 GiB read whole, and losses are counted.
#
#   test_big_trace.sh BUILD          (make check)
#   test_big_trace.sh BUILD --real   (make check-long)
#
# make check: a 9 GiB trace with 1 GiB packets, sparse on disk, whose last
# ring packets start past 4 GiB; and a small discard-mode ring that more OS
# threads record into than it has packets, so some never get one.  --real:
# a 4.6 GB trace recorded in full in $TMPDIR (4.6 GB of disk for a minute).
# Each time `mprof check`, `stats` and `dump` must see every event the
# writer kept, and count as discarded exactly what the writer dropped.
. "$(dirname "$0")/command/common.sh"

# Field KEY of the JSON object in file FILE (a number, or an object's field
# with KEY.FIELD).
json() {
  /usr/bin/python3 -c 'import json, sys
v = json.load(open(sys.argv[1]))
for k in sys.argv[2].split("."): v = v.get(k, 0)
print(v)' "$1" "$2"
}

# TRACE GEN_OUTPUT STREAMS: the reader finds what trace_gen says it kept.
check_trace() {
  local trace=$1 gen_out=$2 streams=$3
  local attempted discarded
  attempted=$(awk '$1 == "events" {print $2}' "$gen_out")
  discarded=$(awk '$1 == "discarded" {print $2}' "$gen_out")
  "$mprof" check "$trace" >"$tmp/check" 2>"$tmp/err" ||
    fail "check $trace: $(cat "$tmp/check" "$tmp/err")"
  [ ! -s "$tmp/err" ] || fail "check $trace printed: $(cat "$tmp/err")"
  grep -q ", $discarded discarded\$" "$tmp/check" ||
    fail "check $trace: not $discarded discarded: $(cat "$tmp/check")"
  "$mprof" stats --json "$trace" >"$tmp/stats"
  local events strings kept
  events=$(json "$tmp/stats" events)
  strings=$(json "$tmp/stats" events_by_type.string)
  kept=$((events - strings))
  [ "$kept" = $((attempted - discarded)) ] ||
    fail "$trace: $kept events besides strings, not $attempted - $discarded"
  [ "$(json "$tmp/stats" discarded)" = "$discarded" ] ||
    fail "$trace: stats discarded $(json "$tmp/stats" discarded), not $discarded"
  [ "$(json "$tmp/stats" streams)" -ge "$streams" ] ||
    fail "$trace: $(json "$tmp/stats" streams) streams, fewer than $streams"
  local lines
  lines=$("$mprof" dump "$trace" | wc -l)
  [ "$lines" = "$events" ] || fail "$trace: dump has $lines lines, not $events"
}

if [ "${2:-}" = --real ]; then
  big=${TMPDIR:-/tmp}/mprof-big-$$.ctf
  trap 'rm -rf "$tmp" "$big"' EXIT
  "$gen" "$big" discard 4600000000 20000000 2 >"$tmp/gen"
  [ "$(stat -c %s "$big")" -gt $((4 << 30)) ] || fail "$big is not over 4 GiB"
  check_trace "$big" "$tmp/gen" 3
  echo "a 4.6 GB trace: $(cat "$tmp/check")"
  exit 0
fi

# Six writer threads take ring packets 0-5 of 1 GiB each: 4 and 5 start
# past 4 GiB, and so do the names packets.
"$gen" "$tmp/sparse.ctf" sparse $((9 << 30)) 1000 6 $((1 << 30)) >"$tmp/gen"
[ "$(stat -c %s "$tmp/sparse.ctf")" = $((9 << 30)) ] || fail "sparse trace size"
grep -q "^discarded 0$" "$tmp/gen" || fail "sparse trace dropped events"
check_trace "$tmp/sparse.ctf" "$tmp/gen" 7
[ "$(json "$tmp/stats" events_by_type.create)" = $((3 * 1000 * 6)) ] ||
  fail "sparse trace: not every thread's creates were read"

# A sanitizer reserves terabytes of shadow address space at start, which
# no address-space limit allows: the windowed reading is checked in the
# plain build only.
if [ "${MPROF_TEST_SANITIZED:-0}" = 1 ]; then
  echo "big_trace: sanitizer build: reading in 600 MiB of address space not checked"
else
# In an address space of 600 MiB, which the 9 GiB file cannot be mapped
# into: check, stats and index read it a packet at a time and say what
# they say without the limit.
limited() { prlimit --as=$((600 << 20)) "$mprof" "$@"; }
limited check "$tmp/sparse.ctf" >"$tmp/check-limited" 2>&1 ||
  fail "check in 600 MiB: $(cat "$tmp/check-limited")"
cmp -s "$tmp/check" "$tmp/check-limited" ||
  fail "check in 600 MiB: $(cat "$tmp/check-limited")"
limited stats --json "$tmp/sparse.ctf" >"$tmp/stats-limited" 2>&1 ||
  fail "stats in 600 MiB: $(cat "$tmp/stats-limited")"
cmp -s "$tmp/stats" "$tmp/stats-limited" ||
  fail "stats in 600 MiB: $(cat "$tmp/stats-limited")"
limited index "$tmp/sparse.ctf" >"$tmp/index-limited" 2>&1 ||
  fail "index in 600 MiB: $(cat "$tmp/index-limited")"
grep -q ": index built: 8 packets, $(json "$tmp/stats" events) events" \
  "$tmp/index-limited" || fail "index in 600 MiB: $(cat "$tmp/index-limited")"
limited stats --json "$tmp/sparse.ctf" >"$tmp/stats-limited" 2>&1
cmp -s "$tmp/stats" "$tmp/stats-limited" ||
  fail "stats with its index: $(cat "$tmp/stats-limited")"
lines=$(limited dump "$tmp/sparse.ctf" | wc -l)
[ "$lines" = "$(json "$tmp/stats" events)" ] ||
  fail "dump in 600 MiB: $lines lines, not $(json "$tmp/stats" events)"
# What needs the whole file mapped says so, in one line, and fails.
if limited ctf "$tmp/sparse.ctf" -o "$tmp/ctf" >"$tmp/out" 2>&1; then
  fail "a CTF directory of a trace that cannot be mapped"
fi
grep -q "bigger than this process may map" "$tmp/out" ||
  fail "ctf in 600 MiB: $(cat "$tmp/out")"

# Every damaged trace, made 5 GiB (sparse) so that it cannot be mapped in
# 600 MiB: check, stats and dump read its head and packets apart and say
# exactly what they say of it mapped whole; but a file that does not begin
# as an mprof trace has no head to map, and says so in its one line.
for damaged in "$(dirname "$0")"/data/damaged/*.ctf; do
  cp "$damaged" "$tmp/padded.ctf"
  truncate -s $((5 << 30)) "$tmp/padded.ctf"
  for command in check "stats --json" dump; do
    # shellcheck disable=SC2086 # the command's words
    code=0 && "$mprof" $command "$tmp/padded.ctf" >"$tmp/whole" 2>&1 || code=$?
    # shellcheck disable=SC2086
    limited_code=0 && limited $command "$tmp/padded.ctf" >"$tmp/windowed" 2>&1 ||
      limited_code=$?
    if grep -q "not an mprof trace (bad magic)" "$tmp/whole"; then
      [ "$(grep -c "too big to map whole, and not an mprof trace" \
        "$tmp/windowed")" = 1 ] && [ "$limited_code" = "$code" ] &&
        cmp -s <(grep -v '^mprof: ' "$tmp/whole") \
          <(grep -v '^mprof: ' "$tmp/windowed") ||
        fail "$command $(basename "$damaged") in 600 MiB: $(cat "$tmp/windowed")"
      continue
    fi
    [ "$code" = "$limited_code" ] && cmp -s "$tmp/whole" "$tmp/windowed" ||
      fail "$command $(basename "$damaged") in 600 MiB: exit $limited_code, not" \
        "$code: $(diff "$tmp/whole" "$tmp/windowed" | head -5)"
  done
done
fi

# 20 writer threads, 13 ring packets: 7 threads never get one and drop all.
"$gen" "$tmp/small.ctf" discard 65536 10 20 >"$tmp/gen"
grep -q "^discarded [1-9]" "$tmp/gen" || fail "the small ring dropped nothing"
check_trace "$tmp/small.ctf" "$tmp/gen" 13
echo "ok: a 9 GiB sparse trace and a ring too small for its threads"
