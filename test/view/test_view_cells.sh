#!/usr/bin/env bash
# test_view_cells.sh -- `mprof view --png` of the whole of a trace too big
# to model (forced with MPROF_VIEW_BUDGET_MIB=0 on small traces): the
# summary made in one pass equals the whole model's with the same online
# rules, and draws (view_cells); the command says it drew so and writes
# the picture; its peak memory grows by far less than a model's with the
# trace.
. "$(dirname "$0")/common.sh"
gen=$build/test/trace_gen
cells=$build/test/view/view_cells
unset DISPLAY WAYLAND_DISPLAY

"$build/test/story" "$tmp/story.ctf"
"$gen" "$tmp/gen.ctf" discard 2000000 3000 2 >/dev/null
for trace in "$tmp/story.ctf" "$tmp/gen.ctf"; do
  "$cells" "$trace" 1000 400 "$tmp/cells.png" >"$tmp/out" ||
    fail "$(basename "$trace"): $(cat "$tmp/out")"
done
# (the story's runs all start under an arrow; trace_gen's do not all)
grep -q "^ok: [1-9][0-9]* of [1-9][0-9]* running pixels" "$tmp/out" ||
  fail "gen.ctf: no running cell clear of arrows: $(cat "$tmp/out")"

# The command: over the budget, the summary; within it, the model.
MPROF_VIEW_BUDGET_MIB=0 "$mprof" view --png "$tmp/whole.png" --width 900 \
  --height 300 "$tmp/gen.ctf" 2>"$tmp/err" || fail "--png: $(cat "$tmp/err")"
grep -q "over 0 MiB: drawn from its 90005 events in one pass$" "$tmp/err" ||
  fail "--png over the budget said: $(cat "$tmp/err")"
[ "$("$probe" count "$tmp/whole.png" 0 0 900 318 e8e8e8)" -gt 0 ] ||
  fail "--png over the budget: not a 900 x 318 picture"
"$mprof" view --png "$tmp/model.png" "$tmp/gen.ctf" 2>"$tmp/err" &&
  [ ! -s "$tmp/err" ] || fail "--png within the budget: $(cat "$tmp/err")"

# A damaged trace: its problems told, a picture of what is left or a
# clear failure, never a crash (each under ASan+UBSan too).
for damaged in "$(dirname "$0")"/../data/damaged/*.ctf; do
  code=0
  MPROF_VIEW_BUDGET_MIB=0 "$mprof" view --png "$tmp/damaged.png" "$damaged" \
    >/dev/null 2>"$tmp/err" || code=$?
  [ "$code" -le 3 ] && ! grep -q "runtime error\|Sanitizer" "$tmp/err" ||
    fail "--png over the budget of $(basename "$damaged"): exit $code: $(head -3 "$tmp/err")"
done

# Peak memory: a trace 8 times longer takes less than 2 bytes more an
# event (its whole model about 40: the pass keeps nothing per event; its
# index, read for the span, grows with the packets).
if [ "${MPROF_TEST_SANITIZED:-0}" = 1 ]; then
  echo "view_cells: ok (a sanitizer build: the peak memory not checked)"
  exit 0
fi
rss() { # TRACE: the peak RSS of --png of it over the budget, in KiB
  MPROF_VIEW_BUDGET_MIB=0 /usr/bin/time -f %M -o "$tmp/rss" "$mprof" view \
    --png "$tmp/rss.png" "$1" 2>/dev/null || fail "--png of $1"
  cat "$tmp/rss"
}
"$gen" "$tmp/short.ctf" discard 8000000 20000 2 >/dev/null
"$gen" "$tmp/long.ctf" discard 64000000 160000 2 >/dev/null
short=$(rss "$tmp/short.ctf") long=$(rss "$tmp/long.ctf")
[ $(((long - short) * 1024)) -lt $((2 * 4200000)) ] ||
  fail "--png over the budget: $long KiB for 4.8 M events, $short KiB for 0.6 M"
echo "view_cells: ok ($short KiB for 0.6 M events, $long KiB for 4.8 M)"
