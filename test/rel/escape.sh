#!/usr/bin/env bash
# escape.sh -- strings from a trace never reach a terminal raw: a label and
# a failure reason full of control characters (ESC sequences, CR, BEL, DEL,
# a raw C1 CSI byte, invalid UTF-8) are escaped by `mprof dump` and `mprof
# report`, and `mprof stats --json` and `report --json` stay valid JSON.
#   escape.sh BUILD
set -euo pipefail
build=$1
mprof=$build/mprof
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }
nasty=$'\e[31mred\e]0;title\a\rback\x7f\x9b2J\xff end'
MPROF_TRACE="$tmp/t.ctf" "$build/test/rel/exit_code" "$nasty" >/dev/null || [ $? = 7 ]
raw() { LC_ALL=C grep -q $'[\x01-\x09\x0b-\x1f\x7f-\xff]' "$1"; }
"$mprof" dump "$tmp/t.ctf" > "$tmp/dump"
raw "$tmp/dump" && fail "a raw control byte in dump: $(od -c "$tmp/dump" | head)"
grep -qF 'text="\x1b[31mred\x1b]0;title\x07\x0dback\x7f\x9b2J\xff end"' "$tmp/dump" \
  || fail "label not escaped as expected: $(grep label "$tmp/dump")"
[ "$(grep -c 'x1b\[31mred' "$tmp/dump")" -ge 2 ] || fail "label and reason: $(cat "$tmp/dump")"
"$mprof" report "$tmp/t.ctf" > "$tmp/report" || true
raw "$tmp/report" && fail "a raw control byte in report"
"$mprof" stats --json "$tmp/t.ctf" | /usr/bin/python3 -c 'import json, sys; json.load(sys.stdin)' \
  || fail "stats --json not JSON"
"$mprof" report --json "$tmp/t.ctf" | /usr/bin/python3 -c 'import json, sys; json.load(sys.stdin)' \
  || fail "report --json not JSON"
echo "ok: control characters escaped in dump and report, JSON valid"
