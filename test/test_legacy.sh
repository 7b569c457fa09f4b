#!/usr/bin/env bash
# test_legacy.sh -- test/data/net.ctf, recorded by OCaml's
# mirage-profile, loads completely: every event of every packet, in order,
# with the per-op counts of the reference report (§2.7, §4).
set -euo pipefail
mprof=$1/mprof
trace=$2
out=$("$mprof" dump "$trace")
counts=$(awk '{print $3}' <<<"$out" | sort | uniq -c | awk '{printf "%s=%s ", $2, $1}')
expected="becomes=215 counter_increase=1394 create=1816 fail=2 gc=1 label=2185 read=2596 resolve=1511 switch=358 "
[ "$counts" = "$expected" ] || { echo "FAIL: counts $counts" >&2; exit 1; }
# Time runs forward within the packet stream, over 5.90 s.
awk 'NR > 1 && $1 < prev { bad = 1 } { prev = $1 } END { exit bad }' <<<"$out" \
  || { echo "FAIL: time goes backwards" >&2; exit 1; }
last=$(tail -1 <<<"$out" | awk '{print $1}')
[ "$last" -gt 5890000000 ] && [ "$last" -lt 5910000000 ] || { echo "FAIL: span $last" >&2; exit 1; }
grep -q 'fail thread=359 target=359 text="Xs_protocol.Enoent(\\"read\\")"' <<<"$out" \
  || { echo "FAIL: the Enoent failure is missing" >&2; exit 1; }
echo "ok: net.ctf, 10078 events"
