#!/usr/bin/env bash
# test_export_closed.sh -- `mprof export` into a pipe whose reader has gone,
# with SIGPIPE ignored (as under a Python subprocess or a server that
# ignores it): it stops at the first failed write instead of formatting the
# rest of the trace into a dead pipe, says so in one line and exits 3.
# strace counts its writes that fail.  Both formats.  (LeakSanitizer cannot
# work under ptrace: the sanitizer build leaves leaks to the other tests.)
#   test_export_closed.sh BUILD
. "$(dirname "$0")/common.sh"

"$gen" "$tmp/t.ctf" discard 8388608 20000 2 >/dev/null
for format in chrome otlp; do
  (
    trap '' PIPE
    set +o pipefail
    ASAN_OPTIONS=${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0 strace -f -qq -e trace=write -e signal=none -o "$tmp/strace" \
      "$mprof" export --format "$format" "$tmp/t.ctf" -o - 2>"$tmp/err" |
      head -c 100 >/dev/null
    echo "${PIPESTATUS[0]}" >"$tmp/code"
  )
  [ "$(cat "$tmp/code")" = 3 ] || fail "$format: exit $(cat "$tmp/code"): $(cat "$tmp/err")"
  grep -qx "mprof export: -: cannot write: Broken pipe" "$tmp/err" \
    || fail "$format: says: $(cat "$tmp/err")"
  failed=$(grep -c EPIPE "$tmp/strace" || true)
  [ "$failed" -ge 1 ] && [ "$failed" -le 3 ] \
    || fail "$format: $failed writes failed with EPIPE (at most 3: it stops)"
done
echo "export_closed: ok"
