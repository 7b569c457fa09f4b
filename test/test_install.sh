#!/usr/bin/env bash
# test_install.sh -- `cmake --install` gives headers, shared and static
# libraries, the reader and model libraries, their .pc files, a CMake
# package, the mprof command and its manual page; a program builds against
# each (pkg-config and find_package, shared and static) and, run with
# MPROF_TRACE, writes a trace with its label in it; a program built against
# the reader API (pkg-config mprof-model and mprof::model) reads that trace
# back and names its thread; one built against the export API (pkg-config
# mprof-export and mprof::export) writes it as a Chrome trace; one built
# against the index API (pkg-config mprof-index and mprof::index) builds
# its sidecar index, then reads it back.
set -euo pipefail
src=$1
build=$2
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
prefix=$tmp/prefix
cmake --install "$build" --prefix "$prefix" >/dev/null

pc=$(find "$prefix" -name mprof.pc)
libdir=$(dirname "$(dirname "$pc")")
for f in include/mprof.h include/mprof/unix.h include/mprof/read.h include/mprof/redact.h \
         include/mprof/model.h include/mprof/export.h include/mprof/index.h \
         bin/mprof libexec/mprof-view share/man/man1/mprof.1; do
  [ -f "$prefix/$f" ] || { echo "FAIL: $f not installed" >&2; exit 1; }
done
[ -f "$libdir/libmprof.a" ] && [ -e "$libdir/libmprof.so" ] && [ -f "$libdir/libmprof-read.a" ] \
  && [ -f "$libdir/libmprof-model.a" ] && [ -f "$libdir/libmprof-export.a" ] \
  && [ -f "$libdir/libmprof-index.a" ] \
  || { echo "FAIL: libraries not installed in $libdir" >&2; exit 1; }
[ -f "$libdir/cmake/mprof/mprofConfig.cmake" ] \
  || { echo "FAIL: CMake package config not installed" >&2; exit 1; }

export PKG_CONFIG_PATH=$libdir/pkgconfig
cc=${CC:-cc}
"$cc" -std=c11 "$src/test/install/consumer.c" $(pkg-config --cflags --libs mprof) \
  -o "$tmp/pc_shared"
"$cc" -std=c11 "$src/test/install/consumer.c" \
  $(pkg-config --static --cflags --libs mprof | sed 's/-lmprof/-l:libmprof.a/') \
  -o "$tmp/pc_static"
"$cc" -std=c11 "$src/test/install/reader.c" $(pkg-config --cflags --libs mprof-model) \
  -o "$tmp/pc_reader"
"$cc" -std=c11 "$src/test/install/exporter.c" $(pkg-config --cflags --libs mprof-export) \
  -o "$tmp/pc_exporter"
"$cc" -std=c11 "$src/test/install/indexer.c" $(pkg-config --cflags --libs mprof-index) \
  -o "$tmp/pc_indexer"
cmake -S "$src/test/install" -B "$tmp/cmake" -DCMAKE_PREFIX_PATH="$prefix" >/dev/null
cmake --build "$tmp/cmake" >/dev/null

if ldd "$tmp/pc_static" | grep -q libmprof; then
  echo "FAIL: static build links libmprof.so" >&2; exit 1
fi
for program in "$tmp/pc_shared" "$tmp/pc_static" "$tmp/cmake/consumer_shared" \
               "$tmp/cmake/consumer_static"; do
  trace=$tmp/$(basename "$program").ctf
  out=$(LD_LIBRARY_PATH=$libdir MPROF_TRACE=$trace "$program")
  [ "$out" = "consumer ran, tracing on" ] || { echo "FAIL: $program: $out" >&2; exit 1; }
  "$build/mprof" dump "$trace" | grep -q 'label .*text="installed consumer"' \
    || { echo "FAIL: $program: label missing from its trace" >&2; exit 1; }
  [ "$(stat -c %a "$trace")" = 600 ] || { echo "FAIL: $trace not mode 0600" >&2; exit 1; }
done

# The reader API: the trace a consumer wrote, read back by name.
for reader in "$tmp/pc_reader" "$tmp/cmake/reader"; do
  out=$("$reader" "$tmp/pc_shared.ctf") || { echo "FAIL: $reader: exit $?" >&2; exit 1; }
  [ "$out" = "$(printf 'thread root\nthread installed consumer\nstalled 0')" ] ||
    { echo "FAIL: $reader read: $out" >&2; exit 1; }
done
if "$tmp/pc_reader" "$tmp/missing.ctf" 2>"$tmp/err"; then
  echo "FAIL: reader of a missing trace exited 0" >&2; exit 1
fi
grep -q "missing.ctf" "$tmp/err" || { echo "FAIL: reader error: $(cat "$tmp/err")" >&2; exit 1; }
# The export API: that trace as a Chrome trace, its thread a named slice.
for exporter in "$tmp/pc_exporter" "$tmp/cmake/exporter"; do
  "$exporter" "$tmp/pc_shared.ctf" >"$tmp/export.json" ||
    { echo "FAIL: $exporter: exit $?" >&2; exit 1; }
  /usr/bin/python3 -c '
import json, sys
events = json.load(open(sys.argv[1]))["traceEvents"]
names = [e["name"] for e in events if e["ph"] == "b" and e["cat"] == "thread"]
assert names == ["installed consumer"], names' "$tmp/export.json" ||
    { echo "FAIL: $exporter wrote $(head -c 300 "$tmp/export.json")" >&2; exit 1; }
done
# The index API: that trace's index built beside it, then read back, as
# many events as the trace has.
events=$("$build/mprof" stats --json "$tmp/pc_shared.ctf" |
  /usr/bin/python3 -c 'import json, sys; print(json.load(sys.stdin)["events"])')
for indexer in "$tmp/pc_indexer" "$tmp/cmake/indexer"; do
  rm -f "$tmp/pc_shared.ctf.mpidx"
  for how in built read; do
    out=$("$indexer" "$tmp/pc_shared.ctf") || { echo "FAIL: $indexer: exit $?" >&2; exit 1; }
    [[ "$out" =~ ^$how:\ [1-9][0-9]*\ packets,\ $events\ events$ ]] ||
      { echo "FAIL: $indexer, $how: $out (the trace has $events events)" >&2; exit 1; }
  done
done
# The installed mprof finds its viewer, mprof-view, where it was installed.
"$prefix/bin/mprof" view --png "$tmp/view.png" "$tmp/pc_shared.ctf" ||
  { echo "FAIL: installed mprof view: exit $?" >&2; exit 1; }
[ -s "$tmp/view.png" ] || { echo "FAIL: installed mprof view drew nothing" >&2; exit 1; }
echo "ok: installed package used four ways, read back two, exported two, indexed two, viewed"
