#!/usr/bin/env bash
# test_hostile_cli.sh -- the commands on traces damaged where the decoder
# alone cannot tell: each says what is wrong in one line naming the file,
# exits non-zero, never crashes and never gives a wrong answer.
#   test_hostile_cli.sh BUILD
. "$(dirname "$0")/../command/common.sh"
here=$(dirname "$0")
mprof=$(realpath "$mprof") # it runs in other directories below

"$gen" "$tmp/t.ctf" overwrite 262144 200 2 >/dev/null

# A thread id of 2^56 or more in a packet's current_thread (where a model of
# several traces keeps the trace's place): the packet is skipped, as if it
# had never been written.  otlp does not crash, and a Chrome export of it
# beside another trace is that of the trace without the packet: none of
# its events lands in the other process.
mkdir "$tmp/bogus" "$tmp/never"
cp "$tmp/t.ctf" "$tmp/bogus/x.ctf"
"$here/flip.py" "$tmp/bogus/x.ctf" 80 0x0100000000000005
cp "$tmp/t.ctf" "$tmp/never/x.ctf"
"$here/flip.py" "$tmp/never/x.ctf" 0 0 # the magic: never written
code=0
"$mprof" export --format=otlp "$tmp/bogus/x.ctf" -o "$tmp/ids.json" 2>"$tmp/err" || code=$?
[ "$code" = 1 ] || fail "otlp on a bogus current_thread: exit $code: $(cat "$tmp/err")"
grep -q "^mprof: $tmp/bogus/x.ctf: packet 0 at offset [0-9]*: current_thread out of range" "$tmp/err" \
  || fail "otlp on a bogus current_thread says: $(cat "$tmp/err")"
for dir in bogus never; do
  (cd "$tmp/$dir" && "$mprof" export x.ctf ../t.ctf -o chrome.json 2>/dev/null) || true
done
cmp -s "$tmp/bogus/chrome.json" "$tmp/never/chrome.json" \
  || fail "a bogus thread id in one trace changed the Chrome export"

# A legacy (mirage-profile) trace of one packet: three switches, the
# second to the id 2^56 - 1 (2^56 once shifted past the legacy "none"):
# its packet ends there, told in one line.
python3 - "$tmp/legacy.ctf" <<'PY'
import struct, sys
events = b"".join(struct.pack("<QBQ", 1000 * (i + 1), 7, thread)
                  for i, thread in enumerate([5, (1 << 56) - 1, 3]))
size = 30 + len(events)
header = struct.pack("<I16sIHI", 0xC1FC1FC1, bytes(range(16)), size * 8, 0, size * 8)
open(sys.argv[1], "wb").write(header + events)
PY
code=0
"$mprof" check "$tmp/legacy.ctf" >"$tmp/out" 2>"$tmp/err" || code=$?
[ "$code" = 1 ] || fail "legacy thread id 2^56: exit $code: $(cat "$tmp/out" "$tmp/err")"
grep -q "^$tmp/legacy.ctf: damaged, 1 events in 1 packets" "$tmp/out" \
  || fail "legacy thread id 2^56: $(cat "$tmp/out")"
grep -q "^mprof: $tmp/legacy.ctf: packet 0 at offset 0: event at offset 47: thread id out of range" "$tmp/err" \
  || fail "legacy thread id 2^56 says: $(cat "$tmp/err")"

# A core dump with two writable segments at one address: a stopped small
# trace, then a bigger one still recording.  snapshot --core reads the
# recording one, from its own segment: the copy checks as that trace does
# (not the small one's packets, nor bytes past them).
"$gen" "$tmp/small.ctf" overwrite 65536 50 1 >/dev/null
"$gen" "$tmp/bigger.ctf" discard 1048576 300 2 >/dev/null
cp "$tmp/bigger.ctf" "$tmp/recording.ctf"
"$here/flip.py" "$tmp/recording.ctf" state 1
"$here/make_core.py" "$tmp/core" "$tmp/small.ctf" "$tmp/recording.ctf"
"$mprof" snapshot --core "$tmp/core" -w "$tmp/from-core.ctf" 2>/dev/null \
  || fail "snapshot --core of two traces at one address failed"
[ "$(stat -c %s "$tmp/from-core.ctf")" = 1048576 ] \
  || fail "snapshot --core: $(stat -c %s "$tmp/from-core.ctf") bytes, not the bigger trace's 1048576"
expected=$("$mprof" check "$tmp/bigger.ctf" | sed 's/^[^:]*: //')
got=$("$mprof" check "$tmp/from-core.ctf" | sed 's/^[^:]*: //')
[ "$got" = "$expected" ] || fail "snapshot --core copied: $got (the recording trace: $expected)"

# Counts a trace gives cannot pass 2^63-1 (where JSON's integers end):
# events_discarded of 2^63 in one stream, or 2^64-1 in two (whose sum
# wraps), are damage, told in one line, and shown saturated, never
# negative or small: stats (text and --json), report --json and check.
"$gen" "$tmp/two.ctf" discard 262144 200 2 >/dev/null
most=9223372036854775807
for case in "2^63:0x8000000000000000:stream=1" "2^64-1 twice:0xffffffffffffffff:stream=1 stream=2"; do
  IFS=: read -r name value streams <<<"$case"
  cp "$tmp/two.ctf" "$tmp/counts.ctf"
  for stream in $streams; do
    "$here/flip.py" "$tmp/counts.ctf" 72 "$value" "$stream"
  done
  code=0
  "$mprof" check "$tmp/counts.ctf" >"$tmp/out" 2>"$tmp/err" || code=$?
  [ "$code" = 1 ] || fail "check, events_discarded $name: exit $code: $(cat "$tmp/out")"
  grep -q "^$tmp/counts.ctf: damaged, .* $most discarded" "$tmp/out" \
    || fail "check, events_discarded $name: $(cat "$tmp/out")"
  grep -q "^mprof: $tmp/counts.ctf: .*2^63-1" "$tmp/err" \
    || fail "check, events_discarded $name says: $(cat "$tmp/err")"
  "$mprof" stats "$tmp/counts.ctf" >"$tmp/out" 2>/dev/null || true
  grep -qx "  discarded: $most" "$tmp/out" \
    || fail "stats, events_discarded $name: $(grep discarded "$tmp/out")"
  for command in "stats --json" "report --json"; do
    # shellcheck disable=SC2086 # the command's words
    got=$("$mprof" $command "$tmp/counts.ctf" 2>/dev/null |
      python3 -c 'import json, sys; print(json.loads(sys.stdin.readline())["discarded"])') || true
    [ "$got" = "$most" ] || fail "$command, events_discarded $name: discarded $got"
  done
done

# A clock_offset near 2^63 (a corpus trace): OTLP's times, unsigned ns
# since the epoch, saturate; none wraps negative.
"$mprof" export --format=otlp "$here/../fuzz/corpus/regress-clock-offset-overflow.ctf" \
  -o "$tmp/clock.json" 2>/dev/null || true
negative=$(python3 - "$tmp/clock.json" <<'PY'
import json, sys
def times(node, key=""):
    if isinstance(node, dict):
        if node.get("key", "").endswith("time_unix_nano"):
            yield node["key"], node["value"]["intValue"]
        for k, v in node.items():
            yield from times(v, k)
    elif isinstance(node, list):
        for v in node:
            yield from times(v, key)
    elif key.endswith("TimeUnixNano"):
        yield key, node
print(next((f"{k} {v}" for k, v in times(json.load(open(sys.argv[1]))) if str(v).startswith("-")), ""))
PY
)
[ -z "$negative" ] || fail "otlp: a negative time: $negative"

echo "hostile_cli: ok"
