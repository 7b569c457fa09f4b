#!/usr/bin/env bash
# write_failures.sh -- a command whose output cannot be written (standard
# output on /dev/full, -o /dev/full, -o DIR on a full 64 KiB tmpfs) exits 3:
# each says so in one line that names the output: "standard output" for
# dump, stats and report (text and --json).
#   write_failures.sh BUILD
set -uo pipefail
build=$1
mprof=$build/mprof
trace=$(cd "$(dirname "$0")/../data" && pwd)/net.ctf
tmp=$(mktemp -d)
mounted=
trap '[ -z "$mounted" ] || umount "$tmp/full"; rm -rf "$tmp"' EXIT
failures=0
fail() { echo "FAIL: $*" >&2; failures=$((failures + 1)); }

# expect NAME PATTERN COMMAND...: exit 3, and stderr exactly the line
# PATTERN (regex).
expect() {
  local name=$1 pattern=$2; shift 2
  "$@" 2>"$tmp/err" >/dev/full
  local code=$?
  [ $code = 3 ] || fail "$name: exit $code, not 3: $(head -2 "$tmp/err")"
  [ "$(wc -l <"$tmp/err")" = 1 ] && grep -qx "$pattern" "$tmp/err" ||
    fail "$name: said: $(head -3 "$tmp/err")"
}

full="cannot write: No space left on device"
for command in dump stats "stats --json" report "report --json"; do
  expect "$command >/dev/full" "mprof ${command% *}: standard output: $full" \
    "$mprof" $command "$trace"
done
for format in chrome otlp; do
  expect "export --format=$format >/dev/full" "mprof export: -: $full" \
    "$mprof" export --format=$format "$trace"
  expect "export --format=$format -o /dev/full" "mprof export: /dev/full: $full" \
    "$mprof" export --format=$format "$trace" -o /dev/full
done

mkdir "$tmp/full"
if mount -t tmpfs -o size=64k tmpfs "$tmp/full" 2>/dev/null; then
  mounted=1
  "$build/test/interop/netpair" client "$tmp/client.ctf" 0
  "$build/test/interop/netpair" server "$tmp/server.ctf" 0
  expect "ctf -o FULL" "mprof ctf: $tmp/full/ctf: No space left on device" \
    "$mprof" ctf "$trace" -o "$tmp/full/ctf"
  expect "html -o FULL" "mprof html: $tmp/full/html/[a-z.]*: $full" \
    "$mprof" html "$trace" -o "$tmp/full/html"
  expect "merge -o FULL" "mprof: $tmp/full/merged[^ ]*: No space left on device" \
    "$mprof" merge "$tmp/client.ctf" "$tmp/server.ctf" -o "$tmp/full/merged"
else
  fail "cannot mount a 64 KiB tmpfs on $tmp/full (make check runs as root)"
fi
[ $failures = 0 ] || exit 1
echo "ok: write failures of dump, stats, report, export, ctf, html, merge"
