#!/bin/sh
# test_fd_takeover.sh BUILD_DIR -- a program that takes the trace's
# descriptor (fd_takeover.c): its own file stays exactly as it wrote it,
# and recording goes on through the trace's file opened again; if the
# file cannot be opened again (its name removed), recording drops its
# events with one line, and the program runs on unchanged.
set -u
build=$1
out=$build/test/fd_takeover.out
rm -rf "$out" && mkdir -p "$out"
status=0
fail() { echo "FAIL: $*"; status=1; }

MPROF_TRACE="$out/dup2.ctf" "$build/test/fd_takeover" dup2 "$out/dup2.ctf" \
  "$out/own.txt" > "$out/dup2.out" 2> "$out/dup2.err" ||
  fail "dup2: the program's own file was changed: $(od -c "$out/own.txt" | head -3)"
grep -qx "tasks 200000" "$out/dup2.out" || fail "dup2: the program did not finish"
[ ! -s "$out/dup2.err" ] || fail "dup2: said: $(cat "$out/dup2.err")"
"$build/mprof" check "$out/dup2.ctf" > "$out/dup2.check" 2>&1 ||
  fail "dup2: mprof check: $(cat "$out/dup2.check")"
"$build/mprof" dump --raw "$out/dup2.ctf" > "$out/dup2.dump" || fail "dup2: dump"
grep -q ' label thread=[0-9]* target=[0-9]* text="last task"$' "$out/dup2.dump" ||
  fail "dup2: the trace lost the tasks recorded after the takeover"

MPROF_TRACE="$out/close.ctf" "$build/test/fd_takeover" close "$out/close.ctf" \
  "$out/unused" > "$out/close.out" 2> "$out/close.err" ||
  fail "close: exit status $?"
grep -qx "tasks 200000" "$out/close.out" || fail "close: the program did not finish"
[ "$(wc -l < "$out/close.err")" -eq 1 ] &&
  grep -q "^mprof: .*close.ctf: the program closed or replaced the trace's descriptor [0-9]* .*drops its events from now on$" \
    "$out/close.err" || fail "close: said: $(cat "$out/close.err")"
[ ! -e "$out/close.ctf" ] || fail "close: the removed trace came back"

[ $status -eq 0 ] && echo "fd_takeover: all passed"
exit $status
