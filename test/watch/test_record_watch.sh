#!/bin/sh
# test_record_watch.sh BUILD_DIR -- `mprof record --watch`: the zoo's
# blocked_often (its loop blocked 70 ms five times) recorded and watched
# by one command gives a capture per block, each checked by
# check_capture.py against the whole run's trace beside it; a correct
# program gives none; the program's exit status comes through, and a
# SIGTERM to record reaches the program; a bad rule or -o is one line
# and its exit code before the program starts.
runs=record
. "$(dirname "$0")/common.sh"

# Five blocks of 70 ms: a capture each, on the timer, and the whole run.
"$mprof" record --size 512K --watch loop_blocked -o "$out/often" -- "$zoo/zoo_blocked_often" \
  > "$out/often.out" 2> "$out/often.err" || fail "record --watch: exit $?: $(cat "$out/often.err")"
n=$(captures "$out/often")
[ "$n" -ge 3 ] && [ "$n" -le 5 ] || fail "blocked_often: $n captures for its 5 blocks"
[ "$(grep -c 'capture-[0-9]*\.ctf: loop_blocked: a callback of \\"timer\\"' "$out/often.out")" = "$n" ] ||
  fail "blocked_often: not one line per capture: $(cat "$out/often.out")"
"$mprof" check "$out/often/trace.ctf" > /dev/null || fail "the whole run's trace does not check"
grep -q 'often/trace.ctf.manifest$' "$out/often.err" || fail "no manifest told: $(cat "$out/often.err")"
for json in "$out"/often/capture-*.json; do
  [ -e "$json" ] || continue
  /usr/bin/python3 "$here/check_capture.py" "$mprof" "$json" loop_blocked timer \
    "$out/often/trace.ctf" || status=1
  "$mprof" report "${json%.json}.ctf" | grep -q 'loop_blocked.*a callback of "timer"' ||
    fail "${json%.json}.ctf: its report does not name the block"
done

# --max 1: the first block only; mprof watch's limits are record's too.
"$mprof" record --size 512K --watch loop_blocked --max 1 --before 1s --after 100ms \
  -o "$out/max1" -- "$zoo/zoo_blocked_often" > "$out/max1.out" 2> "$out/max1.err" ||
  fail "record --watch --max 1: exit $?: $(cat "$out/max1.err")"
[ "$(captures "$out/max1")" = 1 ] || fail "--max 1: $(captures "$out/max1") captures"

# A correct program gives no capture for any error or warning; --watch
# alone, -o left out: the current directory.
mkdir -p "$out/ok"
(cd "$out/ok" && "$mprof" record --watch -- "$zoo/zoo_ok_http") > "$out/ok.out" 2> "$out/ok.err" ||
  fail "record --watch ok_http: exit $?: $(cat "$out/ok.err")"
[ "$(captures "$out/ok")" = 0 ] && [ ! -s "$out/ok.out" ] || fail "ok_http: a capture: $(cat "$out/ok.out")"
[ -s "$out/ok/trace.ctf" ] || fail "ok_http: no trace.ctf in the current directory"

# The program's exit status comes through: signal_prog exits 7 at the
# SIGTERM that record passes on (a compiled program: a sanitizer-built
# shim cannot load into a shell).
"$mprof" record --watch -o "$out/exit7" -- "$build/test/shim/signal_prog" \
  > "$out/exit7.out" 2> /dev/null &
recorder=$!
tries=0
until grep -q ready "$out/exit7.out" 2>/dev/null || [ $tries -ge 200 ]; do
  sleep 0.05
  tries=$((tries + 1))
done
kill -TERM $recorder
wait $recorder
code=$?
[ $code = 7 ] && grep -q "got TERM" "$out/exit7.out" ||
  fail "exit status 7 came out as $code: $(cat "$out/exit7.out")"

# SIGTERM to record reaches the program, and record ends with it.
"$mprof" record --watch loop_blocked -o "$out/term" -- "$zoo/zoo_blocked_often" \
  > "$out/term.out" 2> "$out/term.err" &
recorder=$!
tries=0
until [ -e "$out/term/trace.ctf" ] || [ $tries -ge 100 ]; do sleep 0.05; tries=$((tries + 1)); done
sleep 1
kill -TERM $recorder
wait $recorder
code=$?
[ $code = 143 ] || fail "SIGTERM: exit $code: $(cat "$out/term.err")"
for json in "$out"/term/capture-*.json; do
  [ -e "$json" ] || continue
  "$mprof" check "${json%.json}.ctf" > /dev/null || fail "SIGTERM: ${json%.json}.ctf does not check"
done

# Bad input: one line, the exit code, and the program never ran.
expect_error() { # CODE PATTERN ARGS...: mprof record ARGS fails so
  want=$1 pattern=$2
  shift 2
  rm -f "$out/ran"
  "$mprof" record "$@" > "$out/bad.out" 2> "$out/bad.err"
  code=$?
  [ $code = "$want" ] && [ "$(wc -l < "$out/bad.err")" = 1 ] &&
    grep -q -- "$pattern" "$out/bad.err" && [ ! -e "$out/ran" ] ||
    fail "record $*: exit $code: $(cat "$out/bad.err")"
}
touch "$out/file"
expect_error 2 "^mprof record: --before: is a watch's; give --watch too\$" \
  --before 1s -- touch "$out/ran"
expect_error 2 "^mprof record: --max: '0' is out of range" \
  --watch --max 0 -- touch "$out/ran"
expect_error 2 "^mprof record: --watch: 'slow' is no rule; see mprof help watch\$" \
  --watch slow -o "$out/bad" -- touch "$out/ran"
expect_error 2 "^mprof record: --watch: 'stalled>1 parsec' is no rule" \
  --watch=stalled\>1\ parsec -- touch "$out/ran"
expect_error 3 "^mprof record: .*/file: not a directory\$" \
  --watch -o "$out/file" -- touch "$out/ran"
[ ! -e "$out/bad" ] || fail "a bad rule made its directory"

[ $status = 0 ] && echo "record --watch: all good"
exit $status
