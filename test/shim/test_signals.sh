#!/bin/sh
# test_signals.sh BUILD_DIR -- mprof record passes on to its program the
# signals that stop or steer it (TERM, HUP, USR1, USR2): a kill of mprof
# record reaches the program, which handles it as it would alone, and
# mprof record exits with the program's status, leaving no orphan.
set -u
build=$1
out=$build/test/shim/signals
rm -rf "$out" && mkdir -p "$out"
status=0
fail() { echo "FAIL: $*"; status=1; }

# wait_for TEXT: until the program's output holds TEXT (5 s at most).
wait_for() {
  i=0
  while ! grep -qx "$1" "$out/prog.out" 2>/dev/null && [ $i -lt 50 ]; do
    sleep 0.1; i=$((i + 1))
  done
  grep -qx "$1" "$out/prog.out" || fail "the program never printed: $1"
}

"$build/mprof" record -o "$out/prog.ctf" -- "$build/test/shim/signal_prog" \
  > "$out/prog.out" 2> "$out/record.err" &
record=$!
wait_for ready
kill -HUP $record && wait_for "got HUP"
kill -USR1 $record && wait_for "got USR1"
kill -TERM $record
wait $record
code=$?
[ $code -eq 7 ] || fail "mprof record exited $code, not the program's 7"
grep -qx "got TERM" "$out/prog.out" || fail "the program never got TERM"
grep -q "not stopped" "$out/prog.out" && fail "the program ran to its end"
pgrep -f "$build/test/shim/signal_prog" > /dev/null &&
  { fail "the program outlived mprof record"; pkill -f "$build/test/shim/signal_prog"; }

[ $status -eq 0 ] && echo "shim_signals: all passed"
exit $status
