#!/usr/bin/env bash
# test_real.sh BUILD PROGRAM -- one unmodified Debian program that links
# libuv, run twice: plain, then under `mprof record`.  Both runs must print
# the same and exit with the same status; every trace must pass `mprof
# check`, be read by babeltrace2 event for event, and hold the threads that
# this program must make (its loop, its timers, its requests, and the
# `net send`/`net recv` labels of what it exchanged, matched against the
# trace of the peer or against the ports the program reported).
#
# PROGRAM: named (bind9 answering dig, both traced), kresd (knot-resolver
# answering dig), nvim (headless neovim), ctest (cmake's test driver
# spawning tests), luv (lua5.1 with lua-luv), uvloop (python3 asyncio under
# python3-uvloop).  luv and uvloop load libuv after start with dlopen's
# RTLD_LOCAL.  Servers listen on 127.0.0.1 only, on ports found free; every
# wait is bounded.  Outputs and traces stay in BUILD/test/real/PROGRAM.
set -u
build=$(cd "$1" && pwd)
program=$2
mprof=$build/mprof
here=$(cd "$(dirname "$0")" && pwd)
out=$build/test/real/$program
rm -rf "$out" && mkdir -p "$out/plain" "$out/traced"
status=0
fail() { echo "FAIL: $program: $*"; status=1; }

servers=() # pids this script must stop at exit, whatever happens
stop_servers() {
  local pid
  for pid in "${servers[@]}"; do
    kill -KILL "$pid" 2>/dev/null
  done
}
trap stop_servers EXIT

need() {
  local command
  for command in "$@"; do
    command -v "$command" >/dev/null ||
      { echo "FAIL: $program: $command is not installed (scripts/deps.sh)"; exit 1; }
  done
}

# run WAY NAME CMD...: CMD with its stdout in WAY/NAME.out, its stderr in
# WAY/NAME.err and its exit status in WAY/NAME.status; traced, under
# `mprof record -o traced/NAME.ctf`.  At most 60 s: timeout signals its
# whole process group, so the program too (mprof record passes no signal
# on).
run() {
  local way=$1 name=$2
  shift 2
  if [ "$way" = traced ]; then
    set -- "$mprof" record -o "$out/traced/$name.ctf" -- "$@"
  fi
  timeout -k 5 60 "$@" </dev/null >"$out/$way/$name.out" 2>"$out/$way/$name.err"
  echo $? >"$out/$way/$name.status"
}

# start WAY NAME CMD...: as run, in the background; sets job (the
# background job) and pid (the program's own process).
start() {
  run "$@" &
  job=$!
  pid=$(program_pid "$1" "$job") || { fail "$2 did not start"; return 1; }
  servers+=("$pid")
}

# program_pid WAY JOB: the program's process: the child of the job's
# timeout, or of the mprof record that timeout runs.
program_pid() {
  local depth=2 pid level
  [ "$1" = traced ] && depth=3
  for _ in $(seq 50); do
    pid=$2 level=0
    while [ $level -lt $depth ] && pid=$(pgrep -P "$pid"); do
      level=$((level + 1))
    done
    [ $level -eq $depth ] && { echo "$pid"; return 0; }
    sleep 0.1
  done
  return 1
}

gone() { ! kill -0 "$1"; }

# stop: SIGTERM to the program started last; its job ends within 20 s.
stop() {
  kill -TERM "$pid"
  wait_for 20 gone "$pid" || { fail "$pid did not stop on SIGTERM"; kill -KILL "$pid"; }
  wait "$job"
}

# wait_for SECONDS CMD...: until CMD succeeds, at most SECONDS.
wait_for() {
  local tenths=$(($1 * 10))
  shift
  while ! "$@" 2>/dev/null; do
    tenths=$((tenths - 1))
    [ $tenths -gt 0 ] || return 1
    sleep 0.1
  done
}

# Something listens on 127.0.0.1:PORT over TCP (no connection made: it
# would be in the trace).
listening() {
  grep -q "^ *[0-9]*: 0100007F:$(printf %04X "$1") 00000000:0000 0A" /proc/net/tcp
}

# Every output and exit status of the plain run is the traced run's.
same_as_plain() {
  local file name
  for file in "$out"/plain/*.out "$out"/plain/*.status; do
    name=${file##*/}
    cmp -s "$file" "$out/traced/$name" ||
      fail "$name differs under mprof record: $(diff "$file" "$out/traced/$name" | head -5)"
  done
}

# The trace passes mprof check, babeltrace2 reads every event of it with
# no warning (a TCP net_label or a UDP net_hash_label is one CTF event
# where mprof counts its label and its counter increase), and mprof
# report's model holds them all.
trace_is_valid() {
  local trace=$1 dir=$1.d events net_labels read modelled
  "$mprof" check "$trace" >"$trace.check" 2>&1 ||
    { fail "mprof check $trace: $(cat "$trace.check")"; return; }
  "$mprof" ctf "$trace" -o "$dir" 2>"$trace.ctf-err" ||
    { fail "mprof ctf $trace: $(cat "$trace.ctf-err")"; return; }
  babeltrace2 "$dir" >"$trace.bt" 2>"$trace.bt-err" ||
    { fail "babeltrace2 $dir: $(head -3 "$trace.bt-err")"; return; }
  [ ! -s "$trace.bt-err" ] || fail "babeltrace2 warned on $trace: $(head -3 "$trace.bt-err")"
  events=$("$mprof" stats --json "$trace" |
    /usr/bin/python3 -c 'import json, sys; print(json.load(sys.stdin)["events"])')
  net_labels=$(grep -cE '^\[.*\] .* net_(hash_)?label: ' "$trace.bt")
  read=$(wc -l <"$trace.bt")
  [ $((read + net_labels)) -eq "$events" ] ||
    fail "babeltrace2 read $read events (+$net_labels net_labels) of $trace's $events"
  modelled=$("$mprof" report --json "$trace" |
    /usr/bin/python3 -c 'import json, sys; print(json.load(sys.stdin)["events"])') ||
    { fail "mprof report $trace failed"; return; }
  [ "$modelled" -eq "$events" ] || fail "mprof report modelled $modelled events of $trace's $events"
}

# The trace's threads, one "TYPE LABEL" line per label a thread was given.
threads() {
  "$mprof" dump --raw "$1" | awk '
    / create / { split($0, f, "child="); split(f[2], g, " ");
                 type[g[1]] = substr(g[2], 6) }
    / label / { split($0, f, "target="); split(f[2], g, " ");
                text = $0; sub(/^[^"]*text="/, "", text); sub(/"$/, "", text);
                print type[g[1]], text }'
}

# has_thread TRACE TYPE LABEL: a thread of TYPE labelled LABEL (exactly).
has_thread() {
  threads "$1" | grep -qxF "$2 $3" ||
    fail "${1##*/}: no $2 thread labelled \"$3\""
}

# The trace's net labels, as "net send tcp SRC DST OFFSET LEN".
net_labels() {
  "$mprof" dump --raw "$1" | sed -n 's/.* label .* text="\(net [a-z]* [a-z]* [^ "]* [^ "]* [^ "]* [0-9]*\)"$/\1/p'
}

# mirrored CLIENT SERVER DIRECTION: each of the client trace's `net
# DIRECTION` labels is in the server's trace with the other direction
# (the client's send is the server's receive, same hash or offset, same
# length); there is at least one.
mirrored() {
  local client=$1 server=$2 direction=$3 other=send label count=0
  [ "$direction" = send ] && other=recv
  net_labels "$server" >"$server.net"
  while read -r label; do
    count=$((count + 1))
    grep -qxF "net $other ${label#net "$direction" }" "$server.net" ||
      fail "${server##*/} lacks the peer of ${client##*/}'s \"$label\""
  done < <(net_labels "$client" | grep "^net $direction ")
  [ $count -gt 0 ] || fail "${client##*/}: no net $direction label"
}

# has_net TRACE LABEL: the trace holds this net label, and babeltrace2 read
# its text too (a TCP label's head is a string event of the CTF stream).
has_net() {
  net_labels "$1" | grep -qxF "$2" || fail "${1##*/}: no \"$2\""
  local head
  head=$(echo "$2" | cut -d' ' -f1-5)
  grep -qF "\"$head" "$1.bt" || fail "${1##*/}: babeltrace2 did not read \"$head\""
}

# --- bind9: named answers dig over UDP and TCP ---------------------------

named_session() {
  local way=$1 port=$2 dir=$out/$1
  "$here/named_conf.sh" "$dir" named "$port" >"$dir/named.conf"
  start "$way" named named -g -n 1 -c "$dir/named.conf" || return
  wait_for 20 grep -q ' running$' "$dir/named.err" || fail "$way named did not start"
  run "$way" dig-udp dig @127.0.0.1 -p "$port" +tries=1 +time=5 +short www.example.test A
  run "$way" dig-tcp dig @127.0.0.1 -p "$port" +tries=1 +time=5 +tcp +short www.example.test TXT
  stop
}

check_named() {
  local t=$out/traced
  grep -qx 192.0.2.7 "$out/plain/dig-udp.out" || fail "dig did not get named's answer"
  grep -qx '"hello from mprof"' "$out/plain/dig-tcp.out" || fail "dig +tcp did not get named's answer"
  has_thread "$t/named.ctf" loop loop
  has_thread "$t/named.ctf" handle udp
  has_thread "$t/dig-udp.ctf" handle udp
  has_thread "$t/dig-udp.ctf" udp_send "udp send"
  has_thread "$t/dig-tcp.ctf" connect "connect 127.0.0.1:$port"
  threads "$t/named.ctf" | grep -q "^handle tcp from 127.0.0.1:[0-9]*$" ||
    fail "named.ctf: no accepted tcp connection"
  for client in dig-udp dig-tcp; do
    mirrored "$t/$client.ctf" "$t/named.ctf" send
    mirrored "$t/$client.ctf" "$t/named.ctf" recv
  done
  net_labels "$t/named.ctf" | grep -q "^net recv udp 127.0.0.1:[0-9]* 127.0.0.1:$port [0-9a-f]\{16\} [0-9]*$" ||
    fail "named.ctf: no udp receive on port $port"
  has_net "$t/named.ctf" "$(net_labels "$t/named.ctf" | grep -m1 '^net recv udp')"
}

# --- knot-resolver: kresd answers dig from its hints ----------------------

kresd_session() {
  local way=$1 port=$2 dir=$out/$1
  # No trust anchor, no module that asks the Internet: all stays local.
  cat >"$dir/config" <<EOF
net.ipv6 = false
net.listen('127.0.0.1', $port, { kind = 'dns' })
trust_anchors.remove('.')
modules.unload('detect_time_skew')
modules.unload('detect_time_jump')
modules.unload('priming')
modules.unload('ta_signal_query')
modules.load('hints > iterate')
hints['www.mprof.example.com'] = '192.0.2.8'
cache.size = 10 * MB
EOF
  start "$way" kresd kresd -n -c config "$dir" || return
  wait_for 20 listening "$port" || fail "$way kresd did not start"
  run "$way" dig-udp dig @127.0.0.1 -p "$port" +tries=1 +time=5 +short www.mprof.example.com A
  run "$way" dig-tcp dig @127.0.0.1 -p "$port" +tries=1 +time=5 +tcp +short www.mprof.example.com A
  stop
}

check_kresd() {
  local t=$out/traced
  grep -qx 192.0.2.8 "$out/plain/dig-udp.out" || fail "dig did not get kresd's answer"
  grep -qx 192.0.2.8 "$out/plain/dig-tcp.out" || fail "dig +tcp did not get kresd's answer"
  has_thread "$t/kresd.ctf" loop "default loop"
  has_thread "$t/kresd.ctf" handle "signal 15"
  has_thread "$t/kresd.ctf" handle udp
  threads "$t/kresd.ctf" | grep -q "^handle tcp from 127.0.0.1:[0-9]*$" ||
    fail "kresd.ctf: no accepted tcp connection"
  # kresd sends its UDP answers with sendmmsg, not through libuv: only the
  # question is labelled on its side.
  mirrored "$t/dig-udp.ctf" "$t/kresd.ctf" send
  mirrored "$t/dig-tcp.ctf" "$t/kresd.ctf" send
  mirrored "$t/dig-tcp.ctf" "$t/kresd.ctf" recv
  has_net "$t/kresd.ctf" "$(net_labels "$t/kresd.ctf" | grep -m1 '^net recv udp')"
}

# --- neovim: vim.loop timers and fs requests, headless --------------------

nvim_session() {
  local way=$1
  HOME=$out/$way TMPDIR=$out/$way NVIM_READ=$here/example.test.zone \
    run "$way" nvim nvim --headless -u NONE -i NONE -n \
    -c "luafile $here/nvim_timer.lua"
}

check_nvim() {
  local t=$out/traced/nvim.ctf
  grep -qx 'ticks 3' "$out/plain/nvim.out" || fail "nvim: the timer did not tick 3 times"
  has_thread "$t" loop loop
  has_thread "$t" timer timer
  has_thread "$t" fs "fs open $here/example.test.zone"
  has_thread "$t" fs "fs read"
  has_thread "$t" fs "fs close"
  has_thread "$t" fs "fs mkdtemp $out/traced/nvimXXXXXX"
  has_thread "$t" handle "signal 15"
  # The read of the zone file: at least its bytes counted.
  local size bytes
  size=$(stat -c %s "$here/example.test.zone")
  bytes=$("$mprof" stats --json "$t" |
    /usr/bin/python3 -c 'import json, sys; print(json.load(sys.stdin)["counters"]["uv bytes read"])')
  [ "$bytes" -ge "$size" ] || fail "nvim.ctf: uv bytes read $bytes < $size"
}

# --- ctest: cmake's test driver spawns its tests with libuv ---------------

ctest_session() {
  local way=$1 dir=$out/tests
  rm -rf "$dir" && mkdir -p "$dir"
  cat >"$dir/CTestTestfile.cmake" <<'EOF'
add_test(passes /usr/bin/echo one test passes)
add_test(fails /usr/bin/sh -c "echo and one fails; exit 3")
EOF
  # The times ctest prints vary from run to run; nothing else does.
  (cd "$dir" && run "$way" ctest ctest --parallel 1 --output-on-failure)
  sed -i 's/ [0-9.]* sec$/ TIME sec/' "$out/$way/ctest.out"
}

check_ctest() {
  local t=$out/traced/ctest.ctf
  grep -qx 8 "$out/plain/ctest.status" || fail "ctest: a failed test must make it exit 8"
  grep -qx 'and one fails' "$out/plain/ctest.out" || fail "ctest did not print the failed test's output"
  has_thread "$t" loop loop
  has_thread "$t" handle "process /usr/bin/echo"
  has_thread "$t" handle "process /usr/bin/sh"
  has_thread "$t" handle pipe
  has_thread "$t" timer timer
}

# --- lua-luv: lua5.1 loads luv.so (and libuv) RTLD_LOCAL ------------------

luv_session() {
  local way=$1
  run "$way" luv lua5.1 "$here/luv_echo.lua" "$out/$way/ports"
}

# The echo of luv_echo.lua or uvloop_echo.py (each on a loop of its own,
# not libuv's default loop): the received bytes of client and server, on
# the ports the program wrote (sets server and client).
check_echo() {
  local t=$1 sent=$2
  read -r server client <"$out/traced/ports" || { fail "no ports written"; return 1; }
  has_thread "$t" loop loop
  has_thread "$t" timer timer
  has_thread "$t" connect "connect 127.0.0.1:$server"
  has_thread "$t" handle "tcp from 127.0.0.1:$client"
  has_net "$t" "net recv tcp 127.0.0.1:$client 127.0.0.1:$server 0 $sent"
  has_net "$t" "net recv tcp 127.0.0.1:$server 127.0.0.1:$client 0 $sent"
}

check_luv() {
  grep -qx 'client got: HELLO LUV' "$out/plain/luv.out" || fail "luv: no echo"
  check_echo "$out/traced/luv.ctf" 9 || return
  # luv writes with uv_write: its sends are labelled too.
  has_thread "$out/traced/luv.ctf" write write
  has_net "$out/traced/luv.ctf" "net send tcp 127.0.0.1:$client 127.0.0.1:$server 0 9"
  has_net "$out/traced/luv.ctf" "net send tcp 127.0.0.1:$server 127.0.0.1:$client 0 9"
}

# --- python3-uvloop: Python loads uvloop's module (and libuv) RTLD_LOCAL --

uvloop_session() {
  local way=$1
  run "$way" uvloop /usr/bin/python3 "$here/uvloop_echo.py" "$out/$way/ports"
}

check_uvloop() {
  grep -qx 'client got: HELLO UVLOOP' "$out/plain/uvloop.out" || fail "uvloop: no echo"
  grep -qx 'loop: uvloop' "$out/plain/uvloop.out" || fail "uvloop: not uvloop's loop"
  # asyncio.sleep is a libuv timer; open_connection resolves the host first.
  check_echo "$out/traced/uvloop.ctf" 12 || return
  has_thread "$out/traced/uvloop.ctf" getaddrinfo "getaddrinfo 127.0.0.1"
}

case $program in
  named) need named dig; port=$("$here/free_port.py") ;;
  kresd) need kresd dig; port=$("$here/free_port.py") ;;
  nvim) need nvim ;;
  ctest) need ctest ;;
  luv) need lua5.1; [ -f /usr/lib/x86_64-linux-gnu/lua/5.1/luv.so ] ||
         { echo "FAIL: luv: lua-luv is not installed (scripts/deps.sh)"; exit 1; } ;;
  uvloop) /usr/bin/python3 -c 'import uvloop' 2>/dev/null ||
            { echo "FAIL: uvloop: python3-uvloop is not installed (scripts/deps.sh)"; exit 1; } ;;
  *) echo "usage: $0 BUILD named|kresd|nvim|ctest|luv|uvloop" >&2; exit 2 ;;
esac
need babeltrace2
for way in plain traced; do
  "${program}_session" "$way" ${port:+"$port"}
done
same_as_plain
# Each trace of the run, the children's (PATH.PID) too.
shopt -s nullglob
traces=("$out"/traced/*.ctf "$out"/traced/*.ctf.[0-9]*)
[ ${#traces[@]} -gt 0 ] || fail "no trace written"
for trace in "${traces[@]}"; do
  trace_is_valid "$trace"
done
"check_$program"
[ $status -eq 0 ] && echo "ok: $program: same output and status under mprof record; traces hold its threads"
exit $status
