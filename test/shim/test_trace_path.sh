#!/bin/sh
# test_trace_path.sh BUILD_DIR -- a trace path that names something other
# than a regular file (a FIFO, a symlink, a device such as /dev/null) is
# never unlinked or replaced by a trace: the program runs untraced with
# one line saying why.  An earlier trace (a regular file) is replaced.
set -u
build=$1
out=$build/test/shim/trace_path
rm -rf "$out" && mkdir -p "$out"
status=0
fail() { echo "FAIL: $*"; status=1; }
shim=$build/src/uv/libmprof_uv_preload.so
prog="$build/test/shim/dlopen_host none"

# traced NAME PATH: the program under the shim with MPROF_TRACE=PATH.
traced() {
  MPROF_TRACE=$2 LD_PRELOAD=$shim $prog > "$out/$1.out" 2> "$out/$1.err" ||
    fail "$1: exit status $?"
  grep -qx "uv_run: -38" "$out/$1.out" || fail "$1: the program's output changed"
}

# untouched NAME PATH: one line, and PATH as it was.
untouched() {
  [ "$(wc -l < "$out/$1.err")" -eq 1 ] &&
    grep -q "^mprof: .*$2.*running untraced$" "$out/$1.err" ||
    fail "$1: said: $(cat "$out/$1.err")"
}

mkfifo "$out/fifo"
traced fifo "$out/fifo"
untouched fifo "$out/fifo"
[ -p "$out/fifo" ] || fail "fifo: replaced by a trace"

echo "not a trace" > "$out/target"
ln -s target "$out/link"
traced link "$out/link"
untouched link "$out/link"
[ -L "$out/link" ] && [ "$(cat "$out/target")" = "not a trace" ] ||
  fail "link: replaced, or its target written"

echo "an earlier trace" > "$out/old.ctf"
traced regular "$out/old.ctf"
[ ! -s "$out/regular.err" ] || fail "regular: said: $(cat "$out/regular.err")"
"$build/mprof" check "$out/old.ctf" > /dev/null 2>&1 ||
  fail "regular: the earlier file was not replaced by a trace"

# A big earlier trace: its removal, which the start hands to a helper
# task, is done soon after: nothing holds the file open any more.
head -c 33554432 /dev/zero > "$out/big.ctf"
traced big "$out/big.ctf"
"$build/mprof" check "$out/big.ctf" > /dev/null 2>&1 ||
  fail "big: the earlier file was not replaced by a trace"
tenths=50
while ls -l /proc/[0-9]*/fd 2>/dev/null | grep -qF "$out/big.ctf (deleted)"; do
  tenths=$((tenths - 1))
  [ $tenths -gt 0 ] || { fail "big: the earlier trace is still held open"; break; }
  sleep 0.1
done

[ $status -eq 0 ] && echo "shim_trace_path: all passed"
exit $status
