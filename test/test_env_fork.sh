#!/usr/bin/env bash
# test_env_fork.sh -- starting from the environment: MPROF_TRACE alone
# traces a program; %p expands to the pid; a forked child gets PATH.PID
# (or nothing with MPROF_FORK=stop) and never writes into its parent's
# trace; a bad path or size gives one clear line and the program runs on.
set -euo pipefail
build=$1
program=$build/test/fork_env
mprof=$build/mprof
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }
labels() { "$mprof" dump "$1" | grep ' label ' | grep -o 'text="[^"]*"' | sort | tr '\n' ' '; }

child=$(MPROF_TRACE=$tmp/t.ctf MPROF_SIZE=1M "$program" | awk '/^child/ {print $2}')
[ "$(labels "$tmp/t.ctf")" = 'text="parent after fork" text="parent before fork" ' ] \
  || fail "parent trace: $(labels "$tmp/t.ctf")"
[ "$(labels "$tmp/t.ctf.$child")" = 'text="child after fork" ' ] \
  || fail "child trace: $(labels "$tmp/t.ctf.$child" 2>&1)"
[ "$(stat -c %s "$tmp/t.ctf")" = 1048576 ] || fail "MPROF_SIZE=1M not honoured"

MPROF_TRACE=$tmp/stop.ctf MPROF_FORK=stop "$program" >/dev/null
[ ! -e "$tmp/stop.ctf.$child" ] && [ "$(ls "$tmp" | grep -c '^stop.ctf')" = 1 ] \
  || fail "MPROF_FORK=stop still wrote a child trace"

pid_out=$(MPROF_TRACE="$tmp/p-%p.ctf" "$program")
[ "$(ls "$tmp" | grep -c '^p-[0-9]*\.ctf$')" = 1 ] || fail "%p not expanded: $(ls "$tmp")"

for bad in "MPROF_TRACE=$tmp/no/such/dir/t.ctf" "MPROF_TRACE=$tmp/s.ctf MPROF_SIZE=lots" \
           "MPROF_TRACE=$tmp/m.ctf MPROF_MODE=sideways" "MPROF_TRACE=$tmp/c.ctf MPROF_CLOCK=sundial" \
           "MPROF_TRACE=$tmp/z.ctf MPROF_SIZE=99999999G"; do
  out=$(env $bad "$program" 2>"$tmp/err") || fail "$bad: program failed"
  [[ "$out" == child* ]] || fail "$bad: program output changed: $out"
  [ "$(wc -l < "$tmp/err")" = 1 ] || fail "$bad: expected one error line: $(cat "$tmp/err")"
  grep -q '^mprof: .*running untraced$' "$tmp/err" || fail "$bad: $(cat "$tmp/err")"
done
echo "ok: environment start, %p, fork follow and stop, clear start errors"
