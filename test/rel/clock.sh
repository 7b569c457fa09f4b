#!/usr/bin/env bash
# clock.sh -- the trace's clock keeps time: clock_sleep records two events
# 200 ms apart by nanosleep() and measures the gap by CLOCK_MONOTONIC; the
# gap in the trace (raw ticks from `mprof dump --ticks` over the clock_freq
# in the trace header, docs/FORMAT.md 1.1) must be within 5 % of it, above
# and below.  With the default clock (the TSC where the CPU has an
# invariant one: then the trace's clock is not 1 GHz), with
# MPROF_CLOCK=monotonic (1 GHz), and under `mprof record`, which measures
# the TSC once for the processes it starts.
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
    }'
  echo "$freq"
}

out=$(MPROF_TRACE=$tmp/default.ctf "$program" 200)
default_freq=$(check default "$tmp/default.ctf" "$out" | tee /dev/stderr | tail -1)
out=$(MPROF_TRACE=$tmp/monotonic.ctf MPROF_CLOCK=monotonic "$program" 200)
monotonic_freq=$(check monotonic "$tmp/monotonic.ctf" "$out" | tee /dev/stderr | tail -1)
[ "$monotonic_freq" = 1000000000 ] || fail "MPROF_CLOCK=monotonic: clock $monotonic_freq Hz"
if grep -qw constant_tsc /proc/cpuinfo && grep -qw nonstop_tsc /proc/cpuinfo &&
   [ "$(uname -m)" = x86_64 ]; then
  [ "$default_freq" != 1000000000 ] || fail "an invariant TSC, but a 1 GHz clock"
fi
out=$("$mprof" record -o "$tmp/record.ctf" -- "$program" 200)
check "mprof record" "$tmp/record.ctf" "$out" >&2
echo "ok: the trace's clock within 5 % of CLOCK_MONOTONIC"
