#!/usr/bin/env bash
# test_progress.sh -- progress on stderr for work over a second, on a
# terminal only: `mprof report`, `export`, `merge` and `view` while they
# load the model (mprof_model_load_with's packets), report while it
# analyses, export while it writes, html while it writes a trace's slices.
# Nothing when stderr is no terminal.
#
#   test_progress.sh BUILD ROUNDS
#
# ROUNDS: trace_gen rounds (of 4 OS threads, 15 events each) of the first
# big trace tried; it doubles until loading it takes 2 s, so that the
# test holds on fast and slow machines (and in sanitizer builds, which
# start smaller).
. "$(dirname "$0")/common.sh"
rounds=$2
on_terminal="/usr/bin/python3 $(dirname "$0")/../on_terminal.py"
# The lines of progress in FILE (what the terminal got), one a line.
lines() { tr '\r' '\n' <"$1" | sed 's/\x1b\[K$//'; }
# FILE ends with the progress line wiped: \r, then erase to the line's end.
wiped() { [ "$(tail -c 4 "$1" | od -An -c | tr -d ' ')" = '\r033[K' ]; }
# Fail unless FILE (from the terminal) has a line matching REGEX, wiped.
expect_progress() {
  lines "$1" | grep -q "$2" || fail "no '$2' on a terminal: $(lines "$1" | head -5)"
  wiped "$1" || fail "progress line not wiped: $(od -c "$1" | tail -3)"
}

# Export's writing phase: a small trace, stdout read only after 2.5 s, so
# that the second has passed even if a loaded machine was slow to start
# mprof (a sanitizer build's start takes long), and much is left to write.
"$gen" "$tmp/small.ctf" overwrite 1048576 2000 1 >/dev/null
$on_terminal --wait 2.5 "$mprof" export "$tmp/small.ctf" >"$tmp/tty"
expect_progress "$tmp/tty" '^mprof: export: writing: [0-9]*% (item [0-9]*/[0-9]*)$'
$on_terminal --wait 2.5 "$mprof" export --format=otlp "$tmp/small.ctf" >"$tmp/tty"
expect_progress "$tmp/tty" '^mprof: export: writing: [0-9]*% (span [0-9]*/[0-9]*)$'
"$mprof" export "$tmp/small.ctf" 2>"$tmp/err" | { sleep 1.2; cat >/dev/null; }
[ ! -s "$tmp/err" ] || fail "slow export printed: $(cat "$tmp/err")"

# html's writing of a trace in slices (MPROF_HTML_SLICE: many small ones)
# into a page that a FIFO's reader takes only after 2.5 s.
mkfifo "$tmp/page.html"
bash -c 'sleep 2.5; cat "$0" >"$1"' "$tmp/page.html" "$tmp/page.copy" &
MPROF_HTML_SLICE=65536 $on_terminal "$mprof" html --single-file "$tmp/small.ctf" \
  -o "$tmp/page.html" >"$tmp/tty"
wait $!
expect_progress "$tmp/tty" '^mprof: html: writing: [0-9]*% (slice [0-9]*/[0-9]*)$'
[ "$(tail -1 "$tmp/page.copy")" = '</html>' ] || fail "html: the page is not whole"

# A trace whose model takes 2 s to load: export reads it, then dies at its
# first write to a closed pipe.
size_for() { # ROUNDS: a trace size (a power of two) with room for them
  local size=1048576
  while [ $size -lt $(($1 * 2048)) ]; do size=$((size * 2)); done
  echo $size
}
# Milliseconds until COMMAND writes its first byte, stderr to $tmp/err; then
# it is killed by SIGPIPE (which Python restores for it, should the test
# have been started with SIGPIPE ignored).
first_byte_ms() {
  /usr/bin/python3 - "$@" 2>"$tmp/err" <<'PY'
import subprocess, sys, time
start = time.monotonic()
command = subprocess.Popen(sys.argv[1:], stdout=subprocess.PIPE)
command.stdout.read(1)
print(int((time.monotonic() - start) * 1000))
command.stdout.close()
command.wait()
PY
}
big_trace() { # a trace from $rounds up whose load takes 2 s, into $tmp/big.ctf
  while :; do
    "$gen" "$tmp/big.ctf" overwrite "$(size_for "$rounds")" "$rounds" 4 >/dev/null
    load_ms=$(first_byte_ms "$mprof" export "$tmp/big.ctf")
    [ ! -s "$tmp/err" ] || fail "export of a big trace printed: $(cat "$tmp/err")"
    [ "$load_ms" -lt 2000 ] && [ "$rounds" -lt 1600000 ] || break
    rounds=$((rounds * 2))
  done
  echo "big trace: $((rounds * 60)) events, loaded in $load_ms ms"
}

# Each command on the big trace shows the load's progress on a terminal:
# returns 1 (saying why) if one does not.  On a machine whose load varies
# the load can still be quick this time: the caller tries a bigger trace.
shows_load() { # COMMAND... ; the terminal's bytes in $tmp/tty
  $on_terminal "$@" >"$tmp/tty" || true
  local name=$2
  [ "$1" = --first-byte ] && name=$3
  lines "$tmp/tty" | grep -q "^mprof: $name: [0-9]*% (packet [0-9]*/[0-9]*)\$" && return
  echo "no load progress: $* -> $(lines "$tmp/tty" | head -3)"
  return 1
}
big_checks() {
  shows_load --first-byte "$mprof" export "$tmp/big.ctf" || return 1
  shows_load "$mprof" report "$tmp/big.ctf" || return 1
  wiped "$tmp/tty" || fail "report: progress line not wiped"
  lines "$tmp/tty" | grep -q '^mprof: report: analysing$' \
    || fail "report: no analysis line: $(lines "$tmp/tty" | tail -3)"
  rm -rf "$tmp/merged.ctf"
  shows_load "$mprof" merge "$tmp/big.ctf" -o "$tmp/merged.ctf" || return 1
  wiped "$tmp/tty" || fail "merge: progress line not wiped"
  rm -rf "$tmp/merged.ctf"
  if "$mprof" view --help >/dev/null 2>&1; then
    # the model's load (a budget that takes any trace), then the one
    # pass (a budget of 0), whose line follows its wiped progress
    MPROF_VIEW_BUDGET_MIB=1048576 shows_load "$mprof" view --png "$tmp/big.png" \
      --width 200 --height 100 "$tmp/big.ctf" || return 1
    wiped "$tmp/tty" || fail "view: progress line not wiped"
    [ -s "$tmp/big.png" ] || fail "view drew no PNG"
    rm -f "$tmp/big.png"
    MPROF_VIEW_BUDGET_MIB=0 shows_load "$mprof" view --png "$tmp/big.png" \
      --width 200 --height 100 "$tmp/big.ctf" || return 1
    grep -q $'\r\e\[Kmprof view: .*: drawn from its [0-9]* events in one pass' "$tmp/tty" ||
      fail "view in one pass: $(od -c "$tmp/tty" | tail -4)"
    [ -s "$tmp/big.png" ] || fail "view in one pass drew no PNG"
  fi
}
for try in 1 2 3; do
  big_trace
  big_checks && break
  [ $try != 3 ] || fail "after 3 tries"
  rounds=$((rounds * 2))
done
"$mprof" report "$tmp/big.ctf" >"$tmp/out" 2>"$tmp/err"
[ ! -s "$tmp/err" ] || fail "report of a big trace printed: $(cat "$tmp/err")"
grep -q '^Critical path' "$tmp/out" || fail "report: $(head -3 "$tmp/out")"
echo "progress: ok"
