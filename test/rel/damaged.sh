#!/usr/bin/env bash
# damaged.sh -- the damaged-trace corpus (test/data/damaged, MANIFEST):
# `mprof check`, `dump`, `stats` and `report` on each file, under a timeout.
# None may crash, hang or trip a sanitizer; every line on stderr names the
# file.  Each case has one problem, told in one line: check prints exactly
# one line on stderr for a damaged trace (it says at what offset) and none
# for a whole one, and dump, stats and report print the very same line;
# check gives the exit code of the manifest and keeps at least the
# undamaged part's events; dump prints as many events as check counts; the
# others agree on whether anything usable remains.
#   damaged.sh BUILD CORPUS_DIR
set -uo pipefail
build=$1
corpus=$2
mprof=$build/mprof
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
failures=0
fail() { echo "FAIL: $name: $*" >&2; failures=$((failures + 1)); }
run() { # COMMAND: run mprof COMMAND on the file; sets code
  timeout 30 "$mprof" "$1" "$file" >"$tmp/out" 2>"$tmp/err"
  code=$?
  [ $code != 124 ] || fail "$1 hangs"
  [ $code -lt 124 ] || fail "$1 died (exit $code)"
  ! grep -q "Sanitizer\|runtime error" "$tmp/err" || fail "$1: $(grep -m1 'Sanitizer\|runtime error' "$tmp/err")"
  if grep -v "^mprof: $file: " "$tmp/err" | grep -q .; then
    fail "$1: a line that does not name the file: $(grep -v "^mprof: $file: " "$tmp/err" | head -1)"
  fi
}
cases=0
while read -r name want minimum what; do
  case $name in '#'*|'') continue ;; esac
  file=$corpus/$name.ctf
  cases=$((cases + 1))
  run check
  [[ $code =~ ^($want)$ ]] || fail "check exited $code, not $want ($what): $(head -2 "$tmp/err")"
  events=$(sed -n 's/.*: [a-z]*, \([0-9]*\) events.*/\1/p' "$tmp/out")
  events=${events:-0}
  [ "$events" -ge "$minimum" ] || fail "check kept $events events, the undamaged part has $minimum"
  lines=$(wc -l < "$tmp/err")
  [ "$lines" = $(( code != 0 )) ] ||
    fail "check told $lines lines for one problem (exit $code): $(head -3 "$tmp/err")"
  if [ $code != 0 ]; then
    grep -q "offset [0-9]" "$tmp/err" || fail "no line says where: $(head -2 "$tmp/err")"
  fi
  check_code=$code
  cp "$tmp/err" "$tmp/check_err"
  run dump
  [ $code = $check_code ] || fail "dump exited $code, check $check_code"
  [ "$(wc -l < "$tmp/out")" = "$events" ] || fail "dump printed $(wc -l < "$tmp/out") events, check counted $events"
  cmp -s "$tmp/err" "$tmp/check_err" || fail "dump told: $(head -2 "$tmp/err"); check: $(cat "$tmp/check_err")"
  for command in stats report; do
    run $command
    [ $(( code == 3 )) = $(( check_code == 3 )) ] || fail "$command exited $code, check $check_code"
    cmp -s "$tmp/err" "$tmp/check_err" ||
      fail "$command told: $(head -2 "$tmp/err"); check: $(cat "$tmp/check_err")"
  done
done < "$corpus/MANIFEST"
[ $cases -ge 50 ] || { echo "FAIL: only $cases cases" >&2; exit 1; }
[ $failures = 0 ] || { echo "$failures failures in $cases cases" >&2; exit 1; }
echo "ok: $cases damaged traces: check, dump, stats, report"
