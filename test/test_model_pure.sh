#!/bin/sh
# test_model_pure.sh -- the model makes no OS calls: its objects may need
# only memory allocation, string functions, qsort and the reader (so the
# browser viewer can run it compiled to WebAssembly).
#   test_model_pure.sh LIBMPROF_MODEL_A
set -eu
allowed='aligned_alloc calloc free malloc memcmp memcpy memmove memset qsort realloc strcmp strlen'
bad=
for sym in $(nm -u "$1" | awk '{print $2}' | sort -u); do
  case $sym in
    mprof_* | mprof__* | __* ) continue ;; # ours, the reader, compiler/sanitizer runtime
  esac
  case " $allowed " in
    *" $sym "*) ;;
    *) bad="$bad $sym" ;;
  esac
done
if [ -n "$bad" ]; then
  echo "FAIL: the model calls outside memory and strings:$bad" >&2
  exit 1
fi
echo "model: only $allowed"
