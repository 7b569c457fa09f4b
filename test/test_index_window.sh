#!/usr/bin/env bash
# test_index_window.sh -- `mprof view --png --range` of a trace of
# millions of events whose model would pass the budget draws only the
# packets its index chooses for the range: test_index_window holds that
# model against the whole one (the same threads, spans and arrows in the
# window), and the view says so and peaks at a fraction of the memory of
# the whole load (/usr/bin/time), which it does under the budget.
#
#   test_index_window.sh BUILD
. "$(dirname "$0")/command/common.sh"

trace=$tmp/big.ctf
"$gen" "$trace" discard 134217728 200000 2 >/dev/null
span=$("$mprof" stats --json "$trace" | /usr/bin/python3 -c \
  'import json, sys; print(json.load(sys.stdin)["time_span_ns"])')
t0=$((span * 55 / 100)) t1=$((span * 58 / 100))
"$build/test/test_index_window" "$trace" $t0 $t1 >"$tmp/out" ||
  fail "the window's model: $(cat "$tmp/out")"
cat "$tmp/out"

# view BUDGET_MIB PNG: draws the range, its peak RSS (KiB) in $rss.
view() {
  MPROF_VIEW_BUDGET_MIB=$1 /usr/bin/time -f %M -o "$tmp/rss" "$mprof" view \
    --png "$2" --range ${t0}ns:${t1}ns "$trace" >"$tmp/out" 2>"$tmp/err" ||
    fail "view, budget $1 MiB: $(cat "$tmp/err")"
  [ -s "$2" ] || fail "view, budget $1 MiB: no picture"
  rss=$(tail -1 "$tmp/rss")
}
view 1024 "$tmp/whole.png"
whole=$rss
! grep -q "its index" "$tmp/err" || fail "a small trace drawn from its index"
view 16 "$tmp/window.png"
window=$rss
grep -q ": its model would take about [1-9][0-9]* MiB, over 16 MiB: the range \
drawn from [1-9][0-9]* of its [1-9][0-9]* packets (its index)$" "$tmp/err" ||
  fail "not drawn from the index: $(cat "$tmp/err")"
# A sanitizer's shadow memory is not the program's: the peaks are
# compared in the plain build only.
[ "${MPROF_TEST_SANITIZED:-0}" = 1 ] || [ $((window * 3)) -lt $whole ] ||
  fail "the window's view took $window KiB, the whole one's $whole KiB"

# A range past what a fast clock can count (3 GHz: 8e9 s is 2.4e19 ticks,
# past 2^64) reaches to the clock's end, so every packet is drawn.
"$gen" "$tmp/fast.ctf" discard 1048576 1000 1 >/dev/null
/usr/bin/python3 - "$tmp/fast.ctf" <<'PY'
import struct, sys
data = bytearray(open(sys.argv[1], "rb").read())
at = data.index(b"freq = 1000000000;")
data[at:at + 18] = b"freq = 3000000000;"
struct.pack_into("<Q", data, 64, 3000000000)  # the header's clock rate
open(sys.argv[1], "wb").write(data)
PY
MPROF_VIEW_BUDGET_MIB=0 "$mprof" view --png "$tmp/fast.png" \
  --range 0:8000000000s "$tmp/fast.ctf" 2>"$tmp/err" ||
  fail "view of a range past the clock: $(cat "$tmp/err")"
grep -q "the range drawn from \([0-9]*\) of its \1 packets (its index)$" "$tmp/err" ||
  fail "a range past the clock: $(cat "$tmp/err")"
# A budget of 2^44 MiB, 2^64 bytes, is more than any model: no window.
MPROF_VIEW_BUDGET_MIB=17592186044416 "$mprof" view --png "$tmp/fast.png" \
  --range 0:1s "$tmp/fast.ctf" 2>"$tmp/err" || fail "a budget of 2^44 MiB: $(cat "$tmp/err")"
! grep -q "its index" "$tmp/err" || fail "a budget of 2^44 MiB: $(cat "$tmp/err")"
echo "ok: the window's model is the whole one's there; view peaks at \
$window KiB from the index, $whole KiB whole"
