#!/usr/bin/env bash
# test_freestanding.sh -- the recorder core needs nothing from libc: it
# builds with -ffreestanding -nostdlib into a shared object whose only
# undefined symbols are none at all.
set -euo pipefail
root=$1
cc=${CC:-cc}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
flags=(-std=c11 -O2 -Wall -Wextra -Werror -ffreestanding -nostdlib -fPIC -DMPROF_TRACING
       -I"$root/include" -I"$root/src/format")
if "$cc" -fno-tree-loop-distribute-patterns -x c -c /dev/null -o /dev/null 2>/dev/null; then
  flags+=(-fno-tree-loop-distribute-patterns)
fi
"$cc" "${flags[@]}" -shared -Wl,--no-undefined -o "$tmp/core.so" \
  "$root"/src/record/*.c "$root/src/format/metadata.c" "$root/src/format/names.c"
undefined=$(nm -u "$tmp/core.so" || true)
if [ -n "$undefined" ]; then
  echo "FAIL: the freestanding core needs: $undefined" >&2
  exit 1
fi
nm -D --defined-only "$tmp/core.so" | grep -q ' T mprof_start$' \
  || { echo "FAIL: core lacks mprof_start" >&2; exit 1; }
echo "ok: core builds freestanding with no undefined symbol"
