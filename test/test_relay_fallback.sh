#!/usr/bin/env bash
# test_relay_fallback.sh -- the streamed report where no thread can start:
# mprof_analysis_stream() then merges in the caller's thread (the relay's
# fallback) and must say what it says with its relay thread, text and
# JSON, exit status too.  No thread is made to start by running mprof as
# nobody with a process limit of 1 (a thread counts as a process there),
# which only root can arrange: skipped (77) otherwise.  The limit is seen
# to stop a fork first.
#
#   test_relay_fallback.sh BUILD DATA_DIR
. "$(dirname "$0")/command/common.sh"
data=$2
if [ "$(id -u)" != 0 ] || ! command -v setpriv >/dev/null ||
  ! command -v prlimit >/dev/null; then
  echo "not root, or no setpriv/prlimit: skipped"
  exit 77
fi

# nobody must reach the program and the traces: both go in $tmp
chmod 755 "$tmp"
cp "$mprof" "$tmp/mprof"
# (LeakSanitizer stops the world from a thread of its own at exit: not
# there, where none starts)
alone() {
  ASAN_OPTIONS=${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0 \
    setpriv --reuid=65534 --regid=65534 --clear-groups \
    prlimit --nproc=1 -- "$@"
}
if ! alone true; then
  echo "cannot run a program as nobody with a process limit: skipped"
  exit 77
fi
if alone sh -c 'true & wait' 2>/dev/null; then
  fail "a process limit of 1 did not stop nobody's fork"
fi

"$gen" "$tmp/gen.ctf" discard 4000000 2000 2 >/dev/null
"$build/test/story" "$tmp/story.ctf"
cp "$data/net.ctf" "$tmp/net.ctf"
cp "$data/damaged/cut-at-packet-1.ctf" "$tmp/cut.ctf"
# several traces merged: their streams numbered trace by trace
"$mprof" merge "$tmp/story.ctf" "$tmp/gen.ctf" -o "$tmp/merged.ctf" >/dev/null ||
  fail "mprof merge"

for t in gen story net cut merged; do
  chmod -R a+rX "$tmp/$t.ctf"
  for json in "" --json; do
    status=0
    "$tmp/mprof" report --stream $json "$tmp/$t.ctf" >"$tmp/threaded" 2>&1 ||
      status=$?
    echo "exit $status" >>"$tmp/threaded"
    status=0
    alone "$tmp/mprof" report --stream $json "$tmp/$t.ctf" >"$tmp/alone" \
      2>&1 || status=$?
    echo "exit $status" >>"$tmp/alone"
    cmp -s "$tmp/threaded" "$tmp/alone" ||
      fail "$t ${json:-text}: $(diff "$tmp/threaded" "$tmp/alone" | head -20)"
  done
done
# and they are reports of the whole trace: every event counted
want=$("$tmp/mprof" stats --json "$tmp/gen.ctf" | grep -o '"events":[0-9]*')
alone "$tmp/mprof" report --stream --json "$tmp/gen.ctf" | grep -q "$want" ||
  fail "gen: the report without a thread does not count $want"
echo "the streamed reports without a thread are the same"
