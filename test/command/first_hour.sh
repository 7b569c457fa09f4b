#!/usr/bin/env bash
# first_hour.sh BUILD NET_CTF [PROGRAM] -- a newcomer's first hour with the
# mprof command, right and wrong: each mistake gives exactly one line
# "mprof CMD: WHAT: WHY" and its exit code, and nothing starts or is
# written; what works says what it made.  PROGRAM, a libuv program that
# ends by itself, is recorded where libuv was found.
source "$(dirname "$0")/common.sh"
net_ctf=$2
program=${3:-}
cd "$tmp"

# run CODE COMMAND...: run it in $tmp, require that exit code.
run() {
  local want=$1; shift
  set +e; "$@" >out 2>err; local got=$?; set -e
  [ "$got" = "$want" ] || fail "$* exited $got, not $want: $(cat err)"
}
# said LINE: stderr is exactly that one line.
said() {
  [ "$(cat err)" = "$1" ] || fail "said: $(cat err)
wanted: $1"
}

# record refuses, before the program starts, what cannot work: the
# program would have made started.txt.
mkdir adir
printf '#!/bin/sh\ntouch started.txt\n' >script.sh
chmod -x script.sh
run 2 "$mprof" record
said "mprof record: PROGRAM: missing; for example: mprof record -- ./server"
run 3 "$mprof" record -- ./nosuch
said "mprof record: ./nosuch: No such file or directory; give the program's path"
PATH=/nowhere run 3 "$mprof" record -- nosuch
said "mprof record: nosuch: no such program in PATH; give its path, as ./nosuch"
run 3 "$mprof" record -- ./script.sh
said "mprof record: ./script.sh: not executable; chmod +x it, or record the program that runs it (sh, node)"
run 3 "$mprof" record -- ./adir
said "mprof record: ./adir: a directory; give the program in it"
chmod +x script.sh
run 3 "$mprof" record -o /nonexistent/dir/r.ctf -- ./script.sh
said "mprof record: /nonexistent/dir/r.ctf: its directory /nonexistent/dir: No such file or directory; make it, or name another -o"
run 3 "$mprof" record -o adir -- ./script.sh
said "mprof record: adir: a directory, not a file; name a file in it, as -o adir/NAME"
chmod 500 adir
if [ "$(id -u)" != 0 ]; then # root writes anywhere
  run 3 "$mprof" record -o adir/t.ctf -- ./script.sh
  said "mprof record: adir/t.ctf: its directory adir: Permission denied; name another -o"
fi
chmod 700 adir
mknod -m 666 null c 1 3 2>/dev/null || mkfifo null
run 3 "$mprof" record -o null -- ./script.sh
said "mprof record: null: not a regular file; a trace is one: name another -o"
[ ! -f null ] || fail "record put a file in place of a device"
run 2 "$mprof" record --size 10 -- ./script.sh
said "mprof record: --size: 10 is below the least trace size, 64K; give 64K or more"
run 2 "$mprof" record --size 8X -- ./script.sh
said "mprof record: --size: 8X is not a size; give one like 8M or 512K"
[ ! -e started.txt ] || fail "a refused record started its program"
[ -z "$(ls adir)" ] && [ ! -e trace.ctf ] || fail "a refused record wrote: $(ls -R)"

# A program the shim never sees call libuv: no trace, no "view it", why.
# (Not in a sanitizer build: its shim cannot load into the shell.)
if [ "${MPROF_TEST_SANITIZED:-0}" = 1 ]; then
  echo "first_hour: the shell script's run is not in a sanitizer build"
else
run 0 "$mprof" record -- ./script.sh
[ -e started.txt ] || fail "record did not run the program"
[ "$(tail -3 err)" = "mprof record: ./script.sh: the shim saw no libuv call, so there is no trace to view
  (a program without libuv, with libuv linked in statically, or one
  that exited before its loop ran)" ] || fail "nothing seen: $(cat err)"
! grep -q "view it" err || fail "view it for an empty trace: $(cat err)"
[ ! -e trace.ctf ] && [ ! -e trace.ctf.manifest ] || fail "an empty trace kept: $(ls)"
fi

if [ -n "$program" ]; then
  # A libuv program: what it recorded, where, and how to view it; a
  # second run keeps the first trace as NAME.old.
  run 0 "$mprof" record -o r.ctf -- "$program"
  grep -qx "  r.ctf: $(basename "$program"), pid [0-9]*, [0-9]* events" err ||
    fail "record's listing: $(cat err)"
  grep -qx "  view it:  mprof report r.ctf.manifest" err || fail "no view it: $(cat err)"
  cp r.ctf first.ctf
  run 0 "$mprof" record -o r.ctf -- "$program"
  [ "$(head -1 err)" = "mprof record: the previous trace is now r.ctf.old" ] ||
    fail "previous trace: $(cat err)"
  cmp -s first.ctf r.ctf.old || fail "r.ctf.old is not the first trace"
  ! cmp -s first.ctf r.ctf || fail "the second trace is the first"
  # dump: the events of every stream in time order, each thread named by
  # its first label; --raw: the same events in stream order, unnamed.
  run 0 "$mprof" dump r.ctf
  mv out dump.txt
  run 0 "$mprof" dump --raw r.ctf
  awk '$1 < last { bad++ } { last = $1 } END { exit bad > 0 }' dump.txt ||
    fail "dump not in time order"
  ! awk '$1 < last { bad++ } { last = $1 } END { exit bad > 0 }' out ||
    fail "dump --raw in time order: the test shows nothing"
  cmp -s <(sed 's/ thread_name="[^"]*"$//' dump.txt | sort) <(sort out) ||
    fail "dump and dump --raw differ in their events"
  ! grep -q thread_name out || fail "dump --raw names threads"
  # a thread's name is the text of the first label of it (--raw's lines)
  first_label=$(awk '$3 == "label" { sub("target=", "", $5); print $5; exit }' out)
  text=$(grep -m1 " label .* target=$first_label " out | sed 's/.* text=//')
  grep -q "^[0-9]* [0-9]* [a-z_]* thread=$first_label .*thread_name=$text\$" dump.txt ||
    fail "thread $first_label not named $text: $(grep -m3 "thread=$first_label " dump.txt)"
  # stats names the program, as record's listing did.
  run 0 "$mprof" stats r.ctf
  [ "$(head -1 out)" = "r.ctf: program $(basename "$program")" ] ||
    fail "stats: $(cat out)"
fi
# The same mistake gets the same line in every command: a directory or a
# missing file given as a trace, an output left out.
for command in report dump stats check export "view --png v.png" \
               "html -o h" "ctf -o c" "snapshot -o s" "redact -o r"; do
  name=${command%% *}
  run 3 "$mprof" $command adir
  said "mprof $name: adir: a directory, not a trace; give a trace file in it (mprof record writes trace.ctf)"
  run 3 "$mprof" $command nosuch.ctf
  said "mprof $name: nosuch.ctf: No such file or directory; give the path of a trace"
done
[ ! -e v.png ] && [ ! -e h ] && [ ! -e c ] && [ ! -e s ] && [ ! -e r ] ||
  fail "a refused command wrote: $(ls)"
cp "$net_ctf" net.ctf
run 2 "$mprof" ctf net.ctf
said "mprof ctf: -o: missing; name the directory to write, as mprof ctf net.ctf -o trace-ctf"
run 2 "$mprof" html net.ctf
said "mprof html: -o: missing; name the directory to write, as mprof html net.ctf -o trace-html"
run 2 "$mprof" merge net.ctf
said "mprof merge: -o: missing; name the directory to write, as -o both"
run 2 "$mprof" redact net.ctf
said "mprof redact: -o: missing; name the trace to write, as -o shareable.ctf"
run 3 "$mprof" export net.ctf -o adir
said "mprof export: adir: a directory, not a file; name a file in it, as -o adir/NAME"
run 2 "$mprof" dump --raw-ns net.ctf
said "mprof dump: --raw-ns: no such option; see mprof help dump"
run 2 "$mprof" export --format
said "mprof export: --format: needs a value; see mprof help export"

# A range outside the trace draws nothing: refused, saying where it ends.
run 2 "$mprof" view --png v.png --range 100s:200s net.ctf
said "mprof view: --range: starts after the trace ends, at 5898.600 ms; give a range within 0:5898.600ms"
[ ! -e v.png ] || fail "a picture of nothing was drawn"
run 0 "$mprof" view --png v.png --range 1s:2s net.ctf
[ -s v.png ] || fail "no picture of a range within the trace"

# stats for a person: times with units, sizes rounded; --json exact.
run 0 "$mprof" stats net.ctf
[ "$(sed -n '1,2p;/^  size/p;/^  packets/p;/^  streams/p;/^  discarded/p' out)" = \
"net.ctf: a legacy trace (it names no program)
  events: 10078 over 5.899 s
  discarded: 0
  size: 27.9 bytes per event
  packets: 4 (0 overwritten when the ring wrapped, 0 missing)
  streams: 1" ] || fail "stats: $(cat out)"
grep -qx "    switch: 358" out || fail "stats by type: $(cat out)"
run 0 "$mprof" stats --json net.ctf
/usr/bin/python3 -c '
import json, sys
s = json.load(open("out"))
assert s["program"] is None and s["time_span_ns"] == 5898599766, s
assert abs(s["bytes_per_event"] - 27.946517166104385) < 1e-12, s
' || fail "stats --json: $(cat out)"

# snapshot writes where -o says (-w is -o).
run 0 "$mprof" snapshot -o copy.ctf net.ctf
cmp -s copy.ctf net.ctf || fail "snapshot -o"
run 0 "$mprof" snapshot -w copy2.ctf net.ctf
cmp -s copy2.ctf net.ctf || fail "snapshot -w"
echo "first hour: ok"
