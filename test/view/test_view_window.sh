#!/usr/bin/env bash
# test_view_window.sh -- the `mprof view` window under Xvfb, driven by a
# script of input (--script, see src/view/script.c): it opens on net.ctf
# and on a recorded story (test/story.c), and zoom, pan, search,
# double-click, the keys list, --compare and --follow (of a trace and of a
# merged trace) change what is drawn where the scene says (view_probe
# where), and the findings panel lists what `mprof report` finds.  Screenshots stay in BUILD/test/view/shots/ as artifacts.
#   test_view_window.sh BUILD NET_CTF   (run under xvfb-run -a)
. "$(dirname "$0")/common.sh"
net_ctf=$2
shots=$build/test/view/shots
rm -rf "$shots"
mkdir -p "$shots"
story=$tmp/story.ctf
"$build/test/story" "$story"

# run TRACE... : run the window with the script in $tmp/script; its output
# (shot and state lines) goes to $tmp/out.  Exit 0, or with $damaged_ok 1
# (a live trace may have a packet rewritten while it is read).
run() {
  local code=0
  timeout 60 "$mprof" view --script "$tmp/script" "$@" >"$tmp/out" 2>"$tmp/err" || code=$?
  [ $code = 0 ] || { [ $code = 1 ] && [ -n "${damaged_ok:-}" ]; } ||
    fail "mprof view $*: exit $code: $(cat "$tmp/err")"
  ! grep -q '^script:' "$tmp/err" || fail "$(cat "$tmp/err")"
}
# area SHOT [PANE]: sets ax ay aw ah, where the timeline is in the shot,
# and names, the width of its name column (its time range is right of it).
area() {
  local fields
  fields=$(grep "^shot $shots/$1 " "$tmp/out" | cut -d' ' -f$(( 3 + 4 * ${2:-0} ))-$(( 6 + 4 * ${2:-0} )))
  read -r ax ay aw ah <<<"$fields"
  [ -n "$ah" ] || fail "no timeline in shot $1"
  names=$(( aw >= 480 ? 120 : aw / 4 )) # the name column's width (scene.h)
}
# where TRACE NAME T0 T1: sets row y x0 x1 (in the shot: + ax, ay).
where() {
  local r
  r=$("$probe" where "$1" "$aw" "$ah" "$3" "$4" 0 "$2") || fail "no thread '$2'"
  read -r row y x0 x1 start end <<<"$r"
  y=$(( ${y%.*} + ay )) x0=$(( ${x0%.*} + ax )) x1=$(( ${x1%.*} + ax ))
}
state() { sed -n "${1}p" < <(grep '^state ' "$tmp/out"); }

# 1. net.ctf: the window opens, titled, and draws its first thread.
printf 'state\nshot %s\nquit\n' "$shots/net.png" >"$tmp/script"
run "$net_ctf"
area net.png
where "$net_ctf" Gntshr.grant_access 0 -1
expect_not "net.ctf's first thread drawn in the window" is_empty "$shots/net.png" $(( ax + aw / 2 )) $(( y - 1 ))

# A window per trace, each titled with its file name.
printf 'title\nquit\n' >"$tmp/script"
run "$story" "$net_ctf"
[ "$(grep '^title ' "$tmp/out" | sort)" = "$(printf 'title net.ctf - mprof view\ntitle story.ctf - mprof view')" ] ||
  fail "window titles: $(cat "$tmp/out")"

# 2. The story: fit, then the request's range, then a wheel zoom and a pan.
printf 'shot %s\nquit\n' "$shots/fit.png" >"$tmp/script"
run "$story"
area fit.png
where "$story" "GET /" 0 -1
expect_not "GET / drawn at its row" is_empty "$shots/fit.png" $(( (x0 + x1) / 2 )) $(( y - 1 ))
t0=$(( start - 1000000 )) t1=$(( end + 1000000 ))
cat >"$tmp/script" <<EOF2
range $t0 $t1
shot $shots/range.png
state
zoom 0.5 $(( aw / 4 ))
state
pan 100 0
state
pan 0 -100000
state
pan 0 100000
state
search lookup
shot $shots/search.png
dclick $(( (x0 + x1) / 2 - ax )) $(( y - ay ))
shot $shots/select.png
details $tmp/details.txt
key question
shot $shots/keys.png
key Escape
key question
shot $shots/clear.png
metric 0 off
shot $shots/nometric.png
quit
EOF2
# (x0, x1, y above are for the fitted view; the double-click is aimed after
# the range is set, so recompute it for that range.)
where "$story" "GET /" $t0 $t1
sed -i "s/^dclick .*/dclick $(( (x0 + x1) / 2 - ax )) $(( y - ay ))/" "$tmp/script"
run "$story"

area range.png
where "$story" "GET /" $t0 $t1
expect "range: empty before GET / starts" is_empty "$shots/range.png" $(( x0 - 4 )) $(( y - 1 ))
expect_not "range: GET / drawn after it starts" is_empty "$shots/range.png" $(( x0 + 10 )) $(( y - 1 ))
[ "$("$probe" diff "$shots/fit.png" "$shots/range.png" $ax $ay $aw $ah)" -gt 1000 ] ||
  fail "the range did not change the picture"

# The wheel zoom keeps the time under the pointer; the pan moves 100 px.
read -r _ a0 a1 _ _ _ <<<"$(state 1)"
read -r _ b0 b1 _ _ _ <<<"$(state 2)"
read -r _ c0 c1 _ _ _ <<<"$(state 3)"
[ "$a0 $a1" = "$t0 $t1" ] || fail "range set: $a0 $a1"
awk -v a0=$a0 -v a1=$a1 -v b0=$b0 -v b1=$b1 -v q=$(( aw / 4 - names )) -v w=$(( aw - names )) 'BEGIN {
  ta = a0 + (a1 - a0) * q / w; tb = b0 + (b1 - b0) * q / w
  exit !((b1 - b0) * 2 - (a1 - a0) < 4 && (ta - tb < 2 && tb - ta < 2)) }' ||
  fail "zoom 0.5 at x $(( aw / 4 )): $a0..$a1 -> $b0..$b1"
awk -v b0=$b0 -v b1=$b1 -v c0=$c0 -v w=$(( aw - names )) 'BEGIN {
  d = (b0 - c0) - 100 * (b1 - b0) / w; exit !(d < 2 && d > -2) }' ||
  fail "pan 100 px: $b0 -> $c0"

# Dragging far up scrolls to the last row and no further; back down to 0.
read -r _ _ _ scroll _ rows _ <<<"$(state 4)"
[ "$scroll" = $(( (rows - 1) * 16 )) ] || fail "scrolled to $scroll px with $rows rows"
read -r _ _ _ scroll _ _ <<<"$(state 5)"
[ "$scroll" = 0 ] || fail "scrolled back to $scroll px"

# Search: "lookup" is marked, "GET /" is not.
where "$story" lookup $c0 $c1
# (the middle of its line where it is in the time range)
lx0=$(( x0 > ax + names ? x0 : ax + names )) lx1=$(( x1 < ax + aw ? x1 : ax + aw - 1 ))
ly=$y lx=$(( (lx0 + lx1) / 2 ))
expect "search marks lookup" is_colour "$shots/search.png" $lx $(( ly - 7 )) $MATCH 40
where "$story" "GET /" $c0 $c1
expect_not "search leaves GET / unmarked" is_colour "$shots/search.png" $lx $(( y - 7 )) $MATCH 40

# Double-click on GET /: it and what it touched are highlighted, the rest
# fades, and the panel tells its story.
area select.png
where "$story" "GET /" $c0 $c1
gx0=$(( x0 > ax + names ? x0 : ax + names )) gx1=$(( x1 < ax + aw ? x1 : ax + aw - 1 ))
gx=$(( (gx0 + gx1) / 2 )) # the middle of its line in the time range, past its label
expect "GET / highlighted" is_colour "$shots/select.png" $gx $(( y - 4 )) $HIGHLIGHT 60
where "$story" "disk read" $c0 $c1
expect_not "disk read (not touched by GET /) not highlighted" \
  is_colour "$shots/select.png" $gx $(( y - 4 )) $HIGHLIGHT 60
where "$story" "stuck job" $c0 $c1
expect_not "stuck job faded" is_colour "$shots/select.png" $(( ax + aw / 2 )) $(( y - 1 )) $STALLED 60
expect "stuck job still there, pale" is_pale_red "$shots/select.png" $(( ax + aw / 2 )) $(( y - 1 ))
grep -qx 'GET /' <(head -1 "$tmp/details.txt") || fail "details: $(cat "$tmp/details.txt")"
for text in 'type: task' 'created by: loop' 'ending: resolved' 'waited on lookup' \
  'read  lookup -> GET /' 'wait chain: GET / -> lookup -> disk read' 'on the critical path'; do
  grep -qF "$text" "$tmp/details.txt" || fail "details lack '$text': $(cat "$tmp/details.txt")"
done

# ? shows the keys over the timeline; Escape clears search and highlight.
[ "$("$probe" diff "$shots/select.png" "$shots/keys.png" $ax $ay $aw $ah)" -gt 2000 ] ||
  fail "? showed no list of keys"
area clear.png
where "$story" lookup $c0 $c1
expect_not "Escape cleared the search" is_colour "$shots/clear.png" $lx $(( y - 7 )) $MATCH 40

# The Metrics menu hides the story's one counter graph (the bottom strip).
strip_y=$(( ay + ah - 40 ))
[ "$("$probe" diff "$shots/clear.png" "$shots/nometric.png" $ax $strip_y $aw 40)" -gt 200 ] ||
  fail "unticking the counter left its graph"
[ "$("$probe" diff "$shots/clear.png" "$shots/nometric.png" $ax $ay $aw 200)" -lt 50 ] ||
  fail "unticking the counter changed the rows"
# 3. --compare: the story above net.ctf, one window, one time axis (its
# two timelines laid out, 300 ms, before the state and the shot).
printf 'wait 2\nstate\nshot %s\nquit\n' "$shots/compare.png" >"$tmp/script"
run --compare "$story" "$net_ctf"
read -r _ t0 t1 _ _ _ <<<"$(state 1)"
read -r _ _ _ _ story_end _ _ <<<"$(state 1)"
read -r _ _ _ _ end off <<<"$(state 2 | cut -d' ' -f1-5,7)"
# both traces' busy parts (as the view state finds them), net.ctf's at its
# offset, 2 % of that each side
read -r _ _ _ a0 a1 _ < <("$probe" fit "$story" 800 400)
read -r _ _ _ b0 b1 _ < <("$probe" fit "$net_ctf" 800 400)
awk -v t0=$t0 -v t1=$t1 -v a0=$a0 -v a1=$a1 -v b0=$b0 -v b1=$b1 -v off=$off 'BEGIN {
  lo = off + b0 < a0 ? off + b0 : a0; hi = a1 > off + b1 ? a1 : off + b1; m = (hi - lo) * 0.02
  d0 = t0 - (lo - m); d1 = t1 - (hi + m); exit !(d0 * d0 < 4 && d1 * d1 < 4) }' ||
  fail "compare: $t0..$t1 is not the fit of the story ($a0..$a1 of 0..$story_end) and net.ctf ($b0..$b1 of $end, at $off)"
area compare.png 0
top_y=$ay
where "$story" "stuck job" $t0 $t1
# (a few px wide beside net.ctf's seconds: red at one of them)
red_on_line() { local x; for x in $(seq $(( x0 > ax + names ? x0 : ax + names )) $x1); do is_red "$1" $x $(( y - 1 )) && return 0; done; return 1; }
red_on_line "$shots/compare.png" || fail "compare: the story's stalled job red in the top timeline ($x0..$x1 at y $(( y - 1 )))"
area compare.png 1
[ "$ay" -gt "$top_y" ] || fail "the second timeline is not below the first"
where "$net_ctf" Gntshr.grant_access $t0 $t1
expect_not "compare: net.ctf's first thread in the bottom timeline" \
  is_empty "$shots/compare.png" $(( ax + aw / 2 )) $(( y - 1 ))

# 4. The findings panel: the demo's hung run lists what `mprof report
# --json` finds, in its order, "severity kind: summary"; a click on each
# shows its range (with 2 % of its span, at least 1 us, each side) and
# selects its thread at fault, whose details name it.
"$(dirname "$0")/arp_hung.sh" "$build" "$tmp/hung.ctf" || fail "no hung run of the demo"
"$mprof" report --json "$tmp/hung.ctf" >"$tmp/hung.json"
/usr/bin/python3 - "$tmp/hung.json" "$tmp/want" <<'EOF2'
import json, sys
findings = json.load(open(sys.argv[1]))["findings"]
with open(sys.argv[2] + ".txt", "w") as lines, open(sys.argv[2] + ".ranges", "w") as ranges:
    for f in findings:
        lines.write("%s %s: %s\n" % (f["severity"], f["kind"], f["summary"]))
        pad = max((f["end_ns"] - f["start_ns"]) * 0.02, 1000)
        ranges.write("%d %d %s\n" % (f["start_ns"] - pad, f["end_ns"] + pad, f["threads"][0]["name"]))
EOF2
head -1 "$tmp/want.txt" | grep -q '^error lost_wakeup: "ARP response"' ||
  fail "the report does not name the lost ARP response wait first: $(cat "$tmp/want.txt")"
{
  echo "findings $tmp/findings.txt"
  for i in $(seq 0 $(( $(wc -l <"$tmp/want.txt") - 1 ))); do
    printf 'finding %d\nstate\ndetails %s\nshot %s\n' $i "$tmp/details$i.txt" "$shots/finding$i.png"
  done
  echo quit
} >"$tmp/script"
run "$tmp/hung.ctf"
diff "$tmp/want.txt" "$tmp/findings.txt" >&2 || fail "the findings panel is not the report's findings"
i=0
while read -r w0 w1 name; do
  read -r _ t0 t1 _ <<<"$(state $(( i + 1 )))"
  awk -v a=$t0 -v b=$t1 -v c=$w0 -v d=$w1 'BEGIN { exit !((a - c) ^ 2 < 4 && (b - d) ^ 2 < 4) }' ||
    fail "finding $i: range $t0..$t1, not $w0..$w1"
  [ "$(head -1 "$tmp/details$i.txt")" = "$name" ] || fail "finding $i: selected $(head -1 "$tmp/details$i.txt"), not $name"
  grep -qF "  $(sed -n "$(( i + 1 ))p" "$tmp/want.txt")" "$tmp/details$i.txt" ||
    fail "finding $i: the details do not name it: $(cat "$tmp/details$i.txt")"
  grep -q 'in poll .*, not running ' "$tmp/details$i.txt" && ! grep -q idle "$tmp/details$i.txt" ||
    fail "finding $i: the times are not running / waiting / in poll / not running: $(cat "$tmp/details$i.txt")"
  # its thread highlighted, where its line is wide enough to see past its
  # end mark
  area "finding$i.png"
  where "$tmp/hung.ctf" "$name" "$t0" "$t1"
  if [ $(( x1 - x0 )) -gt 8 ]; then
    is_colour_near "$shots/finding$i.png" $x0 $x1 $(( y - 4 )) $HIGHLIGHT 60 ||
      fail "finding $i: $name not highlighted along its line (x $x0..$x1, y $(( y - 4 )) of $shots/finding$i.png)"
    lit=$(( ${lit:-0} + 1 ))
  fi
  i=$(( i + 1 ))
done <"$tmp/want.ranges"
[ "${lit:-0}" -gt 0 ] || fail "no finding's thread was wide enough to see its highlight"

# Closed with the keys' popover open: no GTK critical (each one aborts).
printf 'wait 1\nkey question\nwait 2\nquit\n' >"$tmp/script"
G_DEBUG=fatal-criticals run "$net_ctf"
! grep -q CRITICAL "$tmp/err" || fail "closed with the keys shown: $(cat "$tmp/err")"

# 5. --follow on a trace a program is writing: the end grows and stays in view.
"$build/test/trace_gen" "$tmp/live.ctf" overwrite 262144 100000000 2 >/dev/null &
gen=$!
trap 'kill $gen 2>/dev/null || true; rm -rf "$tmp"' EXIT
"$(dirname "$0")/../wait_trace.sh" "$tmp/live.ctf" $gen || fail "live.ctf never began"
printf 'wait 2\nstate\nwait 14\nstate\nshot %s\nquit\n' "$shots/follow.png" >"$tmp/script"
# follow_moves WHAT: the end in the second state line is later than in the
# first, and in view.
follow_moves() {
  read -r _ a0 a1 _ aend _ <<<"$(state 1)"
  read -r _ b0 b1 _ bend _ <<<"$(state 2)"
  [ "$bend" -gt "$aend" ] || fail "follow $1: the trace's end did not move: $aend -> $bend"
  [ "$b0" -lt "$bend" ] && [ "$bend" -le "$b1" ] || fail "follow $1: the newest time $bend is not in view ($b0..$b1)"
}
damaged_ok=1 run --follow "$tmp/live.ctf"
follow_moves "of a trace"
# A merged trace is re-read whole, manifest and members: its live member's
# end moves as the trace's does.
printf 'mprof-merge 1\n5000 live.ctf\n' >"$tmp/live.manifest"
damaged_ok=1 run --follow "$tmp/live.manifest"
follow_moves "of a merged trace"
kill $gen
echo "view_window: ok"
