#!/usr/bin/env bash
# test_align.sh -- two processes on one time axis: a client and a server
# recorded with a known clock error (netpair), exported together.  Their
# wall-clock anchors alone keep the error; --offset corrects it by hand;
# --align recovers it from the send/receive labels within the bound the
# shortest one-way delays allow (here exactly, both being 50 us).
. "$(dirname "$0")/pair.sh"
"$build/test/interop/netpair" server early.ctf -7777777    # 7.8 ms early

# The delays of the five requests, client send to server receive, in us.
delays() {
  /usr/bin/python3 - "$1" <<'PY'
import json, sys
events = json.load(open(sys.argv[1]))["traceEvents"]
def times(prefix, pid):
    return sorted(float(e["ts"]) for e in events if e["ph"] == "n" and e["pid"] == pid
                  and e["args"]["label"].startswith(prefix))
sent = times("net send tcp 10.0.0.1", 1)
received = times("net recv tcp 10.0.0.1", 2)
print(" ".join("%.3f" % (r - s) for s, r in zip(sent, received)))
PY
}
true_delays="50.000 57.000 64.000 71.000 78.000"

"$mprof" export client.ctf late.ctf -o anchors.json
[ "$(delays anchors.json)" = "1050.000 1057.000 1064.000 1071.000 1078.000" ] ||
  fail "anchors alone: $(delays anchors.json)"

"$mprof" export --offset late.ctf=-1000000 client.ctf late.ctf -o hand.json
[ "$(delays hand.json)" = "$true_delays" ] || fail "--offset: $(delays hand.json)"

"$mprof" export --align client.ctf late.ctf -o aligned.json 2>align.txt
grep -qx "mprof: align: client.ctf: offset +0 ns, the reference" align.txt ||
  fail "reference: $(cat align.txt)"
grep -qx "mprof: align: late.ctf: offset -1000000 ns, messages both ways (16 messages allow \[-1050000, -950000\])" align.txt ||
  fail "recovered offset: $(cat align.txt)"
[ "$(delays aligned.json)" = "$true_delays" ] || fail "--align: $(delays aligned.json)"

# A rough hand correction first, then alignment finds the rest.
"$mprof" export --offset early.ctf=+7000000 --align client.ctf early.ctf \
  -o both.json 2>align.txt
grep -q "early.ctf: offset +777777 ns, messages both ways (16 messages allow \[727777, 827777\])" align.txt ||
  fail "after --offset: $(cat align.txt)"
[ "$(delays both.json)" = "$true_delays" ] || fail "--offset --align: $(delays both.json)"

# A trace that exchanged nothing with the others is left where it is.
"$build/test/story" story.ctf
"$mprof" export --align client.ctf late.ctf story.ctf -o three.json 2>align.txt
grep -q "story.ctf: offset +0 ns, no messages with the others: not moved" align.txt ||
  fail "unrelated trace: $(cat align.txt)"

# Bad offsets are usage errors that say what is wrong.
set +e
"$mprof" export --offset nosuch.ctf=5 client.ctf -o x.json 2>err.txt
code=$?
set -e
[ $code -eq 2 ] && grep -q "no trace named nosuch.ctf" err.txt || fail "bad --offset: $code $(cat err.txt)"
echo "ok: offsets by hand and from messages put both processes on one axis"
