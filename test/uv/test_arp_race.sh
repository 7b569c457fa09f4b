#!/bin/sh
# test_arp_race.sh BUILD_DIR -- run examples/arp-race until a run hangs (at
# most 60 runs, each given 1 s), then check that `mprof report` of its
# trace names the never-resolved "ARP response" wait and the notify that
# came before it, as the README's walk-through says.  The hung program's
# trace is copied while it still runs (`mprof snapshot`): the copy ends
# when it was taken, so the connection's wait on the ARP response lasts
# from its start to then, about the second the program hung, never more
# than the run took.  A run whose trace shows no stalled wait was a good
# run slowed past the second by a loaded machine, not a hang: it does not
# count.
set -u
build=$1
out=$build/test/uv/arp
rm -rf "$out" && mkdir -p "$out"
now_ns() { date +%s%N; }
hung=
for attempt in $(seq 1 60); do
  rm -f "$out/run.ctf"
  began=$(now_ns)
  MPROF_TRACE="$out/run.ctf" "$build/examples/arp_race" > "$out/run.txt" &
  pid=$!
  sleep 1
  if ! kill -0 $pid 2>/dev/null; then wait $pid; continue; fi
  "$build/mprof" snapshot -w "$out/hung.ctf" "$out/run.ctf"
  elapsed_ns=$(($(now_ns) - began))
  kill $pid; wait $pid
  "$build/mprof" report "$out/hung.ctf" > "$out/report.txt"
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
# the connection waited on "ARP response" from its start to the snapshot
"$build/mprof" report --json --top 0 "$out/hung.ctf" > "$out/report.json"
/usr/bin/python3 - "$out/report.json" "$elapsed_ns" <<'PY' || status=1
import json, sys
report = json.load(open(sys.argv[1]))
elapsed = int(sys.argv[2])
waits = [w["ns"] for t in report["thread_times"]
         if t["thread"]["label"].startswith("connect to 10.0.0.2")
         for w in t["waiting_on"] if w["thread"]["label"] == "ARP response"]
if len(waits) != 1 or not 0.5e9 <= waits[0] <= elapsed:
    sys.exit(f"FAIL: the connection's wait on ARP response: {waits} ns, "
             f"not between 0.5 s and the {elapsed} ns the run took")
print(f"the connection waited {waits[0]} ns on ARP response "
      f"(the run took {elapsed} ns)")
PY
# why the connection never went on: it waited on the ARP response, made
# by the ARP cache's condition, last signalled by the udp handle before
# anyone waited (the lost wake-up), from then to the snapshot
"$build/mprof" why --json "connect to 10.0.0.2" "$out/hung.ctf" > "$out/why.json"
/usr/bin/python3 - "$out/why.json" <<'PY' || status=1
import json, sys
why = json.load(open(sys.argv[1]))
hops = [(s["via"], s["thread"]["label"]) for s in why["steps"]]
want = [("target", "connect to 10.0.0.2:7001"), ("waited", "ARP response"),
        ("created", "ARP cache 10.0.0.2"), ("signalled", "udp")]
if hops != want:
    sys.exit(f"FAIL: mprof why: {hops}, not {want}")
waited = why["steps"][1]
if waited["end_ns"] - waited["start_ns"] < 0.5e9:
    sys.exit(f"FAIL: mprof why: the wait on ARP response: {waited}")
print("mprof why:", hops)
PY
exit $status
