#!/usr/bin/env bash
# crash.sh -- crash survival: seq_writer (4 OS threads at full speed, an
# overwrite ring in a trace file) is SIGKILLed at a random instant, KILLS
# times.  Each trace must pass seq_check (every completed event kept but
# what the ring overwrote, at most the in-flight one per thread missing;
# the ring reuses packets by position, so a packet held long may outlive
# its stream's next ones: see seq_check.c),
# `mprof check`, and babeltrace2 (through `mprof ctf`) with the same count.
#   crash.sh BUILD KILLS
set -euo pipefail
build=$1
kills=$2
mprof=$build/mprof
writer=$build/test/rel/seq_writer
checker=$build/test/rel/seq_check
tmp=$(mktemp -d)
pid= delay=
trap '[ -z "$pid" ] || kill -KILL $pid 2>/dev/null || true; rm -rf "$tmp"' EXIT
fail() { echo "FAIL (kill $i, ${delay}s after tracing began): $*" >&2; cp "$tmp/t.ctf" "$tmp/side" /tmp/ 2>/dev/null || true; exit 1; }
threads=4
values=0
overwritten=0
gaps=0
for ((i = 1; i <= kills; i++)); do
  rm -rf "$tmp/t.ctf" "$tmp/side" "$tmp/dir"
  "$writer" file "$tmp/t.ctf" "$tmp/side" $threads 262144 &
  pid=$!
  # Once tracing has started (a kill before that leaves nothing to lose),
  # a random instant in the next 250 ms.
  until [ "$(od -An -t u8 -N 8 "$tmp/side" 2>/dev/null | tr -d ' ')" = 1 ]; do
    kill -0 $pid 2>/dev/null || fail "the writer died on its own"
    sleep 0.005
  done
  delay=0.$(printf %03d $((RANDOM % 250)))
  sleep "$delay"
  kill -KILL $pid
  wait $pid 2>/dev/null || true
  pid=
  out=$("$checker" "$tmp/t.ctf" "$tmp/side" $threads) || fail "seq_check"
  values=$((values + $(echo "$out" | tail -1 | awk '{print $4}')))
  overwritten=$((overwritten + $(echo "$out" | grep -c overwritten || true)))
  check=$("$mprof" check "$tmp/t.ctf" 2>&1) || fail "mprof check: $check"
  events=$(echo "$check" | sed -n 's/.*: ok, \([0-9]*\) events.*/\1/p')
  "$mprof" ctf "$tmp/t.ctf" -o "$tmp/dir" || fail "mprof ctf"
  seen=$(babeltrace2 "$tmp/dir" 2>"$tmp/bt-err" | wc -l)
  # babeltrace2 warns of the packets the ring reused (a sequence gap): only
  # where seq_check saw that gap too.
  if grep -q "WARNING: Tracer discarded [0-9]* packets\?" "$tmp/bt-err"; then
    echo "$out" | grep -q "reused\|overwritten" ||
      fail "babeltrace2 saw packets missing that seq_check did not"
    gaps=$((gaps + 1))
    sed -i '/WARNING: Tracer discarded [0-9]* packets\?/d' "$tmp/bt-err"
  fi
  [ ! -s "$tmp/bt-err" ] || fail "babeltrace2: $(head -3 "$tmp/bt-err")"
  [ "$seen" = "$events" ] || fail "babeltrace2 saw $seen events, mprof $events"
done
echo "crash: $kills kills, $kills traces checked, $values sequence values verified;" \
  "$overwritten times a stalled thread's newest packet overwritten by the ring;" \
  "$gaps traces with packets the ring reused out of order (a sequence gap)"
