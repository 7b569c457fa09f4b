#!/bin/sh
# bench_dns.sh BUILD_DIR DIR ROUNDS -- what `mprof record` costs a real
# server under load: bind9's named (one worker thread) answering a dnsperf
# flood over 127.0.0.1, plain and under `mprof record` (the libuv shim
# recording every query's receive, answer and labels, the trace in DIR).
# Both servers run side by side on ports found free; dnsperf floods one,
# then the other, for MPROF_BENCH_DNS_SECONDS (default 1) each, ROUNDS
# times, the first of each pair alternating.  Two JSON lines on stdout,
# medians, traced against plain: queries per second, and the server's CPU
# time per query (all its threads', from /proc); each round's figures on
# stderr.
set -eu
build=$1 dir=$2 rounds=$3
seconds=${MPROF_BENCH_DNS_SECONDS:-1}
here=$(cd "$(dirname "$0")" && pwd)
real=$here/../../test/real # the server's set-up, shared with the tests
note() { printf 'bench_dns: %s\n' "$*" >&2; }

for command in named dnsperf; do
  command -v $command >/dev/null ||
    { note "$command not found (scripts/deps.sh bench installs it)"; exit 1; }
done

# start_named NAME PORT [mprof record -o TRACE --]: named answering the
# zone of test/real on 127.0.0.1:PORT, its pid in DIR/NAME.pid once it is
# up (20 s at most).
start_named() {
  name=$1 port=$2
  shift 2
  "$real/named_conf.sh" "$dir" "$name" "$port" >"$dir/$name.conf"
  "$@" named -g -n 1 -c "$dir/$name.conf" </dev/null >/dev/null 2>"$dir/$name.log" &
  tenths=200
  until grep -q ' running$' "$dir/$name.log" 2>/dev/null && [ -s "$dir/$name.pid" ]; do
    tenths=$((tenths - 1))
    [ $tenths -gt 0 ] || { note "$name did not start: $(tail -3 "$dir/$name.log")"; exit 1; }
    sleep 0.1
  done
}

# shellcheck disable=SC2317 # called from the EXIT trap
stop_all() {
  for name in plain traced; do
    [ -s "$dir/$name.pid" ] && kill "$(cat "$dir/$name.pid")" 2>/dev/null
  done
  wait
  rm -f "$dir"/plain.* "$dir"/traced.* "$dir/queries" "$dir/flood.out" "$dir/dns.ctf"*
}
trap stop_all EXIT

# Three names of the zone, asked in turn.
for _ in $(seq 100); do
  printf 'www.example.test A\nwww.example.test TXT\nns.example.test A\n'
done >"$dir/queries"

plain_port=$("$real/free_port.py")
traced_port=$("$real/free_port.py")
start_named plain "$plain_port"
start_named traced "$traced_port" "$build/mprof" record -o "$dir/dns.ctf" --

# CPU time (ns) of all the threads of process PID so far.
cpu_ns() {
  cat /proc/"$1"/task/*/schedstat | awk '{ns += $1} END {printf "%.0f\n", ns}'
}

# flood NAME PORT: one flood of the server NAME on PORT, every query
# answered; prints its queries per second, the server's CPU time per query
# (ns) and how busy the server was (its CPU time over the flood's).
flood() {
  pid=$(cat "$dir/$1.pid")
  before=$(cpu_ns "$pid")
  dnsperf -s 127.0.0.1 -p "$2" -d "$dir/queries" -l "$seconds" >"$dir/flood.out" 2>&1 ||
    { note "dnsperf failed: $(tail -3 "$dir/flood.out")"; exit 1; }
  after=$(cpu_ns "$pid")
  grep -q 'Queries lost: *0 ' "$dir/flood.out" ||
    { note "queries lost: $(grep 'Queries lost' "$dir/flood.out")"; exit 1; }
  awk -v cpu=$((after - before)) '
    /Queries completed:/ { completed = $3 }
    /Queries per second:/ { qps = $4 }
    /Run time \(s\):/ { run_s = $4 }
    END { if (completed > 0 && run_s > 0)
            printf "%s %.1f %.2f\n", qps, cpu / completed, cpu / 1e9 / run_s }' "$dir/flood.out"
}

qps_plain= qps_traced= cpu_plain= cpu_traced=
for round in $(seq "$rounds"); do
  if [ $((round % 2)) -eq 0 ]; then
    t=$(flood traced "$traced_port")
    p=$(flood plain "$plain_port")
  else
    p=$(flood plain "$plain_port")
    t=$(flood traced "$traced_port")
  fi
  # shellcheck disable=SC2086 # each flood's three figures
  set -- $p $t
  note "round $round: plain $1 queries/s, $2 ns CPU/query, $3 CPUs busy;" \
    "traced $4 queries/s, $5 ns CPU/query, $6 CPUs busy"
  qps_plain="$qps_plain $1" cpu_plain="$cpu_plain $2"
  qps_traced="$qps_traced $4" cpu_traced="$cpu_traced $5"
done

# The traced server did record its work (not a shim that only forwards).
"$build/mprof" check "$dir/dns.ctf" >"$dir/traced.check" 2>&1 &&
  grep -q ": ok, [1-9][0-9]* events" "$dir/traced.check" ||
  { note "the trace: $(cat "$dir/traced.check")"; exit 1; }
note "traced named's trace: $(cat "$dir/traced.check")"

median() { printf '%s\n' "$@" | sort -g | awk '{v[NR] = $1} END {print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2}'; }
json() {
  awk -v metric="$1" -v value="$2" -v base="$3" 'BEGIN {
    printf "{\"bench\":\"dns_named\",\"metric\":\"%s\",\"value\":%.6g," \
           "\"baseline\":\"named_plain\",\"baseline_value\":%.6g,\"ratio\":%.4g}\n",
           metric, value, base, value / base }'
}
# shellcheck disable=SC2086 # the lists split into their figures
json queries_per_s "$(median $qps_traced)" "$(median $qps_plain)"
# shellcheck disable=SC2086
json cpu_ns_per_query "$(median $cpu_traced)" "$(median $cpu_plain)"
