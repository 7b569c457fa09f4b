#!/usr/bin/env bash
# test_viewer.sh -- the browser viewer in Debian's Chromium, driven by
# Playwright (test_viewer.js): net.ctf, a recorded story, a trace_gen trace,
# HTML labels, two traces compared, findings of recorded programs, a
# capture of `mprof watch` opened on what fired it, a trace read by its
# index.  Screenshots stay in BUILD/test/web/artifacts.
#   test_viewer.sh BUILD SOURCE NET_CTF
set -euo pipefail
build=$1 source=$2 net_ctf=$3
out=$build/test/web/artifacts
npm_dir=$build/web/npm
rm -rf "$out" && mkdir -p "$out"
# playwright-core, pinned by web/package-lock.json, installed once per build
if ! cmp -s "$source/web/package-lock.json" "$npm_dir/package-lock.json"; then
  mkdir -p "$npm_dir"
  cp "$source/web/package.json" "$source/web/package-lock.json" "$npm_dir/"
  "$source/scripts/npm_ci.sh" "$npm_dir"
fi
"$build/test/story" "$out/story.ctf"
"$build/test/web/web_trace" xss "$out/xss.ctf"
mprof=$build/mprof
"$mprof" html "$net_ctf" -o "$out/net"
# its first frame alone (no data.js), and in a single file
cp -r "$out/net" "$out/net-frame" && rm "$out/net-frame/data.js"
"$mprof" html --single-file "$net_ctf" -o "$out/net.html"
"$mprof" html --single-file "$out/story.ctf" -o "$out/story.html"
"$mprof" html "$out/xss.ctf" -o "$out/xss"
"$mprof" html --single-file "$out/xss.ctf" -o "$out/xss.html"
"$mprof" html "$out/story.ctf" "$out/xss.ctf" -o "$out/compare"
# every arrow kind, an idle hiatus, two counters on one scale
"$build/test/web/web_trace" idle "$out/idle.ctf"
"$mprof" html "$out/idle.ctf" -o "$out/idle"
# the trace from standard input; nothing on it is an error
"$mprof" html - -o "$out/stdin" <"$out/story.ctf"
if "$mprof" html --single-file - -o "$out/empty.html" </dev/null 2>/dev/null; then
  echo "not ok: mprof html - accepted an empty standard input"; exit 1
fi
# two runs of one program, 60 and 20 requests in flight (one counter name),
# the second paused 20 µs early on, so that their first divergences come
# about that much apart from their starts (by the real clocks alone they
# may come at the same ns, and the alignments look the same)
"$build/test/web/web_trace" load "$out/wide.ctf" 4000 60
"$build/test/web/web_trace" load "$out/narrow.ctf" 4000 20 20
"$mprof" html "$out/wide.ctf" "$out/narrow.ctf" -o "$out/compare-runs"
# a trace of two OS threads from trace_gen, and what mprof stats counts in it
"$build/test/trace_gen" "$out/gen.ctf" discard 4194304 200 2 >/dev/null
"$mprof" html --single-file "$out/gen.ctf" -o "$out/gen.html"
"$mprof" stats --json "$out/gen.ctf" >"$out/gen.json"
"$mprof" report --json "$out/gen.ctf" >"$out/gen-report.json"
# a trace read in many slices (the page shows it as it loads), and a copy
# cut in the middle of a packet with the magic of an earlier packet broken
"$build/test/web/web_trace" phases "$out/phases.ctf" 200000
"$mprof" html --single-file "$out/phases.ctf" -o "$out/phases.html"
# the same trace as `mprof html` writes a big one: in slices (of 128 KiB),
# as scripts in a directory and inline in a single file
MPROF_HTML_SLICE=131072 "$mprof" html "$out/phases.ctf" -o "$out/phases-dir"
MPROF_HTML_SLICE=131072 "$mprof" html --single-file "$out/phases.ctf" -o "$out/phases-sliced.html"
"$mprof" stats --json "$out/phases.ctf" >"$out/phases.json"
packets=$(od -An -tu8 -j56 -N8 "$out/phases.ctf" | tr -d ' ')
packet=$(od -An -tu4 -j24 -N4 "$out/phases.ctf" | tr -d ' ')
head -c $((packets + 14 * packet + 777)) "$out/phases.ctf" >"$out/damaged.ctf"
printf 'BAD!' | dd of="$out/damaged.ctf" bs=1 seek=$((packets + 5 * packet)) conv=notrunc status=none
"$mprof" stats --json "$out/damaged.ctf" >"$out/damaged.json" 2>"$out/damaged.txt" || true
# a trace of two OS threads 100 ms apart, read by its index (forced by the
# page's settings): its events as dump tells them, its index, another
# trace's, and its own with a byte changed
"$build/test/web/web_trace" streams "$out/streams.ctf" 100000
"$mprof" dump "$out/streams.ctf" >"$out/streams.txt"
"$mprof" stats --json "$out/streams.ctf" >"$out/streams-stats.json"
"$mprof" index "$out/streams.ctf" >/dev/null
"$mprof" index "$out/phases.ctf" >"$out/phases.index.txt"
cp "$out/streams.ctf.mpidx" "$out/streams-damaged.mpidx"
MPROF_HTML_INDEXED=0 MPROF_HTML_SLICE=131072 "$mprof" html "$out/streams.ctf" -o "$out/streams-html"
printf '\001' | dd of="$out/streams-damaged.mpidx" bs=1 seek=200 conv=notrunc status=none
# the same trace under a page budget of its file and half its whole model
# (its events, 32 bytes each)
events=$(/usr/bin/python3 -c 'import json, sys; print(json.load(open(sys.argv[1]))["events"])' "$out/streams-stats.json")
MPROF_HTML_BUDGET=$(($(stat -c %s "$out/streams.ctf") + events * 32)) \
  "$mprof" html "$out/streams.ctf" -o "$out/streams-budget"
# a sparse trace of 1 GiB, past the size the page reads whole: mprof html
# reads it a piece at a time, in an address space it cannot be mapped into
# (not under a sanitizer, whose shadow memory no such limit allows)
"$build/test/trace_gen" "$out/sparse.ctf" sparse $((1 << 30)) 20000 2 65536 >/dev/null
"$mprof" dump "$out/sparse.ctf" >"$out/sparse.txt"
"$mprof" stats --json "$out/sparse.ctf" >"$out/sparse-stats.json"
limit=$((600 << 20))
[ "${MPROF_TEST_SANITIZED:-0}" = 1 ] && limit=unlimited
prlimit --as=$limit "$mprof" html "$out/sparse.ctf" -o "$out/sparse-html" ||
  { echo "not ok: mprof html of a 1 GiB trace in 600 MiB of address space"; exit 1; }
# findings the report knows: the demo's hung run (a lost wake-up, then the
# stall), a zoo program whose connects are refused and made again
"$source/test/view/arp_hung.sh" "$build" "$out/arp-hung.ctf"
"$mprof" report --json "$out/arp-hung.ctf" >"$out/arp-hung-report.json"
"$mprof" html "$out/arp-hung.ctf" -o "$out/arp-hung"
"$mprof" record -o "$out/retry.ctf" -- "$build/examples/zoo/zoo_retry_storm" >"$out/retry.out" 2>&1 ||
  { echo "not ok: mprof record of zoo_retry_storm: $(tail -3 "$out/retry.out")"; exit 1; }
"$mprof" report --json "$out/retry.ctf" >"$out/retry-report.json"
"$mprof" html "$out/retry.ctf" -o "$out/retry"
# a capture of `mprof watch`, and the whole run it was taken from; the
# ticks of the capture's first event, where its times count from
"$mprof" record --watch 'loop_blocked>50ms' -o "$out/run" -- "$build/examples/zoo/zoo_blocked_often" \
  >"$out/run.out" 2>&1 || { echo "not ok: mprof record --watch: $(tail -3 "$out/run.out")"; exit 1; }
"$mprof" report --json "$out/run/capture-2.ctf" >"$out/capture-report.json"
"$mprof" dump --ticks "$out/run/capture-2.ctf" |
  awk '$2 != "string" && $2 != "counter_name" && $2 != "label" && !seen { print $1; seen = 1 }' >"$out/capture-first.txt"
"$mprof" html "$out/run/capture-2.ctf" -o "$out/capture"
"$mprof" html "$out/run/trace.ctf" -o "$out/run-trace"
MPROF=$mprof NODE_PATH=$npm_dir/node_modules node "$source/test/web/test_viewer.js" "$out" "$net_ctf"
