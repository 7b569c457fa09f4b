#!/usr/bin/env bash
# test_record_tree.sh BUILD_DIR -- a real process tree under `mprof record`:
# tree_prog spawns itself as "idle" (no libuv call) and as "timer", forks a
# child with a timer, and runs a timer itself; each process prints its pid.
# mprof record must list each trace with events (path, process, pid,
# events: checked against the program's pids, babeltrace2 and mprof
# stats), remove the idle process's empty trace, and write TRACE.manifest
# naming exactly the listed traces; report, stats, check, export and view
# read the manifest as one trace of three processes on one time axis
# (times checked against babeltrace2's wall clock), html a manifest of one
# process; a manifest naming a missing or damaged trace gives one line
# naming it and a non-zero exit, the others read. A FIFO where the
# manifest goes: one line, never written in place.
set -euo pipefail
build=$1
mprof=$build/mprof
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }
cd "$tmp"
py() { /usr/bin/python3 - "$@"; }

"$mprof" record -o t.ctf -- "$build/test/interop/tree_prog" >out.txt 2>record.txt ||
  fail "record: $(cat record.txt)"
[ "$(cut -d' ' -f1 out.txt | tr '\n' ' ')" = "idle timer forked top " ] ||
  fail "program output: $(cat out.txt)"
pid_of() { sed -n "s/^$1 //p" out.txt; }
top=t.ctf timer=t.ctf.$(pid_of timer) forked=t.ctf.$(pid_of forked)
idle=t.ctf.$(pid_of idle)

# The listing: "  PATH: PROCESS, pid PID, N events", one line per trace,
# in the order of their paths.
sed -n 's/^  \(t\.ctf[.0-9]*\): \(.*\), pid \([0-9]*\), \([0-9]*\) events$/\1 \2 \3 \4/p' \
  record.txt >listed.txt
[ "$(cut -d' ' -f1-3 listed.txt | sort)" = "$(printf '%s\n' \
  "$top tree_prog $(pid_of top)" "$timer tree_prog $(pid_of timer)" \
  "$forked tree_prog $(pid_of forked)" | sort)" ] || fail "listing: $(cat record.txt)"
# The idle process never ran libuv: its trace, if it made one, is gone.
[ ! -e "$idle" ] && ! grep -q "^$idle " listed.txt || fail "idle trace: $(cat record.txt)"
if grep -q '^mprof record: removed' record.txt; then
  [ "$(grep '^mprof record: removed' record.txt)" = \
    "mprof record: removed $idle: no events but the shim's names (2)" ] ||
    fail "removal: $(cat record.txt)"
fi
# Each listed trace against babeltrace2 (its process name and the pid of
# its main OS thread) and mprof stats (its events); the files left are
# exactly the listed ones and the manifest.
while read -r path process pid events; do
  "$mprof" ctf "$path" -o "$path.dir" >/dev/null
  babeltrace2 --clock-seconds "$path.dir" >"$path.bt"
  [ "$(sed -n 's/^\[[0-9.]*\] ([^)]*) \([^ ]*\) .*/\1/p' "$path.bt" | sort -u)" = \
    "$process" ] || fail "$path: process $process"
  grep -q "os_thread_id = $pid }" "$path.bt" || fail "$path: no OS thread $pid"
  [ "$(wc -l <"$path.bt")" -eq "$events" ] ||
    fail "$path: $events events, babeltrace2 read $(wc -l <"$path.bt")"
  [ "$("$mprof" stats --json "$path" |
       /usr/bin/python3 -c 'import json,sys; print(json.load(sys.stdin)["events"])')" \
    -eq "$events" ] || fail "$path: events against mprof stats"
done <listed.txt
[ "$(ls | grep '^t\.ctf' | grep -v '\.dir$\|\.bt$' | sort | tr '\n' ' ')" = \
  "$(cut -d' ' -f1 listed.txt | sort | tr '\n' ' ')t.ctf.manifest " ] ||
  fail "files left: $(ls)"
# The manifest: exactly the listed traces, on one clock (offsets 0).
{ echo "mprof-merge 1"; cut -d' ' -f1 listed.txt | sed 's/^/0 /'; } >want.txt
cmp -s want.txt t.ctf.manifest || fail "manifest: $(cat t.ctf.manifest)"
grep -qx '  view it:  mprof report t.ctf.manifest' record.txt ||
  fail "no advice: $(cat record.txt)"

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
[ "$(grep -c '^t\.ctf[.0-9]*: ok, [0-9]* events' check.txt)" -eq 3 ] ||
  fail "check of the manifest: $(cat check.txt)"

# export: the processes named by their traces, on one time axis: the
# children's labels inside the top process's run, the spawned child's
# before the forked one's, each gap as babeltrace2's wall clocks have it.
"$mprof" export t.ctf.manifest -o all.json || fail "export of the manifest"
py all.json $(cut -d' ' -f1 listed.txt) "$top" "$timer" "$forked" <<'PY' ||
import json, re, sys
events = json.load(open(sys.argv[1]))["traceEvents"]
manifest, (top, timer, forked) = sys.argv[2:5], sys.argv[5:]
names = {e["pid"]: e["args"]["name"] for e in events if e["name"] == "process_name"}
assert names == {i + 1: path for i, path in enumerate(manifest)}, names
pid = {path: i + 1 for i, path in enumerate(manifest)}
def labels(path):  # times of label events, us since the model's start
    return sorted(float(e["ts"]) for e in events
                  if e["ph"] == "n" and e["pid"] == pid[path])
def last(path):    # the end of its last span or event
    return max(float(e["ts"]) + float(e.get("dur", 0)) for e in events
               if e["ph"] != "M" and e["pid"] == pid[path])
def wall(path):    # label times from babeltrace2, in s since the epoch
    return sorted(float(re.match(r"\[([0-9.]+)\]", line).group(1))
                  for line in open(path + ".bt") if re.search(r" label(_ref)?: ", line))
assert labels(top)[0] < labels(timer)[0] <= labels(timer)[-1] < \
    labels(forked)[0] <= labels(forked)[-1] < last(top), \
    (labels(top), labels(timer), labels(forked), last(top))
for path in (timer, forked):
    gap = labels(path)[0] - labels(top)[0]
    want = (wall(path)[0] - wall(top)[0]) * 1e6
    assert abs(gap - want) < 1, (path, gap, want)
PY
  fail "export on one time axis"
"$mprof" view --png tree.png t.ctf.manifest || fail "view of the manifest"
[ -s tree.png ] || fail "view drew nothing"

# html: the browser viewer reads one trace file: a manifest of one
# process is read as its trace, one of three is refused in one line.
"$mprof" record -o one.ctf -- "$build/test/interop/tree_prog" timer >/dev/null 2>&1
[ "$(cat one.ctf.manifest)" = "$(printf 'mprof-merge 1\n0 one.ctf')" ] ||
  fail "manifest of one process: $(cat one.ctf.manifest)"
"$mprof" html one.ctf.manifest -o one-html 2>html.err || fail "html: $(cat html.err)"
cmp -s one.ctf one-html/one.ctf && [ -s one-html/index.html ] || fail "html of one"
if "$mprof" html t.ctf.manifest -o all-html 2>html.err; then fail "html of three"; fi
[ "$(cat html.err)" = "mprof html: t.ctf.manifest: a merged trace of 3 traces: \
the browser viewer reads one (mprof view reads all)" ] || fail "html of three: $(cat html.err)"

# Bad input: a member missing, another damaged.  One line names each, the
# exit is 1, the good trace is still read.
cp "$top" "$top.bad"
head -c 4096 /dev/zero | dd of="$top.bad" conv=notrunc status=none
printf 'mprof-merge 1\n0 %s\n0 gone.ctf\n0 %s\n' "$forked" "$top.bad" >bad.manifest
for command in report stats export; do
  set +e
  "$mprof" $command bad.manifest >bad.out 2>bad.err
  code=$?
  set -e
  [ $code -eq 1 ] || fail "$command of a bad manifest: exit $code: $(cat bad.err)"
  [ "$(grep -c 'gone.ctf' bad.err)" -eq 1 ] &&
    grep -qx "mprof: gone.ctf: No such file or directory" bad.err ||
    fail "$command: missing member: $(cat bad.err)"
  [ "$(grep -c "$top.bad" bad.err)" -eq 1 ] &&
    grep -qx "mprof: $top.bad: offset 0: not an mprof trace (bad magic)" bad.err ||
    fail "$command: damaged member: $(cat bad.err)"
  grep -q "$forked\|timer" bad.out || fail "$command: the good member unread: $(cat bad.out)"
done
# check says which member is missing and which unusable, checks the
# others, and exits as the other commands do.
code=0
"$mprof" check bad.manifest >bad.out 2>bad.err || code=$?
[ $code -eq 1 ] && grep -qx "mprof: gone.ctf: No such file or directory" bad.err &&
  grep -qx "$top.bad: unusable" bad.out && grep -q "^$forked: ok" bad.out ||
  fail "check of a bad manifest: exit $code: $(cat bad.out bad.err)"
# A FIFO where the manifest goes is refused with one line naming it, never
# written in place (which would wait for a reader); the program's own
# result is unchanged.
mkdir fifo && mkfifo fifo/t.ctf.manifest
code=0
timeout 30 "$mprof" record -o fifo/t.ctf -- "$build/test/interop/tree_prog" \
  >fifo.out 2>fifo.err || code=$?
[ $code -eq 0 ] &&
  grep -qx "mprof record: fifo/t.ctf.manifest: not a regular file" fifo.err ||
  fail "record with a FIFO at its manifest: exit $code: $(cat fifo.err)"
[ -p fifo/t.ctf.manifest ] || fail "the FIFO at the manifest was replaced"
echo "ok: a process tree recorded, listed, cleaned and read as one trace"
