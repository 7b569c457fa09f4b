#!/usr/bin/env bash
# memory.sh -- `mprof snapshot --pid` and `--core`: seq_writer records into
# a malloc'd buffer (no file); its trace is read from the running process,
# from the stopped process, and from a gcore core dump.  Each copy must pass
# `mprof check` and seq_check (stopped and core: every completed value
# there; running: no torn, duplicated or reordered value).  Then the errors.
#   memory.sh BUILD [nocore]
set -euo pipefail
build=$1
mprof=$build/mprof
checker=$build/test/rel/seq_check
tmp=$(mktemp -d)
pid=
trap '[ -z "$pid" ] || kill -KILL $pid 2>/dev/null || true; rm -rf "$tmp"' EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }
check_ok() { # TRACE: mprof check must say ok, finished
  local out; out=$("$mprof" check "$1" 2>&1) || fail "mprof check $1: $out"
  case $out in *": ok, "*) ;; *) fail "mprof check $1: $out" ;; esac
  case $out in *"still being written"*) fail "not finished: $out" ;; esac
}

"$build/test/rel/seq_writer" memory "$tmp/side" 2 1048576 &
pid=$!
until [ "$(od -An -t u8 -j 8 -N 8 "$tmp/side" 2>/dev/null | tr -d ' ')" -gt 100000 ] 2>/dev/null; do
  kill -0 $pid 2>/dev/null || fail "the writer died on its own"
  sleep 0.05
done
"$mprof" snapshot --pid $pid -w "$tmp/running.ctf" || fail "snapshot --pid of a running process"
check_ok "$tmp/running.ctf"
"$checker" --live "$tmp/running.ctf" "$tmp/side" 2 >/dev/null || fail "running: seq_check"
[ "$(stat -c %a "$tmp/running.ctf")" = 600 ] || fail "snapshot file not 0600"

kill -STOP $pid
# The stop is not synchronous: wait until every thread of it has stopped.
stopped() { ! grep -qv '^[^)]*) T' /proc/$pid/task/*/stat; }
until stopped; do kill -0 $pid 2>/dev/null || fail "the writer died"; sleep 0.01; done
"$mprof" snapshot --pid $pid -w "$tmp/stopped.ctf" || fail "snapshot --pid of a stopped process"
check_ok "$tmp/stopped.ctf"
"$checker" "$tmp/stopped.ctf" "$tmp/side" 2 >/dev/null || fail "stopped: seq_check"
[ "$(ps -o stat= -p $pid | cut -c1)" = T ] || fail "the process did not stay stopped"

if [ "${2:-}" != nocore ]; then
  gcore -o "$tmp/core" $pid >/dev/null 2>&1 || fail "gcore"
  "$mprof" snapshot --core "$tmp/core.$pid" -w "$tmp/core.ctf" || fail "snapshot --core"
  check_ok "$tmp/core.ctf"
  "$checker" "$tmp/core.ctf" "$tmp/side" 2 >/dev/null || fail "core: seq_check"
  cmp -s "$tmp/core.ctf" "$tmp/stopped.ctf" || fail "core and stopped process differ"
fi
kill -KILL $pid; wait $pid 2>/dev/null || true; pid=

# Errors: one clear line, exit 3 (nothing usable) or 2 (usage).
# Killed only once it is sleep: the shell's child before its exec would
# run this script's EXIT trap (and remove $tmp) at the signal.
is_sleep() { until [ "$(cat /proc/$1/comm 2>/dev/null)" = sleep ]; do sleep 0.01; done; }
sleep 30 & other=$!
is_sleep $other
set +e
"$mprof" snapshot --pid $other -w "$tmp/x.ctf" 2>"$tmp/err"; code=$?
kill $other
[ $code = 3 ] && grep -q "^mprof: process $other: no mprof trace in its memory$" "$tmp/err" \
  || fail "no trace: $code $(cat "$tmp/err")"
"$mprof" snapshot --pid 999999999 -w "$tmp/x.ctf" 2>"$tmp/err"; code=$?
[ $code = 3 ] && grep -q "^mprof: process 999999999: No such file or directory$" "$tmp/err" \
  || fail "no process: $code $(cat "$tmp/err")"
"$mprof" snapshot --core "$tmp/side" -w "$tmp/x.ctf" 2>"$tmp/err"; code=$?
[ $code = 3 ] && grep -q "^mprof: .*/side: not an ELF core dump (64-bit)$" "$tmp/err" \
  || fail "not a core: $code $(cat "$tmp/err")"
"$mprof" snapshot --pid 1 "$tmp/side" -w "$tmp/x.ctf" 2>"$tmp/err"; code=$?
[ $code = 2 ] || fail "--pid with a SOURCE: $code"
# Another user's process: the kernel refuses, the line says why.
if [ "$(id -u)" = 0 ] && command -v setpriv >/dev/null; then
  setpriv --reuid=65534 --regid=65534 --clear-groups sleep 30 & other=$!
  is_sleep $other
  setpriv --reuid=65533 --regid=65533 --clear-groups "$mprof" snapshot --pid $other \
    -w /dev/null 2>"$tmp/err"; code=$?
  kill $other
  [ $code = 3 ] && grep -q "^mprof: process $other: cannot read its memory (.*): it must run as your user" "$tmp/err" \
    || fail "EPERM: $code $(cat "$tmp/err")"
fi
set -e
echo "ok: snapshot --pid (running, stopped), --core, errors"
