#!/usr/bin/env bash
# test_install.sh -- `cmake --install` gives headers, shared and static
# libraries, mprof.pc, a CMake package, the mprof command and its manual
# page; a program builds against each (pkg-config and find_package, shared
# and static) and, run with MPROF_TRACE, writes a trace with its label in
# it.
set -euo pipefail
src=$1
build=$2
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
prefix=$tmp/prefix
cmake --install "$build" --prefix "$prefix" >/dev/null

pc=$(find "$prefix" -name mprof.pc)
libdir=$(dirname "$(dirname "$pc")")
for f in include/mprof.h include/mprof/unix.h bin/mprof share/man/man1/mprof.1; do
  [ -f "$prefix/$f" ] || { echo "FAIL: $f not installed" >&2; exit 1; }
done
[ -f "$libdir/libmprof.a" ] && [ -e "$libdir/libmprof.so" ] \
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
echo "ok: installed package used four ways"
