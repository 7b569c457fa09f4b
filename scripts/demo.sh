#!/usr/bin/env bash
# demo.sh -- record examples/hello with no code change beyond linking
# (MPROF_TRACE in the environment), then show the trace four ways; then
# run examples/arp-race until one run works and one hangs (a lost
# wake-up), show the analysis of the hung one and write the browser view
# comparing the two.
set -euo pipefail
build=${1:-build}
out=$build/demo
rm -rf "$out" && mkdir -p "$out"

echo "== recording: MPROF_TRACE=$out/hello.ctf $build/examples/hello"
MPROF_TRACE="$out/hello.ctf" MPROF_SIZE=1M "$build/examples/hello"

echo
echo "== mprof dump (first events)"
"$build/mprof" dump "$out/hello.ctf" > "$out/hello.dump"
head -12 "$out/hello.dump"

echo
echo "== mprof ctf + babeltrace2"
"$build/mprof" ctf "$out/hello.ctf" -o "$out/hello-ctf"
babeltrace2 "$out/hello-ctf" > "$out/hello.babeltrace2"
head -20 "$out/hello.babeltrace2"
echo "... $(wc -l < "$out/hello.babeltrace2") events in all"

echo
echo "== mprof html: the browser viewer"
"$build/mprof" html "$out/hello.ctf" -o "$out/hello-view"
echo
echo "trace: $out/hello.ctf   CTF directory: $out/hello-ctf"
echo "viewer: $out/hello-view/index.html (open it in a browser)"

# The lost wake-up (README.md, "A lost wake-up, step by step"): about one
# run in two hangs; a hung run's trace is copied after 2 s (the copy ends
# then: the hung wait lasts until it), then the run is stopped.  A stopped
# run counts as hung only if its trace shows the stalled wait (a loaded
# machine can slow a good run past 2 s).  At most 40 runs.
[ -x "$build/examples/arp_race" ] || { echo "no libuv: no arp-race demo"; exit 0; }
echo
echo "== examples/arp-race: running it until one run works and one hangs"
good= bad=
for attempt in $(seq 1 40); do
  trace=$out/arp-race-run.ctf
  rm -f "$trace"
  MPROF_TRACE="$trace" "$build/examples/arp_race" > "$out/arp-race-run.txt" &
  pid=$!
  sleep 2
  rc=0
  if kill -0 "$pid" 2>/dev/null; then
    # still running: hung.  Its trace copied now ends now: a wait open at
    # the end lasts the 2 s, not only until the last event
    "$build/mprof" snapshot -w "$trace.copy" "$trace" && mv "$trace.copy" "$trace"
    kill "$pid"
    rc=124
  fi
  wait "$pid" || [ $rc -eq 124 ] || rc=1
  if [ $rc -eq 0 ] && [ -z "$good" ]; then
    good=$out/arp-race-good.ctf
    mv "$trace" "$good" && mv "$out/arp-race-run.txt" "$out/arp-race-good.txt"
    echo "run $attempt: worked"
  elif [ $rc -eq 124 ] && [ -z "$bad" ] &&
       "$build/mprof" report "$trace" 2>/dev/null | grep -q "^Stalled: [1-9]"; then
    bad=$out/arp-race-hung.ctf
    mv "$trace" "$bad" && mv "$out/arp-race-run.txt" "$out/arp-race-hung.txt"
    echo "run $attempt: hung (stopped after 2 s)"
  fi
  [ -n "$good" ] && [ -n "$bad" ] && break
done
rm -f "$out/arp-race-run.ctf" "$out/arp-race-run.txt"
if [ -z "$good" ] || [ -z "$bad" ]; then
  echo "no good and hung pair in 40 runs (good: ${good:-none}, hung: ${bad:-none})"
  exit 1
fi
echo
echo "== what the hung run printed"
cat "$out/arp-race-hung.txt"
echo
echo "== mprof report $bad"
"$build/mprof" report "$bad"
"$build/mprof" html "$good" "$bad" -o "$out/arp-race-compare"
echo
echo "arp-race traces: worked $good   hung $bad"
echo "compare them: $out/arp-race-compare/index.html (open it in a browser;"
echo "the worked run above, the hung one below, the first divergence marked)"
