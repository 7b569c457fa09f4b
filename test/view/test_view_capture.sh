#!/usr/bin/env bash
# test_view_capture.sh -- `mprof view` opens a capture of `mprof watch` on
# the finding that fired it: the zoo's blocked_often recorded with `mprof
# record --watch`, its second capture shown with --png (a line "captured
# by mprof watch: SUMMARY" on stdout, the picture framed on the block,
# highlighted) and in a window under Xvfb (that line first in the
# findings panel, then the block's row; the range the block's, the timer
# selected); the whole run's trace, no capture, shows no such line.
#   test_view_capture.sh BUILD   (run under xvfb-run -a)
. "$(dirname "$0")/common.sh"
W=1000 H=400

"$mprof" record --watch 'loop_blocked>50ms' -o "$tmp/run" -- "$build/examples/zoo/zoo_blocked_often" \
  >"$tmp/record.out" 2>"$tmp/record.err" || fail "record --watch: $(cat "$tmp/record.err")"
capture=$tmp/run/capture-2.ctf
[ -e "$capture" ] || fail "no second capture: $(cat "$tmp/record.out")"
"$mprof" report --json "$capture" >"$tmp/report.json"

# The oracle: the sidecar's summary, and the capture's own loop_blocked
# finding nearest its trigger (the capture's times count from its own
# first event, at ticks FIRST): its line in the panel, the range a click
# on it shows (2 % of its span, at least 1 us, each side) and its thread.
first=$("$mprof" dump --ticks "$capture" | awk '$2 != "string" && $2 != "counter_name" && $2 != "label" && !seen { print $1; seen = 1 }')
/usr/bin/python3 - "$capture" "$tmp/report.json" "$first" "$tmp/want" <<'PY'
import json, sys
ctf, report, first, want = sys.argv[1], sys.argv[2], int(sys.argv[3]), sys.argv[4]
capture = json.load(open(ctf[:-4] + ".json"))
trigger_ns = (capture["trigger_ticks"] - first) * 1e9 / capture["clock_freq_hz"]
findings = json.load(open(report))["findings"]
found = [f for f in findings if f["kind"] == capture["finding"]["kind"]]
f = min(found, key=lambda f: abs(f["start_ns"] - trigger_ns))
pad = max((f["end_ns"] - f["start_ns"]) * 0.02, 1000)
with open(want, "w") as out:
    out.write("captured by mprof watch: %s\n" % capture["finding"]["summary"])
    out.write("%s %s: %s\n" % (f["severity"], f["kind"], f["summary"]))
    out.write("%d %d %s\n" % (f["start_ns"] - pad, f["end_ns"] + pad, f["threads"][0]["name"]))
with open(want + ".all", "w") as out:
    out.writelines(sorted("%s %s: %s\n" % (f["severity"], f["kind"], f["summary"]) for f in findings))
PY
read -r w0 w1 name < <(sed -n 3p "$tmp/want")
[ "$name" = timer ] || fail "the block's thread at fault is $name, not the timer"

# highlit PNG: the highlight's colour somewhere down the middle column.
highlit() {
  local y
  for y in $(seq 0 2 $H); do is_colour "$1" $(( W / 2 )) $y $HIGHLIGHT 40 && return 0; done
  return 1
}

# --png: the line on stdout, the picture framed on the block (the same
# pixels as --range gives with its range) and something highlighted;
# the whole trace says nothing and highlights nothing.
"$mprof" view --png "$tmp/capture.png" --width $W --height $H "$capture" >"$tmp/png.out"
[ "$(cat "$tmp/png.out")" = "$(head -1 "$tmp/want")" ] ||
  fail "--png says '$(cat "$tmp/png.out")', not '$(head -1 "$tmp/want")'"
"$mprof" view --png "$tmp/range.png" --width $W --height $H --range "${w0}ns:${w1}ns" "$capture" >/dev/null
differ=$("$probe" diff "$tmp/capture.png" "$tmp/range.png" 0 0 $W $H)
[ "$differ" = 0 ] || fail "--png: $differ pixels differ from the block's range, $w0..$w1 ns"
highlit "$tmp/capture.png" || fail "--png: nothing highlighted"
"$mprof" view --png "$tmp/plain.png" --width $W --height $H "$tmp/run/trace.ctf" >"$tmp/plain.out"
[ ! -s "$tmp/plain.out" ] || fail "--png of the whole trace says: $(cat "$tmp/plain.out")"
! highlit "$tmp/plain.png" || fail "--png of the whole trace highlights something"

# The window: the panel's first rows, the range and the selection as a
# click on the block's row gives them, before any input.
printf 'findings %s\nstate\ndetails %s\nquit\n' "$tmp/findings.txt" "$tmp/details.txt" >"$tmp/script"
timeout 60 "$mprof" view --script "$tmp/script" "$capture" >"$tmp/out" 2>"$tmp/err" ||
  fail "mprof view: $(cat "$tmp/err")"
diff <(head -2 "$tmp/want") <(head -2 "$tmp/findings.txt") >&2 ||
  fail "the findings panel does not open on the capture's line and its block"
diff "$tmp/want.all" <(tail -n +2 "$tmp/findings.txt" | sort) >&2 ||
  fail "the panel's findings are not the report's, each once"
read -r _ t0 t1 _ < <(grep '^state ' "$tmp/out")
awk -v a="$t0" -v b="$t1" -v c="$w0" -v d="$w1" 'BEGIN { exit !((a - c) ^ 2 < 4 && (b - d) ^ 2 < 4) }' ||
  fail "the window shows $t0..$t1, not the block's $w0..$w1"
[ "$(head -1 "$tmp/details.txt")" = timer ] || fail "selected: $(head -1 "$tmp/details.txt"), not the timer"

printf 'findings %s\nquit\n' "$tmp/plain.txt" >"$tmp/script"
timeout 60 "$mprof" view --script "$tmp/script" "$tmp/run/trace.ctf" >"$tmp/out" 2>"$tmp/err" ||
  fail "mprof view of the whole trace: $(cat "$tmp/err")"
! grep -q 'captured by' "$tmp/plain.txt" || fail "the whole trace's panel: $(cat "$tmp/plain.txt")"
echo "view_capture: all good"
