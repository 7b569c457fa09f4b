#!/usr/bin/env bash
# test_html_changed.sh -- `mprof html` of a trace read by its index that is
# rewritten while html reads it (grown, shrunk, or rewritten in place: a
# trace being recorded is) says so in one line, fails, and leaves no half
# directory; an -o directory there already is written into as before, and
# kept as it was if html fails.  MPROF_HTML_TEST_PAUSE (a test hook) holds
# html between its scan of the trace and its copy while this script
# changes the trace.
#   test_html_changed.sh BUILD NET_CTF
. "$(dirname "$0")/../command/common.sh"
net_ctf=$2
trace=$tmp/t.ctf
fifo=$tmp/pause
mkfifo "$fifo"
export MPROF_HTML_INDEXED=0 # net.ctf read by its index, a piece at a time

# Run html of a fresh copy of net.ctf into OUT, CHANGE (a command) run on
# the copy while html waits between its scan and its copy; $rc and
# $tmp/err: its exit status and stderr.
html_while() {
  local out=$1 change=$2
  cp -p "$net_ctf" "$trace"
  MPROF_HTML_TEST_PAUSE=$fifo "$mprof" html "$trace" -o "$out" 2>"$tmp/err" &
  local pid=$!
  exec 3>"$fifo" # opens once html waits on the FIFO
  $change
  exec 3>&- # html goes on
  rc=0
  wait "$pid" || rc=$?
}

grow() { head -c 65536 /dev/urandom >>"$trace"; }
shrink() { truncate -s $(($(stat -c %s "$trace") / 2)) "$trace"; }
# Same size, its packets' bytes and time new (a second on, so that a
# coarse clock cannot give the old time).
rewrite() {
  dd if=/dev/urandom of="$trace" bs=4096 seek=16 count=4 conv=notrunc 2>/dev/null
  touch -m -d "@$(($(stat -c %Y "$trace") + 1))" "$trace"
}
unchanged() { :; }

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
html_while "$tmp/html" unchanged
[ "$rc" = 0 ] || fail "unchanged: exit $rc: $(cat "$tmp/err")"
cmp -s "$trace" "$tmp/html/t.ctf" || fail "unchanged: the copy differs"
ls "$tmp/html/data/"0-*.js >/dev/null || fail "unchanged: no slices"
echo mine >"$tmp/html/notes.txt"
(cd "$tmp/html" && find . -type f -exec md5sum {} + | sort) >"$tmp/before"
html_while "$tmp/html" unchanged
[ "$rc" = 0 ] || fail "again: exit $rc: $(cat "$tmp/err")"
[ "$(cat "$tmp/html/notes.txt")" = mine ] || fail "again: notes.txt lost"
(cd "$tmp/html" && find . -type f -exec md5sum {} + | sort) >"$tmp/again"
diff "$tmp/before" "$tmp/again" >/dev/null || fail "again: not the same page"
html_while "$tmp/html" grow
expect_refused "grow into a directory" "$tmp/html"
(cd "$tmp/html" && find . -type f -exec md5sum {} + | sort) >"$tmp/after"
diff "$tmp/before" "$tmp/after" || fail "grow into a directory: it changed"
echo "ok"
