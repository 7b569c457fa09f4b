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
grep -q "^big -[0-9]* [0-9]* [0-9]* [0-9]* 0$" "$tmp/out" ||
  fail "the first frame is not the pyramid's whole trace: $(cat "$tmp/out")"
top=$(sed -n "s/^shot [^ ]* 0 \([0-9]*\) .*/\1/p" "$tmp/out")

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
quit
END
window "$tmp/small.ctf" 12 "$tmp/zoom"
grep '^big ' "$tmp/out" | tail -1 | awk '{ span = $3 - $2
  exit !(span > 15 * $4 && span <= 17 * $4 && $2 < 0 && $3 > $4) }' ||
  fail "a range far past the trace: $(tail -3 "$tmp/out")"
[ "$(grep -c '^big ' "$tmp/out")" = 4 ] &&
  grep -q "^big 1000000 1020000 [0-9]* [0-9]* 1$" "$tmp/out" &&
  grep -q "^big -[0-9]* [0-9]* [0-9]* [0-9]* 0$" "$tmp/out" ||
  fail "a short range not modelled, or the whole: $(cat "$tmp/out")"

# A range whose model fails (MPROF_VIEW_TEST_WINDOW_ERROR: as reading the
# packets of a trace cut since it was opened would): the failure told
# once, naming the trace, its frame drawn from the pyramid, and the model
# not tried again on the redraws of the same range.
cat >"$tmp/failing" <<END
pane 1144 400
wait 1
range 1000000 1020000
wait 1
shot $tmp/failed.png
pan 0 30
wait 1
pan 0 -30
wait 1
state
quit
END
MPROF_VIEW_TEST_WINDOW_ERROR=-4 window "$tmp/small.ctf" 12 "$tmp/failing"
[ "$(grep -c "^mprof: view: " "$tmp/out")" = 1 ] &&
  grep -q "^mprof: view: $tmp/small.ctf: cannot create or map the trace file$" \
    "$tmp/out" && grep -q "^big 1000000 1020000 [0-9]* [0-9]* 0$" "$tmp/out" ||
  fail "a window model's failure: $(cat "$tmp/out")"
top=$(sed -n "s/^shot [^ ]* 0 \([0-9]*\) .*/\1/p" "$tmp/out")
# (what the pyramid alone draws of that range -- a budget no window fits --
# is the oracle: trace_gen's clock is real, so a loaded machine moves
# what falls in a fixed range)
sed "s|$tmp/failed.png|$tmp/pyramid.png|" "$tmp/failing" >"$tmp/pyramid"
window "$tmp/small.ctf" 0 "$tmp/pyramid"
apart=$("$probe" diff "$tmp/failed.png" "$tmp/pyramid.png" 120 $((top + 20)) 1024 380)
read -r first last < <("$probe" drawn "$tmp/pyramid.png" 120 1143 $((top + 20)) $((top + 399)))
[ "$apart" = 0 ] && [ -n "$last" ] && [ "$last" -gt $((first + 500)) ] ||
  fail "a failed model's range not drawn from the pyramid ($apart pixels apart; lines from x ${first:-none} to ${last:-none})"

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
