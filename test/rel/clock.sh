#!/usr/bin/env bash
# clock.sh -- the trace's clock keeps time: clock_sleep records two events
# 200 ms apart by nanosleep() and measures the gap by CLOCK_MONOTONIC; the
# gap in the trace (raw ticks from `mprof dump --ticks` over the clock_freq
# in the trace header, docs/FORMAT.md 1.1) must be within 5 % of it, above
# and below.  With the MPROF_TSC_HZ that `mprof record` measures and passes
# on to its programs (read by tsc_env under mprof record: clock_sleep links
# libmprof, which must not also run under the shim; on x86-64 with an
# invariant TSC the trace's clock is then that frequency, not 1 GHz); with
# the default clock; with
# MPROF_CLOCK=monotonic and with MPROF_TSC_HZ=0 (no usable TSC), both
# CLOCK_MONOTONIC at 1 GHz.  And gaps a compact event header holds (under
# 2^27 ticks, docs/FORMAT.md 3.1) but not in its lower 26 bits: 90 ms at
# 1 GHz, 38 ms at the frequency `mprof record` passes on (a TSC of 1.8 to
# 3.5 GHz).
#   clock.sh BUILD
set -euo pipefail
build=$1
mprof=$build/mprof
program=$build/test/rel/clock_sleep
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }
unset MPROF_TSC_HZ MPROF_CLOCK

# The clock frequency in the trace header (u64 at offset 64).
clock_freq() { od -An -tu8 -j64 -N8 "$1" | tr -d ' '; }

# check NAME TRACE OUTPUT: the trace's gap between "slept" = 1 and = 2
# against the program's measure.
check() {
  local name=$1 trace=$2 out=$3 freq ticks
  freq=$(clock_freq "$trace")
  ticks=$("$mprof" dump --ticks "$trace" |
          awk '$3 == "counter_value" && /value=[12]( |$)/ { print $1 }')
  [ "$(wc -l <<<"$ticks")" = 2 ] || fail "$name: two counter values: $ticks"
  awk -v name="$name" -v freq="$freq" -v ticks="$(tr '\n' ' ' <<<"$ticks")" \
      -v inner="$(awk '{print $2}' <<<"$out")" -v outer="$(awk '{print $4}' <<<"$out")" '
    BEGIN {
      split(ticks, t, " ")
      gap = (t[2] - t[1]) * 1e9 / freq
      printf "%s: clock %.0f Hz, gap %.0f ns, CLOCK_MONOTONIC %d..%d ns\n",
             name, freq, gap, inner, outer
      if (gap < 0.95 * inner || gap > 1.05 * outer) {
        printf "FAIL: %s: the trace says %.0f ns, CLOCK_MONOTONIC %d..%d ns\n",
               name, gap, inner, outer > "/dev/stderr"
        exit 1
      }
    }' || exit 1 # (in $(...) too, where set -e does not reach)
  echo "$freq"
}

passed=$("$mprof" record -o "$tmp/env.ctf" -- "$build/test/rel/tsc_env" 2>"$tmp/err") ||
  fail "mprof record: $(cat "$tmp/err")"
if grep -qw constant_tsc /proc/cpuinfo && grep -qw nonstop_tsc /proc/cpuinfo &&
   [ "$(uname -m)" = x86_64 ]; then
  [[ "$passed" =~ ^[1-9][0-9]*$ ]] ||
    fail "mprof record: an invariant TSC, but it passed on MPROF_TSC_HZ $passed"
fi
out=$(MPROF_TRACE=$tmp/record.ctf MPROF_TSC_HZ=$passed "$program" 200)
record_freq=$(check "MPROF_TSC_HZ=$passed from mprof record" "$tmp/record.ctf" "$out" |
              tee /dev/stderr | tail -1)
[ "$record_freq" = "$passed" ] || fail "MPROF_TSC_HZ=$passed: clock $record_freq Hz"
out=$(MPROF_TRACE=$tmp/default.ctf "$program" 200)
check default "$tmp/default.ctf" "$out" >&2
for setting in MPROF_CLOCK=monotonic MPROF_TSC_HZ=0; do
  out=$(env MPROF_TRACE="$tmp/$setting.ctf" "$setting" "$program" 200)
  freq=$(check "$setting" "$tmp/$setting.ctf" "$out" | tee /dev/stderr | tail -1)
  [ "$freq" = 1000000000 ] || fail "$setting: clock $freq Hz"
done
out=$(MPROF_TRACE=$tmp/compact.ctf MPROF_CLOCK=monotonic "$program" 90)
check "compact, 90 ms at 1 GHz" "$tmp/compact.ctf" "$out" >&2
out=$(MPROF_TRACE=$tmp/record-compact.ctf MPROF_TSC_HZ=$passed "$program" 38)
check "compact, 38 ms at mprof record's frequency" "$tmp/record-compact.ctf" "$out" >&2
echo "ok: the trace's clock within 5 % of CLOCK_MONOTONIC"
