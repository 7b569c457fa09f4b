#!/usr/bin/env bash
# test_compiled_out.sh -- without MPROF_TRACING, mprof calls vanish: the
# object has no mprof symbol, and its code is byte for byte the code of the
# same file with the calls deleted.
set -euo pipefail
src=$1/test/compiled_out/story.c
include=$1/include
cc=${CC:-cc}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

grep -v -E 'mprof_|mprof\.h' "$src" > "$tmp/plain.c"
cp "$src" "$tmp/traced.c"
for f in traced plain; do
  "$cc" -std=c11 -O2 -Wall -Wextra -Werror -I"$include" -c "$tmp/$f.c" -o "$tmp/$f.o"
  objdump -d --no-show-raw-insn -j .text "$tmp/$f.o" | tail -n +4 > "$tmp/$f.s"
done

if nm "$tmp/traced.o" | grep -i mprof; then
  echo "FAIL: compiled-out object references mprof symbols" >&2
  exit 1
fi
if ! cmp -s "$tmp/traced.s" "$tmp/plain.s"; then
  echo "FAIL: compiled-out code differs from the code without the calls" >&2
  diff "$tmp/traced.s" "$tmp/plain.s" >&2 || true
  exit 1
fi
lines=$(grep -c . "$tmp/traced.s")
[ "$lines" -gt 10 ] || { echo "FAIL: suspiciously little code ($lines lines)" >&2; exit 1; }

# And with MPROF_TRACING the calls are really there.
"$cc" -std=c11 -O2 -DMPROF_TRACING -I"$include" -c "$tmp/traced.c" -o "$tmp/on.o"
nm "$tmp/on.o" | grep -q ' U mprof__resolve' || { echo "FAIL: traced build lost its calls" >&2; exit 1; }
echo "ok: compiled out, $lines lines of identical code, no mprof symbol"
