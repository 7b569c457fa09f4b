#!/usr/bin/env bash
# test_view_scroll.sh -- the window of a trace too big to model, its rows
# scrolled (forced with MPROF_VIEW_BUDGET_MIB on a small trace of 300
# rows, view_rows: a chain of tasks, row N created by row N - 1), under
# Xvfb.  Scrolled down 5 rows by a drag, the frame drawn from the pyramid
# is the unscrolled one's rows moved up 5 rows, pixel for pixel, the name
# column with them, and its last row holds the 5 rows fewer folded into it
# that the rows now shown above it held; scrolled past the last row, the
# scroll is held where the pyramid's last row (the 45 rows folded past its
# 256) is at the top, nothing under it; scrolled back past the first, the
# frame is the first again.  A range modelled shows the scroll held to its
# model's rows, without losing the one asked of the pyramid, and scrolls
# from where it shows.  GTK's criticals abort.
. "$(dirname "$0")/common.sh"

"$build/test/view/view_rows" "$tmp/rows.ctf" 300 80000 >/dev/null
cat >"$tmp/scroll" <<END
pane 1144 400
wait 2
shot $tmp/top.png
state
pan 0 -80
wait 1
shot $tmp/down.png
state
pan 0 -100000
wait 1
shot $tmp/last.png
state
key Down
wait 1
state
pan 0 100000
wait 1
shot $tmp/back.png
state
pan 0 -80
range 1000000 1200000
wait 1
state
range 0 50000000
wait 1
state
range 1000000 1200000
wait 1
pan 0 16
wait 1
state
range 0 50000000
wait 1
state
fit
wait 1
state
quit
END
G_DEBUG=fatal-criticals MPROF_VIEW_BUDGET_MIB=4 "$mprof" view --script \
  "$tmp/scroll" "$tmp/rows.ctf" >"$tmp/out" 2>&1 ||
  fail "view: $(cat "$tmp/out")"
grep -q "drawn from its pyramid (made in one pass)$" "$tmp/out" ||
  fail "not drawn from a pyramid: $(cat "$tmp/out")"
grep -q "^shot $tmp/top.png 0 [0-9]* 1144 400$" "$tmp/out" ||
  fail "the pane is not 1144 x 400: $(cat "$tmp/out")"
top=$(sed -n "s/^shot [^ ]* 0 \([0-9]*\) .*/\1/p" "$tmp/out" | head -1)
# The scroll of each state line, in order, and whether it was modelled.
states=$(grep '^big ' "$tmp/out" | awk '{ print $6 ":" $7 }' | tr '\n' ' ')
read -r -a s <<<"$states"
[ "$(grep '^big ' "$tmp/out" | awk '{ print $5 }' | sort -u)" = 300 ] ||
  fail "the trace has not 300 rows: $(cat "$tmp/out")"

# 1144 x 400: the axis (20 px), then 23 rows of 16 px, the last of which
# holds the rows folded.  Rows 5 to 21 unscrolled are rows 0 to 16 five
# rows down, every pixel of them, names and lines.
[ "${s[0]}" = 0:0 ] && [ "${s[1]}" = 0:80 ] ||
  fail "a drag of 80 px up does not scroll 5 rows: $states"
rows=$((top + 20))
apart=$("$probe" diff "$tmp/top.png" "$tmp/down.png" 0 $((rows + 80)) 1144 272 \
  0 "$rows")
[ "$apart" = 0 ] ||
  fail "scrolled 5 rows, rows 5-21 are not the unscrolled ones moved up ($apart pixels apart)"
moved=$("$probe" diff "$tmp/top.png" "$tmp/down.png" 0 "$rows" 1144 272)
[ "$moved" -gt 300 ] || fail "scrolled 5 rows, the rows did not move ($moved)"
# The last row shown holds the rows from it on: scrolled, from row 27 on,
# whose line starts later than row 22's, which rows 17-21 now show.
read -r folded_top _ < <("$probe" drawn "$tmp/top.png" 120 1144 \
  $((rows + 352)) $((rows + 368)))
read -r folded_down _ < <("$probe" drawn "$tmp/down.png" 120 1144 \
  $((rows + 352)) $((rows + 368)))
read -r unfolded _ < <("$probe" drawn "$tmp/down.png" 120 1144 \
  $((rows + 272)) $((rows + 288)))
[ "$folded_top" -gt 120 ] && [ "$unfolded" = "$folded_top" ] &&
  [ "$folded_down" -gt $((folded_top + 4)) ] ||
  fail "the rows folded, scrolled: the last row from x $folded_top, then $folded_down; row 22 from $unfolded"

# Past the last row: held with the pyramid's last (row 255) at the top,
# drawn, nothing below it; a key down does not move it; back up past the
# first row, the frame is the first one.
[ "${s[2]}" = 0:4080 ] && [ "${s[3]}" = 0:4080 ] ||
  fail "scrolling past the last row is not held there: $states"
read -r first last < <("$probe" drawn "$tmp/last.png" 120 1144 "$rows" \
  $((rows + 16)))
[ "$first" -gt 120 ] && [ "$last" -gt $((first + 50)) ] ||
  fail "the last row is not drawn at the top (x $first to $last)"
[ "$("$probe" drawn "$tmp/last.png" 120 1144 $((rows + 16)) $((top + 400)))" = "-1 -1" ] ||
  fail "rows drawn under the last one"
[ "${s[4]}" = 0:0 ] || fail "scrolling past the first row: $states"
apart=$("$probe" diff "$tmp/top.png" "$tmp/back.png" 0 "$top" 1144 400)
[ "$apart" = 0 ] || fail "scrolled back, the frame differs ($apart pixels)"

# A range modelled (its few packets fit the window's quarter of the
# budget) shows the 80 px asked held to its model's rows; the pyramid
# shows them again; scrolled in the model, from where it shows.
IFS=: read -r modelled held <<<"${s[5]}"
[ "$modelled" = 1 ] && [ "$held" -lt 80 ] && [ $((held % 16)) = 0 ] &&
  [ "$held" -ge 16 ] || fail "a range modelled, scrolled: $states"
[ "${s[6]}" = 0:80 ] && [ "${s[7]}" = "1:$((held - 16))" ] &&
  [ "${s[8]}" = "0:$((held - 16))" ] && [ "${s[9]}" = 0:0 ] ||
  fail "the scroll through a model, then fit: $states"
echo "view_scroll: ok (the model held the scroll at $held px)"
