#!/usr/bin/env bash
# test_view_png.sh -- `mprof view --png` with no display: the picture of a
# recorded story (test/story.c) and of a time range of it puts each thread
# on the row, and between the x, that the scene says (view_probe where),
# the stalled request red to the trace's end; the name column names each
# row, cut at its edge; a burst after 2 s asleep fills the width; the
# legend under the picture shows the swatches of what the trace holds and
# no others; net.ctf draws; bad command lines are usage errors.
. "$(dirname "$0")/common.sh"
net_ctf=$2
unset DISPLAY WAYLAND_DISPLAY
W=1000 H=400

"$build/test/story" "$tmp/story.ctf"

# where NAME T0 T1: sets row y x0 x1 start end for thread NAME.
where() {
  read -r row y x0 x1 start end < <("$probe" where "$tmp/story.ctf" $W $H "$2" "$3" 0 "$1") ||
    fail "no thread '$1' in the story"
}

# A thread's line at its row: drawn at y between x0 and x1 (mid-way), and
# nothing just below it.
check_thread() { # PNG NAME T0 T1
  where "$2" "$3" "$4"
  local mid=$(( (${x0%.*} + ${x1%.*}) / 2 ))
  [ "$mid" -gt 0 ] && [ "$mid" -lt $W ] || fail "'$2' not in view: $x0..$x1"
  expect_not "'$2' drawn at row $row (y $y), x $mid" \
    is_empty "$1" $mid $(( ${y%.*} - 1 ))
  expect "nothing 7 px below '$2'" is_empty "$1" $mid $(( ${y%.*} + 7 ))
}

# The whole trace.
"$mprof" view --png "$tmp/all.png" --width $W --height $H "$tmp/story.ctf" ||
  fail "--png of the story"
for name in "stuck job" "GET /" "lookup" "disk read" "ready"; do
  check_thread "$tmp/all.png" "$name" 0 -1
done
where "stuck job" 0 -1
expect "stalled 'stuck job' red to the trace's end" \
  is_colour "$tmp/all.png" $(( ${x1%.*} - 4 )) $(( ${y%.*} - 1 )) $STALLED 90
expect "the fit view leaves room after the trace's end" \
  is_empty "$tmp/all.png" $(( ${x1%.*} + 6 )) $(( ${y%.*} - 1 ))

# A range: the request, from 1 ms before it to 1 ms after.
where "GET /" 0 -1
t0=$(( start - 1000000 )) t1=$(( end + 1000000 ))
"$mprof" view --png "$tmp/range.png" --width $W --height $H \
  --range "${t0}ns:$(awk "BEGIN{print $t1 / 1e6}")ms" "$tmp/story.ctf" || fail "--png --range"
for name in "GET /" "lookup" "disk read"; do
  check_thread "$tmp/range.png" "$name" $t0 $t1
done
where "GET /" $t0 $t1
expect "'GET /' starts 1 ms in: empty before" \
  is_empty "$tmp/range.png" $(( ${x0%.*} - 4 )) $(( ${y%.*} - 1 ))
expect "'GET /' ends 1 ms before the end: empty after" \
  is_empty "$tmp/range.png" $(( ${x1%.*} + 6 )) $(( ${y%.*} - 1 ))
where "stuck job" $t0 $t1
expect "stalled 'stuck job' red to the end of the trace" \
  is_colour "$tmp/range.png" $(( ${x1%.*} - 4 )) $(( ${y%.*} - 1 )) $STALLED 90
expect "and not beyond" is_empty "$tmp/range.png" $(( ${x1%.*} + 6 )) $(( ${y%.*} - 1 ))
cmp -s "$tmp/all.png" "$tmp/range.png" && fail "the range drew the same picture"

# The name column: each row's name in it (dark pixels from 4 px in, none
# in the 4 px before its edge line), whole range or panned; a name too
# long for it is cut there.
names=$("$probe" fit "$tmp/story.ctf" $W $H | cut -d' ' -f3)
[ "$names" = 120 ] || fail "the name column is $names px wide in a $W px pane"
named_row() { # PNG NAME T0 T1
  where "$2" "$3" "$4"
  read -r first last < <("$probe" drawn "$1" 0 $(( names - 2 )) $(( ${y%.*} - 6 )) $(( ${y%.*} + 5 )))
  [ "$first" -ge 2 ] && [ "$first" -le 8 ] && [ "$last" -lt $(( names - 4 )) ] && [ "$last" -gt $(( first + 10 )) ] ||
    fail "'$2' named in the column of $1 at y $y: dark from x $first to $last"
}
for name in "stuck job" "GET /" "disk read"; do
  named_row "$tmp/all.png" "$name" 0 -1
  named_row "$tmp/range.png" "$name" $t0 $t1
done
"$build/test/web/web_trace" xss "$tmp/xss.ctf"
"$mprof" view --png "$tmp/xss.png" --width $W --height 200 "$tmp/xss.ctf" || fail "--png of xss"
read -r row y x0 x1 start end < <("$probe" where "$tmp/xss.ctf" $W 200 0 -1 0 "</script><script>alert(2)</script>")
read -r first last < <("$probe" drawn "$tmp/xss.png" 0 $(( names - 2 )) $(( ${y%.*} - 6 )) $(( ${y%.*} + 5 )))
[ "$first" -le 8 ] && [ "$last" -ge $(( names - 16 )) ] && [ "$last" -lt $(( names - 4 )) ] ||
  fail "a long name filled and cut at the column's edge: dark from x $first to $last of $names"

# A start-up, 2 s asleep, then a burst of requests (web_trace burst): the
# core's fit range is the busy part (from after the sleep to the last
# event) and 2 % of it each side, and the burst's rows are drawn across
# more than 80 % of the picture's width.
# A loaded machine can take the CPU from the burst (about 100 us long) for
# longer than the burst: the busy part is then its later piece, and the
# earlier piece's lines reach into the margin.  Such a burst (its busy
# part starting over 50 us after the first event past the sleep) is
# recorded again, up to 5 times.
for try in 1 2 3 4 5; do
  "$build/test/web/web_trace" burst "$tmp/burst.ctf"
  read -r f0 f1 names busy0 busy1 duration < <("$probe" fit "$tmp/burst.ctf" $W 300)
  woke=$("$mprof" dump "$tmp/burst.ctf" | awk '$1 > 1.9e9 && !w { w = $1 } END { print w }')
  awk -v b="$busy0" -v w="$woke" 'BEGIN { exit !(b - w < 50000) }' && break
done
"$mprof" view --png "$tmp/burst.png" --width $W --height 300 "$tmp/burst.ctf" || fail "--png of a burst"
awk -v t0="$f0" -v t1="$f1" -v b0="$busy0" -v b1="$busy1" -v d="$duration" 'BEGIN {
  m = (b1 - b0) * 0.02
  exit !(b0 > 1.9e9 && b1 - b0 < 1e9 && d - b1 < 1e6 && (t0 - (b0 - m))^2 < 4 && (t1 - (b1 + m))^2 < 4) }' ||
  fail "the fit of the burst: $f0..$f1 for a busy part of $busy0..$busy1 in $duration ns"
# (its rows: from the loop's, which the burst's requests are below, to
# the counter strip)
top=$("$probe" where "$tmp/burst.ctf" $W 300 0 -1 0 loop | cut -d' ' -f2)
read -r first last < <("$probe" drawn "$tmp/burst.png" "$names" $W $(( ${top%.*} - 4 )) $(( 300 - 40 )))
[ "$first" -gt "$names" ] && [ $(( (last - first) * 100 )) -gt $(( 80 * W )) ] ||
  fail "the burst drawn from x $first to $last of $W"

# The legend under the picture: a swatch of each colour the trace holds
# (12 x 12 px of it at least), none of the others.
legend_has() { # PNG HEIGHT RRGGBB...
  local png=$1 height=$2 colour
  shift 2
  for colour; do
    [ "$("$probe" count "$png" 0 "$height" $W 18 "$colour")" -ge 144 ] || fail "no $colour swatch in the legend of $png"
  done
}
legend_lacks() { # PNG HEIGHT RRGGBB...
  local png=$1 height=$2 colour
  shift 2
  for colour; do
    [ "$("$probe" count "$png" 0 "$height" $W 18 "$colour")" = 0 ] || fail "a $colour swatch in the legend of $png"
  done
}
THREAD=000000 RUNNING=00897b CREATE=6d4c41 READ=1565c0 READ_FAILED=d81b60 TRY_READ=827717 RESOLVE=2e7d32
SIGNAL=e65100 BECOMES=5e35b1 FAILED=8e0000 IDLE=b4b4b4 GC=e0b070 COUNTER=880e4f
legend_has "$tmp/burst.png" 300 $THREAD $RUNNING $CREATE $TRY_READ $RESOLVE $IDLE $COUNTER
legend_lacks "$tmp/burst.png" 300 $READ $READ_FAILED $SIGNAL $BECOMES $FAILED $STALLED $GC
legend_has "$tmp/all.png" $H $STALLED $SIGNAL
legend_lacks "$tmp/all.png" $H $READ_FAILED $BECOMES $FAILED $GC
legend_has "$tmp/xss.png" 200 $FAILED $READ $COUNTER
legend_lacks "$tmp/xss.png" 200 $STALLED $SIGNAL $BECOMES $GC

# net.ctf (legacy) draws, with more than the background.
"$mprof" view --png "$tmp/net.png" --width 600 --height 300 "$net_ctf" || fail "net.ctf"
read -r row y x0 x1 start end < <("$probe" where "$net_ctf" 600 300 0 -1 0 Gntshr.grant_access)
[ "$row" = 0 ] || fail "net.ctf's first thread is at row $row"
expect_not "net.ctf's first thread drawn" is_empty "$tmp/net.png" 300 $(( ${y%.*} - 1 ))

# Usage errors (2), missing traces (3), no display for a window (3).
code() { set +e; "$@" >/dev/null 2>"$tmp/err"; echo $?; set -e; }
[ "$(code "$mprof" view --png "$tmp/x.png" "$tmp/story.ctf" "$net_ctf")" = 2 ] || fail "two traces to one PNG"
[ "$(code "$mprof" view --png "$tmp/x.png" --range 5:1 "$tmp/story.ctf")" = 2 ] || fail "backward range"
[ "$(code "$mprof" view --png "$tmp/x.png" --range 1xs:2 "$tmp/story.ctf")" = 2 ] || fail "bad unit"
[ "$(code "$mprof" view --png "$tmp/x.png" --width 3 "$tmp/story.ctf")" = 2 ] || fail "tiny width"
[ "$(code "$mprof" view --compare "$tmp/story.ctf")" = 2 ] || fail "compare one trace"
[ "$(code "$mprof" view --follow -)" = 2 ] || fail "follow stdin"
[ "$(code "$mprof" view --png "$tmp/x.png" "$tmp/missing.ctf")" = 3 ] || fail "missing trace"
[ "$(code "$mprof" view --png /nonexistent/x.png "$tmp/story.ctf")" = 3 ] || fail "unwritable PNG"
[ "$(code "$mprof" view "$tmp/story.ctf")" = 3 ] || fail "a window with no display"
grep -q "no display\|cannot open a display" "$tmp/err" || fail "says why: $(cat "$tmp/err")"

# A damaged trace under a name with an escape sequence: drawn from its good
# packets, exit 1, the problem told in one line with the name escaped.
red="$tmp/red$(printf '\033')[31m.ctf"
cp "$tmp/story.ctf" "$red"
packets=$(od -An -t u8 -j 56 -N 8 "$red" | tr -d ' ')
printf '\xff' | dd of="$red" bs=1 seek=$((packets + 1)) conv=notrunc status=none
[ "$(code "$mprof" view --png "$tmp/red.png" "$red")" = 1 ] || fail "a damaged trace's exit code"
grep -qF "mprof: $tmp/red\x1b[31m.ctf: packet 0 at offset $packets: bad packet magic" "$tmp/err" \
  && ! grep -q "$(printf '\033')" "$tmp/err" \
  || fail "a damaged trace's problem line: $(od -c "$tmp/err" | head -5)"
[ -s "$tmp/red.png" ] || fail "a damaged trace not drawn"

# Standard input.
"$mprof" view --png "$tmp/stdin.png" --width $W --height $H - <"$tmp/story.ctf" || fail "--png of -"
cmp -s "$tmp/all.png" "$tmp/stdin.png" || fail "stdin drew another picture"
echo "view_png: ok"
