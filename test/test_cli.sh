#!/usr/bin/env bash
# test_cli.sh -- the mprof command on good, damaged and live traces: exit
# codes, one clear line per problem (file and offset), every good part kept.
set -euo pipefail
build=$1
net_ctf=$2
mprof=$build/mprof
gen=$build/test/trace_gen
tmp=$(mktemp -d)
trap 'kill $writer 2>/dev/null || true; rm -rf "$tmp"' EXIT
writer=
fail() { echo "FAIL: $*" >&2; exit 1; }
expect_exit() { # CODE COMMAND...: run, require that exit code
  local want=$1; shift
  set +e; "$@" >"$tmp/out" 2>"$tmp/err"; local got=$?; set -e
  [ "$got" = "$want" ] || fail "$* exited $got, not $want: $(cat "$tmp/err")"
}

"$gen" "$tmp/good.ctf" overwrite 1048576 2000 1 >/dev/null
expect_exit 0 "$mprof" check "$tmp/good.ctf"
grep -q "good.ctf: ok, 30003 events in .* packets of 3 streams, 0 discarded" "$tmp/out" \
  || fail "check summary: $(cat "$tmp/out")"
[ ! -s "$tmp/err" ] || fail "check of a good trace printed: $(cat "$tmp/err")"
# Nothing on stderr for a good trace when stderr is no terminal, not even
# progress when the work takes over a second (dump waits on a slow pipe).
"$mprof" dump "$tmp/good.ctf" 2>"$tmp/err" | { sleep 1.2; cat >/dev/null; }
[ ! -s "$tmp/err" ] || fail "slow dump of a good trace printed: $(cat "$tmp/err")"
expect_exit 0 "$mprof" stats "$tmp/good.ctf"
[ ! -s "$tmp/err" ] || fail "stats of a good trace printed: $(cat "$tmp/err")"
expect_exit 0 "$mprof" ctf "$tmp/good.ctf" -o "$tmp/good-dir"
[ ! -s "$tmp/err" ] || fail "ctf of a good trace printed: $(cat "$tmp/err")"

# On a terminal, progress shows once the work has taken a second, and its
# line is wiped at the end.  on_terminal.py gives mprof a terminal for
# stderr while its stdout goes to a pipe read only after 2.5 s (the second
# has then passed even where a loaded machine was slow to start mprof);
# everything the terminal receives is collected until mprof has exited.
/usr/bin/python3 "$(dirname "$0")/on_terminal.py" --wait 2.5 \
  "$mprof" dump "$tmp/good.ctf" >"$tmp/tty"
grep -q "^.mprof: dump: [0-9]*% (packet [0-9]*/[0-9]*)" "$tmp/tty" \
  || fail "no progress on a terminal: $(od -c "$tmp/tty" | head -3)"
[ "$(tail -c 4 "$tmp/tty" | od -An -c | tr -d ' ')" = '\r033[K' ] \
  || fail "progress line not wiped: $(od -c "$tmp/tty" | tail -3)"

# Standard input: "-" reads a trace piped in, legacy or ours.
[ "$("$mprof" dump - < "$tmp/good.ctf" | wc -l)" = 30003 ] || fail "dump - of our trace"
[ "$(cat "$net_ctf" | "$mprof" dump - | wc -l)" = 10078 ] || fail "dump - of net.ctf"
# A pipe is copied to $TMPDIR; where that fails, the line says so.
[ "$(cat "$net_ctf" | TMPDIR="$tmp" "$mprof" dump - | wc -l)" = 10078 ] \
  || fail "dump - with TMPDIR"
TMPDIR="$tmp/none" expect_exit 3 "$mprof" check - < <(cat "$net_ctf")
grep -q "^mprof: (stdin): copying it to a temporary file: No such file" "$tmp/err" \
  || fail "stdin spool failure: $(cat "$tmp/err")"

# check_damage FILE LINE SUMMARY: `mprof check FILE` exits 1, tells the
# damage in one line only, LINE (a grep pattern for the whole line after
# "mprof: FILE: "), and its summary matches SUMMARY.
check_damage() {
  expect_exit 1 "$mprof" check "$1"
  grep -qx "mprof: $1: $2" "$tmp/err" || fail "$1: $(cat "$tmp/err")"
  [ "$(wc -l < "$tmp/err")" = 1 ] || fail "$1 told in more than one line: $(cat "$tmp/err")"
  grep -q "$3" "$tmp/out" || fail "$1: $(cat "$tmp/out")"
}
# poke FILE OFFSET BYTE: overwrite one byte (BYTE as printf writes it).
poke() { printf "$3" | dd of="$1" bs=1 seek="$2" conv=notrunc 2>/dev/null; }

# Cut mid-ring: the packets before the cut are kept, one line says where
# (not a second one for the packet cut, nor a third for its torn event).
head -c 500000 "$tmp/good.ctf" > "$tmp/cut.ctf"
check_damage "$tmp/cut.ctf" "offset 500000: the file ends [0-9]* bytes into packet [0-9]*, of the [0-9]* the header lists (truncated?); what comes before the cut is kept" "damaged"
kept=$(sed -n 's/.*damaged, \([0-9]*\) events.*/\1/p' "$tmp/out")
[ "$kept" -gt 20000 ] || fail "only $kept events kept of a cut trace"

# The legacy trace cut inside its first packet: the events before the cut.
head -c 100000 "$net_ctf" > "$tmp/net-cut.ctf"
check_damage "$tmp/net-cut.ctf" "packet 0 at offset 0: the file ends 100000 bytes into this 250880-byte packet (truncated?); its events up to there are kept" \
  "damaged, 3511 events"
# ... and its CTF directory holds those events, the torn one cut off.
expect_exit 1 "$mprof" ctf "$tmp/net-cut.ctf" -o "$tmp/net-cut"
[ "$(babeltrace2 "$tmp/net-cut" 2>&1 | wc -l)" = 3511 ] || fail "ctf of a cut net.ctf"

# Not a trace at all.
head -c 4096 /dev/urandom > "$tmp/noise.ctf"
expect_exit 3 "$mprof" check "$tmp/noise.ctf"
grep -q "^mprof: $tmp/noise.ctf: offset 0: not an mprof trace" "$tmp/err" \
  || fail "noise: $(cat "$tmp/err")"
# ... under a name with an escape sequence in it: shown, not obeyed.
cp "$tmp/noise.ctf" "$tmp/red$(printf '\033')[31m.ctf"
expect_exit 3 "$mprof" check "$tmp/red$(printf '\033')[31m.ctf"
grep -qF "mprof: $tmp/red\x1b[31m.ctf: offset 0: not an mprof trace" "$tmp/err" \
  && grep -qxF "$tmp/red\x1b[31m.ctf: unusable" "$tmp/out" \
  && ! grep -q "$(printf '\033')" "$tmp/err" "$tmp/out" \
  || fail "a name's escape sequence: $(od -c "$tmp/err" "$tmp/out" | head -5)"

# A flipped byte in one packet header: that packet is skipped, the others kept.
cp "$tmp/good.ctf" "$tmp/flip.ctf"
packets=$(od -An -t u8 -j 56 -N 8 "$tmp/flip.ctf" | tr -d ' ')
poke "$tmp/flip.ctf" $((packets + 1)) '\xff'
expect_exit 1 "$mprof" check "$tmp/flip.ctf"
grep -q "packet 0 at offset $packets: bad packet magic; packet skipped" "$tmp/err" \
  || fail "flipped magic: $(cat "$tmp/err")"

# Whole packets lost.  A ring in overwrite mode that went round: its
# streams' oldest packets are gone, which check and stats count (no damage).
"$gen" "$tmp/wrap.ctf" overwrite 131072 20000 1 >/dev/null
expect_exit 0 "$mprof" check "$tmp/wrap.ctf"
overwritten=$(sed -n 's/.*: ok, .* ring wrapped: \([0-9]*\) packets overwritten$/\1/p' "$tmp/out")
[ "${overwritten:-0}" -gt 100 ] || fail "wrapped ring: $(cat "$tmp/out")"
"$mprof" stats --json "$tmp/wrap.ctf" "$tmp/good.ctf" | /usr/bin/python3 -c '
import json, sys
wrap, good = (json.loads(line) for line in sys.stdin)
assert wrap["packets_overwritten"] == int(sys.argv[1]), wrap
assert wrap["packets_missing"] == 0, wrap
assert good["packets_overwritten"] == 0 and good["packets_missing"] == 0, good
' "$overwritten" || fail "stats of lost packets"
grep -q "overwritten" <("$mprof" check "$tmp/good.ctf") && fail "good.ctf said to be wrapped"
# In discard mode packets are never reused: a packet zeroed in the middle of
# its stream is damage, told once, and counted as missing.
"$gen" "$tmp/disc.ctf" discard 1048576 2000 2 >/dev/null
/usr/bin/python3 - "$tmp/disc.ctf" <<'PY' || fail "no packet to zero"
import struct, sys
data = bytearray(open(sys.argv[1], "rb").read())
size, count = struct.unpack_from("<II", data, 24)
first = struct.unpack_from("<Q", data, 56)[0]
headers = [(struct.unpack_from("<IQ", data, at + 20), struct.unpack_from("<Q", data, at + 64)[0], at)
           for at in (first + i * size for i in range(count))
           if struct.unpack_from("<I", data, at)[0]]
last = {}
for (cls, stream), seq, at in headers:
    last[cls, stream] = max(seq, last.get((cls, stream), 0))
(cls, stream), seq, at = next(h for h in headers
                             if h[0][0] == 0 and h[1] == 1 and last[h[0]] >= 2)
data[at:at + size] = bytes(size)
open(sys.argv[1], "wb").write(data)
print(stream, at)
PY
check_damage "$tmp/disc.ctf" "packet [0-9]* at offset [0-9]*: stream [0-9]*'s packet_seq_num jumps from 0 to 2: 1 of its packets are lost (zeroed or damaged?)" \
  "damaged, .* 1 packets missing$"

# The legacy trace with a damaged packet header: the packets after it are
# still read (the next good header is looked for), and so is a trace whose
# very first header is damaged.
cp "$net_ctf" "$tmp/net-bad1.ctf"
poke "$tmp/net-bad1.ctf" 250880 '\0'
check_damage "$tmp/net-bad1.ctf" "packet 1 at offset 250880: bad packet magic; skipped to the next good packet header, at offset 501760" \
  "damaged, 8946 events in 3 packets"
cp "$net_ctf" "$tmp/net-bad0.ctf"
poke "$tmp/net-bad0.ctf" 0 '\0'
check_damage "$tmp/net-bad0.ctf" "packet 0 at offset 0: bad packet magic; skipped to the next good packet header, at offset 250880" \
  "damaged, 1132 events in 3 packets"
# A legacy ring that went round once: packet counters 4, 1, 2, 3.
cp "$net_ctf" "$tmp/net-wrap.ctf"
poke "$tmp/net-wrap.ctf" 24 '\x04'
expect_exit 0 "$mprof" check "$tmp/net-wrap.ctf"
grep -q "ok, 10078 events in 4 packets .* ring wrapped: 1 packets overwritten$" "$tmp/out" \
  || fail "legacy wrap: $(cat "$tmp/out")"

# A trace left "recording" (its writer killed) and then cut short: the
# snapshot reader must not read past the end of the file.
cp "$tmp/good.ctf" "$tmp/live-cut.ctf"
poke "$tmp/live-cut.ctf" 96 '\x01'
truncate -s 100000 "$tmp/live-cut.ctf"
expect_exit 1 "$mprof" check "$tmp/live-cut.ctf"
grep -q "damaged, .* events in .* still being written" "$tmp/out" \
  || fail "cut live trace: $(cat "$tmp/out")"

# A snapshot of a trace being written is whole and checks clean.
"$gen" "$tmp/live.ctf" overwrite 262144 100000000 2 >/dev/null &
writer=$!
"$(dirname "$0")/wait_trace.sh" "$tmp/live.ctf" $writer || fail "live.ctf never began"
sleep 0.2
"$mprof" snapshot -w "$tmp/snap.ctf" "$tmp/live.ctf" 2>"$tmp/snap.err" || true
kill $writer && wait $writer 2>/dev/null || true # its CPU is the other tests'
writer=
expect_exit 0 "$mprof" check "$tmp/snap.ctf"
grep -q "snap.ctf: ok" "$tmp/out" || fail "snapshot: $(cat "$tmp/out")"
# stats --json: the numbers of net.ctf, as the reference report has them.
"$mprof" stats --json "$net_ctf" | /usr/bin/python3 -c '
import json, sys
s = json.load(sys.stdin)
assert s["events"] == 10078, s["events"]
assert s["events_by_type"]["read"] == 2596 and s["events_by_type"]["label"] == 2185, s
assert s["threads"] == 1817, s["threads"]
assert s["counters"]["tcp-ackd-segs"] == 146001, s["counters"]
assert 5.89e9 < s["time_span_ns"] < 5.91e9, s["time_span_ns"]
assert (s["packets"], s["streams"], s["discarded"]) == (4, 1, 0), s
assert 27.9 < s["bytes_per_event"] < 28.0, s["bytes_per_event"]
' || fail "stats --json of net.ctf"
"$mprof" stats --json "$tmp/good.ctf" | /usr/bin/python3 -c '
import json, sys
s = json.load(sys.stdin)
assert s["events"] == 30001 + 2, s["events"]          # + 2 interned strings
assert s["counters"] == {"bytes": 1999 << 33}, s["counters"]
assert s["labels"] == 2000 and s["streams"] == 3, s
' || fail "stats --json of a trace of ours"
# Several traces: stats --json prints one object per line, named by "trace".
"$mprof" stats --json "$tmp/good.ctf" - < "$net_ctf" | /usr/bin/python3 -c '
import json, sys
lines = sys.stdin.read().splitlines()
assert len(lines) == 2, lines
good, net = (json.loads(line) for line in lines)
assert good["trace"].endswith("/good.ctf") and good["events"] == 30003, good
assert net["trace"] == "-" and net["events"] == 10078 and net["legacy"], net
' || fail "stats --json of two traces"

# ctf: a legacy trace converts; with several traces, DIR/NAME for each.
expect_exit 0 "$mprof" ctf "$net_ctf" -o "$tmp/net-dir"
[ "$(babeltrace2 "$tmp/net-dir" | wc -l)" = 10078 ] || fail "ctf of net.ctf"
expect_exit 0 "$mprof" ctf "$tmp/good.ctf" - -o "$tmp/both" < "$net_ctf"
[ "$(babeltrace2 "$tmp/both/good.ctf" | wc -l)" = 30003 ] || fail "ctf of good.ctf"
[ "$(babeltrace2 "$tmp/both/stdin" | wc -l)" = 10078 ] || fail "ctf of -"
mkdir -p "$tmp/again"
cp "$tmp/good.ctf" "$tmp/again/"
expect_exit 2 "$mprof" ctf "$tmp/good.ctf" "$tmp/again/good.ctf" -o "$tmp/clash"
[ "$(cat "$tmp/err")" = "mprof ctf: $tmp/again/good.ctf: $tmp/good.ctf would be written as good.ctf too; give one of them another name" ] ||
  fail "name clash: $(cat "$tmp/err")"
[ ! -e "$tmp/clash" ] || fail "a clash still wrote output"
expect_exit 3 "$mprof" ctf "$tmp/good.ctf" "$tmp/noise.ctf" -o "$tmp/some"
[ "$(babeltrace2 "$tmp/some/good.ctf" | wc -l)" = 30003 ] || fail "good trace beside a bad one"

# snapshot: -o OUT is a file for one SOURCE, a directory for several or
# where it is one already; -w is -o; standard output takes one SOURCE.
expect_exit 0 "$mprof" snapshot -o "$tmp/snaps" "$tmp/good.ctf" "$net_ctf"
cmp "$tmp/snaps/good.ctf" "$tmp/good.ctf" && cmp "$tmp/snaps/net.ctf" "$net_ctf" \
  || fail "snapshot -o of two stopped traces differs from them"
expect_exit 0 "$mprof" snapshot -w "$tmp/x" "$tmp/good.ctf" "$net_ctf"
cmp "$tmp/x/good.ctf" "$tmp/good.ctf" && cmp "$tmp/x/net.ctf" "$net_ctf" \
  || fail "snapshot -w of two: $(ls -R "$tmp/x")"
expect_exit 0 "$mprof" snapshot -o "$tmp/one.ctf" "$tmp/good.ctf"
cmp "$tmp/one.ctf" "$tmp/good.ctf" || fail "snapshot -o of one"
rm "$tmp/snaps/good.ctf"
expect_exit 0 "$mprof" snapshot -o "$tmp/snaps" "$tmp/good.ctf"
cmp "$tmp/snaps/good.ctf" "$tmp/good.ctf" || fail "snapshot -o DIR of one"
expect_exit 2 "$mprof" snapshot "$tmp/good.ctf" "$net_ctf"
[ "$(cat "$tmp/err")" = "mprof snapshot: -o: missing; standard output takes one SOURCE: name a directory for several" ] ||
  fail "snapshot of two to stdout: $(cat "$tmp/err")"
cp "$tmp/good.ctf" "$tmp/self.ctf"
expect_exit 3 "$mprof" snapshot -w "$tmp/self.ctf" "$tmp/self.ctf"
grep -q "would overwrite the trace itself" "$tmp/err" || fail "self: $(cat "$tmp/err")"
cmp "$tmp/self.ctf" "$tmp/good.ctf" || fail "snapshot onto itself changed the trace"

# --help on each command (and mprof help CMD) prints its usage and two
# examples on standard output and exits 0; a bad option or a missing
# argument is a usage error (2), told in one line that names it.
commands=$("$mprof" --help | awk '/^commands:/ { on = 1; next } on && NF { print $1 } on && !NF { exit }')
[ "$(echo $commands | cut -d' ' -f1-5)" = "record report view html export" ] ||
  fail "commands in mprof --help, not in the order of the work: $commands"
one_line=" record report view html export dump stats check snapshot ctf merge redact "
for cmd in $commands; do
  expect_exit 0 "$mprof" "$cmd" --help
  grep -q "^usage: mprof $cmd" "$tmp/out" || fail "$cmd --help: $(cat "$tmp/out")"
  [ ! -s "$tmp/err" ] || fail "$cmd --help wrote to stderr"
  cp "$tmp/out" "$tmp/help"
  expect_exit 0 "$mprof" help "$cmd"
  cmp -s "$tmp/out" "$tmp/help" || fail "mprof help $cmd differs from $cmd --help"
  expect_exit 2 "$mprof" "$cmd" --no-such-option
  case $one_line in *" $cmd "*) ;; *) continue ;; esac
  [ "$(sed -n '/^ *examples:$/,$p' "$tmp/help" | grep -c "^ *mprof $cmd ")" -ge 2 ] ||
    fail "$cmd --help: fewer than two examples: $(cat "$tmp/help")"
  [ ! -s "$tmp/out" ] && [ "$(cat "$tmp/err")" = \
    "mprof $cmd: --no-such-option: no such option; see mprof help $cmd" ] ||
    fail "$cmd: bad option: $(cat "$tmp/err")"
  expect_exit 2 "$mprof" "$cmd"
  grep -qx "mprof $cmd: [A-Z]*: missing; for example: mprof $cmd .*" "$tmp/err" ||
    fail "$cmd with nothing: $(cat "$tmp/err")"
done
expect_exit 0 "$mprof" --help
grep -q "^examples:" "$tmp/out" || fail "mprof --help has no examples"
expect_exit 0 "$mprof" --version
grep -qx "mprof [0-9]*\.[0-9]*\.[0-9]*" "$tmp/out" || fail "--version: $(cat "$tmp/out")"
expect_exit 2 "$mprof"
expect_exit 2 "$mprof" no-such-command
[ "$(cat "$tmp/err")" = "mprof: no-such-command: no such command; mprof --help lists them" ] ||
  fail "unknown command: $(cat "$tmp/err")"
expect_exit 2 "$mprof" help no-such-command

# The commands that build a model run with glibc's heap on huge pages
# unless GLIBC_TUNABLES says otherwise (the environment it started with,
# read from /proc while it waits for its trace on a FIFO; the second start
# is the same process); the others start once, as they are.
heap_tunables() { # WANT COMMAND [VAR=VALUE...]: mprof COMMAND's GLIBC_TUNABLES
  local want=$1 command=$2 seen= pid; shift 2  # line, once it is WANT (or after 5 s)
  rm -f "$tmp/fifo"; mkfifo "$tmp/fifo"
  env -u GLIBC_TUNABLES "$@" "$mprof" "$command" - <"$tmp/fifo" >/dev/null &
  pid=$!
  exec 3>"$tmp/fifo"
  for _ in $(seq 100); do
    seen=$(tr '\0' '\n' <"/proc/$pid/environ" | grep '^GLIBC_TUNABLES=' || true)
    [ "$seen" != "GLIBC_TUNABLES=$want" ] || break
    sleep 0.05
  done
  sleep 0.2 # and still so once mprof has had time to start itself again
  seen=$(tr '\0' '\n' <"/proc/$pid/environ" | grep '^GLIBC_TUNABLES=' || true)
  cat "$tmp/good.ctf" >&3; exec 3>&-
  wait "$pid" || fail "$command - of a trace written into a FIFO"
  echo "$seen"
}
seen=$(heap_tunables glibc.malloc.hugetlb=1 report)
[ "$seen" = GLIBC_TUNABLES=glibc.malloc.hugetlb=1 ] \
  || fail "mprof report did not put its heap on huge pages: '$seen'"
seen=$(heap_tunables "" stats)
[ -z "$seen" ] || fail "mprof stats started again for huge pages: '$seen'"
seen=$(heap_tunables glibc.malloc.hugetlb=0 report GLIBC_TUNABLES=glibc.malloc.hugetlb=0)
[ "$seen" = GLIBC_TUNABLES=glibc.malloc.hugetlb=0 ] \
  || fail "mprof changed the user's GLIBC_TUNABLES: '$seen'"
# Run through its loader named on the command line, it cannot start itself
# again that way, and goes on as it is.
loader=$(readelf -l "$mprof" | sed -n 's/.*Requesting program interpreter: \(.*\)]$/\1/p')
[ -n "$loader" ] || fail "no program interpreter in $mprof"
expect_exit 0 env -u GLIBC_TUNABLES "$loader" "$mprof" stats "$tmp/good.ctf"
grep -q "events: 30003" "$tmp/out" || fail "stats through $loader: $(cat "$tmp/out" "$tmp/err")"
# Only mprof view's own program, mprof-view, loads GTK: the others start
# with libc and jansson.
libraries=$(ldd "$mprof")
! grep -q 'libgtk\|libcairo' <<<"$libraries" || fail "mprof links GTK: $libraries"
grep -q libgtk <<<"$(ldd "$build/mprof-view")" || fail "mprof-view has no GTK"
echo "ok: check, snapshot, stats, ctf, several traces, progress, --help, huge pages"
