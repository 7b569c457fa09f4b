#!/usr/bin/env bash
# seq_check_cases.sh -- seq_check is exact about what a crash may lose: a
# killed seq_writer's trace passes it, and two traces made from it by hand
# fail it, each holding a loss the ring cannot cause:
#   jump    three packets of a stream gone while its sequence numbers say
#           one: the values jump further than one packet can hold;
#   other   a thread's newest packet gone, while the stream shaped like an
#           overwritten one (newest packet empty, predecessor gone) is
#           another thread's (which completed nothing).
#   seq_check_cases.sh BUILD
set -euo pipefail
build=$1
checker=$build/test/rel/seq_check
tmp=$(mktemp -d)
pid=
trap '[ -z "$pid" ] || kill -KILL $pid 2>/dev/null || true; rm -rf "$tmp"' EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }

"$build/test/rel/seq_writer" file "$tmp/t.ctf" "$tmp/side" 2 262144 &
pid=$!
until [ "$(od -An -t u8 -j 8 -N 8 "$tmp/side" 2>/dev/null | tr -d ' ')" -gt 100000 ] 2>/dev/null; do
  kill -0 $pid 2>/dev/null || fail "the writer died on its own"
  sleep 0.01
done
kill -KILL $pid
wait $pid 2>/dev/null || true
pid=
"$checker" "$tmp/t.ctf" "$tmp/side" 2 >/dev/null || fail "the killed writer's trace"

# Each stream's counters (thread t records counter t + 1).
"$build/mprof" dump "$tmp/t.ctf" |
  awk '$3 == "counter_value" { sub("counter=", "", $5); print $2, $5 - 1 }' |
  sort -u >"$tmp/threads"

# The ring packets' headers as docs/FORMAT.md lays them out, edited.
python3 - "$tmp" <<'PY'
import struct, sys
tmp = sys.argv[1]
thread_of = dict(map(int, line.split()) for line in open(tmp + "/threads"))
data = bytearray(open(tmp + "/t.ctf", "rb").read())
side = bytearray(open(tmp + "/side", "rb").read())
packet_size, _, ring_count = struct.unpack_from("<III", data, 24)
packets_offset, = struct.unpack_from("<Q", data, 56)
streams = {}
for i in range(ring_count):
    at = packets_offset + i * packet_size
    if struct.unpack_from("<I", data, at)[0] == 0xC1FC1FC1:
        stream, = struct.unpack_from("<Q", data, at + 24)
        seq, = struct.unpack_from("<Q", data, at + 64)
        streams.setdefault(stream, []).append((seq, at))
streams = {s: sorted(p) for s, p in streams.items()}
def write(name, data, side):
    open("%s/%s.ctf" % (tmp, name), "wb").write(data)
    open("%s/%s.side" % (tmp, name), "wb").write(side)
longest = max(streams, key=lambda s: len(streams[s]))
packets = streams[longest]
assert len(packets) >= 8, "stream %d has %d packets" % (longest, len(packets))
# jump: packets 3, 4, 5 of the stream gone, packet 6 numbered as if one were.
jump = bytearray(data)
for _, at in packets[3:6]:
    struct.pack_into("<I", jump, at, 0)
struct.pack_into("<Q", jump, packets[6][1] + 64, packets[2][0] + 2)
write("jump", jump, side)
# other: the longest stream's newest packet gone; every other stream emptied
# (content_size: the header alone) with no predecessor, its thread said to
# have completed nothing.
other = bytearray(data)
struct.pack_into("<I", other, packets[-1][1], 0)
other_side = bytearray(side)
for stream, stream_packets in streams.items():
    if stream != longest:
        for _, at in stream_packets[:-1]:
            struct.pack_into("<I", other, at, 0)
        struct.pack_into("<Q", other, stream_packets[-1][1] + 48, 92 * 8)
        if stream in thread_of:
            struct.pack_into("<Q", other_side, 8 * (1 + thread_of[stream]), 0)
write("other", other, other_side)
PY

expect_failure() { # CASE, PATTERN of seq_check's complaint
  if "$checker" "$tmp/$1.ctf" "$tmp/$1.side" 2 >"$tmp/out" 2>"$tmp/err"; then
    fail "$1: seq_check passed: $(cat "$tmp/out")"
  fi
  grep -q "$2" "$tmp/err" || fail "$1: $(cat "$tmp/err")"
}
expect_failure jump "values jumped over, 1 packets missing hold at most"
expect_failure other "last value .* in the trace, .* completed"
echo "ok: seq_check refuses a jump past its stream's gap and a loss in the wrong stream"
