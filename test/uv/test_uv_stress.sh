#!/bin/sh
# test_uv_stress.sh BUILD_DIR WAY... -- test/uv/uv_stress.c (loops on many
# OS threads, async sends from others) traced each WAY: `shim`, unmodified
# under `mprof record`, or `traced`, built with mprof/uv.h (the only way
# under ThreadSanitizer, which the shim's plain programs lack).  Each run
# must print what the plain one prints, and check_uv's stress mode must
# find every thread, label and signal in its trace.
set -u
build=$1
shift
bin=$build/test/uv
out=$build/test/uv/out-stress
rm -rf "$out" && mkdir -p "$out"
status=0
fail() { echo "FAIL: $*"; status=1; }
expected="stress: 4 loops, 3 connections each, 600 echoes"
for way in "$@"; do
  case $way in
    shim) "$build/mprof" record -o "$out/shim.ctf" -- "$bin/uv_stress_plain" \
      >"$out/shim.txt" 2>"$out/record.txt" ;;
    traced) MPROF_TRACE="$out/traced.ctf" "$bin/uv_stress_traced" \
      >"$out/traced.txt" ;;
    *) echo "test_uv_stress.sh: unknown way $way" >&2; exit 2 ;;
  esac
  [ $? -eq 0 ] || fail "$way: exit status"
  [ "$(cat "$out/$way.txt")" = "$expected" ] ||
    fail "$way: printed $(cat "$out/$way.txt")"
  "$bin/check_uv" "$out/$way.ctf" stress || fail "$way: trace"
done
exit $status
