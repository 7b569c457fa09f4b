#!/bin/sh
# test_arp_race.sh BUILD_DIR -- run examples/arp-race until a run hangs (at
# most 60 runs, each stopped after 1 s), then check that `mprof report` of
# its trace names the never-resolved "ARP response" wait and the notify
# that came before it, as the README's walk-through says.  A run stopped
# whose trace shows no stalled wait was a good run slowed past the second
# by a loaded machine, not a hang: it does not count.
set -u
build=$1
out=$build/test/uv/arp
rm -rf "$out" && mkdir -p "$out"
hung=
for attempt in $(seq 1 60); do
  MPROF_TRACE="$out/run.ctf" timeout 1 "$build/examples/arp_race" > "$out/run.txt"
  [ $? -eq 124 ] || continue
  "$build/mprof" report "$out/run.ctf" > "$out/report.txt"
  grep -q "^Stalled: 1 " "$out/report.txt" && hung=$attempt && break
done
[ -n "$hung" ] || { echo "FAIL: no run hung in 60"; exit 1; }
cat "$out/report.txt"
status=0
expect() {
  grep -qF -- "$1" "$out/report.txt" || { echo "FAIL: report lacks: $1"; status=1; }
}
expect 'Stalled: 1 should_resolve thread never resolved'
expect '"ARP response" (wait#'
expect 'Lost wake-ups: 1'
expect '"ARP cache 10.0.0.2" (condition#1) was signalled by "udp" (handle#'
expect 'with nobody waiting;'
expect 'then "ARP response" (wait#'
expect 'began waiting on it at'
exit $status
