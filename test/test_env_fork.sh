#!/usr/bin/env bash
# test_env_fork.sh -- starting from the environment: MPROF_TRACE alone
# traces a program; %p expands to the pid; a forked child gets PATH.PID
# (or nothing with MPROF_FORK=stop) and never writes into its parent's
# trace; a bad path or size gives one clear line and the program runs on.
# MPROF_TSC_HZ sets the TSC's frequency (0: CLOCK_MONOTONIC).
# PATH.PID is made at the child's first event (fork_exec.c): a child that
# only execs a program that is not traced leaves no file; a child that
# records gets its file with its events (and only its own); a child that
# records nothing but forks leaves none, while its grandchild that records
# gets its own; a child whose first events come from 4 OS threads at once
# keeps all their events.  Every file passes mprof check.
set -euo pipefail
build=$1
program=$build/test/fork_env
fork_exec=$build/test/fork_exec
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
           "MPROF_TRACE=$tmp/z.ctf MPROF_SIZE=99999999G" "MPROF_TRACE=$tmp/h.ctf MPROF_TSC_HZ=fast"; do
  out=$(env $bad "$program" 2>"$tmp/err") || fail "$bad: program failed"
  [[ "$out" == child* ]] || fail "$bad: program output changed: $out"
  [ "$(wc -l < "$tmp/err")" = 1 ] || fail "$bad: expected one error line: $(cat "$tmp/err")"
  grep -q '^mprof: .*running untraced$' "$tmp/err" || fail "$bad: $(cat "$tmp/err")"
done

# The clock: MPROF_TSC_HZ is the TSC's frequency (in the parent's trace and
# its child's), 0 means CLOCK_MONOTONIC (ns).
freq_of() {
  "$mprof" ctf "$1" -o "$tmp/ctf.d" >/dev/null &&
    sed -n 's/.*freq = \([0-9]*\);.*/\1/p' "$tmp/ctf.d/metadata" | head -1
  rm -rf "$tmp/ctf.d"
}
if [ "$(uname -m)" = x86_64 ]; then
  child=$(MPROF_TRACE=$tmp/hz.ctf MPROF_TSC_HZ=1000000007 "$program" | awk '/^child/ {print $2}')
  for trace in "$tmp/hz.ctf" "$tmp/hz.ctf.$child"; do
    [ "$(freq_of "$trace")" = 1000000007 ] || fail "MPROF_TSC_HZ not used: $trace: $(freq_of "$trace")"
  done
fi
MPROF_TRACE=$tmp/hz0.ctf MPROF_TSC_HZ=0 "$program" >/dev/null
[ "$(freq_of "$tmp/hz0.ctf")" = 1000000000 ] || fail "MPROF_TSC_HZ=0: $(freq_of "$tmp/hz0.ctf")"

pid_of() { awk -v what="$1" '$1 == what {print $2}' "$tmp/out"; }
MPROF_TRACE=$tmp/fe.ctf "$fork_exec" >"$tmp/out" || fail "fork_exec failed"
for what in exec exec_env forks; do
  pid=$(pid_of $what)
  [ -n "$pid" ] || fail "no pid for $what: $(cat "$tmp/out")"
  [ ! -e "$tmp/fe.ctf.$pid" ] || fail "the $what child ($pid) left a trace"
done
[ "$(labels "$tmp/fe.ctf")" = 'text="parent after" text="parent before" ' ] \
  || fail "parent trace: $(labels "$tmp/fe.ctf")"
[ "$(labels "$tmp/fe.ctf.$(pid_of records)")" = 'text="child" ' ] \
  || fail "recording child's trace: $(labels "$tmp/fe.ctf.$(pid_of records)" 2>&1)"
[ "$(labels "$tmp/fe.ctf.$(pid_of grandchild)")" = 'text="grandchild" ' ] \
  || fail "grandchild's trace: $(labels "$tmp/fe.ctf.$(pid_of grandchild)" 2>&1)"
threads=$tmp/fe.ctf.$(pid_of threads)
[ "$(labels "$threads")" = "$(printf 'text="child thread" %.0s' 1 2 3 4)" ] \
  || fail "4-thread child's trace: $(labels "$threads" 2>&1)"
tasks=$("$mprof" dump "$threads" | grep -c ' create .*type=task$' || true)
[ "$tasks" = 4000 ] || fail "4-thread child's trace: $tasks tasks made, not 4000"
for trace in "$tmp"/fe.ctf*; do
  "$mprof" check "$trace" >/dev/null || fail "mprof check $trace"
done
files=$(ls "$tmp" | grep -c '^fe\.ctf' || true)
[ "$files" = 4 ] || fail "expected 4 traces, found: $(ls "$tmp")"
echo "ok: environment start, %p, fork follow and stop, a child's trace made" \
  "by its first event, clear start errors"
