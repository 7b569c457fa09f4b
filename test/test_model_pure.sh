#!/bin/sh
# test_model_pure.sh -- the model makes no OS calls: its objects may need
# only memory allocation, string functions, qsort, libm's rounding (floor,
# ceil: pure functions, in wasi-libc too) and the reader (so the
# browser viewer can run it compiled to WebAssembly).  Besides those, and
# our own mprof_ symbols, exactly: libgcc's 128-bit division (tick
# conversions), the linker's _GLOBAL_OFFSET_TABLE_ (position-independent
# code refers to it) and, in a sanitizer build, the sanitizers'
# instrumentation (__asan_, __ubsan_, __tsan_, and the fuzzer's coverage
# counters: __sanitizer_cov_, __sancov_ and their sections' bounds).
# Anything else from the C library fails,
# __-named ones too (__printf_chk, __isoc99_sscanf, __errno_location).
#   test_model_pure.sh LIBMPROF_MODEL_A
set -eu
allowed='aligned_alloc calloc ceil floor free malloc memchr memcmp memcpy memmove memset qsort realloc strcmp strlen'
runtime='__divti3 __udivti3 __modti3 __umodti3 _GLOBAL_OFFSET_TABLE_'
bad=
for sym in $(nm -u "$1" | awk '{print $2}' | sort -u); do
  case $sym in
    mprof_* | mprof__*) continue ;; # ours, and the reader
    __asan_* | __ubsan_* | __tsan_* | __sanitizer_cov_* | __sancov_* | \
      __start___sancov_* | __stop___sancov_*) continue ;; # instrumentation
  esac
  case " $allowed $runtime " in
    *" $sym "*) ;;
    *) bad="$bad $sym" ;;
  esac
done
if [ -n "$bad" ]; then
  echo "FAIL: the model calls outside memory and strings:$bad" >&2
  exit 1
fi
echo "model: only $allowed"
