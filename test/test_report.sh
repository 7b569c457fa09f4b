#!/usr/bin/env bash
# test_report.sh -- `mprof report` on a recorded story (test/story.c) finds
# what the story holds: two stalls, the lost wake-up of "ready", the wait
# chain GET / -> lookup -> disk read, and why GET / took so long (mprof
# why); its times between what the story sleeps and the wall-clock time it
# ran.
set -euo pipefail
build=$1
net_ctf=$2
mprof=$build/mprof
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }

started=$(date +%s%N)
"$build/test/story" "$tmp/story.ctf"
ran_ns=$(($(date +%s%N) - started))
"$mprof" why --json "GET /" "$tmp/story.ctf" >"$tmp/why.json"
/usr/bin/python3 - "$tmp/why.json" "$ran_ns" <<'PY'
import json, sys
why = json.load(open(sys.argv[1]))
hops = [(s["via"], s["thread"]["name"]) for s in why["steps"]]
want = [("target", "GET /"), ("waited", "lookup"), ("waited", "disk read"),
        ("resolved", "loop")]
if hops != want:
    sys.exit("FAIL: why GET /: %s, not %s" % (hops, want))
disk = why["steps"][2]
if not 20e6 <= disk["end_ns"] - disk["start_ns"] <= int(sys.argv[2]):
    sys.exit("FAIL: why GET /: the disk read's wait: %s" % disk)
PY
"$mprof" report --json "$tmp/story.ctf" >"$tmp/report.json" 2>"$tmp/err"
[ ! -s "$tmp/err" ] || fail "report printed: $(cat "$tmp/err")"
/usr/bin/python3 - "$tmp/report.json" "$ran_ns" <<'PY'
import json, sys
r = json.loads(open(sys.argv[1]).read())
ran_ns = int(sys.argv[2])  # the story's run, by the wall clock: no time in
                           # its trace can be longer
def names(things): return [t["name"] for t in things]
def check(cond, what):
    if not cond: sys.exit("FAIL: %s\n%s" % (what, json.dumps(r, indent=1)))
check(r["streams"] == 2, "two OS threads")
stalled = sorted(s["thread"]["name"] for s in r["stalls"])
check(stalled == ["stuck job", "wait for ready"], "stalls: %s" % stalled)
wait = [s for s in r["stalls"] if s["thread"]["name"] == "wait for ready"][0]
check(wait["creator"]["name"] == "ready", "the wait was created by the condition")
check([a["kind"] for a in wait["before"]][-1] == "try_read", "last thing before the stall")
check(len(r["lost_wakeups"]) == 1, "one lost wake-up")
lw = r["lost_wakeups"][0]
check(lw["condition"]["name"] == "ready" and lw["signalled_by"]["name"] == "producer"
      and lw["waiter"]["name"] == "wait for ready", "lost wake-up parties")
check(lw["signal_ns"] < lw["wait_start_ns"], "the signal came first")
chains = [names(c["threads"]) for c in r["wait_chains"]]
check(["GET /", "lookup", "disk read"] in chains, "wait chain: %s" % chains)
check(r["critical_path"] == [], "critical paths, of requests: the story has none")
# The findings, most severe first: the lost wake-up, then the stalls.
kinds = [(f["kind"], f["severity"]) for f in r["findings"]]
check(kinds == [("lost_wakeup", "error"), ("stalled", "error"), ("stalled", "error")],
      "findings: %s" % kinds)
lost = r["findings"][0]
check([t["label"] for t in lost["threads"]] == ["wait for ready", "ready", "producer"],
      "the lost wake-up's threads, the wait first")
check(lost["evidence"][0]["kind"] == "arrow" and lost["evidence"][0]["arrow"]["kind"] == "signal"
      and lost["evidence"][0]["start_ns"] == lw["signal_ns"], "its evidence: the signal")
check(lost["start_ns"] == lw["signal_ns"] and lost["end_ns"] == r["end_ns"], "its span")
check(lost["summary"].startswith('"wait for ready" (wait#'), "summary: %s" % lost["summary"])
check(r["requests"] == [], "no requests in the story")
req = [t for t in r["thread_times"] if t["thread"]["name"] == "GET /"][0]
check("idle_ns" not in req and req["not_running_ns"] >= 0 and req["in_poll_ns"] == 0,
      "times say not running, never idle")
check(19000000 <= req["waiting_ns"] <= ran_ns,
      "GET / waited 20 ms: %d ns, in a run of %d ns" % (req["waiting_ns"], ran_ns))
check(req["waiting_ns"] <= r["duration_ns"] <= ran_ns,
      "the trace lasts %d ns, the run %d ns" % (r["duration_ns"], ran_ns))
check(req["waiting_on"][0]["thread"]["name"] == "lookup", "on the lookup")
PY

# The text report says the same for a person.
"$mprof" report "$tmp/story.ctf" >"$tmp/report.txt"
grep -q '^Stalled: 2 should_resolve threads never resolved' "$tmp/report.txt" || fail "text stalls"
grep -q '"ready" (condition#[0-9]*) was signalled by "producer"' "$tmp/report.txt" || fail "text lost wake-up"
grep -q 'waits on "lookup"' "$tmp/report.txt" || fail "text chain"
grep -q '^Findings: 3 (3 errors, 0 warnings, 0 info)$' "$tmp/report.txt" || fail "text findings"
grep -A1 '^Findings' "$tmp/report.txt" | grep -q '^  error   lost_wakeup    "wait for ready" (wait#[0-9]*) waits for "ready"' ||
  fail "text: the lost wake-up first"
grep -q ' idle ' "$tmp/report.txt" && fail "text times say idle"

# Labels are escaped: a control character never reaches the terminal.
grep -q $'\x1b' "$tmp/report.txt" && fail "raw escape in text report"

# A name that is not UTF-8 still makes valid JSON, its bad byte as \xff.
"$mprof" stats --json "$tmp/story.ctf" | /usr/bin/python3 -c '
import json, sys
counters = json.loads(sys.stdin.read())["counters"]
assert counters == {"queue\\xff\x1b[31m": 3}, counters
' || fail "stats --json of a non-UTF-8 counter name"

# Every thread's time, in both traces: what it ran and the union of its
# waits each within its life.
for trace in "$net_ctf" "$tmp/story.ctf"; do
  "$mprof" report --json --top 0 "$trace" | /usr/bin/python3 -c '
import json, sys
for t in json.load(sys.stdin)["thread_times"]:
    assert 0 <= t["running_ns"] <= t["life_ns"] and 0 <= t["waiting_ns"] <= t["life_ns"], t
' || fail "$trace: a thread time beyond its life"
done

# --top N: the N longest-lived threads, longest first, as the head of the
# list of all (ties in thread order, so the same head whatever N).
"$mprof" report --json --top 0 "$net_ctf" >"$tmp/all.json"
for top in 1 5 40 1817 5000; do
  "$mprof" report --json --top "$top" "$net_ctf" >"$tmp/top.json"
  /usr/bin/python3 - "$tmp/all.json" "$tmp/top.json" "$top" <<'PY' || fail "--top $top"
import json, sys
every = json.load(open(sys.argv[1]))["thread_times"]
head = json.load(open(sys.argv[2]))["thread_times"]
lives = [t["life_ns"] for t in every]
assert len(every) == 1817 and lives == sorted(lives, reverse=True), lives[:20]
assert head == every[:int(sys.argv[3])], [t["thread"] for t in head[:5]]
PY
done

# A signal heard by a wait that began at its very instant (a clock that
# stands still) is not lost; the wait begun after it, never resolved, is
# stalled.
"$build/test/rel/same_instant" "$tmp/instant.ctf" || fail "same_instant"
"$mprof" report --json "$tmp/instant.ctf" | /usr/bin/python3 -c '
import json, sys
r = json.load(sys.stdin)
assert r["lost_wakeups"] == [], r["lost_wakeups"]
assert [s["thread"]["name"] for s in r["stalls"]] == ["never woken"], r["stalls"]
' || fail "a wait begun at the signal'\''s instant"

# A legacy trace, several traces at once, and usage errors.
"$mprof" report --json "$net_ctf" "$tmp/story.ctf" >"$tmp/two.json"
[ "$(wc -l <"$tmp/two.json")" = 2 ] || fail "one JSON line per trace"
/usr/bin/python3 -c '
import json, sys
lines = [json.loads(l) for l in open(sys.argv[1])]
assert lines[0]["events"] == 10078 and lines[0]["threads"] == 1817, lines[0]["threads"]
# Lwt binds wait on their inputs (reads of inputs pending when the reader
# began): the longest chain runs from bind#90 down to "ring.write".
chain = lines[0]["wait_chains"][0]
names = [t["name"] for t in chain["threads"]]
assert (names[0], names[1], names[-1]) == ("bind#90", "bind#399", "ring.write"), names
assert len(names) == 10 and chain["start_ns"] == 7531892, chain
main = next(t for t in lines[0]["thread_times"] if t["thread"]["id"] == 1)
assert main["waiting_ns"] > 7e6, main
' "$tmp/two.json" || fail "net.ctf report"
# Damaged traces: a thread whose end may be in what was lost is never an
# error (a stall there is an info that says it cannot tell).
for damaged in "$(dirname "$net_ctf")"/damaged/*.ctf; do
  "$mprof" report --json "$damaged" >"$tmp/damaged.json" 2>/dev/null || true # exit 1: damaged
  /usr/bin/python3 -c '
import json, sys
line = sys.stdin.readline()
if not line: sys.exit(0) # nothing usable in it: no report
r = json.loads(line)
bad = [f["summary"] for f in r["findings"] if f["severity"] in ("error", "warning")]
assert not bad, bad
told = [f for f in r["findings"] if f["kind"] == "stalled"]
assert all("cannot tell" in f["summary"] for f in told), told
' <"$tmp/damaged.json" || fail "report of $damaged"
done

set +e
"$mprof" report >/dev/null 2>&1; [ $? = 2 ] || fail "no trace: usage error"
"$mprof" report --top x "$tmp/story.ctf" >/dev/null 2>&1; [ $? = 2 ] || fail "bad --top"
"$mprof" report --loop-blocked-ms 0 "$tmp/story.ctf" >/dev/null 2>"$tmp/err"; [ $? = 2 ] || fail "bad --loop-blocked-ms"
grep -qx "mprof report: --loop-blocked-ms: 0: give a number of milliseconds from 1" "$tmp/err" || fail "bad --loop-blocked-ms: $(cat "$tmp/err")"
"$mprof" report "$tmp/missing.ctf" >/dev/null 2>&1; [ $? = 3 ] || fail "missing trace"
set -e
echo "report: ok"
