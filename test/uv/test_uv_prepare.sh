#!/bin/sh
# test_uv_prepare.sh BUILD_DIR -- test/uv/uv_prepare.c under `mprof record`:
# its prepare handle, started before uv_run(), works 5 ms in each turn of
# the loop before the poll.  The shim's own mark (mprof_suspend, where the
# loop's idle band begins) must run after it, so that the loop's time in
# poll holds the waits for the timer and none of that work: in poll and
# the prepare handle's running time together fit in the loop's life, and
# the poll is at least half of what the work leaves of it.
set -u
build=$1
out=$build/test/uv/out-prepare
rm -rf "$out" && mkdir -p "$out"
"$build/mprof" record -o "$out/prepare.ctf" -- "$build/test/uv/uv_prepare" \
  >"$out/prepare.txt" 2>"$out/record.txt" ||
  { echo "FAIL: uv_prepare under mprof record: $(cat "$out/record.txt")"; exit 1; }
grep -qx "prepare ran 10 times or more, timer ran 10 times" "$out/prepare.txt" ||
  { echo "FAIL: uv_prepare printed: $(cat "$out/prepare.txt")"; exit 1; }
"$build/mprof" report --json --top 0 "$out/prepare.ctf" >"$out/report.json" ||
  { echo "FAIL: mprof report of $out/prepare.ctf"; exit 1; }
python3 - "$out/report.json" <<'PY'
import json, sys
times = json.load(open(sys.argv[1]))["thread_times"]
def one(kind, label):
    found = [t for t in times if t["thread"]["type"] == kind and t["thread"].get("label") == label]
    if len(found) != 1:
        sys.exit("FAIL: %d threads %s %r in the report" % (len(found), kind, label))
    return found[0]
loop, prepare = one("loop", "default loop"), one("handle", "prepare")
work, poll, life = prepare["running_ns"], loop["in_poll_ns"], loop["life_ns"]
print("loop life %.1f ms, in poll %.1f ms; prepare's work %.1f ms" % (life / 1e6, poll / 1e6, work / 1e6))
if work < 10 * 5000000:
    sys.exit("FAIL: the prepare handle ran %d ns, not 10 x 5 ms or more" % work)
if poll + work > life:
    sys.exit("FAIL: in poll (%d ns) holds the prepare handle's work (%d ns): life %d ns" % (poll, work, life))
if poll < (life - work) / 2:
    sys.exit("FAIL: in poll %d ns, less than half of the loop's life %d ns less the work %d ns" % (poll, life, work))
PY
