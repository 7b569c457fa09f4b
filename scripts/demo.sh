#!/usr/bin/env bash
# demo.sh -- record examples/hello with no code change beyond linking
# (MPROF_TRACE in the environment), then show the trace three ways.
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
echo "trace: $out/hello.ctf   CTF directory: $out/hello-ctf"
