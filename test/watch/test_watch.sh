#!/bin/sh
# test_watch.sh BUILD_DIR -- `mprof watch` following programs recorded live
# by `mprof record`: the zoo's blocked_often (its loop blocked 70 ms five
# times) gives a capture per block, each checked by check_capture.py
# against the whole trace; --max is kept; the correct programs give none;
# the demo's hung run gives its lost wake-up; SIGINT and --for end it with
# whole captures; a trace that disappears or a bad command line is one
# line and a non-zero exit, and so is a FIFO where a capture would go;
# --pid follows a process's memory.
runs=runs
. "$(dirname "$0")/common.sh"

# record NAME PROGRAM [SIZE]: start PROGRAM under mprof record in the
# background, its trace $out/NAME.ctf; returns once the trace exists.
record() {
  rm -f "$out/$1.ctf"
  "$mprof" record -o "$out/$1.ctf" --size "${3:-512K}" -- "$2" > "$out/$1.rec" 2>&1 &
  recorder=$!
  tries=0
  until [ -e "$out/$1.ctf" ] || [ $tries -ge 100 ]; do sleep 0.05; tries=$((tries + 1)); done
}

# Five blocks of 70 ms: a capture each, on the timer, cut around it.
record often "$zoo/zoo_blocked_often"
"$mprof" watch --on 'loop_blocked>50ms' --before 0.5s --after 200ms -o "$out/often" "$out/often.ctf" \
  > "$out/often.out" 2> "$out/often.err" || fail "watch blocked_often: $(cat "$out/often.err")"
wait $recorder
n=$(captures "$out/often")
[ "$n" -ge 3 ] && [ "$n" -le 5 ] || fail "blocked_often: $n captures for its 5 blocks"
[ "$(wc -l < "$out/often.out")" = "$n" ] || fail "blocked_often: not one line per capture"
for json in "$out"/often/capture-*.json; do
  /usr/bin/python3 "$here/check_capture.py" "$mprof" "$json" loop_blocked timer \
    "$out/often.ctf" || status=1
done
grep -q '^.*/capture-1.ctf: loop_blocked: a callback of \\"timer\\"' "$out/often.out" ||
  fail "blocked_often: the capture's line: $(head -1 "$out/often.out")"

# --max 2: two captures and no more.
record max "$zoo/zoo_blocked_often"
"$mprof" watch --on loop_blocked --max 2 -o "$out/max" "$out/max.ctf" > "$out/max.out" 2>&1
wait $recorder
[ "$(captures "$out/max")" = 2 ] || fail "--max 2: $(captures "$out/max") captures"

# The correct programs: no capture for any error or warning.
for name in ok_http ok_fswalk ok_dns ok_multiloop ok_slow_work; do
  record "$name" "$zoo/zoo_$name" 8M
  "$mprof" watch -o "$out/$name" "$out/$name.ctf" > "$out/$name.out" 2>&1 ||
    fail "watch $name: $(cat "$out/$name.out")"
  wait $recorder
  [ "$(captures "$out/$name")" = 0 ] || fail "$name: a capture: $(cat "$out/$name.out")"
done

# The demo's hung run (its program killed after 3 s): the lost wake-up.
if [ -x "$build/examples/arp_race" ]; then
  hung=
  for attempt in $(seq 1 20); do
    rm -rf "$out/arp.ctf" "$out/arp"
    MPROF_TRACE="$out/arp.ctf" timeout 3 "$build/examples/arp_race" > /dev/null 2>&1 &
    program=$!
    tries=0
    until [ -e "$out/arp.ctf" ] || [ $tries -ge 100 ]; do sleep 0.02; tries=$((tries + 1)); done
    "$mprof" watch --on lost_wakeup -o "$out/arp" "$out/arp.ctf" > "$out/arp.out" 2>&1 ||
      fail "watch arp_race: $(cat "$out/arp.out")"
    wait $program
    if [ $? = 124 ]; then hung=$attempt; break; fi
    [ "$(captures "$out/arp")" = 0 ] || fail "arp_race, a good run: $(cat "$out/arp.out")"
  done
  if [ -n "$hung" ]; then
    [ "$(captures "$out/arp")" = 1 ] || fail "arp_race hung: $(captures "$out/arp") captures"
    /usr/bin/python3 "$here/check_capture.py" "$mprof" "$out/arp/capture-1.json" \
      lost_wakeup "ARP response" || status=1
  else
    fail "arp_race never hung in 20 runs"
  fi
fi

# SIGINT while a capture waits for its --after: it is written whole, and
# nothing half-written is left.
record sigint "$zoo/zoo_blocked_often"
"$mprof" watch --on loop_blocked --after 10s -o "$out/sigint" "$out/sigint.ctf" \
  > "$out/sigint.out" 2>&1 &
watcher=$!
sleep 1.5
kill -INT $watcher
started=$(date +%s%N)
wait $watcher || fail "watch after SIGINT: exit $?: $(cat "$out/sigint.out")"
[ $(( $(date +%s%N) - started )) -lt 1000000000 ] || fail "SIGINT: not ended within 1 s"
wait $recorder
[ "$(captures "$out/sigint")" -ge 1 ] || fail "SIGINT: no capture"
[ -z "$(ls -A "$out/sigint" | grep -Ev '^capture-[0-9]+\.(ctf|json)$')" ] ||
  fail "SIGINT: left $(ls -A "$out/sigint")"
for json in "$out"/sigint/capture-*.json; do
  /usr/bin/python3 "$here/check_capture.py" "$mprof" "$json" loop_blocked timer || status=1
done

# --for 1s ends it while the program runs on.
record for "$zoo/zoo_blocked_often"
started=$(date +%s%N)
"$mprof" watch --for 1s -o "$out/for" "$out/for.ctf" > /dev/null 2>&1 || fail "--for: exit $?"
took=$(( ($(date +%s%N) - started) / 1000000 ))
[ $took -ge 900 ] && [ $took -lt 1500 ] || fail "--for 1s took $took ms"
wait $recorder

# The trace disappears, is truncated or is replaced while watched: one
# line, a non-zero exit, and the capture written before stays whole.
# broken NAME HOW LINE: HOW (a command on the trace) once the watch has
# written its first capture (at most 10 s in).
broken() {
  record "$1" "$zoo/zoo_blocked_often"
  "$mprof" watch --on loop_blocked -o "$out/$1" "$out/$1.ctf" > "$out/$1.out" 2> "$out/$1.err" &
  watcher=$!
  tries=0
  until [ "$(captures "$out/$1")" -ge 1 ] || [ $tries -ge 200 ]; do
    sleep 0.05
    tries=$((tries + 1))
  done
  $2 "$out/$1.ctf"
  wait $watcher
  code=$?
  wait $recorder
  [ $code = 3 ] || fail "a trace $1: exit $code"
  [ "$(wc -l < "$out/$1.err")" = 1 ] && grep -q "^mprof watch: .*$1.ctf: $3\$" "$out/$1.err" ||
    fail "a trace $1: $(cat "$out/$1.err")"
  [ "$(captures "$out/$1")" -ge 1 ] && "$mprof" check "$out/$1/capture-1.ctf" > /dev/null ||
    fail "a trace $1: no whole capture before"
}
replace() { cp "$1" "$1.new" && mv "$1.new" "$1"; }
broken gone rm "the trace disappeared"
broken truncated "truncate -s 4096" "the trace was truncated"
broken replaced replace "the trace was replaced by another file"

# The output directory fills up (a tmpfs of 600 KiB, where this test may
# mount one; captures of a 512 KiB ring): one line, exit 3, and the
# capture before it whole.
full=$out/full
mkdir -p "$full"
if mount -t tmpfs -o size=600k tmpfs "$full" 2>/dev/null; then
  trap 'umount "$full" 2>/dev/null' EXIT
  record full "$zoo/zoo_blocked_often"
  "$mprof" watch --on loop_blocked -o "$full/caps" "$out/full.ctf" > /dev/null 2> "$out/full.err"
  code=$?
  wait $recorder
  [ $code = 3 ] && [ "$(wc -l < "$out/full.err")" = 1 ] &&
    grep -q 'capture-2.ctf: No space left on device$' "$out/full.err" ||
    fail "a full disk: exit $code: $(cat "$out/full.err")"
  [ "$(ls -A "$full/caps" | tr '\n' ' ')" = "capture-1.ctf capture-1.json " ] &&
    "$mprof" check "$full/caps/capture-1.ctf" > /dev/null ||
    fail "a full disk: left $(ls -A "$full/caps")"
else
  echo "watch: no tmpfs could be mounted here: a full disk not tested"
fi

# A FIFO where a capture's file goes is refused, never waited on (timeout:
# a regression fails rather than hangs): one line, exit 3, and nothing of
# the capture left.  fifo_at NAME: the FIFO at DIR/NAME.
fifo_at() {
  record "fifo-$1" "$zoo/zoo_blocked_often"
  mkdir -p "$out/fifo-$1"
  mkfifo "$out/fifo-$1/$1"
  timeout 10 "$mprof" watch --on loop_blocked -o "$out/fifo-$1" "$out/fifo-$1.ctf" \
    > /dev/null 2> "$out/fifo-$1.err"
  code=$?
  wait $recorder
  [ $code = 3 ] && [ "$(wc -l < "$out/fifo-$1.err")" = 1 ] &&
    grep -q "^mprof watch: .*/fifo-$1/$1: not a regular file; remove it, or name another -o\$" \
      "$out/fifo-$1.err" || fail "a FIFO at $1: exit $code: $(cat "$out/fifo-$1.err")"
  [ "$(ls -A "$out/fifo-$1")" = "$1" ] && [ -p "$out/fifo-$1/$1" ] ||
    fail "a FIFO at $1: left $(ls -A "$out/fifo-$1")"
}
fifo_at capture-1.ctf
fifo_at capture-1.json

# Bad input: one line, the exit code.
expect_error() { # CODE PATTERN ARGS...: mprof watch ARGS fails so
  want=$1 pattern=$2
  shift 2
  "$mprof" watch "$@" > "$out/bad.out" 2> "$out/bad.err"
  code=$?
  [ $code = "$want" ] && [ "$(wc -l < "$out/bad.err")" = 1 ] &&
    grep -q -- "$pattern" "$out/bad.err" ||
    fail "watch $*: exit $code: $(cat "$out/bad.err")"
}
echo garbage > "$out/garbage.ctf"
expect_error 2 '^mprof watch: TRACE: missing; for example: mprof watch '
expect_error 2 "^mprof watch: --on: 'slow' is no rule" --on slow "$out/often.ctf"
expect_error 2 "^mprof watch: --on: 'stalled>1 parsec' is no rule" --on 'stalled>1 parsec' "$out/often.ctf"
expect_error 2 "^mprof watch: --max: '0' is out of range" --max 0 "$out/often.ctf"
expect_error 2 '^mprof watch: --bogus: no such option' --bogus "$out/often.ctf"
expect_error 2 'one more trace' "$out/often.ctf" "$out/max.ctf"
expect_error 3 '^mprof watch: .*garbage.ctf: offset 0: not an mprof trace' "$out/garbage.ctf"
expect_error 3 '^mprof watch: .*garbage.ctf: not a directory' -o "$out/garbage.ctf" "$out/often.ctf"
expect_error 3 '^mprof watch: .*net.ctf: a legacy trace' "$here/../data/net.ctf"
expect_error 3 '^mprof watch: process 999999999: ' --pid 999999999

# --pid: a process that records into its memory, followed until killed.
"$build/test/rel/seq_writer" memory "$out/side" 1 1048576 &
writer=$!
tries=0
until [ "$(od -An -t u8 -N 8 "$out/side" 2>/dev/null | tr -d ' ')" = 1 ] || [ $tries -ge 100 ]; do
  sleep 0.05
  tries=$((tries + 1))
done
"$mprof" watch --pid $writer -o "$out/pid" > "$out/pid.out" 2>&1 &
watcher=$!
sleep 3 # a loaded machine or a sanitizer build starts watch slowly
kill -KILL $writer
wait $watcher || fail "watch --pid: exit $?: $(cat "$out/pid.out")"
for ctf in "$out"/pid/capture-*.ctf; do
  [ -e "$ctf" ] || continue
  "$mprof" check "$ctf" > /dev/null || fail "watch --pid: $ctf does not check"
done

[ $status = 0 ] && echo "watch: all good"
exit $status
