#!/bin/sh
# test_probe.sh BUILD_DIR [SANITIZED] -- `mprof record` on programs whose libuv calls
# the shim cannot see: a statically linked program, one with libuv linked
# into itself (uv_inside; and Debian's node when it is installed).  Each
# gets one line saying why, runs untraced with its own output and exit
# status, and leaves no trace.  A script and a dynamically linked program
# are recorded as ever (the script not when SANITIZED is 1: a
# sanitizer-built shim cannot load into the shell).
set -u
build=$(cd "$1" && pwd)
sanitized=${2:-0}
bin=$build/test/shim
out=$bin/probe
rm -rf "$out" && mkdir -p "$out"
status=0
fail() { echo "FAIL: $*"; status=1; }

# untraced NAME WHY PROGRAM ARGS...: recorded, it says WHY in one line.
untraced() {
  name=$1 why=$2
  shift 2
  "$@" > "$out/$name.plain.txt" 2>&1
  plain=$?
  "$build/mprof" record -o "$out/$name.ctf" -- "$@" \
    > "$out/$name.out.txt" 2> "$out/$name.err.txt"
  recorded=$?
  [ $recorded -eq $plain ] || fail "$name: exited $recorded, plain $plain"
  cmp -s "$out/$name.plain.txt" "$out/$name.out.txt" || fail "$name: output differs"
  [ "$(wc -l < "$out/$name.err.txt")" -eq 1 ] ||
    fail "$name: not one line: $(cat "$out/$name.err.txt")"
  grep -q "^mprof record: .*: $why[:;].*running it untraced$" "$out/$name.err.txt" ||
    fail "$name: said: $(cat "$out/$name.err.txt")"
  [ ! -e "$out/$name.ctf" ] || fail "$name: left a trace"
}

untraced static "is statically linked" "$bin/static_hello"
untraced inside "has libuv linked into itself" "$bin/uv_inside"
if node=$(command -v node) && nm -D "$node" 2>/dev/null | grep -q " T uv_run$"; then
  untraced node "has libuv linked into itself" node -e 'console.log(6 * 7)'
fi

# Found through PATH, and a script: recorded (the script's shell makes no
# libuv call, so its trace holds no event of its own).
if [ "$sanitized" = 1 ]; then
  echo "script case: not in a sanitizer build"
else
printf '#!/bin/sh\necho script ran\n' > "$out/script.sh"
chmod +x "$out/script.sh"
PATH="$out:$PATH" "$build/mprof" record -o "$out/script.ctf" -- script.sh \
  > "$out/script.out.txt" 2> "$out/script.err.txt" || fail "script: exit $?"
grep -qx "script ran" "$out/script.out.txt" || fail "script: did not run"
grep -q "running it untraced" "$out/script.err.txt" && fail "script: taken as untraceable"
fi
"$build/mprof" record -o "$out/uvprog.ctf" -- "$build/test/shim/dlopen_host" none \
  > /dev/null 2> "$out/uvprog.err.txt" || fail "dlopen_host: exit $?"
grep -q "running it untraced" "$out/uvprog.err.txt" && fail "dlopen_host: taken as untraceable"

# A file cut inside its program headers: no answer from the probe, and
# what execvp(3) makes of it (the kernel refuses it, the shell is given
# it), as env(1) runs it.
head -c 200 "$bin/static_hello" > "$out/cut" && chmod +x "$out/cut"
# The shell runs its bytes as commands, which may create files: in $out.
(cd "$out" && env ./cut > /dev/null 2>&1)
plain=$?
(cd "$out" && "$build/mprof" record -o cut.ctf -- ./cut > /dev/null 2> cut.err.txt)
recorded=$?
# (The shell cannot load a sanitizer-built shim: there it fails as such.)
if [ "$sanitized" = 1 ]; then
  [ $recorded -ne 0 ] || fail "cut: exited 0"
else
  [ $recorded -eq $plain ] || fail "cut: exited $recorded, plain $plain"
fi
grep -q "running it untraced" "$out/cut.err.txt" && fail "cut: probed as a program"

[ $status -eq 0 ] && echo "shim_probe: all passed"
exit $status
