#!/bin/sh
# test_uv.sh BUILD_DIR -- test/uv/uv_prog.c traced both ways: built with
# mprof/uv.h (uv_prog_traced, MPROF_TRACE) and unmodified under `mprof
# record` (uv_prog_plain).  The program's output must be the same as
# without tracing, and check_uv must find in each trace what it recorded;
# then the odd cases: exit or abort inside a callback, no loop, many loops
# on many OS threads, fork and exec; last test/uv/uv_more.c's modes.
set -u
build=$1
bin=$build/test/uv
out=$build/test/uv/out
rm -rf "$out" && mkdir -p "$out"
status=0
fail() { echo "FAIL: $*"; status=1; }
prog=uv_prog # the program three_ways runs

# Run one mode three ways; each way's output in $out/MODE.WAY.txt.
three_ways() {
  mode=$1 expect=$2
  "$bin/${prog}_plain" "$out" "$mode" > "$out/$mode.plain.txt"
  [ $? -eq "$expect" ] || fail "$mode: plain exit status"
  "$build/mprof" record -o "$out/$mode.shim.ctf" -- \
    "$bin/${prog}_plain" "$out" "$mode" > "$out/$mode.shim.txt" \
    2> "$out/$mode.record.txt"
  [ $? -eq "$expect" ] || fail "$mode: mprof record exit status"
  MPROF_TRACE="$out/$mode.traced.ctf" "$bin/${prog}_traced" "$out" "$mode" \
    > "$out/$mode.traced.txt"
  [ $? -eq "$expect" ] || fail "$mode: traced exit status"
  for way in shim traced; do
    cmp -s "$out/$mode.plain.txt" "$out/$mode.$way.txt" ||
      fail "$mode: output under $way differs: $(diff "$out/$mode.plain.txt" "$out/$mode.$way.txt")"
  done
}

# Without MPROF_TRACING, mprof/uv.h leaves plain libuv calls only.
nm -u "$bin/uv_prog_plain" | grep -q mprof && fail "plain build references mprof"
nm -u "$bin/uv_prog_plain" | grep -q " uv_run" || fail "plain build: no uv_run"
nm "$bin/uv_prog_traced" | grep -q " T mprof_uv_run" ||
  fail "traced build does not call mprof_uv_run"

three_ways all 0
grep -q "^done$" "$out/all.plain.txt" || fail "all: the program did not finish"
grep -q "view it:  mprof report $out/all.shim.ctf" "$out/all.record.txt" ||
  fail "mprof record did not say how to view the trace"
checks=all
grep -q "^udp ::1: unavailable" "$out/all.plain.txt" && checks=all-ipv4
for way in shim traced; do
  "$bin/check_uv" "$out/all.$way.ctf" $checks || fail "all: $way trace"
done

three_ways exit-in-callback 3
ulimit -c 0
three_ways abort 134
"$bin/check_uv" "$out/abort.shim.ctf" exit-in-callback || fail "abort: shim trace"
"$bin/check_uv" "$out/abort.traced.ctf" exit-in-callback || fail "abort: traced trace"
three_ways no-loop 0
three_ways threads 0
for mode in exit-in-callback no-loop threads; do
  for way in shim traced; do
    "$bin/check_uv" "$out/$mode.$way.ctf" "$mode" || fail "$mode: $way trace"
  done
done

# uv_loop_close() of a loop that holds a handle the program has freed.
three_ways freed-handle 0
grep -q "^loop close with a handle freed: EBUSY$" "$out/freed-handle.plain.txt" ||
  fail "freed-handle: uv_loop_close did not fail with EBUSY"

# fork in a callback: the child traces into PATH.PID (MPROF_FORK=follow).
three_ways fork 0
grep -q "timer: closed after 3 ticks" "$out/fork.plain.txt" ||
  fail "fork: the child did not run its timers"
for way in shim traced; do
  child=$(ls "$out/fork.$way.ctf".* 2>/dev/null | head -1)
  if [ -z "$child" ]; then
    fail "fork: no child trace for $way"
  else
    "$build/mprof" dump "$child" | grep -q 'text="timer"' ||
      fail "fork: the $way child's trace lacks its timer"
  fi
done

# exec: the shim stays preloaded and the new image records its own trace.
three_ways exec 0
"$bin/check_uv" "$out/exec.shim.ctf" no-loop || fail "exec: shim trace"
# The calls uv_prog leaves out: every fs call (synchronous ones too),
# fs event and poll handles, a tty, write2, the try_ calls, close_reset.
prog=uv_more
for mode in fs handles sockets; do
  three_ways $mode 0
  for way in shim traced; do
    "$bin/check_uv" "$out/$mode.$way.ctf" $mode "$out" ||
      fail "$mode: $way trace"
  done
done
grep -q "^fs readdir: 6 entries$" "$out/fs.plain.txt" || fail "fs: readdir"
grep -q "^write2: 1 byte, 1 handle passed$" "$out/handles.plain.txt" ||
  fail "handles: write2 passed no handle"
grep -q "^tcp: client got ECONNRESET$" "$out/sockets.plain.txt" ||
  fail "sockets: no reset"

# mprof record itself: usage, a program that cannot run.
"$build/mprof" record --help | grep -q "^usage: mprof record" || fail "record --help"
"$build/mprof" record -o "$out/x.ctf" 2>/dev/null; [ $? -eq 2 ] || fail "record without a program"
"$build/mprof" record --size 12Q -- true 2>/dev/null; [ $? -eq 2 ] || fail "record --size 12Q"
"$build/mprof" record -o "$out/x.ctf" -- "$out/no-such-program" 2>/dev/null
[ $? -eq 3 ] || fail "record of a missing program: not 3"
# The program gets the user's environment: mprof's own start on huge pages
# (GLIBC_TUNABLES, set when mprof started itself again) is not passed on.
env -u GLIBC_TUNABLES "$build/mprof" record -o "$out/env.ctf" -- \
  "$bin/uv_prog_plain" "$out" env >"$out/env.txt" 2>/dev/null || fail "record of env"
[ "$(cat "$out/env.txt")" = "env: GLIBC_TUNABLES unset
env: MPROF_HUGE_PAGES_STARTED unset" ] ||
  fail "record passed mprof's heap settings on to the program: $(cat "$out/env.txt")"
exit $status
