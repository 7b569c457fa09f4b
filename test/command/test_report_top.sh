#!/usr/bin/env bash
# test_report_top.sh -- `mprof report --top N`: the N longest-lived threads'
# times (10 by default), and every thread's with --top 0.
#
#   test_report_top.sh BUILD NET_CTF   (net.ctf: 1817 threads)
. "$(dirname "$0")/common.sh"
net_ctf=$2

# How many thread times the JSON report holds, and how many threads.
times() {
  "$mprof" report --json "$@" "$net_ctf" | /usr/bin/python3 -c '
import json, sys
r = json.load(sys.stdin)
lives = [t["life_ns"] for t in r["thread_times"]]
assert lives == sorted(lives, reverse=True), "longest-lived first"
print(len(lives), r["threads"])'
}
[ "$(times)" = "10 1817" ] || fail "default: $(times)"
[ "$(times --top 3)" = "3 1817" ] || fail "--top 3: $(times --top 3)"
[ "$(times --top 0)" = "1817 1817" ] || fail "--top 0: $(times --top 0)"
[ "$(times --top 5000)" = "1817 1817" ] || fail "--top 5000: $(times --top 5000)"

# The text says which: the N longest-lived, or all of them.
"$mprof" report --top 3 "$net_ctf" >"$tmp/three.txt"
grep -qx 'Time per thread (the 3 longest-lived):' "$tmp/three.txt" \
  || fail "text --top 3: $(grep 'Time per' "$tmp/three.txt")"
"$mprof" report --top 0 "$net_ctf" >"$tmp/all.txt"
grep -qx 'Time per thread (all 1817, longest-lived first):' "$tmp/all.txt" \
  || fail "text --top 0: $(grep 'Time per' "$tmp/all.txt")"
# Each thread's entry is a line of its name, then "    life ...".
[ "$(grep -c '^    life ' "$tmp/all.txt")" = 1817 ] || fail "text --top 0: not every thread"
"$mprof" report --help | grep -q -- '0 for all' || fail "--help does not say --top 0"
echo "report --top: ok"
