#!/usr/bin/env bash
# test_view_pyramid.sh -- the level-of-detail pyramid of a trace too big to
# model (view_pyramid): its levels against the pass at their widths, and
# its file checked, on the story trace and trace_gen traces.
. "$(dirname "$0")/common.sh"
gen=$build/test/trace_gen
pyramid=$build/test/view/view_pyramid
unset DISPLAY WAYLAND_DISPLAY

"$build/test/story" "$tmp/story.ctf"
"$gen" "$tmp/gen.ctf" discard 2000000 3000 2 >/dev/null
"$gen" "$tmp/block.ctf" block 2000000 3000 2 >/dev/null
for trace in "$tmp/story.ctf" "$tmp/gen.ctf" "$tmp/block.ctf"; do
  for size in "4096 40" "1536 3"; do
    # shellcheck disable=SC2086
    "$pyramid" "$trace" $size >"$tmp/out" ||
      fail "$(basename "$trace") at $size: $(cat "$tmp/out")"
    echo "$(basename "$trace") at $size: $(cat "$tmp/out")"
  done
done
echo "view_pyramid: ok"
