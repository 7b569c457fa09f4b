#!/usr/bin/env bash
# test_view_big.sh -- the window of a trace too big to model (forced with
# MPROF_VIEW_BUDGET_MIB on small traces), under Xvfb: its first frame,
# drawn from the pyramid, is the picture --png draws of the whole trace
# in one pass (pixel for pixel, to the display's antialiasing, in a pane
# whose time columns are a pyramid level's: 1024 of 1144 px); the pyramid
# is made once, then read, and made again when its file is damaged; a
# range whose packets fit a quarter of the budget is drawn from their
# model, the whole again from the pyramid.  GTK's criticals abort.
. "$(dirname "$0")/common.sh"
gen=$build/test/trace_gen

"$gen" "$tmp/gen.ctf" discard 2000000 3000 2 >/dev/null
cat >"$tmp/first" <<END
pane 1144 400
wait 2
shot $tmp/window.png
state
quit
END
window() { # TRACE BUDGET SCRIPT: its output and standard error in $tmp/out
  G_DEBUG=fatal-criticals MPROF_VIEW_BUDGET_MIB=$2 "$mprof" view --script \
    "$3" "$1" >"$tmp/out" 2>&1 || fail "view $1: $(cat "$tmp/out")"
}
window "$tmp/gen.ctf" 0 "$tmp/first"
grep -q "drawn from its pyramid (made in one pass)$" "$tmp/out" ||
  fail "a first open said: $(cat "$tmp/out")"
[ -s "$tmp/gen.ctf.mppyr" ] || fail "no pyramid file beside the trace"
grep -q "^shot $tmp/window.png 0 [0-9]* 1144 400$" "$tmp/out" ||
  fail "the pane is not 1144 x 400: $(cat "$tmp/out")"
grep -q "^big -[0-9]* [0-9]* [0-9]* [0-9]* 0 0$" "$tmp/out" ||
  fail "the first frame is not the pyramid's whole trace: $(cat "$tmp/out")"
top=$(sed -n "s/^shot [^ ]* 0 \([0-9]*\) .*/\1/p" "$tmp/out")
cp "$tmp/window.png" "$tmp/gen.png"

# The picture --png draws of the whole trace, from the one pass at 1024
# columns, against the window's time columns below the axis (their text
# antialiased otherwise by the display: at most 1000 pixels, a quarter of a percent, further apart
# than 48 levels summed over the channels).
MPROF_VIEW_BUDGET_MIB=0 "$mprof" view --png "$tmp/whole.png" --width 1144 \
  --height 400 "$tmp/gen.ctf" 2>/dev/null || fail "--png of the whole trace"
apart=$("$probe" diff "$tmp/whole.png" "$tmp/window.png" 120 20 1024 380 \
  120 $((top + 20)) 48)
[ "$apart" -le 1000 ] ||
  fail "the first frame differs from --png's picture in $apart pixels"
drawn=$("$probe" count "$tmp/window.png" 120 $((top + 20)) 1024 380 c9c9c9)
[ "$drawn" -gt 10000 ] || fail "the first frame holds no idle bands ($drawn)"

# Read the second time; made again when damaged or stale.
window "$tmp/gen.ctf" 0 "$tmp/first"
grep -q "drawn from its pyramid (read)$" "$tmp/out" ||
  fail "a second open said: $(cat "$tmp/out")"
printf 'X' | dd of="$tmp/gen.ctf.mppyr" bs=1 seek=300 conv=notrunc 2>/dev/null
window "$tmp/gen.ctf" 0 "$tmp/first"
grep -q "drawn from its pyramid (made in one pass)$" "$tmp/out" &&
  grep -q "^mprof view: $tmp/gen.ctf: the pyramid there was not used: damaged (checksum); made again$" "$tmp/out" ||
  fail "a damaged pyramid file: $(cat "$tmp/out")"
touch -d '2001-01-01' "$tmp/gen.ctf"
window "$tmp/gen.ctf" 0 "$tmp/first"
grep -q "drawn from its pyramid (made in one pass)$" "$tmp/out" &&
  grep -q "^mprof view: $tmp/gen.ctf: the pyramid there was not used: of another trace; made again$" "$tmp/out" ||
  fail "a stale pyramid file: $(cat "$tmp/out")"

# A short range: the model of its packets (every names packet with them:
# small packets, a budget they fit a quarter of); the whole: the pyramid;
# the keys (Escape has nothing to clear, + zooms, Left pans) and what
# such a window has none of (a search, its / key, a double-click) do no
# harm; a range far past the trace is held to 16 spans of it around its
# middle.
"$gen" "$tmp/small.ctf" discard 8000000 12000 2 4096 >/dev/null
cat >"$tmp/zoom" <<END
pane 1144 400
range 1000000 1020000
opened
wait 1
state
fit
wait 1
state
key Escape
search request
key slash
dclick 300 100
key plus
key Left
state
range -9000000000000000000 9000000000000000000
state
key question
wait 2
quit
END
window "$tmp/small.ctf" 12 "$tmp/zoom"
grep '^big ' "$tmp/out" | tail -1 | awk '{ span = $3 - $2
  exit !(span > 15 * $4 && span <= 17 * $4 && $2 < 0 && $3 > $4) }' ||
  fail "a range far past the trace: $(tail -3 "$tmp/out")"
[ "$(grep -c '^big ' "$tmp/out")" = 4 ] &&
  grep -q "^big 1000000 1020000 [0-9]* [0-9]* 1 0$" "$tmp/out" &&
  grep -q "^big -[0-9]* [0-9]* [0-9]* [0-9]* 0 0$" "$tmp/out" ||
  fail "a short range not modelled, or the whole: $(cat "$tmp/out")"

# A range whose model fails for real: the trace cut while its window is
# open, after its first frame was drawn from the index and pyramid of the
# file as it was.  The window's warning line says the trace shrank (and
# still does once it grew past its first size: the file is not looked at
# again once changed), and no model of it is made, which is no failure to tell on standard error
# (the warning line says why); the range is drawn from the pyramid --
# against the same script's shot, taken first, in a window
# whose budget no window fits (trace_gen's clock is real, so a loaded
# machine moves what falls in a fixed range: the oracle is of this file).
cat >"$tmp/failing" <<END
pane 1144 400
status
wait 12
range 1000000 1020000
wait 1
shot $tmp/failed.png
pan 0 30
wait 1
pan 0 -30
wait 4
state
status
quit
END
sed "s|$tmp/failed.png|$tmp/pyramid.png|" "$tmp/failing" >"$tmp/pyramid"
window "$tmp/small.ctf" 0 "$tmp/pyramid"
[ "$(grep -c '^status$' "$tmp/out")" = 2 ] ||
  fail "a trace left as it is warned of: $(cat "$tmp/out")"
G_DEBUG=fatal-criticals MPROF_VIEW_BUDGET_MIB=12 "$mprof" view --script \
  "$tmp/failing" "$tmp/small.ctf" >"$tmp/out" 2>&1 &
viewer=$!
for _ in $(seq 400); do grep -q '^status' "$tmp/out" && break; sleep 0.05; done
size=$(stat -c %s "$tmp/small.ctf")
truncate -s $((size / 2)) "$tmp/small.ctf"
sleep 3
truncate -s $((size * 2)) "$tmp/small.ctf"
# (1: the cut met the trace's open, which told the packets it lost)
code=0
wait $viewer || code=$?
[ $code -le 1 ] || fail "view of a trace cut under it: $(cat "$tmp/out")"
truncate -s $((size / 2)) "$tmp/small.ctf"
[ "$(grep '^status' "$tmp/out" | head -1)" = status ] &&
  [ "$(grep '^status' "$tmp/out" | tail -1)" = "status $tmp/small.ctf shrank since its index was made: shown as it was then (open it again to see it now)" ] &&
  grep -q "^big 1000000 1020000 [0-9]* [0-9]* 0 [0-9]*$" "$tmp/out" &&
  ! grep -q "^mprof: view: " "$tmp/out" ||
  fail "a trace cut under its window: $(cat "$tmp/out")"
top=$(sed -n "s/^shot [^ ]* 0 \([0-9]*\) .*/\1/p" "$tmp/out")
apart=$("$probe" diff "$tmp/failed.png" "$tmp/pyramid.png" 120 $((top + 20)) 1024 380)
read -r first last < <("$probe" drawn "$tmp/pyramid.png" 120 1143 $((top + 20)) $((top + 399)))
[ "$apart" = 0 ] && [ -n "$last" ] && [ "$last" -gt $((first + 500)) ] ||
  fail "a cut trace's range not drawn from the pyramid ($apart pixels apart; lines from x ${first:-none} to ${last:-none})"
# Opened again, the cut trace (told: exit 1) is indexed and drawn again:
# its index and pyramid, of the file before, are not believed.
code=0
G_DEBUG=fatal-criticals MPROF_VIEW_BUDGET_MIB=12 "$mprof" view --script \
  "$tmp/first" "$tmp/small.ctf" >"$tmp/out" 2>&1 || code=$?
[ $code = 1 ] && grep -q "drawn from its pyramid (made in one pass)$" "$tmp/out" &&
  grep -q "^mprof view: $tmp/small.ctf: the pyramid there was not used: of another trace; made again$" "$tmp/out" ||
  fail "a trace cut since its pyramid: $(cat "$tmp/out")"

# The first frame reads no packet of the trace: the window opens from the
# file's key (its size, time and header's uuid) and the index and pyramid
# of that key, and opens the trace once that frame is drawn.  Its packet
# headers damaged after the index and pyramid were made, but for the
# first's, the key kept (as a disk that changes a file under its time
# would), the window's first frame is the one it drew of the trace as it
# was, pixel for pixel; then, the trace opened, its packets disagree with
# its index: its damage told, the window says it changed, and that index
# and pyramid are removed.  Opened again, they are made again from the
# trace as it is, whose damage, told at that open, the warning line shows
# too.
mtime=$(stat -c %y "$tmp/gen.ctf")
python3 - "$tmp/gen.ctf" <<'END'
import struct, sys
with open(sys.argv[1], "r+b") as f:
    data = bytearray(f.read())
    packet_size, count = struct.unpack_from("<II", data, 24)
    first, = struct.unpack_from("<Q", data, 56)
    for i in range(1, count):
        at = first + i * packet_size
        if at + 4 <= len(data):
            data[at:at + 4] = b"BAD!"
    f.seek(0)
    f.write(data)
END
touch -d "$mtime" "$tmp/gen.ctf"
cat >"$tmp/cold" <<END
pane 1144 400
wait 2
shot $tmp/cold.png
state
opened
wait 2
status
quit
END
code=0
G_DEBUG=fatal-criticals MPROF_VIEW_BUDGET_MIB=0 "$mprof" view --script \
  "$tmp/cold" "$tmp/gen.ctf" >"$tmp/out" 2>&1 || code=$?
[ $code = 1 ] && grep -q "drawn from its pyramid (read)$" "$tmp/out" &&
  grep -q "^mprof: $tmp/gen.ctf: packet [0-9]* at offset [0-9]*: bad packet magic; packet skipped$" "$tmp/out" &&
  grep -q "^status $tmp/gen.ctf changed since its index was made: shown as it was then (open it again to see it now)$" "$tmp/out" ||
  fail "a trace damaged under its key (exit $code): $(cat "$tmp/out")"
top=$(sed -n "s/^shot [^ ]* 0 \([0-9]*\) .*/\1/p" "$tmp/out")
apart=$("$probe" diff "$tmp/gen.png" "$tmp/cold.png" 0 "$top" 1144 400 0 "$top")
[ "$apart" = 0 ] ||
  fail "the first frame of a trace damaged under its key is not the one of it before ($apart pixels apart)"
[ ! -e "$tmp/gen.ctf.mpidx" ] && [ ! -e "$tmp/gen.ctf.mppyr" ] ||
  fail "the index or pyramid of a trace damaged under its key is left"
code=0
G_DEBUG=fatal-criticals MPROF_VIEW_BUDGET_MIB=0 "$mprof" view --script \
  "$tmp/cold" "$tmp/gen.ctf" >"$tmp/out" 2>&1 || code=$?
damage="$tmp/gen.ctf: packet [0-9]* at offset [0-9]*: bad packet magic; packet skipped"
[ $code = 1 ] && grep -q "drawn from its pyramid (made in one pass)$" "$tmp/out" &&
  grep -q "^mprof: $damage$" "$tmp/out" && grep -q "^status $damage$" "$tmp/out" ||
  fail "a trace damaged under its key, opened again (exit $code): $(cat "$tmp/out")"

# A damaged clock (a packet's times 2^62 ticks late): its whole as wide
# as the model holds times; zoomed out past it, or shown a range past
# int64_t's, the range's ends stay ordered and within int64_t's halves.
"$gen" "$tmp/clock.ctf" discard 2000000 3000 2 >/dev/null
python3 - "$tmp/clock.ctf" <<'END'
import struct, sys
with open(sys.argv[1], "r+b") as f:
    data = bytearray(f.read())
    packet_size, ring = struct.unpack_from("<II", data, 24)
    first, = struct.unpack_from("<Q", data, 56)
    at = lambda i: first + i * packet_size
    begin = lambda i: struct.unpack_from("<Q", data, at(i) + 32)[0]
    last = max(range(ring), key=begin)
    for field in (32, 40):  # timestamp_begin, timestamp_end
        value, = struct.unpack_from("<Q", data, at(last) + field)
        struct.pack_into("<Q", data, at(last) + field, value | 1 << 62)
    f.seek(0)
    f.write(data)
END
cat >"$tmp/far" <<END
pane 1144 400
state
zoom 1e300 600
state
key minus
key minus
state
range -9000000000000000000 9000000000000000000
state
quit
END
window "$tmp/clock.ctf" 0 "$tmp/far"
[ "$(grep -c '^big ' "$tmp/out")" = 4 ] &&
  grep '^big ' "$tmp/out" | awk '{ if ($4 < 1e18) exit 1
    if (!($2 < $3 && $2 >= -2^62 && $3 <= 2^62)) exit 1 }' ||
  fail "a damaged clock's range: $(cat "$tmp/out")"
echo "view_big: ok ($apart pixels apart)"
