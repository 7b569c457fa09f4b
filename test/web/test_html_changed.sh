#!/usr/bin/env bash
# test_html_changed.sh -- `mprof html` of a trace read by its index that is
# rewritten while html reads it (grown, shrunk, or rewritten in place: a
# trace being recorded is) says so in one line, fails, and leaves no half
# directory; an -o directory there already is written into as before, and
# kept as it was if html fails.  html is stopped (SIGSTOP) once it has
# made its directory aside, that is after its scan of the trace, and
# before it has copied the trace there (its last file, the check after
# it): the script changes the trace meanwhile.  The trace is big enough
# (16 MB: a quarter of a second's writing) for the stop to fall there; one
# that misses is tried again.
#   test_html_changed.sh BUILD
. "$(dirname "$0")/../command/common.sh"
original=$tmp/original.ctf
trace=$tmp/t.ctf
"$gen" "$original" discard 16000000 40000 4 >/dev/null
export MPROF_HTML_INDEXED=0 # read by its index, a piece at a time
late=0 # tries whose stop came too late

# Whether every thread of process $1 is stopped or it has ended.
halted() { ! grep -qv '^[^)]*) [TZ]' /proc/"$1"/task/*/stat 2>/dev/null; }

# Stop html (process $1, writing OUT $2) as soon as its directory aside is
# there, polling with shell builtins only (no fork between the look and
# the stop).  0 if it stopped between its scan and its copy of the trace;
# 1 if it got past that first.
stop_in_copy() {
  local pid=$1 out=$2 part
  while :; do
    for part in "$out".part-*; do
      [ -d "$part" ] && break 2
    done
    kill -0 "$pid" 2>/dev/null || return 1
  done
  kill -STOP "$pid" 2>/dev/null || return 1 # it ended
  until halted "$pid"; do :; done
  [ -d "$part" ] && [ ! -e "$part/${trace##*/}" ]
}

# Run html of a fresh copy of the trace into OUT, CHANGE (a command) run
# on the copy while html is stopped between its scan and its copy; $rc and
# $tmp/err: its exit status and stderr.  A try whose stop came too late
# (html wrote the page: OUT as it would be unchanged) is made again.
html_while() {
  local out=$1 change=$2 existed="" pid
  [ ! -d "$out" ] || existed=1
  for _ in 1 2 3 4 5 6 7 8 9 10; do
    cp -p "$original" "$trace"
    "$mprof" html "$trace" -o "$out" 2>"$tmp/err" &
    pid=$!
    if stop_in_copy $pid "$out"; then
      $change
      kill -CONT $pid
      rc=0
      wait $pid || rc=$?
      return
    fi
    late=$((late + 1))
    kill -CONT $pid 2>/dev/null || true
    wait $pid || fail "a try stopped late: html failed: $(cat "$tmp/err")"
    [ -n "$existed" ] || rm -rf "$out"
  done
  fail "html was never stopped between its scan and its copy in 10 tries"
}

# Run html of a fresh copy of the trace into OUT, unchanged: $rc, $tmp/err.
html_into() {
  cp -p "$original" "$trace"
  rc=0
  "$mprof" html "$trace" -o "$1" 2>"$tmp/err" || rc=$?
}

grow() { head -c 65536 /dev/urandom >>"$trace"; }
shrink() { truncate -s $(($(stat -c %s "$trace") / 2)) "$trace"; }
# Same size, its packets' bytes and time new (a second on, so that a
# coarse clock cannot give the old time).
rewrite() {
  dd if=/dev/urandom of="$trace" bs=4096 seek=16 count=4 conv=notrunc 2>/dev/null
  touch -m -d "@$(($(stat -c %Y "$trace") + 1))" "$trace"
}

# Fail unless html failed with the one line, leaving no OUT and nothing of
# its own beside it.
expect_refused() {
  local what=$1 out=$2
  [ "$rc" = 3 ] || fail "$what: exit $rc, not 3: $(cat "$tmp/err")"
  [ "$(cat "$tmp/err")" = "mprof html: $trace: changed while being read" ] ||
    fail "$what: stderr: $(cat "$tmp/err")"
  ! ls -d "$out".part-* 2>/dev/null || fail "$what: its work left beside $out"
}

for change in grow shrink rewrite; do
  html_while "$tmp/$change-html" $change
  expect_refused $change "$tmp/$change-html"
  [ ! -e "$tmp/$change-html" ] || fail "$change: a half directory left"
done

# An -o directory there already: html writes into it, keeping what is not
# its own; when it fails, the directory is as it was.
html_into "$tmp/html"
[ "$rc" = 0 ] || fail "unchanged: exit $rc: $(cat "$tmp/err")"
cmp -s "$trace" "$tmp/html/t.ctf" || fail "unchanged: the copy differs"
ls "$tmp/html/data/"0-*.js >/dev/null || fail "unchanged: no slices"
echo mine >"$tmp/html/notes.txt"
(cd "$tmp/html" && find . -type f -exec md5sum {} + | sort) >"$tmp/before"
html_into "$tmp/html"
[ "$rc" = 0 ] || fail "again: exit $rc: $(cat "$tmp/err")"
[ "$(cat "$tmp/html/notes.txt")" = mine ] || fail "again: notes.txt lost"
(cd "$tmp/html" && find . -type f -exec md5sum {} + | sort) >"$tmp/again"
diff "$tmp/before" "$tmp/again" >/dev/null || fail "again: not the same page"
html_while "$tmp/html" grow
expect_refused "grow into a directory" "$tmp/html"
(cd "$tmp/html" && find . -type f -exec md5sum {} + | sort) >"$tmp/after"
diff "$tmp/before" "$tmp/after" || fail "grow into a directory: it changed"
echo "ok ($late stops too late, tried again)"
