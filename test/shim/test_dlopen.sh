#!/bin/sh
# test_dlopen.sh BUILD_DIR -- the shim in a process that loads libuv after
# start, as a plugin host does (Python's uvloop): dlopen_host (no libuv of
# its own) loads uv_module.so RTLD_LOCAL, then RTLD_GLOBAL, under `mprof
# record`.  Each run's output and exit status must be the plain run's, and
# its trace must hold the module's loop, fs request and timer.  Last, with
# no libuv in the process, the shim's uv_run must answer UV_ENOSYS, not
# call a function that is not there.
set -u
build=$1
host=$build/test/shim/dlopen_host
module=$build/test/shim/libuv_module.so
out=$build/test/shim/out
rm -rf "$out" && mkdir -p "$out"
status=0
fail() { echo "FAIL: $*"; status=1; }

for scope in local global; do
  "$host" $scope "$module" > "$out/$scope.plain.txt" 2>&1
  plain=$?
  "$build/mprof" record -o "$out/$scope.ctf" -- "$host" $scope "$module" \
    > "$out/$scope.shim.txt" 2> "$out/$scope.record.txt"
  shim=$?
  [ $plain -eq 0 ] || fail "$scope: plain run exited $plain"
  [ $shim -eq $plain ] || fail "$scope: exited $shim under the shim, $plain plain"
  cmp -s "$out/$scope.plain.txt" "$out/$scope.shim.txt" ||
    fail "$scope: output differs: $(diff "$out/$scope.plain.txt" "$out/$scope.shim.txt")"
  "$build/mprof" check "$out/$scope.ctf" > "$out/$scope.check.txt" 2>&1 ||
    fail "$scope: mprof check: $(cat "$out/$scope.check.txt")"
  "$build/mprof" dump --raw "$out/$scope.ctf" > "$out/$scope.dump.txt" ||
    fail "$scope: mprof dump failed"
  # Each of the module's threads: its type at creation, then its label.
  for thread in 'loop "loop"' 'fs "fs stat /"' 'timer "timer"'; do
    type=${thread%% *} label=${thread#* }
    id=$(sed -n "s/.* create thread=[0-9]* child=\([0-9]*\) type=$type\$/\1/p" \
      "$out/$scope.dump.txt" | head -n 1)
    [ -n "$id" ] || { fail "$scope: no $type thread"; continue; }
    grep -q " label thread=[0-9]* target=$id text=$label\$" "$out/$scope.dump.txt" ||
      fail "$scope: $type thread $id is not labelled $label"
  done
  # The fs request ends (resolves) before the timer starts.
  grep -q " resolve thread=[0-9]* target=$(sed -n 's/.* child=\([0-9]*\) type=fs$/\1/p' \
    "$out/$scope.dump.txt" | head -n 1)\$" "$out/$scope.dump.txt" ||
    fail "$scope: the fs request never ended"
done

"$host" none > "$out/none.plain.txt"
grep -qx "uv_run: absent" "$out/none.plain.txt" || fail "none: plain run found a uv_run"
"$build/mprof" record -o "$out/none.ctf" -- "$host" none \
  > "$out/none.shim.txt" 2> "$out/none.record.txt" ||
  fail "none: exited $? under the shim"
grep -qx "uv_run: -38" "$out/none.shim.txt" ||
  fail "none: the shim's uv_run without libuv said: $(cat "$out/none.shim.txt")"

[ $status -eq 0 ] && echo "shim_dlopen: all passed"
exit $status
