#!/bin/sh
# arp_hung.sh BUILD OUT.ctf -- record examples/arp-race until a run hangs
# (at most 40 runs of 1 s) with a lost wake-up found, into OUT.ctf, for
# the viewers' tests of the findings panel (test/view, test/web).  A run
# past the second with no lost wake-up was a good run slowed down by a
# loaded machine: it does not count.
set -u
build=$1 out=$2
for attempt in $(seq 1 40); do
  rm -f "$out"
  MPROF_TRACE="$out" timeout 1 "$build/examples/arp_race" >/dev/null
  [ $? = 124 ] && "$build/mprof" report --json "$out" | grep -q '"lost_wakeup"' && exit 0
done
echo "arp_hung.sh: no run of $build/examples/arp_race hung in 40" >&2
exit 1
