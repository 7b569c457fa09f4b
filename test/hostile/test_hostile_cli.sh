#!/usr/bin/env bash
# test_hostile_cli.sh -- the commands on traces damaged where the decoder
# alone cannot tell: each says what is wrong in one line naming the file,
# exits non-zero, never crashes and never gives a wrong answer.
#   test_hostile_cli.sh BUILD
. "$(dirname "$0")/../command/common.sh"
here=$(dirname "$0")

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

echo "hostile_cli: ok"
