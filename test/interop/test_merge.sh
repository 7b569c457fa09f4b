#!/usr/bin/env bash
# test_merge.sh -- `mprof merge`: a client and a server recorded with a
# known clock error become one merged trace that babeltrace2 reads as it is
# (every event, no warning, the server's receive 50 us after the client's
# send), and that mprof report and export read as one (check, stats and
# dump: member by member); --offset moves a member by hand.
net_ctf=$2
. "$(dirname "$0")/pair.sh"

"$mprof" merge --align client.ctf late.ctf -o all.ctf 2>align.txt ||
  fail "merge: $(cat align.txt)"
printf 'mprof-merge 1\n0 client.ctf\n-1000000 late.ctf\n' >want.txt
cmp -s want.txt all.ctf/mprof-merge || fail "manifest: $(cat all.ctf/mprof-merge)"

# babeltrace2: every event of both, no warning, one time axis.
babeltrace2 --clock-seconds all.ctf >bt.txt 2>bt.err || fail "babeltrace2: $(cat bt.err)"
[ ! -s bt.err ] || fail "babeltrace2 warned: $(cat bt.err)"
events=$("$mprof" stats --json client.ctf late.ctf |
         /usr/bin/python3 -c 'import json, sys; print(sum(json.loads(l)["events"] for l in sys.stdin))')
[ "$(wc -l <bt.txt)" -eq "$events" ] || fail "babeltrace2 read $(wc -l <bt.txt) of $events events"
stamp() { grep -F "text = \"$1\"" bt.txt | sed 's/^\[\([0-9.]*\)\].*/\1/'; }
sent=$(stamp "net send tcp 10.0.0.1:40000 10.0.0.2:80 0 100")
received=$(stamp "net recv tcp 10.0.0.1:40000 10.0.0.2:80 0 100")
[ "$sent" = 1700000000.001000000 ] && [ "$received" = 1700000000.001050000 ] ||
  fail "babeltrace2 times: sent $sent, received $received"

# mprof report: one model of two processes.
"$mprof" report --json all.ctf >report.json
/usr/bin/python3 - report.json <<'PY' || fail "report of the merged trace"
import json, sys
r = json.load(open(sys.argv[1]))
assert r["streams"] == 2, r["streams"]
assert r["threads"] == 32, r["threads"]     # 21 client + 11 server
PY
# mprof why across the processes: the client's receive of reply 2 was sent
# by the server (a message matched by the labels), whose send began it
"$mprof" why --json "net recv tcp 10.0.0.2:80 10.0.0.1:40000 2000 500" all.ctf \
  >why.json || fail "why across the processes"
/usr/bin/python3 - why.json <<'PY' || fail "why across the processes"
import json, sys
steps = json.load(open(sys.argv[1]))["steps"]
hops = [(s["via"], s["thread"]["label"]) for s in steps]
assert hops == [("target", "net recv tcp 10.0.0.2:80 10.0.0.1:40000 2000 500"),
                ("sent", "net send tcp 10.0.0.2:80 10.0.0.1:40000 2000 1000")], hops
PY
# check, stats and dump: each member.
"$mprof" check all.ctf >check.txt || fail "check: $(cat check.txt)"
[ "$(grep -c '^all.ctf/.*/.mprof: ok' check.txt)" -eq 2 ] || fail "check of members: $(cat check.txt)"
[ "$("$mprof" stats all.ctf | grep -c '^all.ctf/')" -eq 2 ] || fail "stats of members"
"$mprof" dump all.ctf >dump.txt # each member's events after ==> all.ctf/MEMBER <==
[ "$(grep -c '^==> all.ctf/.* <==$' dump.txt)" -eq 2 ] &&
  [ "$(grep -vc '^==> \|^$' dump.txt)" -eq "$events" ] || fail "dump of members"

# export: the merged trace is already aligned.
"$mprof" export all.ctf -o all.json
/usr/bin/python3 - all.json <<'PY' || fail "export of the merged trace"
import json, sys
events = json.load(open(sys.argv[1]))["traceEvents"]
def first(prefix, pid):
    return min(float(e["ts"]) for e in events if e["ph"] == "n" and e["pid"] == pid
               and e["args"]["label"].startswith(prefix))
delay = first("net recv tcp 10.0.0.1", 2) - first("net send tcp 10.0.0.1", 1)
assert abs(delay - 50.0) < 0.0005, delay
PY

# --offset by hand: the server's known error (its anchor 1 ms late) taken
# off gives the aligned times; 5 us more moves its receive 5 us later.
for offset in -1000000 -995000; do
  "$mprof" merge --offset late.ctf=$offset client.ctf late.ctf -o off$offset.ctf ||
    fail "merge --offset late.ctf=$offset"
  printf 'mprof-merge 1\n0 client.ctf\n%s late.ctf\n' $offset >want.txt
  cmp -s want.txt off$offset.ctf/mprof-merge ||
    fail "--offset $offset: manifest $(cat off$offset.ctf/mprof-merge)"
  babeltrace2 --clock-seconds off$offset.ctf >bt.txt 2>bt.err || fail "babeltrace2: $(cat bt.err)"
  sent=$(stamp "net send tcp 10.0.0.1:40000 10.0.0.2:80 0 100")
  received=$(stamp "net recv tcp 10.0.0.1:40000 10.0.0.2:80 0 100")
  want=$([ $offset = -1000000 ] && echo 1700000000.001050000 || echo 1700000000.001055000)
  [ "$sent" = 1700000000.001000000 ] && [ "$received" = "$want" ] ||
    fail "--offset $offset: babeltrace2 times: sent $sent, received $received, not $want"
done

# Two traces of one name get two members; a manifest cannot leave its
# directory.
mkdir other && cp client.ctf other/client.ctf
"$mprof" merge client.ctf other/client.ctf -o twice.ctf
grep -qx "0 client.ctf-2" twice.ctf/mprof-merge || fail "unique members: $(cat twice.ctf/mprof-merge)"
printf 'mprof-merge 1\n0 ../client.ctf\n' >twice.ctf/mprof-merge
if "$mprof" report twice.ctf 2>err.txt; then fail "a manifest naming ../"; fi
grep -q "line 2: want OFFSET_NS MEMBER" err.txt || fail "bad manifest: $(cat err.txt)"
# A legacy trace and an mprof trace cannot share one model: refused whole.
if "$mprof" merge "$net_ctf" client.ctf -o mixed.ctf 2>err.txt; then fail "legacy + mprof merged"; fi
grep -q "cannot share one time axis" err.txt && [ ! -e mixed.ctf ] || fail "mixed: $(cat err.txt)"
echo "ok: merged trace read by babeltrace2 and mprof on one time axis"
