#!/usr/bin/env bash
# faults.sh -- faults at start, under MPROF_TRACE: a full disk (a 64 KiB
# tmpfs: the test fails where it cannot mount one), a failing mmap
# (RLIMIT_AS; not under sanitizers, whose shadow memory needs the address
# space), an unwritable path.  Each gives exactly one line on stderr that
# names the file and the cause, and the program runs on untraced with its
# own exit code (7).  Also: trace files are created 0600 whatever the umask.
#   faults.sh BUILD [sanitized]
set -uo pipefail
build=$1
prog=$build/test/rel/exit_code
tmp=$(mktemp -d)
mounted=
trap '[ -z "$mounted" ] || umount "$tmp/full"; rm -rf "$tmp"' EXIT
failures=0
fail() { echo "FAIL: $*" >&2; failures=$((failures + 1)); }
expect_untraced() { # WHAT PATTERN (of the stderr line), then env settings
  local what=$1 pattern=$2; shift 2
  env "$@" "$prog" >"$tmp/out" 2>"$tmp/err"
  local code=$?
  [ $code = 7 ] || fail "$what: exit $code, not the program's 7"
  grep -qx "ran, untraced" "$tmp/out" || fail "$what: $(cat "$tmp/out")"
  [ "$(wc -l < "$tmp/err")" = 1 ] || fail "$what: not one line: $(cat "$tmp/err")"
  grep -q "^mprof: $pattern; running untraced$" "$tmp/err" || fail "$what: $(cat "$tmp/err")"
}

# The file: 0600 even under umask 0, and traced.
(umask 0; MPROF_TRACE="$tmp/t.ctf" "$prog" >"$tmp/out" 2>"$tmp/err")
[ $? = 7 ] && grep -qx "ran, traced" "$tmp/out" && [ ! -s "$tmp/err" ] \
  || fail "traced run: $(cat "$tmp/out" "$tmp/err")"
[ "$(stat -c %a "$tmp/t.ctf")" = 600 ] || fail "trace file mode $(stat -c %a "$tmp/t.ctf")"
# ... and an existing file of another mode becomes 0600 too.
touch "$tmp/open.ctf"; chmod 644 "$tmp/open.ctf"
MPROF_TRACE="$tmp/open.ctf" "$prog" >/dev/null 2>&1
[ "$(stat -c %a "$tmp/open.ctf")" = 600 ] || fail "reused trace file mode $(stat -c %a "$tmp/open.ctf")"

# Unwritable paths: a directory that does not exist, a file as directory.
expect_untraced "missing directory" \
  "$tmp/no/such/dir/t.ctf: cannot create or map the trace file: No such file or directory" \
  MPROF_TRACE="$tmp/no/such/dir/t.ctf"
touch "$tmp/plain"
expect_untraced "file as directory" \
  "$tmp/plain/t.ctf: cannot create or map the trace file: Not a directory" \
  MPROF_TRACE="$tmp/plain/t.ctf"

# A full disk: the file cannot get its size; nothing is left behind.
mkdir "$tmp/full"
if mount -t tmpfs -o size=64k tmpfs "$tmp/full" 2>/dev/null; then
  mounted=1
  expect_untraced "full disk" \
    "$tmp/full/t.ctf: cannot create or map the trace file: No space left on device" \
    MPROF_TRACE="$tmp/full/t.ctf" MPROF_SIZE=1M
  [ "$(stat -c %s "$tmp/full/t.ctf" 2>/dev/null || echo 0)" = 0 ] || fail "full disk: file not emptied"
else
  fail "full disk: cannot mount a 64 KiB tmpfs on $tmp/full (make check runs as root)"
fi

# A failing mmap: 256 MiB of trace under a 200 MiB address-space limit.
if [ "${2:-}" != sanitized ]; then
  (ulimit -v 204800
   expect_untraced "failing mmap" \
     "$tmp/big.ctf: cannot create or map the trace file: Cannot allocate memory" \
     MPROF_TRACE="$tmp/big.ctf" MPROF_SIZE=256M
   exit $failures) || failures=$((failures + 1))
fi
[ $failures = 0 ] || exit 1
echo "ok: faults at start (unwritable, full disk, failing mmap), files 0600"
