#!/usr/bin/env bash
# test_record_tree.sh BUILD_DIR -- a real process tree under `mprof record`:
# a shell (no libuv) runs uv_prog no-loop, then uv_prog fork, whose child
# runs timers of its own.  mprof record must list each trace with events
# (path, process, pid, events: checked against babeltrace2 and mprof
# stats), remove the shell's empty one, and write TRACE.manifest naming
# exactly the listed traces; report, stats, export and view read the
# manifest as one trace of three processes on one time axis (times checked
# against babeltrace2's wall clock); a manifest naming a missing or damaged
# trace gives one line naming it and a non-zero exit, the others read.
set -euo pipefail
build=$1
mprof=$build/mprof
prog=$build/test/uv/uv_prog_plain
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }
cd "$tmp"
py() { /usr/bin/python3 - "$@"; }

"$mprof" record -o t.ctf -- sh -c "'$prog' '$tmp' no-loop; '$prog' '$tmp' fork" \
  >out.txt 2>record.txt || fail "record: $(cat record.txt)"
printf '%s\n' 'no-loop: never ran the loop' 'timer: start without a callback: EINVAL' \
  'timer: closed after 3 ticks' 'fork: child exited 0' >want.txt
cmp -s want.txt out.txt || fail "program output: $(cat out.txt)"

# The listing: "  PATH: PROCESS, pid PID, N events", one line per trace.
sed -n 's/^  \(t\.ctf[.0-9]*\): \(.*\), pid \([0-9]*\), \([0-9]*\) events$/\1 \2 \3 \4/p' \
  record.txt >listed.txt
[ "$(wc -l <listed.txt)" -eq 3 ] || fail "listing: $(cat record.txt)"
# The shell's trace held nothing (its process never ran libuv): gone.
[ ! -e t.ctf ] && ! grep -q '^t\.ctf ' listed.txt || fail "the shell's trace: $(cat record.txt)"
if grep -q '^mprof: record: removed' record.txt; then
  grep -qx 'mprof: record: removed t.ctf: no events but the shim.s names ([0-9]*)' record.txt ||
    fail "removal: $(cat record.txt)"
fi
# Each listed trace against babeltrace2 (its process name and the pid of
# its main OS thread) and mprof stats (its events); the files left are
# exactly the listed ones and the manifest.
while read -r path process pid events; do
  "$mprof" ctf "$path" -o "$path.dir" >/dev/null
  babeltrace2 --clock-seconds "$path.dir" >"$path.bt"
  [ "$(sed -n 's/^\[[0-9.]*\] ([^)]*) \([^ ]*\) .*/\1/p' "$path.bt" | sort -u)" = "$process" ] &&
    [ "$process" = uv_prog_plain ] || fail "$path: process $process"
  grep -q "os_thread_id = $pid }" "$path.bt" || fail "$path: no OS thread $pid"
  [ "$(wc -l <"$path.bt")" -eq "$events" ] || fail "$path: $events events, babeltrace2 read $(wc -l <"$path.bt")"
  [ "$("$mprof" stats --json "$path" |
       /usr/bin/python3 -c 'import json,sys; print(json.load(sys.stdin)["events"])')" \
    -eq "$events" ] || fail "$path: events against mprof stats"
done <listed.txt
[ "$(ls | grep '^t\.ctf' | grep -v '\.dir$\|\.bt$' | sort | tr '\n' ' ')" = \
  "$(cut -d' ' -f1 listed.txt | sort | tr '\n' ' ')t.ctf.manifest " ] || fail "files left: $(ls)"
# The manifest: exactly the listed traces, on one clock (offsets 0).
{ echo "mprof-merge 1"; cut -d' ' -f1 listed.txt | sed 's/^/0 /'; } >want.txt
cmp -s want.txt t.ctf.manifest || fail "manifest: $(cat t.ctf.manifest)"
grep -qx '  view it:  mprof report t.ctf.manifest' record.txt || fail "no advice: $(cat record.txt)"

# Which trace is which: the no-loop run, the fork parent, its child.
read -r loopless parent child < <(py listed.txt <<'PY'
import sys
rows = [line.split() for line in open(sys.argv[1])]
nested = [r for r in rows if r[0].count(".") == 3][0]
parent = [r for r in rows if nested[0].startswith(r[0] + ".")][0]
other = [r for r in rows if r not in (nested, parent)][0]
print(other[0], parent[0], nested[0])
PY
)

# report: one model of the three processes (a thread id's top byte is its
# trace: the manifest's order).
"$mprof" report --json t.ctf.manifest >report.json || fail "report of the manifest"
py report.json <<'PY' || fail "report: $(cat report.json)"
import json, sys
r = json.load(open(sys.argv[1]))
assert r["streams"] == 3, r["streams"]
timers = sorted(t["thread"]["id"] >> 56 for t in r["thread_times"]
                if t["thread"]["name"] == "timer")
assert timers == [0, 1, 2], timers  # each process made its timer
PY
# stats: each member, counted as the listing said.
"$mprof" stats --json t.ctf.manifest >stats.json
[ "$(py stats.json <<'PY'
import json, sys
for o in map(json.loads, open(sys.argv[1])): print(o["trace"], o["events"])
PY
)" = "$(awk '{print $1, $4}' listed.txt)" ] ||
  fail "stats of the manifest: $(cat stats.json)"

# check: each member.
"$mprof" check t.ctf.manifest >check.txt || fail "check: $(cat check.txt)"
[ "$(grep -c '^t\.ctf\.[.0-9]*: ok, [0-9]* events' check.txt)" -eq 3 ] ||
  fail "check of the manifest: $(cat check.txt)"

# export: the processes named by their traces, on one time axis: the
# child's labels inside its parent's run, the no-loop run over before the
# parent began, each gap as babeltrace2's wall clocks have it.
"$mprof" export t.ctf.manifest -o all.json || fail "export of the manifest"
py all.json "$loopless" "$parent" "$child" <<'PY' || fail "export on one time axis"
import json, re, sys
events = json.load(open(sys.argv[1]))["traceEvents"]
paths = sys.argv[2:]
names = {e["pid"]: e["args"]["name"] for e in events if e["name"] == "process_name"}
assert names == {1: paths[0], 2: paths[1], 3: paths[2]}, names
def labels(pid):  # times of label events, us since the model's start
    return sorted(float(e["ts"]) for e in events if e["ph"] == "n" and e["pid"] == pid)
def wall(path):   # the same from babeltrace2, in s since the epoch
    return sorted(float(re.match(r"\[([0-9.]+)\]", line).group(1))
                  for line in open(path + ".bt") if re.search(r" label(_ref)?: ", line))
def running(pid):  # [first, last] of the running spans
    spans = [(float(e["ts"]), float(e["ts"]) + float(e["dur"]))
             for e in events if e["ph"] == "X" and e["pid"] == pid]
    return min(s[0] for s in spans), max(s[1] for s in spans)
loopless, parent, child = labels(1), labels(2), labels(3)
assert loopless and parent and child, (loopless, parent, child)
begin, end = running(2)
assert loopless[-1] < parent[0] < begin < child[0] <= child[-1] < end, \
    (loopless, begin, parent, child, end)
for pid, path in ((1, paths[0]), (3, paths[2])):
    gap = labels(pid)[0] - parent[0]
    want = (wall(path)[0] - wall(paths[1])[0]) * 1e6
    assert abs(gap - want) < 1, (path, gap, want)
PY
"$mprof" view --png tree.png t.ctf.manifest || fail "view of the manifest"
[ -s tree.png ] || fail "view drew nothing"

# Bad input: a member missing, another damaged.  One line names each, the
# exit is 1, the good trace is still read.
cp "$parent" "$parent.bad"
head -c 4096 /dev/zero | dd of="$parent.bad" conv=notrunc status=none
printf 'mprof-merge 1\n0 %s\n0 gone.ctf\n0 %s\n' "$child" "$parent.bad" >bad.manifest
for command in report stats export; do
  set +e
  "$mprof" $command bad.manifest >bad.out 2>bad.err
  code=$?
  set -e
  [ $code -eq 1 ] || fail "$command of a bad manifest: exit $code: $(cat bad.err)"
  [ "$(grep -c 'gone.ctf' bad.err)" -eq 1 ] &&
    grep -qx "mprof: gone.ctf: No such file or directory" bad.err ||
    fail "$command: missing member: $(cat bad.err)"
  [ "$(grep -c "$parent.bad" bad.err)" -eq 1 ] &&
    grep -qx "mprof: $parent.bad: offset 0: not an mprof trace (bad magic)" bad.err ||
    fail "$command: damaged member: $(cat bad.err)"
  grep -q "$child\|timer" bad.out || fail "$command: the good member unread: $(cat bad.out)"
done
# check says which member is unusable, and checks the others.
if "$mprof" check bad.manifest >bad.out 2>bad.err; then fail "check of a bad manifest"; fi
grep -qx "gone.ctf: unusable" bad.out && grep -q "^$child: ok" bad.out ||
  fail "check of a bad manifest: $(cat bad.out bad.err)"
echo "ok: a process tree recorded, listed, cleaned and read as one trace"
