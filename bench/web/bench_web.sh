#!/bin/sh
# bench_web.sh BUILD_DIR DIR -- the browser viewer's benchmark (bench_web.js)
# on a generated trace of MPROF_BENCH_WEB_EVENTS events (default 10000000)
# written in DIR (opened with the file picker, and as the directory that
# `mprof html` writes), and on net.ctf.  JSON lines on stdout, notes on stderr.
# MPROF_BENCH_WEB_NET_ONLY=1: net.ctf's load only (no big trace; seconds).
# And a trace of MPROF_BENCH_WEB_INDEX_EVENTS events (default 100000000,
# about 2 GB; 0: none) read by its index, as a file past what the page
# holds whole is (its .mpidx written by `mprof index`), written on disk
# under BUILD_DIR (DIR may be in memory: /dev/shm).
set -eu
build=$1 dir=$2 index_dir=
here=$(cd "$(dirname "$0")" && pwd)
source_dir=$here/../..
events=${MPROF_BENCH_WEB_EVENTS:-10000000}
npm_dir=$build/web/npm
mkdir -p "$dir"
if ! cmp -s "$source_dir/web/package-lock.json" "$npm_dir/package-lock.json"; then
  mkdir -p "$npm_dir"
  cp "$source_dir/web/package.json" "$source_dir/web/package-lock.json" "$npm_dir/"
  "$source_dir/scripts/npm_ci.sh" "$npm_dir" >&2
fi
if [ -z "${MPROF_BENCH_WEB_NET_ONLY:-}" ]; then
  "$build/bench/web/mprof_bench_web_trace" load "$dir/web-big.ctf" "$events"
  "$build/mprof" html "$dir/web-big.ctf" -o "$dir/web-big-html"
  index_events=${MPROF_BENCH_WEB_INDEX_EVENTS:-100000000}
  if [ "$index_events" != 0 ]; then
    index_dir=$(mktemp -d "$build/web-index.XXXXXX")
    "$build/bench/web/mprof_bench_web_trace" load "$index_dir/web-index.ctf" "$index_events"
    "$build/mprof" index "$index_dir/web-index.ctf" >&2
    export MPROF_BENCH_WEB_INDEX_TRACE="$index_dir/web-index.ctf"
  fi
fi
"$build/mprof" html "$source_dir/test/data/net.ctf" -o "$dir/web-net"
big="$dir/web-big.ctf $dir/web-big-html"
[ -z "${MPROF_BENCH_WEB_NET_ONLY:-}" ] || big=
NODE_PATH=$npm_dir/node_modules node "$here/bench_web.js" "$dir/web-net" $big
rm -rf "$dir/web-big.ctf" "$dir/web-big-html" "$dir/web-net" ${index_dir:+"$index_dir"}
